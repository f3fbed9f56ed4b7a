"""Agno adapter: a tool hook (``Agent(tool_hooks=[...])``) that shapes what each MCP tool returns.

Where it fires: before the model, and no host limit stands in the way: Agno has no size limit on a tool result, so
hostshape's budget is the only budget. A tool hook wraps each call: Agno passes it the next function of the chain
and its arguments by parameter name, and the hook's return value replaces the result (agno 3.1.10,
tools/function.py:2438-2466 building the arguments, 2468-2532 the sync chain, 2789-2873 the async chain). The hook
is a plain function, so it runs in both chains (Agno skips coroutine hooks on sync calls, :2528-2532); in the async
chain it hands back an awaitable that Agno awaits (:2857-2861). Agno's opt-in ``CompressionManager``
(compression/manager.py:52-64) summarises older tool results with a model later, on the history; it then reads
hostshape's text.

Use it in one call, ``agent = install(Agent(model=..., tools=[mcp_tools]), policy)``, or build the parts:
``hook, read_tool = install(policy)`` then ``Agent(..., tools=[mcp_tools, read_tool], tool_hooks=[hook])``.

What the model receives: the ``content`` string of the ``ToolResult`` an MCP tool returns (utils/mcp.py:163-345:
text blocks joined by newlines, a placeholder line per image whose bytes travel as an ``Image`` artifact, the
structured content only when there is no text). The blocks it joined are read back as blocks
(``host_forms.joined_result``) without its placeholder lines (the artifacts stay), so two JSON blocks, or JSON
beside an image, shape as the MCP result does. Shaped, ``content`` is the shaped text and the images, audio,
videos, files and metadata are kept. A tool error reaches the model as ``Error from MCP tool '<name>': [TextContent
(...)]`` (utils/mcp.py:196-200), the repr of its blocks, and is budgeted as that text. Left alone: results that fit
as the model reads them, tools that are not an agent's ``MCPTools`` unless a policy rule names them, and
``hostshape_read`` itself. Rules route by the MCP tool's own name (a ``tool_name_prefix`` is the server,
tools/mcp/mcp.py:923-943) or the ``server`` given. The hook never raises into the run: a fault is logged to
``hostshape.adapters.agno`` and answered as the core answers it (``policy.on_fault``).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from hostshape.adapters._shared import default_policy, install_parts, read_function, require, rule_names, shape_for_host
from hostshape.host import HostForm, glue_fault
from hostshape.input.host_forms import joined_result
from hostshape.policy import Policy

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "install", "retrieval_tool", "shape_result", "tool_hook"]

HOST = "Agno"
INTERCEPTION_POINT = "Agent(tool_hooks=[...])"
FIRES = "before the model (the host has no limit)"

logger = logging.getLogger("hostshape.adapters.agno")
_require = functools.partial(require, "agno", "agno.agent", "agno.tools.mcp")  # the extra, the modules it installs


def _route(agent: Any, name: str, server: str | None) -> tuple[str, str | None, bool]:
    """(the MCP tool's own name, server, is an MCP tool) for the function ``name`` of ``agent``'s tools."""
    try:
        from agno.tools.mcp import MCPTools
    except ImportError:  # pragma: no cover - framework missing
        return name, server, False
    for toolkit in getattr(agent, "tools", None) or []:
        if isinstance(toolkit, MCPTools) and name in (toolkit.functions or {}):
            prefix = toolkit.tool_name_prefix
            if prefix and name.startswith(prefix + "_"):
                return name[len(prefix) + 1 :], prefix, True
            return name, server, True
    return name, server, False


def shape_result(result: Any, *, tool: str, args: Any, policy: Policy, server: str | None = None) -> Any:
    """The replacement for one tool's return value (an Agno ``ToolResult`` or a ``str``), or None to keep it.
    Never raises."""
    try:
        from agno.tools.function import ToolResult

        content = result.content if isinstance(result, ToolResult) else result
        if not isinstance(content, str) or not content:
            return None
        is_error = isinstance(result, ToolResult) and content.startswith(f"Error from MCP tool '{tool}'")
        text = _without_media_lines(result, content) if isinstance(result, ToolResult) else content
        given = joined_result(text, is_error=is_error)  # the blocks Agno joined, split back
        res = shape_for_host(given, policy=policy, tool=tool, server=server, args=args, host=HostForm(as_is=content))
        if not res.changed:
            return None
        if isinstance(result, ToolResult):
            return result.model_copy(update={"content": res.text})
        return res.text
    except Exception as exc:  # never raise into the run
        logger.exception("hostshape could not shape the result of %s", tool)
        return glue_fault(result, policy, exc, tool=tool, server=server)


# The line Agno writes in the text for each image and audio it carries as an artifact (utils/mcp.py:236,267,288).
_MEDIA_LINES = frozenset(
    {"Image has been generated and added to the response.", "Audio has been generated and added to the response."}
)


def _without_media_lines(result: Any, content: str) -> str:
    """The text without Agno's line per image and audio when the lines and the artifacts (which reach the model
    natively, and are kept) agree in number; else the text: JSON beside an image is read as the MCP result's is."""
    artifacts = len(result.images or []) + len(result.audios or [])
    lines = content.split("\n")
    kept = [line for line in lines if line not in _MEDIA_LINES]
    return "\n".join(kept) if artifacts and len(lines) - len(kept) == artifacts else content


def tool_hook(policy: Policy | None = None, *, server: str | None = None) -> Callable[..., Any]:
    """An Agno tool hook for ``Agent(tool_hooks=[...])`` that shapes tool results by ``policy``, in sync and async
    runs; ``server`` names the MCP server for the policy's rules when the toolkit has no prefix."""
    _require()
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    chosen = default_policy(policy)

    def hostshape_tool_hook(
        function_name: str, function_call: Callable[..., Any], arguments: dict[str, Any], agent: Any = None
    ) -> Any:
        result = function_call(**arguments)
        try:
            tool, routed_server, is_mcp = _route(agent, function_name, server)
            wanted = function_name != RETRIEVAL_TOOL and (is_mcp or rule_names(chosen, tool, routed_server))
        except Exception:  # an unexpected agent: leave the result to the host
            logger.exception("hostshape could not route %s", function_name)
            wanted = False
        if not wanted:
            return result

        def shaped(value: Any) -> Any:
            replacement = shape_result(value, tool=tool, args=arguments, policy=chosen, server=routed_server)
            return value if replacement is None else replacement

        if inspect.isawaitable(result):
            return _shape_later(result, shaped)
        return shaped(result)

    return hostshape_tool_hook


async def _shape_later(pending: Any, shaped: Callable[[Any], Any]) -> Any:
    """The async chain's result, shaped off the event loop."""
    import anyio.to_thread

    value = await pending
    return await anyio.to_thread.run_sync(shaped, value)


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` tool (an Agno ``Function``): a budgeted page of a spilled result. Never raises."""
    _require()
    from agno.tools import tool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = read_function(default_policy(policy))

    return tool(name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION)(hostshape_read)


def install(target: Any = None, policy: Policy | None = None, *, server: str | None = None) -> Any:
    """Install hostshape in an Agno ``Agent`` (in place; returns it): its ``tool_hooks`` end with hostshape's and
    its tools get ``hostshape_read``. Given a ``Policy`` or nothing, return the pair (hook, ``hostshape_read``
    tool). The policy gets ``retrieval_tool="hostshape_read"`` so each envelope's hint names the tool."""
    _require()
    from agno.agent import Agent

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    target, hook, read_tool = install_parts(
        target, policy, lambda chosen: tool_hook(chosen, server=server), retrieval_tool, Agent
    )
    if target is None:
        return hook, read_tool
    target.tool_hooks = [*(target.tool_hooks or []), hook]
    if target.tools is not None and not isinstance(target.tools, list):  # a factory of tools: the caller adds it
        logger.warning("the agent's tools come from a function: add hostshape.adapters.agno.retrieval_tool() to it")
        return target
    tools = list(target.tools or [])
    if not any(getattr(t, "name", None) == RETRIEVAL_TOOL for t in tools):
        target.tools = [*tools, read_tool]
    return target
