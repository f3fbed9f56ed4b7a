"""hostshape: shape MCP tool results inside the agent host.

``shape(result, policy=..., tool=...)`` turns whatever a host hands over into the exact text a model should read,
within a hard token budget, with an in-band envelope saying what was cut and how to get it back.

The public names load on first use, so ``import hostshape`` (and the ``hostshape hook`` command's fast path) costs
almost nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str
    from hostshape.pipeline import shape
    from hostshape.policy import Policy, Rule
    from hostshape.result import Shaped
    from hostshape.tokens import count_tokens

__all__ = ["Policy", "Rule", "Shaped", "__version__", "count_tokens", "shape"]

_HOMES = {
    "Policy": "hostshape.policy",
    "Rule": "hostshape.policy",
    "Shaped": "hostshape.result",
    "count_tokens": "hostshape.tokens",
    "shape": "hostshape.pipeline",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one source: pyproject.toml, read from the installed distribution's metadata
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("hostshape")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'hostshape' has no attribute {name!r}")
