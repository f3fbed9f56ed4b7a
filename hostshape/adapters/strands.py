"""Strands Agents adapter: a hook provider whose ``AfterToolCallEvent`` callback replaces each MCP tool result.

Where it fires: Strands has no size limit on a tool result, so the hook fires before the model and hostshape's budget
is the only budget. ``AfterToolCallEvent.result`` is writable (strands-agents 1.62.0, hooks/events.py:299-309) and
the executor hands the model what the callbacks leave there (tools/executors/_executor.py:359-376), in the agent's
sync (``agent(...)``) and async (``invoke_async``) paths alike. The callback is registered at order -50, ahead of
the default order 0, so it also runs before Strands' own opt-in ``ContextOffloader``
(vended_plugins/context_offloader/plugin.py:169, over 2,500 tokens), which then finds the result within its
threshold and leaves it alone.

Use it in one call, ``agent = install(Agent(model, tools=[mcp_client]), policy)``, or build the parts:
``hooks, read_tool = install(policy)`` then ``Agent(..., tools=[mcp_client, read_tool], hooks=[hooks])``.

What the model receives: the tool result's ``content`` blocks (Bedrock formats only ``content``, models/bedrock.py:
1273-1304; ``structuredContent`` and ``metadata`` stay in the result dict, tools/mcp/mcp_client.py:1426-1466). A
shaped result keeps ``status`` and ``toolUseId``, has one text block, the shaped text, followed by the original
image and document blocks (the model receives those natively, not as text), and drops the ``structuredContent``
copy. An error result (``status: "error"``) is budgeted like any result. Left alone: results that fit as the model
reads them, non-MCP tools unless a policy rule names them, and ``hostshape_read`` itself. A client prefix
(``MCPClient(prefix=...)``, mcp_client.py:766-769) renames tools: the MCP tool's own name routes the rules, the
prefix names the server. The callback never raises into the run: a fault is logged to
``hostshape.adapters.strands`` and answered as the core answers it (``policy.on_fault``).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any, cast

from hostshape.adapters import _shared as shared
from hostshape.host import HostForm, glue_fault
from hostshape.input.contract import TextBlock
from hostshape.input.host_forms import blocks_result
from hostshape.input.parse import MISSING
from hostshape.policy import Policy

if TYPE_CHECKING:  # pragma: no cover - typing only
    from strands.hooks import AfterToolCallEvent

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "hook_provider", "install", "retrieval_tool", "shape_tool_result"]

HOST = "Strands Agents"
INTERCEPTION_POINT = "HookProvider: AfterToolCallEvent.result"
FIRES = "before the model (the host has no limit)"

EXTRA = "strands"
HOOK_ORDER = -50  # before the default order 0 (strands hooks/registry.py:30-41), so before ContextOffloader

logger = logging.getLogger("hostshape.adapters.strands")

_NATIVE = ("image", "document", "video")  # blocks the model receives natively, beside the text


def _require() -> None:
    shared.require(EXTRA, "strands")


def _route(tool: Any, tool_name: str, server: str | None) -> tuple[str, str | None, bool]:
    """(the MCP tool's own name, server, is an MCP tool) for ``tool``, the event's ``selected_tool``."""
    from strands.tools.mcp import MCPAgentTool

    if not isinstance(tool, MCPAgentTool):
        return tool_name, server, False
    raw = str(tool.mcp_tool.name)
    if raw != tool_name and tool_name.endswith("_" + raw):
        return raw, tool_name[: -len(raw) - 1], True
    return raw, server, True


def _text_of(block: Any) -> str | None:
    import json

    if not isinstance(block, dict):
        return None
    if isinstance(block.get("text"), str):
        return block["text"]
    if "json" in block:  # Bedrock sends {"json": ...} blocks as JSON (models/bedrock.py:1284-1287)
        return json.dumps(block["json"], ensure_ascii=False)
    return None


def shape_tool_result(
    result: Any, *, tool: str, args: Any, policy: Policy, server: str | None = None, is_mcp: bool = True
) -> dict[str, Any] | None:
    """The replacement for one Strands ``ToolResult``, or None to keep it. Never raises.

    ``tool`` is the MCP tool's own name and ``server`` the server's, for the policy's rules; ``is_mcp=False`` leaves
    the result alone unless a rule names the tool.
    """
    try:
        from hostshape.wayback.retrieve import RETRIEVAL_TOOL

        if tool == RETRIEVAL_TOOL or not isinstance(result, dict) or not isinstance(result.get("content"), list):
            return None
        if not is_mcp and not shared.rule_names(policy, tool, server):
            return None
        blocks = result["content"]
        native = [b for b in blocks if isinstance(b, dict) and any(k in b for k in _NATIVE)]
        texts = [t for t in map(_text_of, blocks) if t is not None]
        if not texts:
            return None  # media only: nothing textual to budget
        # An error keeps its flag; the structured copy goes with the text unless media stand beside it.
        error = result.get("status") == "error"
        structured = result.get("structuredContent", MISSING) if not (error or native) else MISSING
        given = blocks_result([TextBlock(t) for t in texts], structured=structured, is_error=error)
        form = HostForm(as_is="\n".join(texts))
        res = shared.shape_for_host(given, policy=policy, tool=tool, server=server, args=args, host=form)
        if not res.changed:
            return None
        return _replaced(result, res.text, native)
    except Exception as exc:  # never raise into the Strands run
        logger.exception("hostshape could not shape the result of %s", tool)
        text = glue_fault(result, policy, exc, tool=tool, server=server)
        return _replaced(result, text, []) if text and isinstance(result, dict) else None


def _replaced(result: dict[str, Any], text: str, native: list[Any]) -> dict[str, Any]:
    kept = {k: v for k, v in result.items() if k not in ("content", "structuredContent")}
    return {**kept, "content": [{"text": text}, *native]}


@functools.cache
def _provider_class() -> Any:
    from strands.hooks import AfterToolCallEvent, HookProvider, HookRegistry

    class ShapingHooks(shared.Routed, HookProvider):
        """Registers the shaping ``AfterToolCallEvent`` callback (see the module docstring)."""

        def register_hooks(self, registry: HookRegistry, **_: Any) -> None:
            registry.add_callback(AfterToolCallEvent, self.after_tool_call, order=HOOK_ORDER)

        def after_tool_call(self, event: AfterToolCallEvent) -> None:
            try:
                use = event.tool_use
                tool, server, is_mcp = _route(event.selected_tool, str(use.get("name", "")), self.server)
                args = use.get("input")
            except Exception:  # a malformed event: leave it to the host
                logger.exception("hostshape could not read a Strands tool call")
                return
            shaped = shape_tool_result(
                event.result, tool=tool, args=args, policy=self.policy, server=server, is_mcp=is_mcp
            )
            if shaped is not None:
                event.result = cast(Any, shaped)

    ShapingHooks.__module__ = __name__
    return ShapingHooks


def hook_provider(policy: Policy | None = None, *, server: str | None = None) -> Any:
    """A Strands ``HookProvider`` for ``Agent(hooks=[...])`` that shapes tool results by ``policy``.

    ``server`` names the MCP server for routing when the client has no prefix.
    """
    _require()
    return _provider_class()(shared.default_policy(policy), server)


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` tool (a Strands ``@tool``): a budgeted page of a spilled result. Never raises."""
    _require()
    from strands import tool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = shared.read_function(shared.default_policy(policy))

    return tool(name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION)(hostshape_read)


def install(target: Any = None, policy: Policy | None = None, *, server: str | None = None) -> Any:
    """Install hostshape in a Strands ``Agent`` (in place; returns it), or, given a ``Policy`` or nothing, return
    the pair (hook provider, ``hostshape_read`` tool) for ``Agent(hooks=[...], tools=[..., read_tool])``.

    The policy gets ``retrieval_tool="hostshape_read"`` so each envelope's hint names the tool.
    """
    _require()
    from strands import Agent

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    target, provider, read_tool = shared.install_parts(
        target, policy, lambda chosen: _provider_class()(chosen, server), retrieval_tool, Agent
    )
    if target is None:
        return provider, read_tool
    target.hooks.add_hook(provider)
    if RETRIEVAL_TOOL not in target.tool_names:
        target.tool_registry.process_tools([read_tool])
    return target
