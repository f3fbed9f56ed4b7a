"""LlamaIndex adapter: ``FunctionTool`` callbacks that replace each MCP tool's output before the agent hands it on.

Where it fires: LlamaIndex has no size limit on a tool output, so the callbacks fire before the model and hostshape's
budget is the only budget. ``McpToolSpec`` builds ``FunctionTool(async_fn=client.call_tool)`` (llama-index-tools-
mcp 0.6.0, tools/mcp/base.py:106-114,168); the tool's sync ``call`` runs ``callback(raw_output)`` and its async
``acall`` runs ``async_callback(raw_output)``, and a returned string or ``ToolOutput`` replaces the output
(llama-index-core 0.14.25, core/tools/function_tool.py:85-86,151-169,359-411). Agents (``FunctionAgent``) call
``acall`` and send the model the output's blocks (core/agent/workflow/function_agent.py:155-163);
``llm.predict_and_call`` calls ``call``: both paths are shaped.

Use it in one call: ``tools = install(await McpToolSpec(client).to_tool_list_async(), policy)`` (a spec works too,
``install(McpToolSpec(client), policy)``, outside a running event loop), then ``FunctionAgent(tools=tools, llm=...)``.
The list returned holds a copy of each tool with hostshape's callbacks, and the ``hostshape_read`` tool.

What the model receives: left alone, LlamaIndex hands the model ``str(CallToolResult)``, the pydantic repr of the
whole result, with the text, its ``structured_content`` copy and any image's base64 (function_tool.py:328-329).
Shaped, the output's blocks are one ``TextBlock`` with the shaped text, followed by an ``ImageBlock`` per image the
tool returned (the model receives those natively, not as base64 text). An error result (``is_error``) is budgeted
like any result. Left alone: outputs whose repr already fits, outputs that are not an MCP ``CallToolResult`` unless
a policy rule names the tool, and ``hostshape_read`` itself. A callback the tool already had runs first and, when it
answers, its answer stands. Nothing raises into the run: a fault is logged to ``hostshape.adapters.llamaindex`` and
answered as the core answers it (``policy.on_fault``).
"""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from typing import Any

from hostshape.adapters._shared import default_policy, read_function, require, rule_names, shape_for_host
from hostshape.host import HostForm, glue_fault
from hostshape.input.host_forms import tool_result
from hostshape.policy import Policy

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "install", "retrieval_tool", "shape_output", "shaped_tool"]

HOST = "LlamaIndex"
INTERCEPTION_POINT = "FunctionTool(callback=, async_callback=)"
FIRES = "before the model (the host has no limit)"

EXTRA = "llamaindex"

logger = logging.getLogger("hostshape.adapters.llamaindex")
# The arguments of the call whose output the callback is shaping. LlamaIndex hands a callback the raw output only
# (function_tool.py:151-169), so the tool's functions record their keyword arguments here; ``call`` and ``acall``
# run the function and then the callback in one context (function_tool.py:342,360 and 381,399), and the callback
# reads them for the handle and the policy, as the other hosts' arguments.
_CALL_ARGS: ContextVar[dict[str, Any] | None] = ContextVar("hostshape_llamaindex_args", default=None)


def _require() -> None:
    require(EXTRA, "llama_index.core.tools")


def _is_call_result(raw: Any) -> bool:
    try:
        from mcp.types import CallToolResult
    except ImportError:  # pragma: no cover - mcp comes with llama-index-tools-mcp
        return False
    return isinstance(raw, CallToolResult)


def shape_output(
    raw: Any, *, tool: str, policy: Policy, server: str | None = None, args: dict[str, Any] | None = None
) -> Any:
    """The replacement for one tool's raw output (of a call with ``args``): a ``ToolOutput`` whose blocks the model
    reads, or None to keep LlamaIndex's own output. Never raises."""
    try:
        from llama_index.core.base.llms.types import ImageBlock, TextBlock
        from llama_index.core.tools import ToolOutput

        from hostshape.wayback.retrieve import RETRIEVAL_TOOL

        if tool == RETRIEVAL_TOOL or raw is None:
            return None
        mcp = _is_call_result(raw)
        if not mcp and not rule_names(policy, tool, server):
            return None
        images = [b for b in raw.content if getattr(b, "type", None) == "image"] if mcp else []
        core_input = raw.model_copy(update={"content": [b for b in raw.content if b not in images]}) if images else raw
        if images and not core_input.content:
            return None  # images only: nothing textual to budget
        form = HostForm(as_is=str(raw))
        given = tool_result(core_input)
        res = shape_for_host(given, policy=policy, tool=tool, server=server, args=args, host=form)
        if not res.changed:
            return None
        blocks: list[Any] = [TextBlock(text=res.text)]
        for image in images:
            data = base64.b64decode(image.data)
            blocks.append(ImageBlock(image=data, image_mimetype=_mime(image)))
        return ToolOutput(blocks=blocks, tool_name=tool, raw_input={}, raw_output=raw)
    except Exception as exc:  # never raise into the LlamaIndex run
        logger.exception("hostshape could not shape the output of %s", tool)
        return glue_fault(raw, policy, exc, tool=tool, server=server)


def _mime(image: Any) -> str | None:
    return getattr(image, "mime_type", None) or getattr(image, "mimeType", None)


def shaped_tool(tool: Any, policy: Policy | None = None, *, server: str | None = None) -> Any:
    """A copy of the ``FunctionTool`` ``tool`` whose sync and async callbacks shape its output by ``policy``."""
    _require()
    from llama_index.core.tools import FunctionTool

    chosen = default_policy(policy)
    name = tool.metadata.get_name()
    inner_sync, inner_async = tool._callback, tool._async_callback  # a callback the tool already had

    def callback(raw: Any) -> Any:
        args = _CALL_ARGS.get()
        if inner_sync is not None:
            answer = inner_sync(raw)
            if answer is not None:
                return answer
        return shape_output(raw, tool=name, policy=chosen, server=server, args=args)

    async def async_callback(raw: Any) -> Any:
        args = _CALL_ARGS.get()
        if inner_async is not None:
            answer = await inner_async(raw)
            if answer is not None:
                return answer
        import anyio.to_thread

        return await anyio.to_thread.run_sync(
            lambda: shape_output(raw, tool=name, policy=chosen, server=server, args=args)
        )

    context_param = tool.ctx_param_name
    return FunctionTool(
        fn=_recording(tool.fn, context_param),
        async_fn=_recording_async(tool.async_fn, context_param),
        metadata=tool.metadata,
        callback=callback,
        async_callback=async_callback,
        partial_params=dict(tool.partial_params),
    )


def _recording(fn: Callable[..., Any], context_param: str | None) -> Callable[..., Any]:
    """``fn`` recording its keyword arguments (without the agent's context) as the call's, for the callback."""

    @functools.wraps(fn)
    def recorded(*args: Any, **kwargs: Any) -> Any:
        _CALL_ARGS.set({k: v for k, v in kwargs.items() if k != context_param})
        return fn(*args, **kwargs)

    return recorded


def _recording_async(fn: Callable[..., Awaitable[Any]], context_param: str | None) -> Callable[..., Awaitable[Any]]:
    """The async ``fn`` recording its keyword arguments as the call's (``acall`` awaits it in its own context)."""

    @functools.wraps(fn)
    async def recorded(*args: Any, **kwargs: Any) -> Any:
        _CALL_ARGS.set({k: v for k, v in kwargs.items() if k != context_param})
        return await fn(*args, **kwargs)

    return recorded


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` ``FunctionTool``: a budgeted page of a spilled result. Never raises."""
    _require()
    from llama_index.core.tools import FunctionTool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = read_function(default_policy(policy))

    return FunctionTool.from_defaults(fn=hostshape_read, name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION)


def install(target: Any = (), policy: Policy | None = None, *, server: str | None = None) -> list[Any]:
    """The tools of ``target`` with hostshape's callbacks, followed by ``hostshape_read``, for an agent's ``tools=``.

    ``target`` is a list of ``FunctionTool`` (e.g. ``await McpToolSpec(client).to_tool_list_async()``) or a tool
    spec (its sync ``to_tool_list()`` is called). ``server`` names the MCP server for the policy's rules. The policy
    gets ``retrieval_tool="hostshape_read"`` so each envelope's hint names the tool.
    """
    _require()
    from llama_index.core.tools import FunctionTool

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    if isinstance(target, Policy):
        target, policy = (), target
    chosen = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    tools: Iterable[Any] = target.to_tool_list() if hasattr(target, "to_tool_list") else target
    out: list[Any] = []
    for tool in tools:
        if tool.metadata.get_name() == RETRIEVAL_TOOL:
            continue
        out.append(shaped_tool(tool, chosen, server=server) if isinstance(tool, FunctionTool) else tool)
    out.append(retrieval_tool(chosen))
    return out
