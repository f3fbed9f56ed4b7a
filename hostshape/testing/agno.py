"""Agno run with a scripted model: a real ``Agent`` with ``MCPTools`` over the example stdio server.

:func:`scripted_model` gives a model at Agno's own model interface (``agno.models.base.Model``: ``invoke``,
``ainvoke`` and their streaming forms, agno 3.1.10 models/base.py:552-585) that plays a
:class:`~hostshape.testing.script.Script`, recording what it was sent. Use it to test your own agent offline::

    model = scripted_model(("list_pull_requests", {}))
    await Agent(model=model, tools=[mcp_tools]).arun("go")
    model.received  # each tool result, as the model read it

``received`` is the ``content`` of each ``tool`` message the model is sent.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agno.models.base import Model
from agno.models.response import ModelResponse

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, RunOptions, Script, Scripted, first_call

if TYPE_CHECKING:
    from typing_extensions import Unpack

HOST = "Agno"


@dataclass
class ScriptedModel(Scripted, Model):
    """An Agno model playing ``script``. ``received`` holds each tool message's content, ``requests`` the messages
    of every request. No network."""

    id: str = "scripted"
    name: str | None = "ScriptedModel"
    provider: str | None = "hostshape"
    _script: Script = field(default_factory=lambda: Script(None))

    def _respond(self, messages: list[Any]) -> ModelResponse:
        results = [m.get_content_string() for m in messages if m.role == "tool"]
        call = self._script.reply_to_history(list(messages), results)
        if call is None:
            return ModelResponse(role="assistant", content=self._script.final_text)
        name, args = call
        tool_call = {
            "id": self._script.call_id(),
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        return ModelResponse(role="assistant", tool_calls=[tool_call])

    def invoke(self, *args: Any, messages: list[Any], **kwargs: Any) -> ModelResponse:
        return self._respond(messages)

    async def ainvoke(self, *args: Any, messages: list[Any], **kwargs: Any) -> ModelResponse:
        return self._respond(messages)

    def invoke_stream(self, *args: Any, messages: list[Any], **kwargs: Any) -> Iterator[ModelResponse]:
        yield self._respond(messages)

    async def ainvoke_stream(self, *args: Any, messages: list[Any], **kwargs: Any) -> AsyncIterator[ModelResponse]:
        yield self._respond(messages)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedModel:
    """An Agno model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``Agent(model=scripted_model(...))``. Being offline,
    it turns Agno's telemetry off for agents made after it (``AGNO_TELEMETRY=false``, where that is unset)."""
    os.environ.setdefault("AGNO_TELEMETRY", "false")
    return ScriptedModel(_script=Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    prefix: str | None = None,
    stream: bool = False,
    **options: Unpack[RunOptions],
) -> HostRun:
    """One ``Agent.arun`` in which the scripted model calls ``tool`` and records what it receives.

    ``policy=None`` runs the host without hostshape; else ``hostshape.adapters.agno.install`` adds the hook and
    ``hostshape_read``. ``prefix`` is ``MCPTools(tool_name_prefix=...)``; ``stream`` runs the streaming path.
    ``received`` is the first tool result's text; ``extra["received"]`` holds each in order.
    """
    import shlex

    from agno.agent import Agent
    from agno.tools.mcp import MCPTools

    command = shlex.join(mcp_server_command())
    model = scripted_model(first_call(tool, options, prefix), options.get("next_call"))
    async with MCPTools(command=command, timeout_seconds=60, tool_name_prefix=prefix) as mcp_tools:
        agent = Agent(model=model, tools=[mcp_tools], telemetry=False)
        if policy is not None:
            from hostshape.adapters import agno

            agno.install(agent, policy)
            if not options.get("retrieval", True) and isinstance(agent.tools, list):
                agent.tools = agent.tools[:-1]
        if stream:
            parts = []
            async for event in agent.arun(f"Call {tool}.", stream=True):
                if getattr(event, "event", None) == "RunContent" and isinstance(event.content, str):
                    parts.append(event.content)
            answer = None
            final: str | None = "".join(parts)
        else:
            answer = await agent.arun(f"Call {tool}.")
            final = answer.content
    return model.host_run(HOST, tool, final=final, output=answer)


def run_sync_function(policy: Policy | None, function: Callable[..., Any], tool: str) -> HostRun:
    """The sync path: ``Agent.run`` with a plain function tool ``function`` (Agno's MCP tools are async), the hook
    installed with ``policy``; ``received`` is the tool message's content."""
    from agno.agent import Agent

    model = scripted_model((tool, {}))
    agent = Agent(model=model, tools=[function], telemetry=False)
    if policy is not None:
        from hostshape.adapters import agno

        agno.install(agent, policy)
    answer = agent.run(f"Call {tool}.")
    return model.host_run(HOST, tool, final=answer.content)
