"""LlamaIndex run with a scripted model: a real ``FunctionAgent`` with ``McpToolSpec`` tools over the example stdio
server (``BasicMCPClient``).

:func:`scripted_model` gives a LlamaIndex function-calling LLM (it extends the framework's own
``llama_index.core.llms.mock.MockFunctionCallingLLM``, a ``FunctionCallingLLM``) that plays a
:class:`~hostshape.testing.script.Script`, recording what it was sent. Use it to test your own agent offline::

    llm = scripted_model(("list_pull_requests", {}))
    await FunctionAgent(tools=tools, llm=llm).run("go")
    llm.received  # each tool result, as the model read it

``received`` is the text of the tool message's text blocks (an agent sends the model the tool output's blocks,
core/agent/workflow/function_agent.py:155-163); image blocks are counted apart (``images``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage, ImageBlock, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from pydantic import PrivateAttr

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.script import Call, NextCall, RunOptions, Script, Scripted, first_call

if TYPE_CHECKING:
    from typing_extensions import Unpack

HOST = "LlamaIndex"


def received_text(message: ChatMessage) -> str:
    """The text of one tool message as the model reads it: its text blocks, joined by newlines."""
    return "\n".join(block.text for block in message.blocks if isinstance(block, TextBlock))


class ScriptedLLM(Scripted, MockFunctionCallingLLM):
    """A function-calling LLM playing ``script``. ``received`` holds each tool message's text, ``images`` the number
    of image blocks each carried, ``requests`` the messages of every request. No network."""

    _script: Script = PrivateAttr()
    _images: list[int] = PrivateAttr(default_factory=list)

    def __init__(self, script: Script) -> None:
        super().__init__(response_generator=self._respond, is_chat_model=True)
        self._script = script

    @property
    def images(self) -> list[int]:
        return self._images

    def _respond(self, messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
        tool_messages = [m for m in messages if m.role == MessageRole.TOOL]
        new = tool_messages[len(self._script.received) :]
        self._images.extend(sum(isinstance(b, ImageBlock) for b in m.blocks) for m in new)
        call = self._script.reply(list(messages), [received_text(m) for m in new])
        if call is None:
            return ChatMessage(role=MessageRole.ASSISTANT, content=self._script.final_text)
        name, args = call
        block = ToolCallBlock(tool_call_id=self._script.call_id(), tool_name=name, tool_kwargs=args)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedLLM:
    """A LlamaIndex LLM that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``FunctionAgent(llm=scripted_model(...))``."""
    return ScriptedLLM(Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    server: str | None = None,
    **options: Unpack[RunOptions],
) -> HostRun:
    """One ``FunctionAgent`` run in which the scripted LLM calls ``tool`` and records what it receives.

    ``policy=None`` runs the host without hostshape; else the tools go through ``hostshape.adapters.llamaindex.
    install`` (with ``hostshape_read``; ``retrieval=False``, default True, shapes the MCP tools only). ``received`` is
    the first tool message's text; ``extra["received"]`` holds each in order and ``extra["images"]`` their image block
    counts.
    """
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    command = mcp_server_command()
    client = BasicMCPClient(command[0], args=command[1:], timeout=60)
    tools: list[Any] = await McpToolSpec(client=client).to_tool_list_async()
    if policy is not None:
        from hostshape.adapters import llamaindex

        tools = llamaindex.install(tools, policy, server=server)
        if not options.get("retrieval", True):
            tools = tools[:-1]
    llm = scripted_model(first_call(tool, options), options.get("next_call"))
    agent = FunctionAgent(tools=tools, llm=llm, streaming=False)
    answer = await agent.run(f"Call {tool}.")
    return llm.host_run(HOST, tool, images=llm.images, final=str(answer))


def call_sync(tool: str, *, policy: Policy | None, arguments: dict[str, Any] | None = None) -> HostRun:
    """The sync path: ``ScriptedLLM.predict_and_call`` runs the tool through ``FunctionTool.call`` (its sync
    ``callback``); ``received`` is the text of the tool output it returns, the blocks an agent would send on."""
    import asyncio

    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    command = mcp_server_command()
    client = BasicMCPClient(command[0], args=command[1:], timeout=60)
    tools: list[Any] = asyncio.run(McpToolSpec(client=client).to_tool_list_async())
    if policy is not None:
        from hostshape.adapters import llamaindex

        tools = llamaindex.install(tools, policy)
    llm = scripted_model((tool, dict(arguments or {})))
    response = llm.predict_and_call(tools, user_msg=f"Call {tool}.")
    output = response.sources[0]
    text = "\n".join(b.text for b in output.blocks if isinstance(b, TextBlock))
    return HostRun(host=HOST, tool=tool, received=text, extra={"output": output})
