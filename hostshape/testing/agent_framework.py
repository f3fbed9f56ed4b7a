"""Microsoft Agent Framework run with a scripted model: a real ``Agent`` with an ``MCPStdioTool`` over the example
stdio server.

:func:`scripted_model` gives an Agent Framework chat client (``BaseChatClient`` with the framework's function
invocation and middleware layers, as its provider clients compose them; agent-framework-core 1.23.0 _clients.py:
221-270, 419-432) that plays a :class:`~hostshape.testing.script.Script` and records every request. Use it to test
your own agent offline::

    client = scripted_model(("list_pull_requests", {}))
    await Agent(client=client, tools=[mcp_tool]).run("go")
    client.received  # each tool result, as the model read it

``received`` is the text of each ``function_result``'s text items (joined by newlines), the text a provider is sent;
``extra["items"]`` in :func:`run` keeps the item types, so images show as ``data`` items.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from agent_framework import BaseChatClient, ChatResponse, ChatResponseUpdate, Content, Message
from agent_framework._middleware import ChatMiddlewareLayer
from agent_framework._tools import FunctionInvocationLayer

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, RunOptions, Script, Scripted, first_call

if TYPE_CHECKING:
    from typing_extensions import Unpack

HOST = "Microsoft Agent Framework"


def received_text(result: Content) -> str:
    """The text of one ``function_result`` as a provider is sent it: its text items, joined by newlines."""
    items = result.items or []
    if not items:
        return str(result.result or "")
    return "\n".join(i.text or "" for i in items if i.type == "text")


class ScriptedChatClient(Scripted, FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):
    """A chat client playing ``script``. ``received`` holds each tool result's text, ``results`` the
    ``function_result`` contents, ``requests`` the messages of every request. No network."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, script: Script) -> None:
        super().__init__()
        self._script = script
        self.results: list[Content] = []

    def _reply(self, messages: Sequence[Message]) -> Message:
        answers = [c for c in (messages[-1].contents if messages else []) if c.type == "function_result"]
        self.results.extend(answers)
        call = self._script.reply(list(messages), [received_text(answer) for answer in answers])
        if call is None:
            return Message(role="assistant", contents=[self._script.final_text])
        name, args = call
        return Message(
            role="assistant",
            contents=[Content.from_function_call(call_id=self._script.call_id(), name=name, arguments=args)],
        )

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any) -> Any:
        if not stream:

            async def respond() -> ChatResponse:
                return ChatResponse(messages=[self._reply(messages)])

            return respond()
        from agent_framework import ResponseStream

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            message = self._reply(messages)
            yield ChatResponseUpdate(role="assistant", contents=list(message.contents))

        return ResponseStream(updates(), finalizer=ChatResponse.from_updates)


def scripted_model(
    first: Call | None, next_call: NextCall | None = None, final_text: str = "done"
) -> ScriptedChatClient:
    """A chat client that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``Agent(client=scripted_model(...))``."""
    return ScriptedChatClient(Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    stream: bool = False,
    detailed_errors: bool = False,
    server: str | None = None,
    **options: Unpack[RunOptions],
) -> HostRun:
    """One ``Agent.run`` in which the scripted client calls ``tool`` and records what it receives.

    ``policy=None`` runs the host without hostshape; else ``hostshape.adapters.agent_framework.install`` adds the
    middleware and ``hostshape_read`` (``retrieval``, default True) to the agent. ``stream`` runs the streaming path;
    ``detailed_errors`` sets the client's ``include_detailed_errors``. ``received`` is the first tool result's text;
    ``extra["received"]`` holds each in order and ``extra["items"]`` the item types of each.
    """
    from agent_framework import Agent, MCPStdioTool

    command = mcp_server_command()
    client = scripted_model(first_call(tool, options), options.get("next_call"))
    if detailed_errors:
        client.function_invocation_configuration["include_detailed_errors"] = True
    mcp_tool = MCPStdioTool(name="corpus", command=command[0], args=command[1:], request_timeout=60)
    async with mcp_tool:
        agent = Agent(client=client, tools=[mcp_tool])
        if policy is not None:
            from hostshape.adapters import agent_framework

            agent = agent_framework.install(agent, policy, server=server)
            if not options.get("retrieval", True):
                agent.default_options["tools"] = agent.default_options["tools"][:-1]
        if stream:
            response_stream = agent.run(f"Call {tool}.", stream=True)
            async for _update in response_stream:
                pass
            answer = await response_stream.get_final_response()
        else:
            answer = await agent.run(f"Call {tool}.")
    items = [[i.type for i in (r.items or [])] for r in client.results]
    return client.host_run(HOST, tool, items=items, final=answer.text)
