"""The answer after hostshape itself failed: a plain cut of the result's text that still fits the budget.

Used by ``shape`` under ``on_fault="cut"`` (the default). It depends on as little of the pipeline as it can (the
standard library's JSON, the tokenizer, the spill store), because any other step may be the one that failed:
the best-effort text of the raw result is saved for retrieval when the store works, and the model reads its
start with a note saying shaping failed, as JSON (``{"_hostshape": {...}, "preview": "..."}``) when the result
looked like JSON, else as text ending with a ``[hostshape]`` line.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hostshape.budget import Limit

log = logging.getLogger("hostshape")

_WINDOW_CHARS_PER_TOKEN = 8  # the cut is searched within this many characters per budget token
_LAST_RESORT_JSON = ('{"_hostshape":"shaping failed; truncated"}', '{"_hostshape":"truncated"}', '"truncated"', "0")
_LAST_RESORT_TEXT = ("[hostshape] shaping failed; truncated", "[hostshape] truncated", "…")


def best_effort_text(raw: Any) -> tuple[str, bool]:
    """Whatever text can be had from ``raw`` after a fault, and whether it looks like JSON; never raises."""
    from hostshape.render import safe_text

    attempts = (lambda: _unwrapped(raw), lambda: (raw if isinstance(raw, str) else repr(raw)[:1_000_000], None))
    for attempt in attempts:
        try:
            text, is_json = attempt()
            text = safe_text(str(text))
            if is_json is None:
                is_json = text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")
            return text, bool(is_json)
        except Exception:  # noqa: BLE001 - the next attempt is simpler
            continue
    return f"<unprintable {type(raw).__name__}>", False


def _unwrapped(raw: Any) -> tuple[str, bool | None]:
    from hostshape.unwrap import unwrap

    payload = unwrap(raw)
    return payload.text, payload.looks_json


def cut_answer(text: str, is_json: bool, limit: Limit, fault: str, handle: str | None, tool: str | None,
               path: str | None = None) -> str:
    """The longest start of ``text`` that fits ``limit`` beside a note naming the fault and the way back."""
    if handle and tool:
        way = f'full result: call {tool} with handle "{handle}"'
    elif handle:
        way = f"full result saved at {path}" if path else f"full result saved as {handle}"
    else:
        way = "full result not saved; call the tool with narrower arguments"
    note = f"shaping failed ({fault}); this is the start of the result, cut to the budget"

    def render(prefix: str) -> str:
        cut = len(prefix) < len(text)
        if is_json:
            envelope = {"truncated": cut, "note": note, "handle": handle, "hint": way}
            if handle is None:
                del envelope["handle"]
            body = prefix + "…" if cut else prefix
            return json.dumps({"_hostshape": envelope, "preview": body}, ensure_ascii=False, separators=(",", ":"))
        return f"{prefix}{'…' if cut else ''}\n[hostshape] {note}; {way}"

    source = text[: limit.tokens * _WINDOW_CHARS_PER_TOKEN + 1]
    best = None
    low, high = 0, len(source)
    while low <= high:  # the longest prefix that fits, by bisection (about 16 exact counts)
        middle = (low + high) // 2
        candidate = render(source[:middle])
        if limit.fits(candidate):
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    if best is not None and (low > 1 or not text):
        return best
    for option in _LAST_RESORT_JSON if is_json else _LAST_RESORT_TEXT:
        if limit.fits(option):
            return option
    return _LAST_RESORT_JSON[-1] if is_json else _LAST_RESORT_TEXT[-1]
