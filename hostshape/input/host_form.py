"""The host's form: what one host shows the model when hostshape leaves a result alone, how it sends hostshape's
replacement, its own caps on that replacement and the notes its own cuts call for. Part of what the host hands
the core (``shape(raw, ..., host=form)``); adapters build it, and every fact in it cites the host's code."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class HostForm:
    """What one host shows the model, and the limits it puts on hostshape's replacement.

    - ``as_is``: the exact text the model reads when the result is left alone (Claude Code's ``{"result": ...}``
      string, ADK's dumped ``CallToolResult``); None when that is the unwrapped text the core measures anyway.
    - ``wrap``: how the host sends a replacement ``text`` (ADK and LiteLLM: ``json.dumps({"result": text})``); the
      budget and the caps hold for ``wrap(text)``. None: the text is sent as it is.
    - ``max_chars`` / ``max_bytes``: the host's own cap on the replacement, in characters / UTF-8 bytes.
    - ``notes``: one host note in decreasing lengths (e.g. "Claude Code truncated this result ..."); the first that
      leaves half the budget heads the text on its own line, none when even the last does not.
    - ``replace``: the host's result is only a notice (an overflow the adapter read back), so even a result that fits
      replaces it.
    """

    as_is: str | None = None
    wrap: Callable[[str], str] | None = None
    max_chars: int | None = None
    max_bytes: int | None = None
    notes: tuple[str, ...] = ()
    replace: bool = False


def json_result(text: str) -> str:
    """``{"result": text}`` as ADK's LiteLLM connector and Claude's FastMCP wrapper send it (non-ASCII kept)."""
    return json.dumps({"result": text}, ensure_ascii=False)
