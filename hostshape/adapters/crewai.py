"""CrewAI adapter: an ``after_tool_call`` hook that replaces each MCP tool's result string.

Where it fires: BEFORE CrewAI's own size limit. The hook runs where the tool result is made (crewai 1.15.30,
utilities/tool_utils.py:159,322, agents/agent_executor.py:2297-2310, utilities/agent_utils.py:1636-1649); CrewAI
then, by default (``use_better_compaction``), defers any successful result over 25% of the model's context window,
counted as characters / 4 (llms/base_llm.py:86-88,405-425), to a file the model must read back
(agents/agent_executor.py:296-345, applied at :2025,2056). The adapter fits its text under that threshold as well
as under the budget (``HostForm.max_chars``), so a shaped result is never deferred. CrewAI hooks are sync only and
run from the sync (``kickoff``) and async (``kickoff_async``) paths alike; CrewAI swallows a hook's exception
(hooks/dispatch.py:21-23), and this hook raises none.

Use it in one call, ``agent = install(Agent(..., mcps=[MCPServerStdio(...)]), policy)`` (the hook applies to that
agent only; a ``Crew`` works too), or ``hook, read_tool = install(policy)`` for every agent, adding ``read_tool`` to
their ``tools``. CrewAI's hooks are global (``register_after_tool_call_hook``, hooks/tool_hooks.py:245); call
:func:`uninstall` with the hook to remove it.

What the model receives: the tool message's content, the string the hook returns. CrewAI already flattens an MCP
result to text (mcp/content.py:6-48: text blocks one per line, media as ``[image: image/png]`` placeholders,
``structuredContent`` unused), so the shaped text replaces that string whole; the blocks it joined are read back
as blocks (``host_forms.joined_result``), its media lines beside JSON named in the envelope. An error result
(``isError``) reaches the hook as a ``ToolFailure`` (tools/mcp_native_tool.py:136-146, the hook's
``raw_tool_result``) and is shaped as an error, as the MCP result is. Left alone: results that fit, tools that are
not MCP tools unless a policy rule names them, and ``hostshape_read`` itself. Rules route by the MCP tool's own
name (``MCPNativeTool.original_tool_name``, tools/mcp_native_tool.py:40-66) and the ``server`` given (else CrewAI's
server name, derived from the command).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable
from typing import Any

from hostshape.adapters._shared import default_policy, read_function, require, rule_names, shape_for_host
from hostshape.host import HostForm, glue_fault
from hostshape.input.contract import ToolResult
from hostshape.input.host_forms import joined_result
from hostshape.input.parse import parse_json
from hostshape.policy import Policy

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "after_tool_call", "install", "retrieval_tool", "uninstall"]

HOST = "CrewAI"
INTERCEPTION_POINT = "@after_tool_call / register_after_tool_call_hook"
FIRES = "before the host limit"  # CrewAI defers results over 25% of the context window; this fires first

EXTRA = "crewai"
DEFER_SHARE = 0.25  # TOOL_RESULT_CONTEXT_WINDOW_THRESHOLD, llms/base_llm.py:88
CHARS_PER_TOKEN = 4  # the estimate CrewAI's threshold counts with, llms/base_llm.py:368-385

logger = logging.getLogger("hostshape.adapters.crewai")


def _require() -> None:
    require(EXTRA, "crewai.hooks")


def _route(context: Any, server: str | None) -> tuple[str, str | None, bool]:
    """(the MCP tool's own name, server, is an MCP tool) for one hook context."""
    tool = getattr(context, "tool", None)
    original = getattr(tool, "_original_tool", None) or tool  # CrewStructuredTool wraps the BaseTool
    own = getattr(original, "original_tool_name", None)
    if isinstance(own, str) and own:
        return own, server or getattr(original, "server_name", None), True
    return str(getattr(context, "tool_name", "") or ""), server, False


# The line CrewAI writes in place of an image or audio block, whose data it drops (mcp/content.py:43-44).
_MEDIA_LINE = re.compile(r"\[(?:image|audio): [\w.+-]{1,64}/[\w.+-]{1,64}\]")


def _given(text: str, *, is_error: bool) -> ToolResult:
    """CrewAI's string as the blocks it joined (``host_forms.joined_result``). Its media lines beside JSON are the
    host's, not the tool's: the JSON is read without them, as the MCP result's text blocks are, and the envelope
    names them."""
    lines = text.split("\n")
    kept = [line for line in lines if not _MEDIA_LINE.fullmatch(line)]
    if not is_error and kept and len(kept) < len(lines):
        rest = "\n".join(kept)
        given = joined_result(rest)
        if len(given.content) > 1 or parse_json(rest).ok:
            shown = ", ".join(sorted({line for line in lines if _MEDIA_LINE.fullmatch(line)}))
            return dataclasses.replace(given, notes=(*given.notes, f"the host showed {shown} in place of media"))
    return joined_result(text, is_error=is_error)


def _failed(raw: Any) -> bool:
    """Whether the tool's raw result is CrewAI's ``ToolFailure``: an MCP tool answers ``isError`` with one
    (tools/mcp_native_tool.py:136-146), which the model reads as its message (utilities/agent_utils.py:1426-1427,
    tools/tool_failure.py:107-111)."""
    try:
        from crewai.tools.tool_failure import ToolFailure
    except ImportError:  # pragma: no cover - a CrewAI before ToolFailure
        return False
    return isinstance(raw, ToolFailure)


def _defer_cap(context: Any) -> int | None:
    """The largest result, in characters, CrewAI keeps in context rather than deferring to a file."""
    try:
        agent = getattr(context, "agent", None)
        llm = getattr(agent, "llm", None)
        window = llm.get_context_window_size() if llm is not None else None
        return int(window * DEFER_SHARE * CHARS_PER_TOKEN) if isinstance(window, int) and window > 0 else None
    except Exception:  # an LLM without a window: no cap beyond the budget
        return None


def shape_tool_result(context: Any, *, policy: Policy, server: str | None = None, agents: Any = None) -> str | None:
    """The replacement string for one ``ToolCallHookContext``, or None to keep CrewAI's result. Never raises."""
    tool = str(getattr(context, "tool_name", "tool"))
    try:
        from hostshape.wayback.retrieve import RETRIEVAL_TOOL

        if agents is not None and not any(getattr(context, "agent", None) is a for a in agents):
            return None
        text = getattr(context, "tool_result", None)
        if not isinstance(text, str) or not text:
            return None
        name, routed_server, is_mcp = _route(context, server)
        if RETRIEVAL_TOOL in (tool, name) or (not is_mcp and not rule_names(policy, name, routed_server)):
            return None
        args = getattr(context, "tool_input", None)
        form = HostForm(as_is=text, max_chars=_defer_cap(context))
        given = _given(text, is_error=_failed(getattr(context, "raw_tool_result", None)))
        res = shape_for_host(given, policy=policy, tool=name, server=routed_server, args=args, host=form)
        return res.text if res.changed and res.text else None
    except Exception as exc:  # never raise into the crew
        logger.exception("hostshape could not shape the result of %s", tool)
        return glue_fault(getattr(context, "tool_result", None), policy, exc, tool=tool, server=server)


def after_tool_call(
    policy: Policy | None = None, *, server: str | None = None, agents: Any = None
) -> Callable[[Any], str | None]:
    """An after-tool-call hook (not yet registered) that shapes results by ``policy``; ``agents`` limits it to
    those agents (None: every agent); ``server`` names the MCP server for the policy's rules."""
    _require()
    chosen = default_policy(policy)
    members = list(agents) if agents is not None else None

    def hostshape_after_tool_call(context: Any) -> str | None:
        return shape_tool_result(context, policy=chosen, server=server, agents=members)

    return hostshape_after_tool_call


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` CrewAI tool: a budgeted page of a spilled result. Never raises."""
    _require()
    from crewai.tools import tool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = read_function(default_policy(policy))

    hostshape_read.__doc__ = RETRIEVAL_DESCRIPTION
    return tool(RETRIEVAL_TOOL)(hostshape_read)


def install(target: Any = None, policy: Policy | None = None, *, server: str | None = None) -> Any:
    """Register hostshape's after-tool-call hook and offer ``hostshape_read``; the policy gets
    ``retrieval_tool="hostshape_read"`` so each envelope's hint names the tool.

    - an ``Agent``: the hook applies to it alone and its tools get ``hostshape_read``; returns the agent;
    - a ``Crew``: the same for each of its agents; returns the crew;
    - a ``Policy`` or nothing: the hook applies to every agent; returns (hook, ``hostshape_read`` tool).
    """
    _require()
    from crewai import Agent, Crew
    from crewai.hooks import register_after_tool_call_hook

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    if isinstance(target, Policy):
        target, policy = None, target
    chosen = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    read_tool = retrieval_tool(chosen)
    if target is None:
        every = after_tool_call(chosen, server=server)
        register_after_tool_call_hook(every)
        return every, read_tool
    if isinstance(target, Agent):
        members: list[Any] = [target]
    elif isinstance(target, Crew):
        members = list(target.agents)
    else:
        raise TypeError(f"install() takes a crewai Agent, a Crew or a Policy, not {type(target).__name__}")
    for agent in members:
        if not any(getattr(t, "name", None) == RETRIEVAL_TOOL for t in agent.tools or []):
            agent.tools = [*(agent.tools or []), read_tool]
    hook = after_tool_call(chosen, server=server, agents=members)
    register_after_tool_call_hook(hook)
    _INSTALLED.append(hook)
    return target


_INSTALLED: list[Callable[[Any], str | None]] = []  # the hooks install() registered for agents and crews


def uninstall(hook: Callable[[Any], str | None] | None = None) -> int:
    """Unregister ``hook``, or, given nothing, every hook :func:`install` registered for an agent or a crew;
    returns how many were removed."""
    _require()
    from crewai.hooks.tool_hooks import unregister_after_tool_call_hook

    hooks = [hook] if hook is not None else list(_INSTALLED)
    removed = 0
    for one in hooks:
        removed += bool(unregister_after_tool_call_hook(one))
        if one in _INSTALLED:
            _INSTALLED.remove(one)
    return removed
