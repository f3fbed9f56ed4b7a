"""The proxy's side toward the client: a low-level ``mcp`` ``Server`` whose handlers forward each request upstream
and shape successful tool results, served over stdio or streamable HTTP."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
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
        self.link = Link(
            upstream,
            timeout=timeout,
            connect_timeout=connect_timeout,
            on_notification=self._broadcast,
            errlog=errlog,
            on_request=self._ask_client,
        )
        self.init: Any = None
        self.upstream_has_read = False
        self._sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._latest: Any = None  # weakref to the session that sent the latest request
        self.server = self._build_server()

    async def start(self, task_group: Any) -> None:
        self.init = await self.link.start(task_group)

    # downstream sessions and notifications
    def _session(self) -> Any:
        ctx = self.server.request_context
        self._sessions.add(ctx.session)
        self._latest = weakref.ref(ctx.session)
        return ctx

    async def _ask_client(self, request: Any, result_type: type, needs: Any, what: str) -> Any:
        """Relay one request of the upstream to the client (the one that spoke last); errors come back as data."""
        from mcp import types
        from mcp.shared.exceptions import McpError

        session = self._latest() if self._latest is not None else None
        if session is None or not session.check_client_capability(needs):
            return types.ErrorData(
                code=types.INVALID_REQUEST, message=f"the client behind hostshape proxy does not support {what}"
            )
        try:
            return await session.send_request(types.ServerRequest(request), result_type)
        except McpError as exc:
            return exc.error
        except Exception as exc:  # noqa: BLE001 - the upstream gets an error, the proxy keeps running
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"hostshape proxy: {describe(exc)}")

    async def _broadcast(self, notification: Any) -> None:
        from mcp import types

        data = notification.model_dump(by_alias=True, mode="json", exclude_none=True)
        data.pop("jsonrpc", None)  # the upstream's JSON-RPC envelope, kept as an extra field
        notification = types.ServerNotification.model_validate(data)
        for session in list(self._sessions):
            try:
                await session.send_notification(notification)
            except Exception:
                log.debug("could not forward a notification", exc_info=True)
                self._sessions.discard(session)

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

        server = ProxyServer("hostshape-proxy")
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
            await self.link.notify(types.ClientNotification(types.RootsListChangedNotification()))

        server.notification_handlers[types.RootsListChangedNotification] = roots_changed
        server.request_handlers[types.CallToolRequest] = self._call_tool
        return server

    def _forwarder(self, result_type: type) -> Callable[[Any], Awaitable[Any]]:
        async def forward(request: Any) -> Any:
            ctx = self._session()
            result = await self._send(request, result_type, ctx, timeout=self.link.connect_timeout)
            return _server_result(result)

        return forward

    async def _send(self, request: Any, result_type: type, ctx: Any, *, timeout: float | None = None) -> Any:
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

        try:
            return await self.link.request(_outgoing(request), result_type, timeout=timeout, progress=progress)
        except UpstreamError as exc:
            raise McpError(types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc))) from None

    async def _list_tools(self, request: Any) -> Any:
        from mcp import types

        ctx = self._session()
        result = await self._send(request, types.ListToolsResult, ctx, timeout=self.link.connect_timeout)
        result = result.model_copy(update={"tools": [self._tool(t) for t in result.tools]})
        if result.nextCursor is None:  # the last page: add the way back, unless the upstream has one of its own
            self.upstream_has_read = any(t.name == RETRIEVAL_TOOL for t in result.tools)
            if not self.upstream_has_read:
                result = result.model_copy(update={"tools": [*result.tools, retrieval_tool_definition()]})
        return types.ServerResult(result)

    async def _call_tool(self, request: Any) -> Any:
        import anyio
        from mcp import types

        ctx = self._session()
        name, args = request.params.name, request.params.arguments or {}
        if name == RETRIEVAL_TOOL and not self.upstream_has_read:
            text = await anyio.to_thread.run_sync(
                lambda: read(
                    str(args.get("handle", "")),
                    query=args.get("query") or None,
                    cursor=args.get("cursor") or None,
                    section=args.get("section") or None,
                    lines=args.get("lines") or None,
                    grep=args.get("grep") or None,
                    policy=self.policy,
                )
            )
            return types.ServerResult(types.CallToolResult(content=[types.TextContent(type="text", text=text)]))
        result = await self._send(request, types.CallToolResult, ctx)
        if name != RETRIEVAL_TOOL:
            result = await anyio.to_thread.run_sync(lambda: self._shape(result, name, args))
        return types.ServerResult(result)

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
        await proxy.link.close()
        tg.cancel_scope.cancel()


async def serve_http(proxy: Proxy, host: str, port: int, *, ready: Callable[[int], None] | None = None) -> None:
    """Connect upstream, then serve streamable HTTP at ``http://host:port/mcp`` until cancelled."""
    import anyio
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

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
        manager = StreamableHTTPSessionManager(app=proxy.server, security_settings=security)

        async def handle(scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

        app = Starlette(routes=[Mount("/mcp", app=handle)])
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        async with manager.run():
            if ready is None:
                await server.serve()
            else:
                tg.start_soon(server.serve)
                while not server.started:
                    await anyio.sleep(0.02)
                ready(server.servers[0].sockets[0].getsockname()[1])
                while not server.should_exit:
                    await anyio.sleep(0.1)
        await proxy.link.close()
        tg.cancel_scope.cancel()
