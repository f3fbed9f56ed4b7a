"""CrewAI run with a scripted model: a real ``Agent`` with ``mcps=[MCPServerStdio(...)]`` over the example stdio
server, run by ``Agent.kickoff`` (or ``kickoff_async``).

:func:`scripted_model` gives a model at CrewAI's own model interface (``crewai.llms.base_llm.BaseLLM.call`` with
native function calling, crewai 1.15.30 llms/base_llm.py:462-500, agents/agent_executor.py:1697-1780) that plays a
:class:`~hostshape.testing.script.Script`, recording what it was sent. Use it to test your own agent offline::

    llm = scripted_model((tool_name("list_pull_requests"), {}))
    Agent(role=..., goal=..., backstory=..., llm=llm, mcps=[...]).kickoff("go")
    llm.received  # each tool result, as the model read it

CrewAI names an MCP tool ``<server>_<tool>`` sanitised, the server named after the command (mcp/tool_resolver.py:
309-317); :func:`tool_name` computes it. ``received`` is the ``content`` of each ``tool`` message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from crewai.llms.base_llm import BaseLLM
from crewai.mcp import MCPServerStdio
from pydantic import PrivateAttr

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, Script, Scripted

HOST = "CrewAI"

# CrewAI's telemetry and tracing stay off in these offline runs.
OFFLINE_ENV = {"CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true", "CREWAI_TRACING_ENABLED": "false"}


class ScriptedLLM(Scripted, BaseLLM):
    """A CrewAI LLM playing ``script``. ``context_window`` is what it reports to CrewAI (its deferral threshold is
    25% of it). ``received`` holds each tool message's content, ``requests`` the messages of every call. No
    network."""

    context_window: int = 128_000
    _script: Script = PrivateAttr()

    def __init__(self, script: Script | None = None, **fields: Any) -> None:
        super().__init__(model="scripted", **fields)
        self._script = script if script is not None else Script(None)

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        history = [{"role": "user", "content": messages}] if isinstance(messages, str) else list(messages)
        results = [str(m.get("content") or "") for m in history if m.get("role") == "tool"]
        call = self._script.reply_to_history(history, results)
        if call is None:
            return self._script.final_text
        name, args = call
        return [
            {
                "id": self._script.call_id(),
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ]

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)

    def supports_function_calling(self) -> bool:
        return True

    def get_context_window_size(self) -> int:
        return self.context_window

    def get_input_tokens_count(self, messages: Any, tools: Any = None, response_model: Any = None) -> int:
        """CrewAI's own fallback estimate, one token per four characters (llms/base_llm.py:368-403), without the
        warning it logs for a model with no native count."""
        from crewai.utilities.message_utils import message_content_text

        if isinstance(messages, str):
            return (len(messages) + 3) // 4
        return (sum(len(message_content_text(m)) for m in messages) + 3) // 4


def scripted_model(
    first: Call | None = None, next_call: NextCall | None = None, final_text: str = "done", **fields: Any
) -> ScriptedLLM:
    """A CrewAI LLM that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`); ``fields`` are BaseLLM's (``context_window``).
    ``Agent(llm=scripted_model(...))``; an MCP tool is called by :func:`tool_name`. Being offline, it turns CrewAI's
    telemetry and tracing off for this process (``OFFLINE_ENV``, where those variables are unset)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    return ScriptedLLM(Script(first, next_call, final_text), **fields)


def tool_name(tool: str, server: MCPServerStdio | Sequence[str] | None = None) -> str:
    """The name CrewAI shows the model for the MCP tool ``tool`` of the stdio ``server`` (an ``MCPServerStdio`` or
    its argv; by default the example server)."""
    from crewai.mcp.tool_resolver import MCPToolResolver
    from crewai.utilities.string_utils import sanitize_tool_name

    if server is None:
        argv = mcp_server_command()
    elif isinstance(server, MCPServerStdio):
        argv = [server.command, *server.args]
    else:
        argv = list(server)
    prefixed = MCPToolResolver._ensure_letter_prefix(f"{argv[0]}_{'_'.join(argv[1:])}")
    return sanitize_tool_name(f"{prefixed}_{tool}")


def run_sync(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    next_call: NextCall | None = None,
    context_window: int = 128_000,
    server: str | None = None,
    sync: bool = True,
    **_: Any,
) -> HostRun:
    """One ``Agent.kickoff`` (``sync=False``: ``kickoff_async``) in which the scripted LLM calls ``tool``.

    ``policy=None`` runs the host without hostshape; else ``hostshape.adapters.crewai.install`` registers the hook
    for this agent (removed again before this returns) and adds ``hostshape_read``. ``next_call`` may name
    ``hostshape_read`` or an MCP tool by its own name. ``received`` is the first tool result's content;
    ``extra["received"]`` holds each in order.
    """
    import asyncio

    from crewai import Agent
    from crewai.events.event_listener import event_listener

    event_listener.formatter.verbose = False  # its console panels default on outside a Crew (crew.py:647)

    command = mcp_server_command()

    def visible(call: tuple[str, dict[str, Any]] | None) -> tuple[str, dict[str, Any]] | None:
        if call is None or call[0] == "hostshape_read":
            return call
        return tool_name(call[0], command), call[1]

    def scripted_next(received: list[str]) -> tuple[str, dict[str, Any]] | None:
        return visible(next_call(received)) if next_call is not None else None

    llm = scripted_model(visible((tool, dict(arguments or {}))), scripted_next, context_window=context_window)
    agent = Agent(
        role="tester",
        goal="call the tool",
        backstory="offline",
        llm=llm,
        mcps=[MCPServerStdio(command=command[0], args=command[1:])],
        verbose=False,
    )
    from hostshape.adapters import crewai

    try:
        if policy is not None:
            crewai.install(agent, policy, server=server)
        prompt = f"Call {tool}."
        output = agent.kickoff(prompt) if sync else asyncio.run(agent.kickoff_async(prompt))
    finally:
        crewai.uninstall()
    return llm.host_run(HOST, tool, final=getattr(output, "raw", str(output)))


async def run(tool: str, *, policy: Policy | None, **options: Any) -> HostRun:
    """:func:`run_sync` in a worker thread, for async callers (``hostshape demo``)."""
    import asyncio

    return await asyncio.to_thread(run_sync, tool, policy=policy, **options)
