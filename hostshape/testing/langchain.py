"""LangChain run for tests, the demo and the notebooks: ``create_agent`` with a scripted model, offline.

Tools come from a real ``MultiServerMCPClient`` over the example stdio MCP server; the scripted chat model calls one
tool, records every message list it is given, and finishes once no follow-up call is wanted. ``policy=None`` runs
LangChain without hostshape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from hostshape.adapters._shared import require
from hostshape.adapters.langchain import HOST, StructuredContent
from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, Script, Scripted

if TYPE_CHECKING:
    from langchain_mcp_adapters.sessions import StdioConnection

FollowUp = Callable[[str], "tuple[str, dict[str, Any]] | None"]
"""Given the text of the latest tool result, the next tool call ``(name, arguments)``, or None to finish."""

SERVER = "corpus"

# The example server logs one INFO line per request to stderr (FastMCP's default level, which its constructor
# argument overrides over FASTMCP_LOG_LEVEL); disabling INFO before it starts keeps runs quiet.
_QUIET_SERVER = (
    "import logging, runpy; logging.disable(logging.INFO); "
    "runpy.run_module('hostshape.examples.mcp_server', run_name='__main__')"
)


def tool_text(content: Any) -> str:
    """The text a ToolMessage's content gives the model: the string, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> Any:
    """A LangChain chat model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``create_agent(scripted_model(...), tools)``. Its
    ``received`` holds each ToolMessage's text (``tool_text``), ``requests`` every message list, ``bound_tools`` the
    names of the tools it was offered."""
    require("langchain", "langchain_core.language_models")
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import Field, PrivateAttr

    class ScriptedChatModel(Scripted, BaseChatModel):
        bound_tools: list[str] = Field(default_factory=list)
        _script: Script = PrivateAttr()

        def __init__(self, script: Script) -> None:
            super().__init__()
            self._script = script

        @property
        def _llm_type(self) -> str:
            return "hostshape-scripted"

        def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
            self.bound_tools = [getattr(t, "name", str(t)) for t in tools]
            return self

        def _generate(
            self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> ChatResult:
            results = [tool_text(m.content) for m in messages if isinstance(m, ToolMessage)]
            step = self._script.reply_to_history(list(messages), results)
            if step is None:
                message = AIMessage(content=self._script.final_text)
            else:
                name, args = step
                message = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": self._script.call_id()}])
            return ChatResult(generations=[ChatGeneration(message=message)])

    return ScriptedChatModel(Script(first, next_call, final_text))


async def run_agent(
    tools: Sequence[Any],
    tool: str,
    *,
    arguments: dict[str, Any] | None = None,
    middleware: Sequence[Any] = (),
    follow_up: FollowUp | None = None,
    graph_store: Any = None,
) -> HostRun:
    """One ``create_agent`` run over ``tools`` in which the scripted model calls ``tool`` first; ``graph_store`` is
    the graph's ``BaseStore`` (``create_agent(store=...)``).

    ``received`` is the first tool result's text; ``extra`` holds ``artifact`` and ``status`` of that ToolMessage,
    ``tool_messages`` (all of them), ``received_all`` (their texts) and ``bound_tools`` (the names offered).
    """
    require("langchain", "langchain.agents")
    from langchain.agents import create_agent
    from langchain_core.messages import ToolMessage

    next_call = (lambda received: follow_up(received[-1])) if follow_up is not None else None
    model = scripted_model((tool, dict(arguments or {})), next_call)
    agent = create_agent(model, list(tools), middleware=list(middleware), store=graph_store)
    await agent.ainvoke({"messages": [{"role": "user", "content": f"Call {tool}."}]})
    last = model.requests[-1]
    tool_messages = [m for m in last if isinstance(m, ToolMessage)]
    first = tool_messages[0]
    return HostRun(
        host=HOST,
        tool=tool,
        received=tool_text(first.content),
        requests=list(model.requests),
        extra={
            "artifact": first.artifact,
            "status": first.status,
            "tool_messages": tool_messages,
            "received_all": [tool_text(m.content) for m in tool_messages],
            "bound_tools": list(model.bound_tools),
        },
    )


def mcp_connection() -> StdioConnection:
    """The stdio connection to the example MCP server, in ``MultiServerMCPClient``'s form."""
    command = mcp_server_command()
    return {"transport": "stdio", "command": command[0], "args": ["-c", _QUIET_SERVER]}


async def run(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    structured_content: StructuredContent = "drop",
    retrieval: bool = False,
    follow_up: FollowUp | None = None,
    middleware: Sequence[Any] = (),
    server_per_call: bool = False,
    store: Literal["langgraph"] | None = None,
    graph_store: Any = None,
    **options: Any,
) -> HostRun:
    """Run the agent once: the scripted model calls the MCP ``tool`` on the example server.

    ``policy=None`` runs without hostshape. ``retrieval=True`` installs the interceptor and ``hostshape_read`` with
    ``install(policy)``; ``follow_up`` scripts the calls after the first; ``middleware`` goes to ``create_agent``.
    Tools share one server session, unless ``server_per_call=True`` takes them from ``client.get_tools()``, which
    starts a server to list them and another for each call. ``store`` is install's option, ``graph_store`` the
    graph's store. ``extra`` also holds ``policy`` (as installed).
    """
    require("langchain", "langchain_mcp_adapters.client", "langchain.agents")
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools

    from hostshape.adapters.langchain import ShapeInterceptor, install

    if options:
        raise TypeError(f"unknown options for the LangChain run: {', '.join(sorted(options))}")
    interceptors: list[Any] = []
    extra_tools: list[Any] = []
    if policy is not None:
        if retrieval:
            interceptor, read_tool = install(policy, structured_content=structured_content, store=store)
            extra_tools.append(read_tool)
        else:
            interceptor = ShapeInterceptor(policy, structured_content=structured_content, store=store)
        interceptors.append(interceptor)
        policy = interceptor.policy
    client = MultiServerMCPClient({SERVER: mcp_connection()}, tool_interceptors=interceptors)

    async def run_over(tools: list[Any]) -> HostRun:
        return await run_agent(
            [*tools, *extra_tools],
            tool,
            arguments=arguments,
            middleware=middleware,
            follow_up=follow_up,
            graph_store=graph_store,
        )

    if server_per_call:
        tools = await client.get_tools()
        host_run = await run_over(tools)
    else:
        # One server for the whole run: the tools are converted exactly as get_tools() converts them
        # (langchain_mcp_adapters/client.py:188-207, 0.3.2), bound to one session instead of a new one per call.
        async with client.session(SERVER) as session:
            tools = await load_mcp_tools(session, tool_interceptors=client.tool_interceptors, server_name=SERVER)
            host_run = await run_over(tools)
    host_run.extra["policy"] = policy
    return host_run


__all__ = ["SERVER", "FollowUp", "mcp_connection", "run", "run_agent", "scripted_model", "tool_text"]
