"""Lazy framework imports with an error that names the extra to install."""

from __future__ import annotations

import importlib


def require(extra: str, *modules: str) -> None:
    """Import ``modules`` or raise ImportError telling the user to ``pip install 'hostshape[extra]'``."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(
                f"hostshape's {extra} adapter needs the {module!r} package: pip install 'hostshape[{extra}]'"
            ) from exc
