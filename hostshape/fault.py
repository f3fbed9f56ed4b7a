"""The answer after hostshape itself failed: by default a plain cut of the result's text that still fits the budget.

``after_fault`` is what ``shape`` (and an adapter whose own glue failed) answers, per ``policy.on_fault``. It
depends on as little of the pipeline as it can (the
standard library's JSON, the tokenizer, the spill store), because any other step may be the one that failed:
the best-effort text of the raw result is saved for retrieval when the store works, and the model reads its
start with a note saying shaping failed, as JSON (``{"_hostshape": {...}, "preview": "..."}``) when the result
looked like JSON, else as text ending with a ``[hostshape]`` line.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from hostshape.fit.budget import Limit
from hostshape.output.render import safe_text
from hostshape.policy import Policy
from hostshape.result import Shaped
from hostshape.wayback.spill import store_for

log = logging.getLogger("hostshape")

_WINDOW_CHARS_PER_TOKEN = 8  # the cut is searched within this many characters per budget token
_LAST_RESORT_JSON = ('{"_hostshape":"shaping failed; truncated"}', '{"_hostshape":"truncated"}', '"truncated"', "0")
_LAST_RESORT_TEXT = ("[hostshape] shaping failed; truncated", "[hostshape] truncated", "…")


def after_fault(
    raw: Any,
    policy: Policy,
    exc: BaseException,
    *,
    tool: str | None = None,
    server: str | None = None,
    args: Mapping[str, Any] | None = None,
    started: float | None = None,
) -> Shaped:
    """The answer after shaping ``raw`` failed with ``exc``, per ``policy.on_fault``: a budgeted cut (``"cut"``,
    the default), a budgeted refusal (``"refuse"``), or the host's result untouched (``"pass"``: ``changed`` is
    False). Logs the fault. Adapters call this too when their own glue fails."""
    log.error(
        "hostshape failed to shape the result of %s; on_fault=%s", tool or "a tool", policy.on_fault, exc_info=exc
    )
    fault = safe_text(f"{type(exc).__name__}: {_message(exc)}")[:200]
    try:
        budget = policy.budget_for(tool, server)
    except Exception:  # noqa: BLE001 - the policy's own budget is always valid
        budget = policy.budget
    elapsed = (time.perf_counter() - started) * 1000 if started is not None else 0.0
    common: dict[str, Any] = dict(
        budget=budget, tool=tool, server=server, fault=fault, encoding=policy.encoding, elapsed_ms=elapsed
    )
    if policy.on_fault == "pass":  # the documented opt-in: fail open, the budget is not kept
        text = raw if isinstance(raw, str) else best_effort_text(raw)[0]
        return Shaped(
            text=text,
            changed=False,
            is_json=False,
            bytes_before=len(text.encode("utf-8", "replace")),
            truncated=False,
            strategy="fault",
            input_text=text,
            **common,
        )
    limit = Limit.of(policy, budget)
    if policy.on_fault == "refuse":
        from hostshape.host import refusal  # the one refusal wording every host shares

        text = refusal(type(exc).__name__, limit.fits, tool)
        if not limit.fits(text):
            text = next((t for t in _LAST_RESORT_TEXT if limit.fits(t)), _LAST_RESORT_TEXT[-1])
        return Shaped(
            text=text, changed=True, is_json=False, bytes_before=0, truncated=True, strategy="refused", **common
        )
    text, is_json = best_effort_text(raw)
    handle = path = None
    if policy.spill:
        try:
            saved = store_for(policy.spill_dir, policy.spill_max_bytes).save(
                tool, dict(args or {}), text, is_json=is_json
            )
            handle, path = saved.handle, str(saved.path)
        except Exception:  # noqa: BLE001 - the answer says the result was not saved
            log.warning("hostshape could not save the result after a fault", exc_info=True)
    answer = cut_answer(text, is_json, limit, type(exc).__name__, handle, policy.retrieval_tool, path)
    return Shaped(
        text=answer,
        changed=True,
        is_json=is_json,
        bytes_before=len(text.encode("utf-8", "replace")),
        truncated=True,
        strategy="fault",
        handle=handle,
        path=path,
        input_text=text,
        **common,
    )


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return "(no message)"


def best_effort_text(raw: Any) -> tuple[str, bool]:
    """Whatever text can be had from ``raw`` after a fault, and whether it looks like JSON; never raises."""
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
    from hostshape.input.unwrap import unwrap

    payload = unwrap(raw)
    return payload.text, payload.looks_json


def cut_answer(
    text: str, is_json: bool, limit: Limit, fault: str, handle: str | None, tool: str | None, path: str | None = None
) -> str:
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
