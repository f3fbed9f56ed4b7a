"""hostshape for LangChain: an MCP tool interceptor, an agent middleware for other tools, and the way back.

LangChain has no result-size limit of its own, so hostshape's budget is the only one: the interceptor fires on the
raw ``CallToolResult`` inside ``langchain-mcp-adapters``, before the adapter converts it to a ``ToolMessage`` and
before the model sees it (docs/hosts.md names the tests that prove both with the real framework and a real stdio
MCP server).

Use::

    from langchain_mcp_adapters.client import MultiServerMCPClient
    from hostshape import Policy
    from hostshape.adapters.langchain import install, shape_middleware

    interceptor, read_tool = install(Policy(budget=4000))        # shaping + the hostshape_read tool
    client = MultiServerMCPClient(servers, tool_interceptors=[interceptor])
    agent = create_agent(model, [*await client.get_tools(), read_tool, *my_tools],
                         middleware=[shape_middleware(interceptor.policy)])   # for my_tools (skips MCP calls)

- ``ShapeInterceptor(policy)`` shapes every MCP result, routing rules by ``request.server_name`` and
  ``request.name`` (the MCP tool name, unprefixed). Its ``structuredContent`` is dropped by default
  (``structured_content="drop"``), or replaced by the shaped value (``"shape"``): either way the full payload no
  longer rides into ``ToolMessage.artifact``, which LangGraph keeps in state and checkpoints.
- ``shape_middleware(policy)`` shapes the ``ToolMessage`` of tools that do not come through the MCP adapter.
  **Shape one tool with one of the two, not both**: a projection applied twice is not idempotent. The middleware
  skips calls the interceptor already handled (the interceptor reports them through a context variable)
  and the retrieval tool.
- ``install(policy)`` gives the interceptor and the ``hostshape_read`` tool together, with
  ``policy.retrieval_tool`` set so the envelope's hint names the tool and the handle.

Errors (``isError``) keep their flag and, when they fit the budget, their content unchanged; an error over the
budget is cut to fit like any other result and stays an error (``status="error"``). Nothing here raises
into the agent: a fault in hostshape is logged to ``hostshape.adapters.langchain`` and the original result passes
through (``on_fault="pass"``) or is replaced by a short refusal naming the remedy (``on_fault="refuse"``).
Failures of the host itself (a dead MCP transport) propagate exactly as they would without hostshape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from hostshape import Policy, shape
from hostshape.adapters._shared import default_policy, read_function, read_page, require
from hostshape.input.contract import ToolResult
from hostshape.input.host_forms import blocks_result, tool_result
from hostshape.wayback.retrieve import ARGUMENTS, RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

if TYPE_CHECKING:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool
    from langchain_mcp_adapters.interceptors import MCPToolCallRequest
    from mcp.types import CallToolResult

    from hostshape.result import Shaped

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "ShapeInterceptor",
    "StructuredContent",
    "install",
    "retrieval_tool",
    "shape_middleware",
]

HOST = "LangChain"
INTERCEPTION_POINT = "MultiServerMCPClient(tool_interceptors=[...]) (+ wrap_tool_call middleware)"
FIRES = "before the model (the host has no limit)"

StructuredContent = Literal["drop", "shape"]
# Where full originals go: None, the policy's spill store; "langgraph", the graph's store (``create_agent(store=...)``).
Store = Literal["langgraph"] | None

EXTRA = "langchain"
# MCP content blocks a model receives natively beside text: kept as they are, never budgeted as text.
_MEDIA = ("image", "audio")
logger = logging.getLogger("hostshape.adapters.langchain")

# Set by the middleware around each tool call. Each call and its middleware run in their own task under
# asyncio.gather (langgraph/prebuilt/tool_node.py:861-880, 1205-1251; 1.2.24), so one call's value never leaks into
# another's. The interceptor, which runs inside that call (in the same task or a child with a copied context),
# records that it handled it, so the middleware does not shape the result again.
_HANDLED_HERE: ContextVar[list[str] | None] = ContextVar("hostshape_langchain_handled", default=None)


class ShapeInterceptor:
    """An async ``langchain-mcp-adapters`` tool interceptor that shapes each MCP result to ``policy``.

    Returns the ``CallToolResult`` unchanged when it fits (or on a fault with ``on_fault="pass"``), else a copy whose
    only content block is the shaped text, with ``structuredContent`` dropped or shaped per ``structured_content``.
    ``isError`` is kept. Exceptions from ``handler`` (the host's own failures) propagate; hostshape's never do.
    """

    def __init__(
        self, policy: Policy | None = None, *, structured_content: StructuredContent = "drop", store: Store = None
    ) -> None:
        require(EXTRA, "langchain_mcp_adapters", "mcp")
        if structured_content not in ("drop", "shape"):
            raise ValueError(f"structured_content must be 'drop' or 'shape', not {structured_content!r}")
        _check_store(store)
        self.policy = default_policy(policy)
        self.structured_content: StructuredContent = structured_content
        self.store: Store = store

    async def __call__(
        self,
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[Any]],
    ) -> Any:
        # langchain_mcp_adapters/tools.py:497-508 (0.3.2): the chain wraps the session call and its result is
        # converted afterwards (tools.py:226-283), so this sees the raw CallToolResult. An isError result is raised
        # there as a ToolException and becomes a ToolMessage with status="error" (tools.py:273-274, 527).
        result = await handler(request)
        # The request carries the graph's runtime, and so its store (langchain_mcp_adapters/interceptors.py:73).
        with _lent_store(self.store, request.runtime, self.policy):
            return self.shape_result(result, tool=request.name, server=request.server_name, args=request.args)

    def shape_result(
        self,
        result: Any,
        *,
        tool: str,
        server: str | None,
        args: Mapping[str, Any] | None = None,
    ) -> Any:
        """Shape one handler result (``CallToolResult``; a ``ToolMessage`` from an inner interceptor too).

        Anything else (a LangGraph ``Command``) passes through. Never raises.
        """
        try:
            handled = _HANDLED_HERE.get()
            if handled is not None:
                handled.append(tool)
            from langchain_core.messages import ToolMessage
            from mcp.types import CallToolResult

            if isinstance(result, ToolMessage):
                return _shape_tool_message(result, self.policy, self.structured_content, tool, server, args)
            if not isinstance(result, CallToolResult):
                return result
            media = [b for b in result.content if getattr(b, "type", None) in _MEDIA]
            core_input = result.model_copy(update={"content": [b for b in result.content if b not in media]})
            if media and not core_input.content:
                return result  # media only: nothing textual to budget
            shaped = _shape(tool_result(core_input if media else result), self.policy, tool, server, args)
            if not shaped.changed:
                return result
            return _replace_call_result(result, shaped, self.structured_content, media)
        except Exception as exc:  # never raise into the agent
            return _on_fault(result, exc, self.policy, tool, _refused_call_result)


def shape_middleware(
    policy: Policy | None = None, *, structured_content: StructuredContent = "drop", store: Store = None
) -> AgentMiddleware:
    """An agent middleware (``create_agent(..., middleware=[...])``) that shapes each tool's ``ToolMessage``.

    For tools that do not come through the MCP interceptor. It skips calls ``ShapeInterceptor`` handled and the
    retrieval tool; an artifact of the MCP form ``{"structured_content": ...}`` is dropped or shaped like the
    interceptor's, other artifacts are kept. ``store="langgraph"`` saves full originals to the graph's store
    (``request.runtime.store``). Never raises; tool exceptions propagate as without it.
    """
    require(EXTRA, "langchain.agents.middleware")
    if structured_content not in ("drop", "shape"):
        raise ValueError(f"structured_content must be 'drop' or 'shape', not {structured_content!r}")
    _check_store(store)
    middleware: Any = _middleware_class()
    return middleware(default_policy(policy), structured_content, store)


def retrieval_tool(policy: Policy | None = None, *, store: Store = None) -> BaseTool:
    """The ``hostshape_read`` LangChain tool: a budgeted page of a saved full result, by handle, query and cursor.

    It reads with ``policy`` (give it the same policy as the interceptor, or use ``install``); ``store="langgraph"``
    reads from the graph's store. Never raises: every failure comes back as text telling the model what to do
    instead.
    """
    require(EXTRA, "langchain_core.tools")
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel, Field

    read_policy = default_policy(policy)
    _check_store(store)
    if store == "langgraph":
        return _graph_store_read_tool(read_policy)

    class ReadArgs(BaseModel):
        handle: str = Field(description=ARGUMENTS["handle"])
        query: str = Field(default="", description=ARGUMENTS["query"])
        cursor: str = Field(default="", description=ARGUMENTS["cursor"])
        section: str = Field(default="", description=ARGUMENTS["section"])
        lines: str = Field(default="", description=ARGUMENTS["lines"])
        grep: str = Field(default="", description=ARGUMENTS["grep"])

    hostshape_read = read_function(read_policy)

    return StructuredTool.from_function(
        func=hostshape_read, name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION, args_schema=ReadArgs
    )


def install(
    target: Any = None,
    policy: Policy | None = None,
    *,
    structured_content: StructuredContent = "drop",
    store: Store = None,
) -> tuple[Any, BaseTool]:
    """Install hostshape and return what the LangChain user plugs in, with the policy's ``retrieval_tool`` set.
    ``store="langgraph"``: full originals go to the graph's store (``create_agent(..., store=...)``) and are read
    back from there, instead of the policy's spill store (docs/stores.md says which to pick).

    - a ``MultiServerMCPClient``: the client, with the interceptor added first to its ``tool_interceptors``
      (outermost, so it shapes what every other interceptor returns), and the ``hostshape_read`` tool;
    - a ``Policy`` or nothing (``install(policy)``): the interceptor, for
      ``MultiServerMCPClient(tool_interceptors=[...])``, and the ``hostshape_read`` tool.
    """
    if isinstance(target, Policy):
        target, policy = None, target
    policy = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    interceptor = ShapeInterceptor(policy, structured_content=structured_content, store=store)
    if target is None:
        return interceptor, retrieval_tool(policy, store=store)
    from langchain_mcp_adapters.client import MultiServerMCPClient

    if not isinstance(target, MultiServerMCPClient):
        raise TypeError(f"install() takes a MultiServerMCPClient or a Policy, not {type(target).__name__}")
    others = [i for i in target.tool_interceptors if not isinstance(i, ShapeInterceptor)]
    target.tool_interceptors = [interceptor, *others]
    return target, retrieval_tool(policy, store=store)


# --- glue ---------------------------------------------------------------------------------------------------------


def _shape(given: ToolResult, policy: Policy, tool: str, server: str | None, args: Mapping[str, Any] | None) -> Shaped:
    return shape(given, policy=policy, tool=tool, server=server, args=dict(args) if args else None)


def _structured_value(shaped: Shaped) -> dict[str, Any]:
    """The shaped result as a structuredContent object: the JSON object itself, else ``{"result": value}``."""
    if shaped.is_json:
        value = json.loads(shaped.text)
        return value if isinstance(value, dict) else {"result": value}
    return {"result": shaped.text}


def _replace_call_result(
    result: CallToolResult, shaped: Shaped, structured: StructuredContent, media: list[Any] | None = None
) -> CallToolResult:
    """``result`` with the shaped text as its content, followed by the image and audio blocks ``media``, which
    LangChain passes to the model natively (langchain_mcp_adapters/tools.py, 0.3.2)."""
    from mcp.types import TextContent

    # langchain_mcp_adapters/tools.py:268-283 (0.3.2): content blocks become the ToolMessage content and
    # structuredContent becomes ToolMessage.artifact = {"structured_content": ...}, which graph state keeps.
    keep = structured == "shape" and result.structuredContent is not None
    return result.model_copy(
        update={
            "content": [TextContent(type="text", text=shaped.text), *(media or [])],
            "structuredContent": _structured_value(shaped) if keep else None,
        }
    )


def _refused_call_result(result: Any, text: str) -> Any:
    from mcp.types import CallToolResult, TextContent

    if isinstance(result, CallToolResult):
        return result.model_copy(update={"content": [TextContent(type="text", text=text)], "structuredContent": None})
    return result


def _on_fault(result: Any, exc: Exception, policy: Policy, tool: str | None, refuse: Callable[[Any, str], Any]) -> Any:
    logger.error("hostshape failed on the result of %s: %s: %s", tool, type(exc).__name__, exc, exc_info=exc)
    try:
        from hostshape.host import glue_fault

        text = glue_fault(result, policy, exc, tool=tool)
        return result if text is None else refuse(result, text)
    except Exception:  # the refusal itself failed: fail open rather than crash the agent
        logger.exception("hostshape could not build a refusal for %s; passing the result through", tool)
        return result


def _mcp_blocks(content: Any) -> list[Any]:
    """A ToolMessage's content as MCP content block dicts (LangChain image blocks use other key names)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[Any] = []
    for block in content:
        if isinstance(block, str):
            blocks.append({"type": "text", "text": block})
        elif isinstance(block, Mapping) and block.get("type") == "text":
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif isinstance(block, Mapping) and block.get("type") == "image" and "base64" in block:
            blocks.append({"type": "image", "data": block["base64"], "mimeType": block.get("mime_type", "")})
        else:
            blocks.append(block)
    return blocks


def _shape_tool_message(
    message: ToolMessage,
    policy: Policy,
    structured: StructuredContent,
    tool: str,
    server: str | None,
    args: Mapping[str, Any] | None,
) -> ToolMessage:
    blocks = [message.content] if isinstance(message.content, str) else list(message.content)
    media = [b for b in blocks if isinstance(b, Mapping) and b.get("type") in _MEDIA]
    rest = [b for b in blocks if not (isinstance(b, Mapping) and b.get("type") in _MEDIA)]
    if media and not rest:
        return message  # media only: nothing textual to budget
    given = blocks_result(_mcp_blocks(rest), is_error=message.status == "error")
    shaped = _shape(given, policy, tool, server, args)
    if not shaped.changed:
        return message
    content: Any = shaped.text if isinstance(message.content, str) else [{"type": "text", "text": shaped.text}, *media]
    update: dict[str, Any] = {"content": content}
    artifact = message.artifact
    if isinstance(artifact, Mapping) and set(artifact) == {"structured_content"}:  # an MCP artifact
        update["artifact"] = {"structured_content": _structured_value(shaped)} if structured == "shape" else None
    return message.model_copy(update=update)


def _tool_name(request: Any) -> str | None:
    try:
        return str(request.tool_call["name"])
    except Exception:
        return None


def _refused_tool_message(message: Any, text: str) -> Any:
    from langchain_core.messages import ToolMessage

    if isinstance(message, ToolMessage):
        return message.model_copy(update={"content": text, "artifact": None})
    return message


@lru_cache(maxsize=1)
def _middleware_class() -> type[AgentMiddleware]:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import ToolMessage

    class ShapeMiddleware(AgentMiddleware):
        """Shapes each tool's ToolMessage content to the policy's budget (see ``shape_middleware``)."""

        def __init__(self, policy: Policy, structured_content: StructuredContent, store: Store = None) -> None:
            super().__init__()
            self.policy = policy
            self.structured_content: StructuredContent = structured_content
            self.store: Store = store

        def _after(self, request: Any, result: Any, handled: list[str]) -> Any:
            try:
                call = request.tool_call
                if handled or call.get("name") == RETRIEVAL_TOOL:  # shaped by the interceptor, or already a page
                    return result
                if not isinstance(result, ToolMessage):  # a Command: the tool manages state itself
                    return result
                # ToolCallRequest.runtime is the graph's runtime (langgraph/prebuilt/tool_node.py:147-163).
                with _lent_store(self.store, getattr(request, "runtime", None), self.policy):
                    return _shape_tool_message(
                        result, self.policy, self.structured_content, call.get("name", ""), None, call.get("args")
                    )
            except Exception as exc:  # never raise into the agent
                return _on_fault(result, exc, self.policy, _tool_name(request), _refused_tool_message)

        def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            handled: list[str] = []
            token = _HANDLED_HERE.set(handled)
            try:
                result = handler(request)
            finally:
                _HANDLED_HERE.reset(token)
            return self._after(request, result, handled)

        async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
            handled: list[str] = []
            token = _HANDLED_HERE.set(handled)
            try:
                result = await handler(request)
            finally:
                _HANDLED_HERE.reset(token)
            return self._after(request, result, handled)

    return ShapeMiddleware


# --- the graph's store as the spill store ----------------------------------------------------------------------------


def _check_store(store: Any) -> None:
    if store not in (None, "langgraph"):
        raise ValueError(f"store must be None or 'langgraph', not {store!r}")


def _lent_store(store: Store, runtime: Any, policy: Policy) -> Any:
    """A context in which the graph's store (``runtime.store``) is the spill store; a no-op when ``store`` is None,
    and when the graph has no store or the secret is unusable (the policy's own store then answers)."""
    import contextlib

    graph_store = getattr(runtime, "store", None) if store == "langgraph" else None
    if graph_store is None:
        return contextlib.nullcontext()
    from hostshape.wayback.spill import SpillError
    from hostshape.wayback.stores import using
    from hostshape.wayback.stores.frameworks import langgraph_store

    try:
        return using(langgraph_store(policy, graph_store))
    except SpillError as exc:
        logger.warning("hostshape cannot use the graph's store: %s", exc)
        return contextlib.nullcontext()


def _graph_store_read_tool(policy: Policy) -> BaseTool:
    """``hostshape_read`` reading from the graph's store, which LangGraph injects as ``runtime``
    (``ToolRuntime``, langgraph/prebuilt/tool_node.py:1715; hidden from the model's schema)."""
    from langchain.tools import ToolRuntime
    from langchain_core.tools import StructuredTool

    def hostshape_read(
        handle: str,
        runtime: ToolRuntime,
        query: str = "",
        cursor: str = "",
        section: str = "",
        lines: str = "",
        grep: str = "",
    ) -> str:
        with _lent_store("langgraph", runtime, policy):
            return read_page(handle, query, cursor, section=section, lines=lines, grep=grep, policy=policy)

    hostshape_read.__annotations__["runtime"] = ToolRuntime  # resolved here: the module's annotations are strings
    return StructuredTool.from_function(func=hostshape_read, name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION)
