"""The proxy's side toward the client: MCP requests in their wire form (plain dicts), forwarded upstream per client
session, with successful tool results shaped; served over stdio or streamable HTTP by the mcp SDK's low-level
server (``server_v1`` for mcp 1.x, ``server_v2`` for 2.x: only the registration of handlers and the way a handler
finds its client session differ)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from inspect import signature
from typing import Any, Literal

from hostshape.policy import Policy
from hostshape.proxy import sdk
from hostshape.proxy.shaping import always_satisfied, schema_problem, shape_mcp_result
from hostshape.proxy.upstream import (
    CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    Link,
    Upstream,
    UpstreamError,
    describe,
)
from hostshape.wayback.retrieve import ARGUMENTS, RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

log = logging.getLogger("hostshape.proxy")

MAX_SESSIONS = 64  # client sessions served at once over HTTP: each has its own upstream process or connection

RETRIEVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {name: {"type": "string", "description": text} for name, text in ARGUMENTS.items()},
    "required": ["handle"],
}

FORWARDED: dict[str, str] = {  # the client requests the proxy serves, and the result type (mcp.types) of each
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "logging/setLevel": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
}

ENVELOPE = frozenset(  # the `_meta` keys of the 2026-07-28 request envelope (mcp_types *_META_KEY in mcp 2.3)
    f"io.modelcontextprotocol/{key}" for key in ("protocolVersion", "clientInfo", "clientCapabilities", "logLevel")
)

OutputSchemas = Literal["auto", "keep", "drop"]
"""What the proxy does with a tool's ``outputSchema`` in tools/list. Clients such as the mcp Python SDK validate a
result's ``structuredContent`` against it, and a shaped copy cannot satisfy every schema (projection drops fields a
schema may require). ``auto`` (default) keeps the schemas every shaped copy satisfies (``always_satisfied``) and
leaves the others out; ``keep`` keeps all (a warning names a tool whose shaped result does not match); ``drop``
leaves all out."""


@dataclass(frozen=True)
class Call:
    """One client request as the handler received it: its id, the SDK's server session it came on (for
    server-to-client messages) and its progress token."""

    request_id: Any
    session: Any
    progress_token: Any = None


class Proxy:
    """The downstream MCP server. ``await proxy.start(task_group)`` connects upstream; then serve with
    ``proxy.server`` (the mcp SDK's low-level ``Server``) over any transport."""

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
        sdk.require_mcp()
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
        self.single = False  # stdio: one client, one upstream session, whatever the SDK calls a connection
        self.upstream_has_read = False  # a tool of the upstream is named hostshape_read (seen in any session)
        self._tg: Any = None
        self._spare: Client | None = None  # the connection made at start, for the first client session
        self.clients: set[Client] = set()
        if sdk.v2():
            from hostshape.proxy.server_v2 import build_server
        else:
            from hostshape.proxy.server_v1 import build_server
        self.server = build_server(self)

    async def start(self, task_group: Any) -> None:
        """Connect upstream once (a server that cannot start is a clear exit, and its InitializeResult is what
        every client session is told); that connection serves the first client session."""
        self._tg = task_group
        self._spare = Client(self)
        self.init = await self._spare.link.start(task_group)

    async def close(self) -> None:
        for client in [*self.clients, *([self._spare] if self._spare else [])]:
            await client.link.close()

    def open_client(self) -> Client:
        """A client session begins: it gets an upstream session of its own (the one made at start, first)."""
        from mcp import types

        if len(self.clients) >= MAX_SESSIONS:
            busy = f"hostshape proxy: {MAX_SESSIONS} client sessions are open; try again later"
            raise sdk.mcp_error(types.INTERNAL_ERROR, busy)
        client, self._spare = (self._spare, None) if self._spare is not None else (Client(self), None)
        self.clients.add(client)
        return client

    async def close_client(self, client: Client) -> None:
        """A client session ended: its upstream session closes."""
        self.clients.discard(client)
        await client.link.close()

    def initialization_options(self) -> Any:
        """What every client is told at initialize: the upstream's name, version, capabilities and instructions
        (with the tools capability, for ``hostshape_read``)."""
        from mcp import types
        from mcp.server.models import InitializationOptions

        init = sdk.wire(self.init)
        capabilities = dict(init.get("capabilities") or {})
        capabilities.setdefault("tools", {"listChanged": False})
        info = init.get("serverInfo") or {}
        return InitializationOptions(
            server_name=info.get("name", "hostshape-proxy"),
            server_version=info.get("version", ""),
            capabilities=types.ServerCapabilities.model_validate(capabilities),
            instructions=init.get("instructions"),
        )

    async def handle(self, client: Client, method: str, params: dict[str, Any] | None, call: Call) -> dict[str, Any]:
        """The answer to one client request (wire form), or an SDK error raised for a JSON-RPC error."""
        if method == "tools/call":
            return await self._call_tool(client, params or {}, call)
        result = await client.send(method, params, FORWARDED[method], call, timeout=self.connect_timeout)
        if method == "tools/list":
            return self._list_tools(client, result)
        return result

    async def roots_changed(self, client: Client) -> None:
        from mcp import types

        await client.link.notify(sdk.client_notification(types.RootsListChangedNotification()))

    def _list_tools(self, client: Client, result: dict[str, Any]) -> dict[str, Any]:
        """The upstream's tools, with ``hostshape_read`` on the last page. An upstream tool of that name is left
        out: the proxy's own answers for handles it saved and relays the others to the upstream's (shaped)."""
        listed = result.get("tools") or []
        if any(t.get("name") == RETRIEVAL_TOOL for t in listed):
            self.upstream_has_read = True
        tools = [self._tool(t) for t in listed if t.get("name") != RETRIEVAL_TOOL]
        if result.get("nextCursor") is None:
            tools.append(sdk.wire(retrieval_tool_definition()))
        return {**result, "tools": tools}

    async def _call_tool(self, client: Client, params: dict[str, Any], call: Call) -> dict[str, Any]:
        import anyio
        from mcp import types

        name, args = str(params.get("name", "")), params.get("arguments") or {}
        if name == RETRIEVAL_TOOL:
            page = await anyio.to_thread.run_sync(lambda: self._read(args))
            if page is not None or not self.upstream_has_read:
                text = page if page is not None else _unknown_handle(args)
                failed = text.startswith("[hostshape] ")  # read() answers every failure so
                block = types.TextContent(type="text", text=text)
                # the SDK's model: mcp 2 adds the resultType the 2026-07-28 era requires (Claude Code 2.1 speaks it)
                return sdk.wire(types.CallToolResult(content=[block], isError=failed))
        try:
            result = await client.send("tools/call", params, "CallToolResult", call)
        except sdk.error_class() as exc:
            upstream_error = exc.error  # type: ignore[attr-defined]
            error = await anyio.to_thread.run_sync(lambda: self._shape_error(upstream_error, name))
            raise sdk.mcp_error(error.code, error.message, error.data) from None
        return await anyio.to_thread.run_sync(lambda: self._shape(result, name, args))

    def _read(self, args: Mapping[str, Any]) -> str | None:
        """A page of a result this proxy saved; None when the handle is not one of its own (in the store the
        policy names, as ``read`` opens it)."""
        from hostshape.wayback.spill import SpillError
        from hostshape.wayback.stores import open_store

        handle = str(args.get("handle", ""))
        try:
            known = open_store(self.policy).load(handle) is not None
        except SpillError:  # unreachable: read() says so
            known = True
        if not known:
            return None
        parts = {name: args.get(name) or None for name in ARGUMENTS if name != "handle"}
        return read(handle, policy=self.policy, **parts)

    def _shape_error(self, error: Any, name: str) -> Any:
        """The upstream's JSON-RPC error with its message (and data) within the budget: hosts show it to the
        model. Larger ones become one shaped message (its full form saved behind a handle) and no data."""
        from mcp import types

        from hostshape.fit.budget import Limit
        from hostshape.pipeline import shape

        budget = self.policy.budget_for(name, self.server_name)
        data = "" if error.data is None else json.dumps(error.data, ensure_ascii=False, default=str)
        message = error.message if not data else f"{error.message}\n{data}"
        if Limit.of(self.policy, budget).fits(message):  # a long message is not tokenized whole
            return error
        room = max(1, budget - 40)  # the host's own words around it ("MCP error -32000: ...")
        shaped = shape(message, policy=self.policy.replace(budget=room), tool=name, server=self.server_name)
        return types.ErrorData(code=error.code, message=shaped.text)

    def _tool(self, tool: dict[str, Any]) -> dict[str, Any]:
        """The tool as the client sees it: unchanged, unless its output schema must go (see ``OutputSchemas``)."""
        schema = tool.get("outputSchema")
        if schema is None:
            return tool
        if self.output_schemas == "drop" or (self.output_schemas == "auto" and not always_satisfied(schema)):
            log.info(
                "hostshape proxy: leaving out the outputSchema of %s (a shaped result could not satisfy it)",
                tool.get("name"),
            )
            return {k: v for k, v in tool.items() if k != "outputSchema"}
        self._schemas[str(tool.get("name"))] = schema
        return tool

    def _shape(self, result: dict[str, Any], name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        try:
            shaped = shape_mcp_result(result, self.policy, tool=name, server=self.server_name, args=args)
        except Exception:
            log.exception("hostshape proxy could not shape the result of %s; passing it through", name)
            return result
        if shaped is None:
            return result
        text, structured = shaped
        answer = {k: v for k, v in result.items() if k not in ("content", "structuredContent")}
        answer["content"] = [{"type": "text", "text": text}]
        if structured is not None:
            answer["structuredContent"] = structured
        schema = self._schemas.get(name)
        if schema is not None and name not in self._warned:
            problem = schema_problem(structured, schema)
            if problem:
                self._warned.add(name)
                log.warning(
                    "hostshape proxy: the shaped result of %s does not match its outputSchema (%s); clients "
                    "that validate it will reject it: run the proxy with --output-schemas auto or drop",
                    name,
                    problem,
                )
        return answer


class Client:
    """One client session of the proxy and its own upstream session (a process for a stdio upstream, a connection
    for a URL). Whatever the upstream sends on it (sampling, elicitation and roots requests, logging and other
    notifications) goes to this client only: the upstream's messages carry nothing that would say which client
    caused them, so sharing one upstream between clients would hand one client's requests to another."""

    def __init__(self, proxy: Proxy) -> None:
        self.proxy = proxy
        self.session: Any = None  # the SDK's server session of the client's latest request
        self.in_flight: dict[Any, list[Any]] = {}  # the client's request ids waiting upstream: [count, session]
        limits = {"timeout": proxy.timeout, "connect_timeout": proxy.connect_timeout, "errlog": proxy.errlog}
        self.link = Link(proxy.upstream, on_notification=self.notify, on_request=self.ask, **limits)
        if proxy._tg is not None:
            self.link.bind(proxy._tg)

    async def send(
        self, method: str, params: dict[str, Any] | None, result: str, call: Call, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Forward one request upstream with its progress relayed; returns the result's wire form. Upstream
        failures become a JSON-RPC error; the upstream's own errors are raised as they came."""
        from mcp import types

        self.session = call.session
        token = call.progress_token
        progress = None
        if token is not None:

            async def progress(value: float, total: float | None, message: str | None) -> None:
                await call.session.send_progress_notification(
                    token, value, total, message, related_request_id=call.request_id
                )

        waiting = self.in_flight.setdefault(call.request_id, [0, call.session])
        waiting[0] += 1
        try:
            request = sdk.client_request(_outgoing(method, params))
            answer = await self.link.request(request, getattr(types, result), timeout=timeout, progress=progress)
            return sdk.wire(answer)
        except UpstreamError as exc:
            raise sdk.mcp_error(types.INTERNAL_ERROR, str(exc)) from None
        finally:
            waiting[0] -= 1
            if not waiting[0]:
                self.in_flight.pop(call.request_id, None)

    async def ask(self, request: Any, result_type: type, needs: Any, what: str) -> Any:
        """Relay one request of the upstream to this client; errors come back as data. While exactly one request
        of the client waits, the relayed request is sent as related to it (streamable HTTP then delivers it on
        that request's stream, which a client reads even when it opened no standalone stream)."""
        from mcp import types
        from mcp.shared.message import ServerMessageMetadata

        related, session = None, self.session
        if len(self.in_flight) == 1:
            related, (_, session) = next(iter(self.in_flight.items()))
        if session is None or not session.check_client_capability(needs):
            return types.ErrorData(
                code=types.INVALID_REQUEST, message=f"the client behind hostshape proxy does not support {what}"
            )
        try:
            return await session.send_request(
                sdk.server_request(request), result_type, metadata=ServerMessageMetadata(related_request_id=related)
            )
        except sdk.error_class() as exc:
            return exc.error  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - the upstream gets an error, the proxy keeps running
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"hostshape proxy: {describe(exc)}")

    async def notify(self, notification: Any) -> None:
        """Relay one notification of the upstream to this client (dropped before its first request)."""
        if self.session is None:
            return
        try:
            await self.session.send_notification(sdk.server_notification(sdk.wire(notification)))
        except Exception:
            log.debug("could not forward a notification", exc_info=True)


def _unknown_handle(args: Mapping[str, Any]) -> str:
    shown = repr(str(args.get("handle", ""))[:40])
    return (
        f"[hostshape] no saved result for handle {shown}: it is unknown or was evicted. Call the original tool "
        "again to get a fresh result and handle."
    )


def _outgoing(method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """The client's request for the upstream: the same method and params, without what belongs to the client's hop:
    its progress token (the upstream gets the proxy's own, whose notifications are relayed back under the client's
    token) and the 2026-07-28 per-request envelope (the upstream session has its own; a handshake-era server refuses
    a request that carries it, mcp/server/runner.py:741 in 2.3)."""
    if params is None:
        return {"method": method}
    params = dict(params)
    meta = params.get("_meta")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k != "progressToken" and k not in ENVELOPE}
        if meta:
            params["_meta"] = meta
        else:
            params.pop("_meta")
    return {"method": method, "params": params}


def progress_token(params: Mapping[str, Any] | None) -> Any:
    """The progress token of a request's wire params, if any."""
    meta = (params or {}).get("_meta")
    return meta.get("progressToken") if isinstance(meta, Mapping) else None


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

    proxy.single = True
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
        if host in ("127.0.0.1", "localhost", "::1"):  # as the SDK's own app does (2.3: lowlevel/server.py:753)
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
