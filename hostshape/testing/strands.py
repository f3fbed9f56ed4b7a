"""Strands Agents run with a scripted model: a real ``Agent``, ``MCPClient`` over the example stdio server.

:func:`scripted_model` gives a model at Strands' own model interface (``strands.models.Model.stream``,
strands-agents 1.62.0 models/model.py:258) that plays a :class:`~hostshape.testing.script.Script`. Use it to test
your own agent offline::

    model = scripted_model(("list_pull_requests", {}))
    Agent(model=model, tools=[client])("go")
    model.received  # the tool results, as the model read them

``received`` is the text of each tool result's content blocks (joined by newlines), the blocks a provider is sent
(Bedrock formats only ``content``, models/bedrock.py:1273-1304).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from strands.models import Model

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, RunOptions, Script, Scripted, first_call

if TYPE_CHECKING:
    from typing_extensions import Unpack

HOST = "Strands Agents"


def received_text(tool_result: dict[str, Any]) -> str:
    """The text a provider is sent for one ``toolResult`` block: its text (and JSON) blocks, joined by newlines."""
    parts = []
    for block in tool_result.get("content") or []:
        if "text" in block:
            parts.append(block["text"])
        elif "json" in block:
            parts.append(json.dumps(block["json"], ensure_ascii=False))
    return "\n".join(parts)


class ScriptedModel(Scripted, Model):
    """A Strands ``Model`` playing ``script``. ``received`` holds each tool result's text, ``results`` the
    toolResult dicts, ``requests`` the messages of every request. No network."""

    def __init__(self, script: Script) -> None:
        self._script = script
        self.results: list[dict[str, Any]] = []
        self.config: dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    def structured_output(self, output_model: Any, prompt: Any, system_prompt: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model only calls tools")

    async def stream(
        self, messages: Any, tool_specs: Any = None, system_prompt: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        last = messages[-1] if messages else {}
        answers = [b["toolResult"] for b in last.get("content", []) if "toolResult" in b]
        self.results.extend(answers)
        call = self._script.reply(messages, [received_text(answer) for answer in answers])
        async for event in _events(call, self._script.call_id(), self._script.final_text):
            yield event


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedModel:
    """A Strands model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``Agent(model=scripted_model(...))``."""
    return ScriptedModel(Script(first, next_call, final_text))


async def _events(call: Call | None, call_id: str, final_text: str) -> AsyncGenerator[Any, None]:
    yield {"messageStart": {"role": "assistant"}}
    if call is None:
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": final_text}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}
        return
    name, args = call
    yield {"contentBlockStart": {"start": {"toolUse": {"name": name, "toolUseId": call_id}}}}
    yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(args)}}}}
    yield {"contentBlockStop": {}}
    yield {"messageStop": {"stopReason": "tool_use"}}


def run_sync(
    tool: str,
    *,
    policy: Policy | None,
    prefix: str | None = None,
    offloader: bool = False,
    sync: bool = True,
    **options: Unpack[RunOptions],
) -> HostRun:
    """One Strands run in which the scripted model calls ``tool`` and records what it receives.

    - ``policy=None`` runs the host without hostshape; ``retrieval`` (default False) installs with
      ``hostshape.adapters.strands.install`` (the agent also gets ``hostshape_read``), else only the hook provider is
      added.
    - ``prefix``: ``MCPClient(prefix=...)``, which renames the tools ``f"{prefix}_{name}"``.
    - ``offloader``: also install Strands' own ``ContextOffloader`` (in-memory storage).
    - ``sync``: call the agent (``agent(prompt)``); False: ``asyncio.run(agent.invoke_async(prompt))``.

    ``received`` is the first tool result's text; ``extra["received"]`` holds each in order, ``extra["results"]`` the
    toolResult dicts and ``extra["messages"]`` the agent's history. The MCP server is stopped before this returns.
    """
    import asyncio

    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client
    from strands import Agent
    from strands.tools.mcp import MCPClient

    command = mcp_server_command()
    params = StdioServerParameters(command=command[0], args=command[1:])
    client = MCPClient(lambda: stdio_client(params), prefix=prefix, startup_timeout=60)
    model = scripted_model(first_call(tool, options, prefix), options.get("next_call"))
    plugins: list[Any] = []
    if offloader:
        from strands.vended_plugins.context_offloader import ContextOffloader, InMemoryStorage

        plugins.append(ContextOffloader(storage=InMemoryStorage()))
    with client:
        agent = Agent(model=model, tools=client.list_tools_sync(), plugins=plugins, callback_handler=None)
        if policy is not None:
            from hostshape.adapters import strands

            if options.get("retrieval", False):
                strands.install(agent, policy)
            else:
                agent.hooks.add_hook(strands.hook_provider(policy))
        prompt = f"Call {tool}."
        result = agent(prompt) if sync else asyncio.run(agent.invoke_async(prompt))
        messages = list(agent.messages)
    return model.host_run(HOST, tool, results=model.results, messages=messages, final=str(result))


async def run(tool: str, *, policy: Policy | None, **options: Any) -> HostRun:
    """:func:`run_sync` in a worker thread, for async callers (``hostshape demo``); ``sync=False`` runs the agent's
    async path (``invoke_async``) there."""
    import asyncio

    return await asyncio.to_thread(run_sync, tool, policy=policy, **options)
