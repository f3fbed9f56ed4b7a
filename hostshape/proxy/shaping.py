"""Shaping one MCP tool result for the proxy and the FastMCP middleware: the text block and a structured copy that
both fit the budget, and which output schemas every shaped copy satisfies."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hostshape.policy import Policy

log = logging.getLogger("hostshape.proxy")


def shape_call_result(
    result: Any, policy: Policy, *, tool: str, server: str | None = None, args: Mapping[str, Any] | None = None
) -> Any:
    """A successful ``CallToolResult`` shaped to ``policy``; the same object when it fits (or is an error).

    The shaped result has one text block and, when the original had ``structuredContent``, a structured copy that
    fits the same budget (see ``shape_mcp_result``). Never raises on bad data: ``shape`` does not."""
    from mcp import types

    if result.isError:
        return result
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
    """Shape one MCP tool result (``{"content": [...], "structuredContent": ...}`` as plain data).

    None when it is left as it is (it fits, or on a fault with ``on_fault="pass"``); else ``(text, structured)``:
    the text for a single text block, and for results that had ``structuredContent`` a structured copy (None
    otherwise). Hosts differ in which of the two they show the model (Claude Code shows the structured copy, most
    others the text), so both fit the budget as the host serialises them (compact JSON): FastMCP's
    ``{"result": "<text>"}`` wrapper becomes ``{"result": text}``, with the text shaped to a smaller budget when the
    JSON escaping would push it over; other structured results become the shaped JSON object."""
    from hostshape.pipeline import shape
    from hostshape.tokens import count_tokens

    shaped = shape(dict(raw), policy=policy, tool=tool, server=server, args=args)
    if not shaped.changed:
        return None
    original = raw.get("structuredContent")
    budget = policy.budget_for(tool, server)
    current = policy
    structured = None
    for attempt in range(6):
        structured = _structured(original, shaped)
        if structured is None:
            break
        over = count_tokens(_compact(structured), policy.encoding) * policy.safety_factor - budget
        if over <= 0:
            break
        # The fit moves in steps (whole records, whole pages), so a cut the size of the excess may change nothing:
        # cut twice as much each time.
        smaller = max(1, int(current.budget_for(tool, server) - (over + 8) * 2**attempt))
        current = _with_budget(current, tool, server, smaller)
        shaped = shape(dict(raw), policy=current, tool=tool, server=server, args=args)
    else:  # the structured copy could not be made to fit: leave it out rather than break the budget
        structured = None
    return shaped.text, structured


def _structured(original: Any, shaped: Any) -> dict[str, Any] | None:
    if original is None:
        return None
    if isinstance(original, dict) and set(original) == {"result"} and isinstance(original["result"], str):
        return {"result": shaped.text}
    if shaped.is_json:
        value = json.loads(shaped.text)
        return value if isinstance(value, dict) else {"result": value}
    return {"result": shaped.text}


def _compact(value: Any) -> str:
    """As hosts written in JavaScript serialise it (JSON.stringify)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
