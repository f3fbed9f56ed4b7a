"""The proxy's low-level server on the mcp SDK 2.x: handlers of ``(ctx, params)`` registered by method, and one
client session per connection.

mcp 2 enters the server's lifespan once for all sessions (the streamable-HTTP manager at
mcp/server/streamable_http_manager.py:156, ``Server.run`` at mcp/server/lowlevel/server.py:722), so the lifespan
cannot hold a client session. What is per client is the SDK's ``Connection``: one per stdio stream or HTTP session
(``Connection.for_loop``, mcp/server/runner.py:498 and 735), with an ``exit_stack`` the SDK unwinds when the
connection ends however it ends (client DELETE, idle timeout, crash; runner.py:127-145, 467) and which is meant for
"per-connection cleanup" (streamable_http_manager.py:158-159). A handler's context carries the request's
``ServerSession``, built per request around that connection (runner.py:327; mcp/server/session.py:55), and no
public path to the connection itself, so the connection is read from the session. On the 2026-07-28 era each
request has a connection of its own (runner.py:781, the stateless HTTP path too): each request then gets its own
upstream session, opened and closed with it, and server-to-client requests are refused, as that era requires.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.proxy.server import Client, Proxy

PARAMS: dict[str, str] = {  # the params model (mcp.types) each forwarded method is validated against
    "resources/list": "PaginatedRequestParams",
    "resources/templates/list": "PaginatedRequestParams",
    "resources/read": "ReadResourceRequestParams",
    "resources/subscribe": "SubscribeRequestParams",
    "resources/unsubscribe": "UnsubscribeRequestParams",
    "prompts/list": "PaginatedRequestParams",
    "prompts/get": "GetPromptRequestParams",
    "completion/complete": "CompleteRequestParams",
    "logging/setLevel": "SetLevelRequestParams",
    "tools/list": "PaginatedRequestParams",
    "tools/call": "CallToolRequestParams",
}


def build_server(proxy: Proxy) -> Any:
    from mcp import types
    from mcp.server.lowlevel import Server

    from hostshape.proxy.server import Call, progress_token

    class ProxyServer(Server):
        def create_initialization_options(self, *args: Any, **kwargs: Any) -> Any:
            return proxy.initialization_options()

    server: Any = ProxyServer("hostshape-proxy")  # mypy checks against mcp 1.x, whose Server has no add_*
    clients: dict[Any, Client] = {}  # by the SDK's Connection

    def client_of(ctx: Any) -> Client:
        if proxy.single:  # stdio: one client, whichever era it speaks
            return next(iter(proxy.clients)) if proxy.clients else proxy.open_client()
        # Private, for want of a public path in mcp 2.3.0: the handler's ServerRequestContext has no connection field
        # (mcp/server/context.py:30-50); ServerSession keeps it as _connection and exposes only what it holds
        # (session.py:55, 65-91); Context.connection (context.py:86-89) is public, but ServerRunner never builds a
        # Context (context.py:62-63; it builds ServerRequestContext, runner.py:328).
        connection = ctx.session._connection
        client = clients.get(connection)
        if client is None:
            client = clients[connection] = proxy.open_client()

            async def closed() -> None:
                clients.pop(connection, None)
                await proxy.close_client(client)

            connection.exit_stack.push_async_callback(closed)
        return client

    async def handle(ctx: Any, params: Any) -> dict[str, Any]:
        raw = dict(ctx.params) if ctx.params is not None else None
        call = Call(ctx.request_id, ctx.session, progress_token(raw))
        return await proxy.handle(client_of(ctx), ctx.method, raw, call)

    for method, params_type in PARAMS.items():
        server.add_request_handler(method, getattr(types, params_type), handle)

    async def roots_changed(ctx: Any, params: Any) -> None:
        await proxy.roots_changed(client_of(ctx))

    server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams, roots_changed)
    return server
