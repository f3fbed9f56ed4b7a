"""Shaping one MCP tool result for the proxy and the FastMCP middleware: the text block and a structured copy that
both fit the budget, and which output schemas every shaped copy satisfies."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hostshape.output.envelope import KEY
from hostshape.policy import Policy

log = logging.getLogger("hostshape.proxy")


def shape_call_result(
    result: Any, policy: Policy, *, tool: str, server: str | None = None, args: Mapping[str, Any] | None = None
) -> Any:
    """A ``CallToolResult`` (an ``isError`` one too) shaped to ``policy``; the same object when it fits.

    The shaped result has one text block and, when the original had ``structuredContent``, a structured copy; the
    two together fit the budget (see ``shape_mcp_result``). Never raises on bad data: ``shape`` does not."""
    from mcp import types

    shaped = shape_mcp_result(
        result.model_dump(mode="json", by_alias=True, exclude_none=True), policy, tool=tool, server=server, args=args
    )
    if shaped is None:
        return result
    text, structured = shaped
    return result.model_copy(
        update={"content": [types.TextContent(type="text", text=text)], "structuredContent": structured}
    )


def shape_mcp_result(
    raw: Mapping[str, Any],
    policy: Policy,
    *,
    tool: str,
    server: str | None = None,
    args: Mapping[str, Any] | None = None,
) -> tuple[str, dict[str, Any] | None] | None:
    """Shape one MCP tool result (``{"content": [...], "structuredContent": ..., "isError": ...}`` as plain data).

    None when it is left as it is (it fits, or on a fault with ``on_fault="pass"``); else ``(text, structured)``:
    the text for a single text block, and for results that had ``structuredContent`` a structured copy (None
    otherwise). Hosts differ in which of the two they show the model (Claude Code shows the structured copy, most
    others the text, Google ADK both), so the text and the structured copy as the host serialises it (compact JSON)
    fit the budget together. A structured copy of the text (FastMCP's ``{"result": "<text>"}`` wrapper, or the
    text's JSON) is rebuilt from the shaped text; structured content that is not a copy is shaped on its own
    (its full form saved behind its own handle) and the text kept or shaped beside it.

    A fault in this glue is answered as every adapter's is (``hostshape.host.glue_fault``, per ``policy.on_fault``):
    a budgeted cut by default, never the result unshaped unless the policy says ``"pass"``."""
    fit = _Fit(policy, tool, server, args)
    try:
        return _shape_mcp_result(raw, fit)
    except Exception as exc:  # noqa: BLE001 - the proxy and the middleware keep running
        log.exception("hostshape proxy could not shape the result of %s", tool)
        from hostshape.host import glue_fault

        text = glue_fault(dict(raw), policy, exc, tool=tool, server=server)
        return None if text is None else (text, None)


def _shape_mcp_result(raw: Mapping[str, Any], fit: _Fit) -> tuple[str, dict[str, Any] | None] | None:
    policy, tool, server = fit.policy, fit.tool, fit.server
    original = raw.get("structuredContent")
    if original is None:
        shaped = fit.shape(raw, policy)
        return (shaped.text, None) if shaped.changed else None
    budget = policy.budget_for(tool, server)
    text_raw = {k: v for k, v in raw.items() if k != "structuredContent"}
    text = _joined_text(raw)
    # Each count is compared with the budget only: one surely over it is not tokenized whole.
    structured_tokens = fit.tokens_within(_compact(original), budget)
    text_tokens = fit.tokens_within(text, budget) if text is not None else budget + 1  # other blocks: shape decides
    # a copy with a top-level _hostshape member (the tool's, a forged envelope) is shaped, its member set aside
    forged = isinstance(original, dict) and KEY in original
    if text is not None and text_tokens + structured_tokens <= budget and not forged:
        return None
    if _is_copy(text, original):
        return _shape_with_copy(fit, raw, original, budget)
    # Two different things: each keeps what it needs when small, else they share the budget.
    if text_tokens <= budget / 2:
        text_share = text_tokens
    elif structured_tokens <= budget / 2:
        text_share = budget - structured_tokens
    else:
        text_share = budget / 2
    shaped_text = text if text is not None and text_tokens <= text_share else None
    if shaped_text is None:
        shaped_text = _fit_text(fit, text_raw, max(1, int(text_share)))
    room = budget - fit.tokens(shaped_text)
    return shaped_text, _fit_structured(fit, original, int(room))


@dataclass(frozen=True)
class _Fit:
    """What every fitting step of one result shares: the policy, the tool and server rules match, the call's
    arguments."""

    policy: Policy
    tool: str
    server: str | None
    args: Mapping[str, Any] | None

    def tokens(self, value: str) -> float:
        from hostshape.tokens import count_tokens

        return count_tokens(value, self.policy.encoding) * self.policy.safety_factor

    def tokens_within(self, value: str, budget: int) -> float:
        """``tokens(value)``, or ``budget + 1`` without tokenizing when ``value`` is surely over ``budget``: longer
        than ``SURELY_OVER_CHARS_PER_TOKEN`` characters a token (``Limit.fits`` takes such a text to be over too)."""
        from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

        if len(value) > budget / self.policy.safety_factor * SURELY_OVER_CHARS_PER_TOKEN:
            return budget + 1
        return self.tokens(value)

    def shape(self, raw: Any, policy: Policy) -> Any:
        from hostshape.pipeline import shape

        value = dict(raw) if isinstance(raw, Mapping) else raw
        return shape(value, policy=policy, tool=self.tool, server=self.server, args=self.args)

    def at(self, policy: Policy, budget: int) -> Policy:
        """``policy`` with the budget that applies to this tool set to ``budget``."""
        return _with_budget(policy, self.tool, self.server, budget)


def _joined_text(raw: Mapping[str, Any]) -> str | None:
    """The text of a result made of text blocks only (None when it has other blocks)."""
    blocks = raw.get("content") or []
    if not all(
        isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text", ""), str) for b in blocks
    ):
        return None  # a text that is no string (null) is no text block to the core either (input/host_forms.py)
    return "\n".join(b.get("text", "") for b in blocks)


def _is_copy(text: str | None, structured: Any) -> bool:
    """Whether ``structured`` holds what the text says (so one shaped form serves both)."""
    if text is None:
        return False
    if structured == {"result": text}:
        return True
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # nested past the parser's depth: no copy of a structured value
        return False
    return bool(value == structured or structured == {"result": value})


def _shape_with_copy(
    fit: _Fit, raw: Mapping[str, Any], original: Any, budget: int
) -> tuple[str, dict[str, Any] | None]:
    current = fit.at(fit.policy, max(1, budget // 2))
    for attempt in range(8):
        shaped = fit.shape(raw, current)
        structured = _structured(original, shaped)
        over = fit.tokens(shaped.text) + fit.tokens(_compact(structured)) - budget
        if over <= 0:
            return shaped.text, structured
        # The fit moves in steps (whole records, whole pages), so a cut the size of the excess may change nothing:
        # cut twice as much each time.
        smaller = max(1, int(current.budget_for(fit.tool, fit.server) - (over + 8) * 2**attempt / 2))
        current = fit.at(current, smaller)
    # the copy could not be made to fit beside the text: the text alone, at the whole budget
    return fit.shape(raw, fit.policy).text, None


def _fit_text(fit: _Fit, raw: Mapping[str, Any], share: int) -> str:
    current = fit.at(fit.policy, share)
    text = ""
    for attempt in range(6):
        text = fit.shape(raw, current).text
        over = fit.tokens(text) - share
        if over <= 0:
            break
        current = fit.at(current, max(1, int(share - (over + 8) * 2**attempt)))
    return text


def _fit_structured(fit: _Fit, original: Any, room: int) -> dict[str, Any] | None:
    """``original`` shaped as JSON into ``room`` tokens (compact), as an object; None when nothing fits."""
    if room < 8:
        return None
    payload = _compact(original)
    current = fit.at(fit.policy, room)
    for attempt in range(6):
        shaped = fit.shape(payload, current)
        value = json.loads(shaped.text) if shaped.is_json else shaped.text
        structured = value if isinstance(value, dict) else {"result": value}
        over = fit.tokens(_compact(structured)) - room
        if over <= 0:
            return structured
        current = fit.at(current, max(1, int(room - (over + 8) * 2**attempt)))
    return None


def _structured(original: Any, shaped: Any) -> dict[str, Any]:
    if isinstance(original, dict) and set(original) == {"result"} and isinstance(original["result"], str):
        return {"result": shaped.text}
    if shaped.is_json:
        value = json.loads(shaped.text)
        return value if isinstance(value, dict) else {"result": value}
    return {"result": shaped.text}


def _compact(value: Any) -> str:
    """As hosts written in JavaScript serialise it (JSON.stringify); a value the standard library cannot render
    (nested past its depth, an integer too long to print) as ``render.dumps`` makes it safe, each such member
    replaced by a labelled string."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):
        from hostshape.output.render import dumps

        return dumps(value)


def _with_budget(policy: Policy, tool: str, server: str | None, budget: int) -> Policy:
    rule = policy.rule_for(tool, server)
    if rule is None or rule.budget is None:
        return policy.replace(budget=budget)
    rules = tuple(replace(r, budget=budget) if r is rule else r for r in policy.rules)
    return policy.replace(rules=rules)


def always_satisfied(schema: Mapping[str, Any]) -> bool:
    """True for output schemas every shaped structured copy satisfies: FastMCP's ``{"result": string}`` wrapper
    (the copy is ``{"result": <shaped text>}``) and free-form objects (no properties, nothing required)."""
    if schema.get("type") != "object":
        return False
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if set(properties) == {"result"} and (properties["result"] or {}).get("type") == "string":
        return required <= {"result"}
    return not properties and not required and schema.get("additionalProperties", True) is not False


def schema_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """Why ``value`` fails ``schema`` (None when it passes or cannot be checked)."""
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - a dependency of mcp
        return None
    if value is None:
        return "no structured content"
    try:
        jsonschema.validate(value, dict(schema))
    except jsonschema.ValidationError as exc:
        return exc.message[:200]
    except Exception:  # noqa: BLE001 - an unusable schema is the client's problem too, not ours
        return None
    return None
