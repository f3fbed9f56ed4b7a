"""OpenAI Codex CLI: a PostToolUse command hook whose ``decision: "block"`` reason replaces an MCP tool result.

Codex has no size limit of its own before the hook, so the hook fires before the model and hostshape's budget is the
only budget (docs/hosts.md names the test that proves it with the real Codex CLI 0.171.0 and a loopback Responses
API). Codex hands the hook the whole ``CallToolResult`` (content, structuredContent,
isError). It parses ``updatedMCPToolOutput`` but rejects it at run time (codex-rs/hooks/src/engine/output_parser.rs,
0.171.0: the hook is marked Failed and the original result goes to the model); a PostToolUse block "rejects the
result, not the already-completed tool execution": Codex sends ``reason`` to the model as the
function_call_output in place of the result, and the turn goes on. Hook feedback over 2,500 of Codex's approximate
tokens (ceil(UTF-8 bytes / 4)) is cut in the middle and spilled to a file (codex-rs/hooks/src/output_spill.rs), so
the reason is kept within ``MAX_FEEDBACK_BYTES`` as well as the budget.

When a result has a ``structuredContent`` (not null), Codex sends the model that, serialised, instead of the text
blocks (observed with the real Codex CLI 0.171.0: a 5-token text beside 300 structured records reaches the model as
the records, cut in the middle by Codex; ``tests/test_hook_command.py``
``test_codex_shapes_a_structured_content_that_is_not_a_copy_of_the_text``), so that is what the hook shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hostshape.adapters.claude_code import split_tool_name
from hostshape.host import HostForm
from hostshape.input.host_forms import tool_result
from hostshape.policy import Policy

HOST = "OpenAI Codex CLI"
INTERCEPTION_POINT = "PostToolUse command hook (decision: block, reason)"
FIRES = "before the model (the host has no limit)"

MAX_FEEDBACK_BYTES = 10_000


def shape_hook_input(data: Mapping[str, Any], policy: Policy) -> dict[str, Any] | None:
    """The hook output for one Codex PostToolUse input on an MCP tool, or None to leave the result.

    May raise (the hook command catches, logs, and answers by ``policy.on_fault``).
    """
    import hostshape

    tool_name = data.get("tool_name")
    if not isinstance(tool_name, str):
        return None
    server, tool = split_tool_name(tool_name)
    args = data.get("tool_input")
    res = hostshape.shape(
        tool_result(what_codex_shows(data.get("tool_response"))),
        policy=policy,
        tool=tool,
        server=server,
        args=args if isinstance(args, dict) else None,
        host=HostForm(max_bytes=MAX_FEEDBACK_BYTES),
    )
    if not res.changed or not res.text.strip():  # Codex rejects a block without a non-empty reason
        return None
    return {"decision": "block", "reason": res.text}


def what_codex_shows(response: Any) -> Any:
    """The part of a CallToolResult that Codex sends the model: its ``structuredContent`` when it has one (an error
    result keeps its text: the core answers errors as errors), else the result itself."""
    if not isinstance(response, Mapping) or response.get("isError"):
        return response
    structured = response.get("structuredContent")
    return response if structured is None else {"structuredContent": structured}


def refusal_output(text: str) -> dict[str, Any]:
    """The hook output carrying the core's fault answer ``text`` in place of the result."""
    return {"decision": "block", "reason": text}
