"""The answer after hostshape itself failed: by default a plain cut of the result's text that still fits the budget.

``after_fault`` is what ``shape`` (and an adapter whose own glue failed) answers, per ``policy.on_fault``. It
depends on as little of the pipeline as it can (the tokenizer, the spill store, the envelope's wording), because
any other step may be the one that failed: the best-effort text of the raw result is saved for retrieval when the
store works, and the model reads its start with the envelope saying shaping failed, as JSON (``{"_hostshape":
{...}, "preview": "..."}``) when the result looked like JSON, else as text ending with a ``[hostshape]`` line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

import orjson

from hostshape.fit.budget import Limit
from hostshape.input.contract import TextBlock, ToolResult
from hostshape.output.envelope import WayBack, fault_answer, last_resort_texts, refusal
from hostshape.output.render import safe_text
from hostshape.policy import Policy
from hostshape.result import Shaped
from hostshape.wayback.stores import open_store, unsaved_reason

if TYPE_CHECKING:
    from typing_extensions import Unpack

log = logging.getLogger("hostshape")

_WINDOW_CHARS_PER_TOKEN = 8  # the cut is searched within this many characters per budget token


class Site(TypedDict, total=False):
    """Where a failed result came from, as the policy's rules and the spill store name it (default: unnamed)."""

    tool: str | None
    server: str | None


def after_fault(
    raw: Any,
    policy: Policy,
    exc: BaseException,
    *,
    args: Mapping[str, Any] | None = None,
    started: float | None = None,
    budget: int | None = None,
    fits: Callable[[str], bool] | None = None,
    **site: Unpack[Site],
) -> Shaped:
    """The answer after shaping ``raw`` failed with ``exc``, per ``policy.on_fault``: a budgeted cut (``"cut"``,
    the default), a budgeted refusal (``"refuse"``), or the host's result untouched (``"pass"``: ``changed`` is
    False). ``budget`` replaces the tool's budget when given; ``fits`` says whether a text fits (default: within the
    budget; a host's form and caps for an adapter's glue). Logs the fault."""
    tool, server = site.get("tool"), site.get("server")
    log.error(
        "hostshape failed to shape the result of %s; on_fault=%s", tool or "a tool", policy.on_fault, exc_info=exc
    )
    if budget is None:
        try:
            budget = policy.budget_for(tool, server)
        except Exception:  # noqa: BLE001 - the policy's own budget is always valid
            budget = policy.budget
    limit = Limit.of(policy, budget)
    fits = fits or limit.fits
    elapsed = (time.perf_counter() - started) * 1000 if started is not None else 0.0
    fault = type(exc).__name__

    def answer(text: str, **fields: Any) -> Shaped:
        fields.setdefault("input_text", text)
        fields.setdefault("bytes_before", len(text.encode("utf-8", "replace")))
        return Shaped(
            text=text,
            budget=budget,
            tool=tool,
            server=server,
            fault=safe_text(f"{fault}: {_message(exc)}")[:200],
            encoding=policy.encoding,
            elapsed_ms=elapsed,
            **fields,
        )

    if policy.on_fault == "pass":  # the documented opt-in: fail open, the budget is not kept
        text = raw if isinstance(raw, str) else best_effort_text(raw)[0]
        return answer(text, changed=False, is_json=False, truncated=False, strategy="fault")
    if policy.on_fault == "refuse":
        text = _first_fitting([refusal(fault, fits, tool), *last_resort_texts(False, None)], fits)
        return answer(
            text, changed=True, is_json=False, bytes_before=0, input_text="", truncated=True, strategy="refused"
        )
    text, is_json = best_effort_text(raw)
    way = _saved(text, is_json, policy, tool, args)
    cut = cut_answer(text, is_json, fits, limit.tokens, fault, way)
    return answer(
        cut,
        changed=True,
        is_json=is_json,
        bytes_before=len(text.encode("utf-8", "replace")),
        input_text=text,
        truncated=True,
        strategy="fault",
        handle=way.handle,
        path=way.path,
    )


def _saved(text: str, is_json: bool, policy: Policy, tool: str | None, args: Mapping[str, Any] | None) -> WayBack:
    """Where the best-effort text was saved, if it could be."""
    if not policy.spill:
        return WayBack.unsaved()
    try:
        saved = open_store(policy).save(tool, dict(args or {}), text, is_json=is_json)
    except Exception:  # noqa: BLE001 - the answer says the result was not saved
        log.warning("hostshape could not save the result after a fault", exc_info=True)
        return WayBack.unsaved(unsaved_reason(policy))
    return WayBack(handle=saved.handle, path=saved.path, tool=policy.retrieval_tool)


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return "(no message)"


def best_effort_text(raw: Any) -> tuple[str, bool]:
    """Whatever text can be had from ``raw`` after a fault, and whether it looks like JSON; never raises."""
    attempts = (
        lambda: _unwrapped(raw),
        lambda: (_plain_text(raw), None),
        lambda: (raw if isinstance(raw, str) else repr(raw)[:1_000_000], None),
    )
    for attempt in attempts:
        try:
            text, is_json = attempt()
            text = safe_text(str(text))
            if is_json is None:
                is_json = _is_json(text)
            return text, bool(is_json)
        except Exception:  # noqa: BLE001 - the next attempt is simpler
            continue
    return f"<unprintable {type(raw).__name__}>", False


def _is_json(text: str) -> bool:
    """Whether the whole ``text`` parses as JSON (orjson: linear, depth-bounded), without the pipeline's parser."""
    try:
        orjson.loads(text)
    except Exception:  # noqa: BLE001 - not JSON, or too deep to tell: treat as text
        return False
    return True


def _unwrapped(raw: Any) -> tuple[str, bool | None]:
    from hostshape.input.host_forms import tool_result
    from hostshape.input.payload import payload_of

    payload = payload_of(tool_result(raw))
    return payload.text, payload.looks_json


def _plain_text(raw: Any) -> str:
    """The text of a ``ToolResult`` read without the pipeline: its text blocks, else its structured copy as JSON."""
    if not isinstance(raw, ToolResult):
        raise TypeError("not a ToolResult")
    texts = [block.text for block in raw.content if isinstance(block, TextBlock)]
    if texts:
        return "\n".join(texts)
    if isinstance(raw.structured, str):
        return raw.structured
    return orjson.dumps(raw.structured).decode()


def cut_answer(text: str, is_json: bool, fits: Callable[[str], bool], tokens: int, fault: str, way: WayBack) -> str:
    """The longest start of ``text`` that ``fits`` beside the envelope naming the fault and the way back;
    ``tokens`` (the budget) bounds the search."""
    source = text[: tokens * _WINDOW_CHARS_PER_TOKEN + 1]
    best = None
    low, high = 0, len(source)
    while low <= high:  # the longest prefix that fits, by bisection (about 16 exact counts)
        middle = (low + high) // 2
        candidate = fault_answer(source[:middle], middle < len(text), is_json, fault, way)
        if fits(candidate):
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    if best is not None and (low > 1 or not text):
        return best
    return _first_fitting(last_resort_texts(is_json, way.handle), fits)


def _first_fitting(options: list[str], fits: Callable[[str], bool]) -> str:
    """The first of ``options`` that fits; the last (the shortest) when none does."""
    return next((option for option in options if fits(option)), options[-1])
