"""The proxy's side toward the client: a low-level ``mcp`` ``Server`` whose handlers forward each request upstream
and shape successful tool results, served over stdio or streamable HTTP."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from inspect import signature
from typing import Any, Literal

from hostshape.policy import Policy
from hostshape.proxy.shaping import always_satisfied, schema_problem, shape_call_result
from hostshape.proxy.upstream import (
    CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    Link,
    Upstream,
    UpstreamError,
    describe,
    require_mcp,
)
from hostshape.wayback.retrieve import ARGUMENTS, RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

log = logging.getLogger("hostshape.proxy")

MAX_SESSIONS = 64  # client sessions served at once over HTTP: each has its own upstream process or connection

RETRIEVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {name: {"type": "string", "description": text} for name, text in ARGUMENTS.items()},
    "required": ["handle"],
}

OutputSchemas = Literal["auto", "keep", "drop"]
"""What the proxy does with a tool's ``outputSchema`` in tools/list. Clients such as the mcp Python SDK validate a
result's ``structuredContent`` against it, and a shaped copy cannot satisfy every schema (projection drops fields a
schema may require). ``auto`` (default) keeps the schemas every shaped copy satisfies (``always_satisfied``) and
leaves the others out; ``keep`` keeps all (a warning names a tool whose shaped result does not match); ``drop``
leaves all out."""


class Proxy:
    """The downstream MCP server. ``await proxy.start(task_group)`` connects upstream; then serve with
    ``proxy.server`` (a low-level ``mcp.server.lowlevel.Server``) over any transport."""

    def __init__(
        self,
        upstream: Upstream,
        policy: Policy | None = None,
        *,
        server_name: str | None = None,
        output_schemas: OutputSchemas = "auto",
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        errlog: Any = None,
    ) -> None:
        require_mcp()
        self.policy = (policy if policy is not None else Policy()).replace(retrieval_tool=RETRIEVAL_TOOL)
        self.server_name = server_name
        if output_schemas not in ("auto", "keep", "drop"):
            raise ValueError(f"output_schemas must be auto, keep or drop, not {output_schemas!r}")
        self.output_schemas: OutputSchemas = output_schemas
        self._schemas: dict[str, dict[str, Any]] = {}  # output schemas the client was shown, by tool
        self._warned: set[str] = set()
        self.upstream = upstream
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.errlog = errlog
        self.init: Any = None
        self._tg: Any = None
        self._spare: Client | None = None  # the connection made at start, for the first client session
        self.clients: set[Client] = set()
        self.server = self._build_server()

    async def start(self, task_group: Any) -> None:
        """Connect upstream once (a server that cannot start is a clear exit, and its InitializeResult is what
        every client session is told); that connection serves the first client session."""
        self._tg = task_group
        self._spare = Client(self)
        self.init = await self._spare.link.start(task_group)

    async def close(self) -> None:
        for client in [*self.clients, *([self._spare] if self._spare else [])]:
            await client.link.close()

    @asynccontextmanager
    async def _lifespan(self, server: Any) -> AsyncIterator[Client]:
        """One client session (the SDK enters the server's lifespan once per session, mcp/server/lowlevel/
        server.py:663 in 1.30): it gets an upstream session of its own, closed when it ends."""
        client, self._spare = (self._spare, None) if self._spare is not None else (Client(self), None)
        self.clients.add(client)
        try:
            yield client
        finally:
            self.clients.discard(client)
            await client.link.close()

    def _client(self) -> tuple[Client, Any]:
        """The client session of the request being handled, and the request's context."""
        ctx = self.server.request_context
        client: Client = ctx.lifespan_context
        client.session = ctx.session
        return client, ctx

    def _build_server(self) -> Any:
        from mcp import types
        from mcp.server.lowlevel import Server
        from mcp.server.models import InitializationOptions

        proxy = self

        class ProxyServer(Server):
            def create_initialization_options(self, *args: Any, **kwargs: Any) -> InitializationOptions:
                init = proxy.init
                caps = init.capabilities.model_copy(deep=True)
                if caps.tools is None:
                    caps.tools = types.ToolsCapability(listChanged=False)
                return InitializationOptions(
                    server_name=init.serverInfo.name,
                    server_version=init.serverInfo.version,
                    capabilities=caps,
                    instructions=init.instructions,
                )

        server = ProxyServer("hostshape-proxy", lifespan=self._lifespan)
        forwarded = {
            types.ListResourcesRequest: types.ListResourcesResult,
            types.ListResourceTemplatesRequest: types.ListResourceTemplatesResult,
            types.ReadResourceRequest: types.ReadResourceResult,
            types.SubscribeRequest: types.EmptyResult,
            types.UnsubscribeRequest: types.EmptyResult,
            types.ListPromptsRequest: types.ListPromptsResult,
            types.GetPromptRequest: types.GetPromptResult,
            types.CompleteRequest: types.CompleteResult,
            types.SetLevelRequest: types.EmptyResult,
        }
        for request_type, result_type in forwarded.items():
            server.request_handlers[request_type] = self._forwarder(result_type)
        server.request_handlers[types.ListToolsRequest] = self._list_tools

        async def roots_changed(notification: Any) -> None:
            client: Client = self.server.request_context.lifespan_context
            await client.link.notify(types.ClientNotification(types.RootsListChangedNotification()))

        server.notification_handlers[types.RootsListChangedNotification] = roots_changed
        server.request_handlers[types.CallToolRequest] = self._call_tool
        return server

    def _forwarder(self, result_type: type) -> Callable[[Any], Awaitable[Any]]:
        async def forward(request: Any) -> Any:
            client, ctx = self._client()
            result = await client.send(request, result_type, ctx, timeout=self.connect_timeout)
            return _server_result(result)

        return forward

    async def _list_tools(self, request: Any) -> Any:
        """The upstream's tools, with ``hostshape_read`` on the last page. An upstream tool of that name is left
        out: the proxy's own answers for handles it saved and relays the others to the upstream's (shaped)."""
        from mcp import types

        client, ctx = self._client()
        result = await client.send(request, types.ListToolsResult, ctx, timeout=self.connect_timeout)
        if any(t.name == RETRIEVAL_TOOL for t in result.tools):
            client.upstream_has_read = True
        tools = [self._tool(t) for t in result.tools if t.name != RETRIEVAL_TOOL]
        if result.nextCursor is None:
            tools.append(retrieval_tool_definition())
        return types.ServerResult(result.model_copy(update={"tools": tools}))

    async def _call_tool(self, request: Any) -> Any:
        import anyio
        from mcp import types
        from mcp.shared.exceptions import McpError

        client, ctx = self._client()
        name, args = request.params.name, request.params.arguments or {}
        if name == RETRIEVAL_TOOL:
            page = await anyio.to_thread.run_sync(lambda: self._read(args))
            if page is not None or not client.upstream_has_read:
                text = page if page is not None else _unknown_handle(args)
                failed = text.startswith("[hostshape] ")  # read() answers every failure so
                block = types.TextContent(type="text", text=text)
                return types.ServerResult(types.CallToolResult(content=[block], isError=failed))
        try:
            result = await client.send(request, types.CallToolResult, ctx)
        except McpError as exc:
            upstream_error = exc.error
            error = await anyio.to_thread.run_sync(lambda: self._shape_error(upstream_error, name))
            raise McpError(error) from None
        result = await anyio.to_thread.run_sync(lambda: self._shape(result, name, args))
        return types.ServerResult(result)

    def _read(self, args: Mapping[str, Any]) -> str | None:
        """A page of a result this proxy saved; None when the handle is not one of its own (in the store the
        policy names, as ``read`` opens it)."""
        from hostshape.wayback.spill import SpillError
        from hostshape.wayback.stores import open_store

        handle = str(args.get("handle", ""))
        query, cursor = args.get("query") or None, args.get("cursor") or None
        try:
            known = open_store(self.policy).load(handle) is not None
        except SpillError:  # unreachable: read() says so
            known = True
        if not known:
            return None
        return read(
            handle,
            query=query,
            cursor=cursor,
            section=args.get("section") or None,
            lines=args.get("lines") or None,
            grep=args.get("grep") or None,
            policy=self.policy,
        )

    def _shape_error(self, error: Any, name: str) -> Any:
        """The upstream's JSON-RPC error with its message (and data) within the budget: hosts show it to the
        model. Larger ones become one shaped message (its full form saved behind a handle) and no data."""
        from mcp import types

        from hostshape.pipeline import shape
        from hostshape.tokens import count_tokens

        budget = self.policy.budget_for(name, self.server_name)
        data = "" if error.data is None else json.dumps(error.data, ensure_ascii=False, default=str)
        message = error.message if not data else f"{error.message}\n{data}"
        if count_tokens(message, self.policy.encoding) * self.policy.safety_factor <= budget:
            return error
        room = max(1, budget - 40)  # the host's own words around it ("MCP error -32000: ...")
        shaped = shape(message, policy=self.policy.replace(budget=room), tool=name, server=self.server_name)
        return types.ErrorData(code=error.code, message=shaped.text)

    def _tool(self, tool: Any) -> Any:
        """The tool as the client sees it: unchanged, unless its output schema must go (see ``OutputSchemas``)."""
        schema = tool.outputSchema
        if schema is None:
            return tool
        if self.output_schemas == "drop" or (self.output_schemas == "auto" and not always_satisfied(schema)):
            log.info(
                "hostshape proxy: leaving out the outputSchema of %s (a shaped result could not satisfy it)", tool.name
            )
            return tool.model_copy(update={"outputSchema": None})
        self._schemas[tool.name] = schema
        return tool

    def _shape(self, result: Any, name: str, args: Mapping[str, Any]) -> Any:
        try:
            shaped = shape_call_result(result, self.policy, tool=name, server=self.server_name, args=args)
        except Exception:
            log.exception("hostshape proxy could not shape the result of %s; passing it through", name)
            return result
        schema = self._schemas.get(name)
        if shaped is not result and schema is not None and name not in self._warned:
            problem = schema_problem(shaped.structuredContent, schema)
            if problem:
                self._warned.add(name)
                log.warning(
                    "hostshape proxy: the shaped result of %s does not match its outputSchema (%s); clients "
                    "that validate it will reject it: run the proxy with --output-schemas auto or drop",
                    name,
                    problem,
                )
        return shaped


class Client:
    """One client session of the proxy and its own upstream session (a process for a stdio upstream, a connection
    for a URL). Whatever the upstream sends on it (sampling, elicitation and roots requests, logging and other
    notifications) goes to this client only: the upstream's messages carry nothing that would say which client
    caused them, so sharing one upstream between clients would hand one client's requests to another."""

    def __init__(self, proxy: Proxy) -> None:
        self.proxy = proxy
        self.session: Any = None  # the client's ServerSession, known from its first request
        self.upstream_has_read = False
        self.in_flight: dict[Any, int] = {}  # the client's request ids waiting on the upstream
        self.link = Link(
            proxy.upstream,
            timeout=proxy.timeout,
            connect_timeout=proxy.connect_timeout,
            on_notification=self.notify,
            errlog=proxy.errlog,
            on_request=self.ask,
        )
        if proxy._tg is not None:
            self.link.bind(proxy._tg)

    async def send(self, request: Any, result_type: type, ctx: Any, *, timeout: float | None = None) -> Any:
        """Forward ``request`` upstream with its progress token relayed; upstream failures become McpError."""
        from mcp import types
        from mcp.shared.exceptions import McpError

        token = getattr(ctx.meta, "progressToken", None) if ctx.meta is not None else None
        progress = None
        if token is not None:

            async def progress(value: float, total: float | None, message: str | None) -> None:
                await ctx.session.send_progress_notification(
                    token, value, total, message, related_request_id=ctx.request_id
                )

        self.in_flight[ctx.request_id] = self.in_flight.get(ctx.request_id, 0) + 1
        try:
            return await self.link.request(_outgoing(request), result_type, timeout=timeout, progress=progress)
        except UpstreamError as exc:
            raise McpError(types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc))) from None
        finally:
            left = self.in_flight.pop(ctx.request_id) - 1
            if left:
                self.in_flight[ctx.request_id] = left

    async def ask(self, request: Any, result_type: type, needs: Any, what: str) -> Any:
        """Relay one request of the upstream to this client; errors come back as data. While exactly one request
        of the client waits, the relayed request is sent as related to it (streamable HTTP then delivers it on
        that request's stream, which a client reads even when it opened no standalone stream)."""
        from mcp import types
        from mcp.shared.exceptions import McpError
        from mcp.shared.message import ServerMessageMetadata

        session = self.session
        if session is None or not session.check_client_capability(needs):
            return types.ErrorData(
                code=types.INVALID_REQUEST, message=f"the client behind hostshape proxy does not support {what}"
            )
        related = next(iter(self.in_flight)) if len(self.in_flight) == 1 else None
        try:
            return await session.send_request(
                types.ServerRequest(request), result_type, metadata=ServerMessageMetadata(related_request_id=related)
            )
        except McpError as exc:
            return exc.error
        except Exception as exc:  # noqa: BLE001 - the upstream gets an error, the proxy keeps running
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"hostshape proxy: {describe(exc)}")

    async def notify(self, notification: Any) -> None:
        """Relay one notification of the upstream to this client (dropped before its first request)."""
        from mcp import types

        if self.session is None:
            return
        data = notification.model_dump(by_alias=True, mode="json", exclude_none=True)
        data.pop("jsonrpc", None)  # the upstream's JSON-RPC envelope, kept as an extra field
        try:
            await self.session.send_notification(types.ServerNotification.model_validate(data))
        except Exception:
            log.debug("could not forward a notification", exc_info=True)


def _unknown_handle(args: Mapping[str, Any]) -> str:
    shown = repr(str(args.get("handle", ""))[:40])
    return (
        f"[hostshape] no saved result for handle {shown}: it is unknown or was evicted. Call the original tool "
        "again to get a fresh result and handle."
    )


def _server_result(result: Any) -> Any:
    from mcp import types

    return types.ServerResult(result)


def _outgoing(request: Any) -> Any:
    """The downstream request as a fresh ``ClientRequest`` for the upstream: the same method and params, without the
    downstream's JSON-RPC envelope (kept as extra fields by the request model) and without its progress token (the
    upstream gets the proxy's own, whose notifications are relayed back under the client's token)."""
    from mcp import types

    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    data.pop("jsonrpc", None)
    data.pop("id", None)
    meta = (data.get("params") or {}).get("_meta")
    if isinstance(meta, dict):
        meta.pop("progressToken", None)
        if not meta:
            data["params"].pop("_meta")
    return types.ClientRequest.model_validate(data)


def retrieval_tool_definition() -> Any:
    """The ``hostshape_read`` tool as tools/list shows it."""
    from mcp import types

    return types.Tool(
        name=RETRIEVAL_TOOL,
        description=RETRIEVAL_DESCRIPTION,
        inputSchema=RETRIEVAL_SCHEMA,
        annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )


# --- running it ---------------------------------------------------------------------------------------------------


async def serve_stdio(proxy: Proxy) -> None:
    """Connect upstream, then serve MCP on this process's stdin/stdout until the client closes them."""
    import anyio
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as tg:
        await proxy.start(tg)
        async with stdio_server() as (read_stream, write_stream):
            await proxy.server.run(read_stream, write_stream, proxy.server.create_initialization_options())
        await proxy.close()
        tg.cancel_scope.cancel()


class _ClientGone(logging.Filter):
    """Drops the SDK's tracebacks for a client that went away (its stream closed under the server, e.g.
    "Error in standalone SSE writer": mcp/server/streamable_http.py:775 in 1.30), kept at DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        import anyio

        error = record.exc_info[1] if record.exc_info else None
        gone = isinstance(error, (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError))
        return not gone or logging.getLogger("hostshape.proxy").isEnabledFor(logging.DEBUG)


async def serve_http(proxy: Proxy, host: str, port: int, *, ready: Callable[[int], None] | None = None) -> None:
    """Connect upstream, then serve streamable HTTP at ``http://host:port/mcp`` until cancelled; the address is
    printed on stderr (port 0: a free port, the one printed) and given to ``ready``."""
    import anyio
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    quiet = _ClientGone()
    for name in ("mcp.server.streamable_http", "mcp.server.streamable_http_manager"):
        logging.getLogger(name).addFilter(quiet)
    async with anyio.create_task_group() as tg:
        await proxy.start(tg)
        security = None
        if host in ("127.0.0.1", "localhost", "::1"):  # as mcp's FastMCP does (mcp/server/fastmcp/server.py, 1.30)
            from mcp.server.transport_security import TransportSecuritySettings

            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
            )
        limits: dict[str, Any] = (
            {"max_sessions": MAX_SESSIONS}
            if "max_sessions" in signature(StreamableHTTPSessionManager).parameters
            else {}
        )
        manager = StreamableHTTPSessionManager(app=proxy.server, security_settings=security, **limits)

        async def handle(scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

        app = Starlette(routes=[Mount("/mcp", app=handle)])
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        async with manager.run():
            tg.start_soon(server.serve)
            while not server.started:
                if server.should_exit:  # it could not bind the address (uvicorn has said why)
                    raise OSError(f"could not serve at {host}:{port}")
                await anyio.sleep(0.02)
            bound = server.servers[0].sockets[0].getsockname()[1]
            shown = f"[{host}]" if ":" in host else host
            print(f"hostshape proxy: serving MCP at http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
            if ready is not None:
                ready(bound)
            while not server.should_exit:
                await anyio.sleep(0.1)
        await proxy.close()
        tg.cancel_scope.cancel()
