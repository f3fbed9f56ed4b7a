"""CrewAI run with a scripted model: a real ``Agent`` with ``mcps=[MCPServerStdio(...)]`` over the example stdio
server, run by ``Agent.kickoff`` (or ``kickoff_async``).

:class:`ScriptedLLM` implements CrewAI's own model interface (``crewai.llms.base_llm.BaseLLM.call`` with native
function calling, crewai 1.15.30 llms/base_llm.py:462-500, agents/agent_executor.py:1697-1780): it asks for one
tool call, then whatever ``next_call`` asks for, then answers with text, recording what it was sent. Use it to test
your own agent offline::

    llm = ScriptedLLM(first=(model_visible_name, {}))
    Agent(role=..., goal=..., backstory=..., llm=llm, mcps=[...]).kickoff("go")
    llm.received  # each tool result, as the model read it

CrewAI names an MCP tool ``<server>_<tool>`` sanitised, the server named after the command (mcp/tool_resolver.py:
309-317); :func:`tool_name` computes it. ``received`` is the ``content`` of each ``tool`` message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from crewai.llms.base_llm import BaseLLM
from pydantic import PrivateAttr

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command

HOST = "CrewAI"

# (texts received so far) -> the next (tool, arguments) call, or None to answer with text and end the run.
NextCall = Callable[[list[str]], "tuple[str, dict[str, Any]] | None"]

# CrewAI's telemetry and tracing stay off in these offline runs.
OFFLINE_ENV = {"CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true", "CREWAI_TRACING_ENABLED": "false"}


class ScriptedLLM(BaseLLM):
    """Calls ``first`` (tool, arguments), then ``next_call(received)`` until it returns None, then says
    ``final_text``. ``context_window`` is what it reports to CrewAI (its deferral threshold is 25% of it).
    ``received`` holds each tool message's content, ``requests`` the messages of every call. No network."""

    context_window: int = 128_000
    _first: tuple[str, dict[str, Any]] | None = PrivateAttr(default=None)
    _next_call: NextCall | None = PrivateAttr(default=None)
    _final_text: str = PrivateAttr(default="done")
    _received: list[str] = PrivateAttr(default_factory=list)
    _requests: list[list[Any]] = PrivateAttr(default_factory=list)
    _seen: int = PrivateAttr(default=0)

    def __init__(
        self,
        first: tuple[str, dict[str, Any]] | None = None,
        next_call: NextCall | None = None,
        final_text: str = "done",
        **fields: Any,
    ) -> None:
        super().__init__(model="scripted", **fields)
        self._first, self._next_call, self._final_text = first, next_call, final_text

    @property
    def received(self) -> list[str]:
        return self._received

    @property
    def requests(self) -> list[list[Any]]:
        return self._requests

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
        self._requests.append(history)
        tool_messages = [m for m in history if m.get("role") == "tool"]
        call = self._first
        if tool_messages:
            for message in tool_messages[self._seen :]:
                self._received.append(str(message.get("content") or ""))
            self._seen = len(tool_messages)
            call = self._next_call(list(self._received)) if self._next_call is not None else None
        if call is None:
            return self._final_text
        name, args = call
        return [
            {
                "id": f"call-{len(self._requests)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ]

    async def acall(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        return self.call(messages, tools, callbacks, available_functions)

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


def tool_name(tool: str, command: list[str] | None = None) -> str:
    """The name CrewAI shows the model for the MCP tool ``tool`` of the stdio server started by ``command``."""
    from crewai.mcp.tool_resolver import MCPToolResolver
    from crewai.utilities.string_utils import sanitize_tool_name

    argv = command or mcp_server_command()
    server = MCPToolResolver._ensure_letter_prefix(f"{argv[0]}_{'_'.join(argv[1:])}")
    return sanitize_tool_name(f"{server}_{tool}")


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

    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    from crewai import Agent
    from crewai.events.event_listener import event_listener
    from crewai.mcp import MCPServerStdio

    event_listener.formatter.verbose = False  # its console panels default on outside a Crew (crew.py:647)

    command = mcp_server_command()

    def visible(call: tuple[str, dict[str, Any]] | None) -> tuple[str, dict[str, Any]] | None:
        if call is None or call[0] == "hostshape_read":
            return call
        return tool_name(call[0], command), call[1]

    def scripted_next(received: list[str]) -> tuple[str, dict[str, Any]] | None:
        return visible(next_call(received)) if next_call is not None else None

    llm = ScriptedLLM(visible((tool, dict(arguments or {}))), scripted_next, context_window=context_window)
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
    return HostRun(
        host=HOST,
        tool=tool,
        received=llm.received[0] if llm.received else "",
        requests=list(llm.requests),
        extra={"received": llm.received, "final": getattr(output, "raw", str(output))},
    )


async def run(tool: str, *, policy: Policy | None, **options: Any) -> HostRun:
    """:func:`run_sync` in a worker thread, for async callers (``hostshape demo``)."""
    import asyncio

    return await asyncio.to_thread(run_sync, tool, policy=policy, **options)
