"""Run the OpenAI Agents SDK for real, offline: a real ``Agent``, ``Runner.run`` (or ``run_streamed``), the example
stdio MCP server through ``agents.mcp.MCPServerStdio``, and a scripted model that records exactly what it receives.

:func:`scripted_model` (a subclass of ``agents.models.interface.Model``) plays a
:class:`~hostshape.testing.script.Script`, or a list of steps: each step is the model's answer to one model call,
either a list of tool calls ``[(tool, arguments), ...]``, a final text, or a callable that looks at the call
(``ModelCall``) and returns one of those. :func:`run`'s default steps call ``tool`` once and then answer. No network
is used: the model never leaves the process and tracing is disabled for the run.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, Script, Scripted

HOST = "openai-agents"
SERVER_NAME = "corpus"

ToolCalls = list[Call]
StepResult = ToolCalls | str


@dataclass
class ModelCall:
    """What the scripted model saw on one call.

    ``input`` is a deep copy of the exact input items; ``outputs`` maps each ``function_call_output``'s call_id to
    its model-visible text (see ``output_text``); ``calls`` maps the call_ids the model issued so far to
    ``(tool, arguments)``.
    """

    index: int
    input: list[Any]
    instructions: str | None
    previous_response_id: str | None
    conversation_id: str | None
    outputs: dict[str, str]
    calls: dict[str, tuple[str, dict[str, Any]]]

    def output_of(self, tool: str) -> str | None:
        """The text of the latest output visible in this call for a call the model made to ``tool``."""
        for call_id, (name, _args) in reversed(list(self.calls.items())):
            if name == tool and call_id in self.outputs:
                return self.outputs[call_id]
        return None


Step = StepResult | Callable[[ModelCall], StepResult]


def output_text(output: Any) -> str:
    """The model-visible text of a ``function_call_output``'s ``output``.

    A string is returned as is; a list of parts gives the concatenated text of its ``input_text`` parts (other parts
    appear as ``<type>`` markers so tests notice them); a single part dict is treated as a one-part list.
    """
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        output = [output]
    if isinstance(output, list):
        pieces = []
        for part in output:
            if isinstance(part, dict) and part.get("type") in ("input_text", "text"):
                pieces.append(str(part.get("text", "")))
            elif isinstance(part, dict):
                pieces.append(f"<{part.get('type')}>")
            else:
                pieces.append(str(part))
        return "".join(pieces)
    return str(output)


def scripted_model(
    first: Call | None = None,
    next_call: NextCall | None = None,
    final_text: str = "done",
    *,
    steps: Sequence[Step] | None = None,
) -> Any:
    """An OpenAI Agents ``Model`` that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`), offline, recording what it was given:
    ``Agent(..., model=scripted_model(("list_pull_requests", {})))``.

    The model's ``received`` holds each tool output's model-visible text (``output_text``), ``calls`` every
    ``ModelCall``. ``steps`` replaces the script by one answer per model call (after the last, ``final_text``): a
    list of ``(tool, arguments)`` is one function call each (in parallel), a string the final answer, a callable gets
    the ``ModelCall`` (``call.output_of("tool")`` is the latest output of a call to ``tool``) and returns either."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        Response,
        ResponseCompletedEvent,
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class ScriptedModel(Scripted, Model):
        """Answers each model call from the script and records what it was given."""

        def __init__(self) -> None:
            self.calls: list[ModelCall] = []
            self.issued: dict[str, tuple[str, dict[str, Any]]] = {}
            self._script = Script(first, next_call, final_text)
            self._ids = itertools.count(1)

        def _record(
            self, instructions: str | None, input: Any, previous_response_id: str | None, conversation_id: str | None
        ) -> ModelCall:
            items = [input] if isinstance(input, str) else copy.deepcopy(list(input))
            outputs = {
                str(item.get("call_id")): output_text(item.get("output"))
                for item in items
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            }
            call = ModelCall(
                index=len(self.calls),
                input=items,
                instructions=instructions,
                previous_response_id=previous_response_id,
                conversation_id=conversation_id,
                outputs=outputs,
                calls=dict(self.issued),
            )
            self.calls.append(call)
            return call

        def _answer(self, call: ModelCall) -> list[Any]:
            seen = {cid for earlier in self.calls[:-1] for cid in earlier.outputs}
            scripted = self._script.reply(call, [text for cid, text in call.outputs.items() if cid not in seen])
            result: StepResult
            if steps is None:
                result = final_text if scripted is None else [scripted]
            else:
                step: Step = steps[call.index] if call.index < len(steps) else final_text
                result = step(call) if callable(step) else step
            if isinstance(result, str):
                return [
                    ResponseOutputMessage(
                        id=f"msg_{next(self._ids)}",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[ResponseOutputText(type="output_text", text=result, annotations=[])],
                    )
                ]
            out: list[Any] = []
            for name, args in result:
                n = next(self._ids)
                call_id = f"call_{n}"
                self.issued[call_id] = (name, dict(args))
                out.append(
                    ResponseFunctionToolCall(
                        id=f"fc_{n}",
                        call_id=call_id,
                        name=name,
                        arguments=json.dumps(args),
                        type="function_call",
                        status="completed",
                    )
                )
            return out

        # The runner passes the model's arguments by keyword (agents/run_internal/run_loop.py:3026-3039) or the first
        # seven by position (run_loop.py:2622-2634, openai-agents 0.24): only those the script reads are named.
        async def get_response(
            self, system_instructions, input, *_: Any, previous_response_id=None, conversation_id=None, **__: Any
        ):
            call = self._record(system_instructions, input, previous_response_id, conversation_id)
            return ModelResponse(
                output=self._answer(call), usage=Usage(requests=1), response_id=f"resp_{call.index + 1}"
            )

        async def stream_response(
            self, system_instructions, input, *_: Any, previous_response_id=None, conversation_id=None, **__: Any
        ):
            call = self._record(system_instructions, input, previous_response_id, conversation_id)
            response = Response(
                id=f"resp_{call.index + 1}",
                created_at=time.time(),
                model="scripted",
                object="response",
                output=self._answer(call),
                parallel_tool_calls=False,
                tool_choice="auto",
                tools=[],
            )
            yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=0)

    return ScriptedModel()


@functools.cache
def _quiet_server_class() -> type:
    from agents.mcp import MCPServerStdio
    from mcp.client.stdio import stdio_client

    class QuietMCPServerStdio(MCPServerStdio):
        """MCPServerStdio whose server stderr (FastMCP logs every request at INFO) goes to a file, not ours."""

        def __init__(self, errlog: Any, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self._errlog = errlog

        def create_streams(self) -> Any:  # agents/mcp/server.py:2072 passes no errlog
            return stdio_client(self.params, errlog=self._errlog)

    return QuietMCPServerStdio


async def run(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    streamed: bool = False,
    use_structured_content: bool = False,
    server_managed: Literal["previous_response_id", "conversation_id"] | None = None,
    then: Callable[..., Any] | None = None,
    retrieval: bool = False,
    steps: Sequence[Step] | None = None,
    followups: Sequence[tuple[str, dict[str, Any]]] = (),
    history: Sequence[Any] = (),
    hooks: Any | None = None,
    timeout: float = 60.0,
    server_command: Sequence[str] | None = None,
    **options: Any,
) -> HostRun:
    """One real agent run in which the scripted model calls ``tool`` and records what it receives.

    ``policy=None`` runs the host without hostshape. Options:

    - ``streamed``: use ``Runner.run_streamed`` instead of ``Runner.run``;
    - ``use_structured_content``: create the MCP server with ``use_structured_content=True`` (outputs become the
      JSON string of structuredContent instead of a list of ``input_text`` parts);
    - ``server_managed``: run as a server-managed conversation (``auto_previous_response_id`` or a
      ``conversation_id``), where the model only receives the new items each turn;
    - ``then``: an existing ``call_model_input_filter`` (e.g. ``ToolOutputTrimmer``) composed after hostshape's;
    - ``retrieval``: install the ``hostshape_read`` tool with ``hostshape.adapters.openai_agents.install``;
    - ``followups``: tool calls made one per model call after the first, so later calls re-read the first output;
    - ``history``: input items from earlier turns, sent before this turn's user message "Go.";
    - ``hooks``: your own ``RunHooks`` (hostshape's hooks forward every event to them);
    - ``steps``: a full script (overrides ``tool``/``arguments``/``followups``); the first step should call ``tool``.
    - ``server_command``: argv of the MCP server instead of the example server (e.g. ``hostshape proxy``).

    ``received`` is the text of the first ``tool`` output in the first model call that saw it. ``extra`` holds
    ``calls`` (every ``ModelCall``), ``seen`` (that output's text in each later call that contained it),
    ``final_output``, ``result`` (the RunResult), ``shaping`` (the adapter object, when a policy was given) and
    ``server_stderr``.
    """
    from agents import Agent, RunConfig, Runner, RunResult, RunResultStreaming

    if options:
        raise TypeError(f"unknown option(s): {', '.join(sorted(options))}")
    if steps is None:
        steps = [[(tool, dict(arguments or {}))], *[[fc] for fc in followups]]
    model = scripted_model(steps=steps)
    command = list(server_command) if server_command else mcp_server_command()
    errlog = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed by the `with` below
    server = _quiet_server_class()(
        errlog,
        name=SERVER_NAME,
        params={"command": command[0], "args": command[1:]},
        cache_tools_list=True,
        client_session_timeout_seconds=timeout,
        use_structured_content=use_structured_content,
    )
    with errlog:
        async with server:
            agent: Any = Agent(name="assistant", instructions="Use the tools.", model=model, mcp_servers=[server])
            shaping = None
            if policy is not None:
                from hostshape.adapters import openai_agents as adapter

                if retrieval:
                    agent, shaping = adapter.install(agent, policy, then=then, hooks=hooks)
                else:
                    shaping = adapter.shaping(policy, then=then, hooks=hooks)
                run_kwargs = shaping.runner_kwargs(tracing_disabled=True)
            else:
                run_kwargs = {
                    "run_config": RunConfig(tracing_disabled=True, call_model_input_filter=then),
                    "hooks": hooks,
                }
            if server_managed == "previous_response_id":
                run_kwargs["auto_previous_response_id"] = True
            elif server_managed == "conversation_id":
                run_kwargs["conversation_id"] = "conv_hostshape_test"
            max_turns = len(steps) + 2
            run_input: Any = [*history, {"role": "user", "content": "Go."}] if history else "Go."
            result: RunResult | RunResultStreaming
            if streamed:
                result = Runner.run_streamed(agent, run_input, max_turns=max_turns, **run_kwargs)
                async for _event in result.stream_events():
                    pass
            else:
                result = await Runner.run(agent, run_input, max_turns=max_turns, **run_kwargs)
        errlog.seek(0)
        server_stderr = errlog.read()

    calls: list[ModelCall] = model.calls
    first_id = next((cid for cid, (name, _a) in model.issued.items() if name == tool), None)
    seen = [c.outputs[first_id] for c in calls if first_id is not None and first_id in c.outputs]
    return HostRun(
        host=HOST,
        tool=tool,
        received=seen[0] if seen else "",
        requests=[c.input for c in calls],
        extra={
            "calls": calls,
            "seen": seen,
            "final_output": result.final_output,
            "result": result,
            "shaping": shaping,
            "server_stderr": server_stderr,
        },
    )
