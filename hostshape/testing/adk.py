"""Google ADK run with a scripted model: a real LlmAgent, McpToolset over the example stdio server, Runner.

``received`` is the function response as ADK's model connectors would send it: ``json.dumps(response,
ensure_ascii=False)`` of the ``FunctionResponse.response`` dict the model was given. That is byte for byte what the
LiteLLM connector sends (google/adk/models/lite_llm.py:1238, 1608-1614) and what google-genai puts on the wire for
Gemini (genai/models.py:3385-3390 copies the dict, genai/_api_client.py:1784 ``json.dumps`` the request) except that
genai also escapes non-ASCII characters, a transport encoding the server undoes. The Anthropic connector sends less:
the bare string of a ``{"result": str}`` response (models/anthropic_llm.py:587-596).

:func:`scripted_model` gives a ``BaseLlm`` (ADK's own model interface, models/base_llm.py) that plays a
:class:`~hostshape.testing.script.Script`. Use it to test your own agent offline::

    model = scripted_model(("list_pull_requests", {}))
    LlmAgent(name="a", model=model, tools=[toolset])  # then run it with a Runner
    model.received  # each function response, as the model read it
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, RunOptions, Script, Scripted, first_call

if TYPE_CHECKING:
    from typing_extensions import Unpack

HOST = "Google ADK"

_USAGE = types.GenerateContentResponseUsageMetadata(prompt_token_count=1, candidates_token_count=1, total_token_count=2)


def received_text(response: Any) -> str:
    """The function response text a provider is sent (see the module docstring)."""
    return json.dumps(response, ensure_ascii=False, default=str)


class ScriptedModel(Scripted, BaseLlm):
    """A ``BaseLlm`` playing ``script``. ``received`` holds each function response's text, ``responses`` their
    dicts, ``requests`` every ``LlmRequest``. No network."""

    _script: Script = PrivateAttr()
    _responses: list[Any] = PrivateAttr(default_factory=list)

    def __init__(self, script: Script, **fields: Any) -> None:
        super().__init__(model="scripted", **fields)
        self._script = script

    @property
    def responses(self) -> list[Any]:
        return self._responses

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1] if llm_request.contents else None
        answers = [p.function_response for p in (last.parts or []) if p.function_response] if last else []
        self._responses.extend(answer.response for answer in answers)
        call = self._script.reply(llm_request, [received_text(answer.response) for answer in answers])
        if call is None:
            part = types.Part.from_text(text=self._script.final_text)
        else:
            name, args = call
            part = types.Part(function_call=types.FunctionCall(name=name, args=args, id=self._script.call_id()))
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=_USAGE)


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedModel:
    """An ADK model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``LlmAgent(model=scripted_model(...))``."""
    return ScriptedModel(Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    mode: Literal["callback", "plugin"] = "callback",
    workflow: bool = False,
    server: str | None = None,
    timeout: float = 60.0,
    store: Literal["artifacts"] | None = None,
    artifact_service: Any = None,
    sessions: Any = None,
    session_id: str | None = None,
    server_command: Sequence[str] | None = None,
    **options: Unpack[RunOptions],
) -> HostRun:
    """One ADK run in which the scripted model calls ``tool`` and records what it receives.

    - ``policy=None`` runs the host without hostshape.
    - ``mode``: install the adapter as an agent ``after_tool_callback`` or as an App plugin.
    - ``retrieval`` (default False): use ``hostshape.adapters.adk.install`` so the agent also has the
      ``hostshape_read`` tool.
    - ``workflow``: run ``tool`` as a workflow tool node (``Workflow(edges=[("START", tool)])``) instead of through an
      agent; no model is involved, only plugins run there (workflow/_tool_node.py:237), so ``mode`` must be
      ``"plugin"`` for hostshape to apply, and ``received`` is the JSON of the node's output.
    - ``next_call``: after each function response the scripted model asks it for another call (to walk pages).
    - ``timeout``: StdioConnectionParams.timeout, which ADK also uses as every call's read timeout.
    - ``store``, ``artifact_service``: ``install(..., store="artifacts")`` with the Runner's artifact service;
      ``sessions`` and ``session_id`` continue a session another run started (another worker of one deployment).
    - ``server_command``: argv of the MCP server instead of the example server.

    ``received`` is the first function response's text; ``extra["received"]`` holds every one in order and
    ``extra["responses"]`` the response dicts. The MCP server is stopped before this returns.
    """
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
    from mcp import StdioServerParameters

    model = scripted_model(first_call(tool, options), options.get("next_call"))
    received, responses = model.received, model.responses

    command = list(server_command) if server_command else mcp_server_command()
    errlog = open(os.devnull, "w")  # noqa: SIM115 - closed in finally; the server logs every request to stderr
    toolset = McpToolset(
        connection_params=StdioConnectionParams(
            server_params=StdioServerParameters(command=command[0], args=command[1:]), timeout=timeout
        ),
        errlog=errlog,
    )
    tools: list[Any] = [toolset]
    callback: Any = None
    plugins: list[Any] = []
    if policy is not None:
        from hostshape.adapters import adk

        if options.get("retrieval", False):
            hook, read_tool = adk.install(policy, mode=mode, server=server, store=store)
            tools.append(read_tool)
        else:
            # adk declares ShapingPlugin as type[BasePlugin] (the class is built lazily); its __init__ takes a Policy
            plugin_class = cast(Callable[..., Any], adk.ShapingPlugin)
            hook = (
                plugin_class(policy, server=server)
                if mode == "plugin"
                else adk.after_tool_callback(policy, server=server)
            )
        if mode == "plugin":
            plugins.append(hook)
        else:
            callback = hook

    sessions = sessions if sessions is not None else InMemorySessionService()
    events: list[Any] = []
    runner: Runner | None = None
    try:
        if workflow:
            from google.adk.workflow import Workflow

            node = {t.name: t for t in await toolset.get_tools()}[tool]
            root: Any = Workflow(name="scripted_workflow", edges=[("START", node)])
            text = json.dumps(options.get("arguments") or {})
        else:
            root = LlmAgent(name="scripted_agent", model=model, tools=tools, after_tool_callback=callback)
            text = f"Call {tool}."
        app = App(name="hostshape_adk", root_agent=root, plugins=plugins)
        runner = Runner(app=app, session_service=sessions, artifact_service=artifact_service)
        if session_id is None:
            session_id = (await sessions.create_session(app_name=app.name, user_id="user")).id
        message = types.Content(role="user", parts=[types.Part.from_text(text=text)])
        async for event in runner.run_async(user_id="user", session_id=session_id, new_message=message):
            events.append(event)
            if workflow and getattr(event, "output", None) is not None:
                responses.append(event.output)
                received.append(received_text(event.output))
        stored = await sessions.get_session(app_name=app.name, user_id="user", session_id=session_id)
    finally:
        if runner is not None:
            await runner.close()
        await toolset.close()
        errlog.close()
    return model.host_run(HOST, tool, responses=responses, events=events, session=stored, mode=mode)
