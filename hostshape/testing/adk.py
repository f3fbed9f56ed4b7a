"""Google ADK run with a scripted model: a real LlmAgent, McpToolset over the example stdio server, Runner.

``received`` is the function response as ADK's model connectors would send it: ``json.dumps(response,
ensure_ascii=False)`` of the ``FunctionResponse.response`` dict the model was given. That is byte for byte what the
LiteLLM connector sends (google/adk/models/lite_llm.py:1238, 1608-1614) and what google-genai puts on the wire for
Gemini (genai/models.py:3385-3390 copies the dict, genai/_api_client.py:1784 ``json.dumps`` the request) except that
genai also escapes non-ASCII characters, a transport encoding the server undoes. The Anthropic connector sends less:
the bare string of a ``{"result": str}`` response (models/anthropic_llm.py:587-596).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any, Literal, cast

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command

HOST = "Google ADK"

# (texts received so far) -> the next (tool, arguments) call, or None to answer with text and end the run.
NextCall = Callable[[list[str]], "tuple[str, dict[str, Any]] | None"]


def received_text(response: Any) -> str:
    """The function response text a provider is sent (see the module docstring)."""
    return json.dumps(response, ensure_ascii=False, default=str)


async def run(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    mode: Literal["callback", "plugin"] = "callback",
    retrieval: bool = False,
    workflow: bool = False,
    next_call: NextCall | None = None,
    server: str | None = None,
    timeout: float = 60.0,
    store: Literal["artifacts"] | None = None,
    artifact_service: Any = None,
    sessions: Any = None,
    session_id: str | None = None,
    server_command: Sequence[str] | None = None,
    **_: Any,
) -> HostRun:
    """One ADK run in which the scripted model calls ``tool`` and records what it receives.

    - ``policy=None`` runs the host without hostshape.
    - ``mode``: install the adapter as an agent ``after_tool_callback`` or as an App plugin.
    - ``retrieval``: use ``hostshape.adapters.adk.install`` so the agent also has the ``hostshape_read`` tool.
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
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
    from google.genai import types
    from mcp import StdioServerParameters

    requests: list[LlmRequest] = []
    received: list[str] = []
    responses: list[Any] = []
    first_call = (tool, dict(arguments or {}))
    usage = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=1, candidates_token_count=1, total_token_count=2
    )

    class ScriptedModel(BaseLlm):
        """Calls the tool, then whatever ``next_call`` asks for, then answers with text."""

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            requests.append(llm_request)
            last = llm_request.contents[-1] if llm_request.contents else None
            answers = [p.function_response for p in (last.parts or []) if p.function_response] if last else []
            call: tuple[str, dict[str, Any]] | None
            if not answers:
                call = first_call
            else:
                for answer in answers:
                    responses.append(answer.response)
                    received.append(received_text(answer.response))
                call = next_call(list(received)) if next_call is not None else None
            if call is None:
                part = types.Part.from_text(text="done")
            else:
                name, args = call
                part = types.Part(function_call=types.FunctionCall(name=name, args=args, id=f"call-{len(received)}"))
            yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)

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

        if retrieval:
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
            text = json.dumps(first_call[1])
        else:
            root = LlmAgent(
                name="scripted_agent", model=ScriptedModel(model="scripted"), tools=tools, after_tool_callback=callback
            )
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
    return HostRun(
        host=HOST,
        tool=tool,
        received=received[0] if received else "",
        requests=list(requests),
        extra={"received": received, "responses": responses, "events": events, "session": stored, "mode": mode},
    )
