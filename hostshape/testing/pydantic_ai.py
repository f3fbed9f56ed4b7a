"""Run a real Pydantic AI agent, offline, whose scripted model calls one tool of the example MCP server.

The model is a ``FunctionModel``: its first response calls the MCP tool (plus any ``parallel`` calls, all in one
response, which Pydantic AI runs concurrently); each later request's ``ToolReturnPart`` objects are recorded, and
``follow`` may ask for another call (e.g. ``hostshape_read`` with the envelope's handle) before the model answers
with text. The MCP server is the real stdio server from ``hostshape.testing.mcp_server_command()``.

``HostRun.received`` is ``ToolReturnPart.model_response_str()`` of the first call's return: the text OpenAI's
Responses and Chat models send for a tool return without files (pydantic_ai/models/openai/_responses_model.py:3278,
models/openai/_chat_model.py:1306; pydantic-ai-slim 2.68.0).

:func:`scripted_model` gives a ``FunctionModel`` (Pydantic AI's own model interface for scripted answers) that plays
a :class:`~hostshape.testing.script.Script`. Use it to test your own agent offline::

    model = scripted_model(("list_pull_requests", {}))
    Agent(model, toolsets=toolsets).run_sync("go")   # or: with agent.override(model=model): ...
    model.received  # each tool return, as the model read it
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, Script, Scripted

Via = Literal["install", "hook", "config", "capability"]
Follow = Callable[[list[str]], "tuple[str, dict[str, Any]] | None"]

SERVER_ID = "corpus"


class ScriptedModel(Scripted, FunctionModel):
    """A ``FunctionModel`` playing ``script``. ``received`` holds each tool return's ``model_response_str()`` (a
    retry prompt's ``model_response()``), ``requests`` the messages of every request. No network."""

    def __init__(self, script: Script) -> None:
        super().__init__(self._respond, model_name="scripted")
        self._script = script

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1] if messages else None
        parts = last.parts if isinstance(last, ModelRequest) else []
        results = [
            p.model_response_str() if isinstance(p, ToolReturnPart) else p.model_response()
            for p in parts
            if isinstance(p, ToolReturnPart) or (isinstance(p, RetryPromptPart) and p.tool_name)
        ]
        call = self._script.reply(list(messages), results)
        if call is None:
            return ModelResponse(parts=[TextPart(self._script.final_text)])
        name, args = call
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=self._script.call_id())])


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedModel:
    """A Pydantic AI model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``Agent(scripted_model(...), toolsets=...)``."""
    return ScriptedModel(Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    parallel: Sequence[tuple[str, dict[str, Any] | None]] = (),
    prefix: str | None = None,
    follow: Follow | None = None,
    via: Via = "install",
    max_rounds: int = 12,
    init_timeout: float = 60.0,
    read_timeout: float = 120.0,
) -> HostRun:
    """One agent run in which the scripted model calls ``tool`` (a server tool name) with ``arguments``.

    - ``policy=None``: Pydantic AI without hostshape.
    - ``via``: how hostshape is installed: ``"install"`` (``adapters.pydantic_ai.install``: hook + retrieval tool),
      ``"hook"`` (``MCPToolset(process_tool_call=process_tool_call(policy))``, no retrieval tool) or ``"config"``
      (``load_mcp_toolsets()`` on a generated ``mcpServers`` file, then ``install``; its tools are prefixed with
      ``"corpus_"``), or ``"capability"`` (``Agent(capabilities=[capability(policy)])``, covering every tool).
    - ``prefix``: wrap the MCP toolset in ``.prefixed(prefix)``; the model then calls ``<prefix>_<tool>``.
    - ``parallel``: more ``(tool, arguments)`` calls in the same model response (prefixed like ``tool``).
    - ``follow(texts)``: after each round, given every tool-return text so far, returns the next ``(name, args)``
      call (names exactly as offered to the model) or None to finish.

    ``extra`` holds ``parts`` (every ToolReturnPart, in order), ``texts`` (their model_response_str()),
    ``part`` (the first call's part), ``output`` and ``tool_names`` (what the model was offered).
    """
    from pydantic_ai import Agent

    from hostshape.adapters import pydantic_ai as adapter

    devnull = open(os.devnull, "w")  # noqa: SIM115 - closed in finally; keeps the server's stderr out of the demo
    tmp: tempfile.TemporaryDirectory[str] | None = None
    try:
        if via == "config":
            tmp = tempfile.TemporaryDirectory(prefix="hostshape-pai-")
            toolsets, leaves = _from_config(Path(tmp.name), devnull, init_timeout)
            if prefix is not None:
                toolsets = [t.prefixed(prefix) for t in toolsets]
            name_prefix: str | None = f"{prefix}_{SERVER_ID}" if prefix else SERVER_ID
        else:
            leaf = _toolset(
                devnull,
                init_timeout,
                read_timeout,
                adapter.process_tool_call(policy, server=SERVER_ID) if via == "hook" and policy is not None else None,
            )
            leaves = [leaf]
            toolsets = [leaf.prefixed(prefix) if prefix is not None else leaf]
            name_prefix = prefix
        capabilities: list[Any] = []
        if policy is not None and via == "capability":
            capabilities.append(adapter.capability(policy))
        elif policy is not None and via != "hook":
            toolsets = adapter.install(toolsets, policy=policy)

        def offered(name: str) -> str:
            return f"{name_prefix}_{name}" if name_prefix else name

        first_call_id = "call_0"
        calls = [(tool, arguments or {}), *((t, a or {}) for t, a in parallel)]
        parts: list[ToolReturnPart] = []
        requests: list[object] = []
        tool_names: list[str] = []
        rounds = 0

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal rounds
            requests.append(list(messages))
            if not tool_names:
                tool_names.extend(t.name for t in info.function_tools)
            last = messages[-1]
            parts_in = last.parts if isinstance(last, ModelRequest) else []
            returned = [p for p in parts_in if isinstance(p, ToolReturnPart)]
            if rounds == 0:
                rounds = 1
                return ModelResponse(
                    parts=[
                        ToolCallPart(offered(name), args, tool_call_id=f"call_{i}")
                        for i, (name, args) in enumerate(calls)
                    ]
                )
            parts.extend(returned)
            if follow is not None and rounds < max_rounds:
                nxt = follow([p.model_response_str() for p in parts])
                if nxt is not None:
                    rounds += 1
                    name, args = nxt
                    return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"call_r{rounds}")])
            return ModelResponse(parts=[TextPart("done")])

        agent: Agent[None, str] = Agent(FunctionModel(model), toolsets=toolsets, capabilities=capabilities)
        try:
            result = await agent.run("Call the tool.")
        finally:
            for leaf in leaves:  # load_mcp_toolsets' stdio transports keep the server alive after the run
                await leaf.client.transport.close()
        first = next((p for p in parts if p.tool_call_id == first_call_id), None)
        texts = [p.model_response_str() for p in parts]
        return HostRun(
            host=adapter.HOST,
            tool=tool,
            received=first.model_response_str() if first is not None else "",
            requests=requests,
            extra={
                "parts": parts,
                "texts": texts,
                "part": first,
                "output": result.output,
                "tool_names": tool_names,
            },
        )
    finally:
        devnull.close()
        if tmp is not None:
            tmp.cleanup()


def _toolset(devnull: Any, init_timeout: float, read_timeout: float, hook: Any) -> Any:
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset

    command, *args = mcp_server_command()
    transport = StdioTransport(command=command, args=args, keep_alive=False, log_file=devnull)
    # init_timeout defaults to 5 s (mcp.py:1134-1135), too short for a cold server start on a loaded 2-core box.
    return MCPToolset(
        transport, id=SERVER_ID, process_tool_call=hook, init_timeout=init_timeout, read_timeout=read_timeout
    )


def _from_config(folder: Path, devnull: Any, init_timeout: float) -> tuple[list[Any], list[Any]]:
    from pydantic_ai.mcp import MCPToolset, load_mcp_toolsets

    command, *args = mcp_server_command()
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {SERVER_ID: {"command": command, "args": args}}}))
    toolsets = load_mcp_toolsets(config)
    leaves: list[Any] = []
    for toolset in toolsets:
        toolset.apply(lambda leaf: leaves.append(leaf) if isinstance(leaf, MCPToolset) else None)
    for leaf in leaves:
        # load_mcp_toolsets() fixes init_timeout at 5 s (mcp.py:2420 -> 1134-1135) and gives no way to change it;
        # fastmcp 3.4.11's Client reads `_init_timeout` at connect time (fastmcp/client/client.py:314, 522-523).
        leaf.client._init_timeout = init_timeout
        leaf.client.transport.log_file = devnull
    return toolsets, leaves
