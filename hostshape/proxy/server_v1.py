"""The proxy's low-level server on the mcp SDK 1.x: handlers registered by request type, and one client session per
lifespan (the SDK enters the server's lifespan once per session, mcp/server/lowlevel/server.py:663 in 1.30)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from hostshape.proxy import sdk

if TYPE_CHECKING:
    from hostshape.proxy.server import Client, Proxy


def build_server(proxy: Proxy) -> Any:
    from mcp import types
    from mcp.server.lowlevel import Server

    from hostshape.proxy.server import FORWARDED, Call, progress_token

    class ProxyServer(Server):
        def create_initialization_options(self, *args: Any, **kwargs: Any) -> Any:
            return proxy.initialization_options()

    @asynccontextmanager
    async def lifespan(server: Any) -> AsyncIterator[Client]:
        client = proxy.open_client()
        try:
            yield client
        finally:
            await proxy.close_client(client)

    server = ProxyServer("hostshape-proxy", lifespan=lifespan)

    async def handle(request: Any) -> Any:
        ctx = server.request_context
        data = sdk.wire(request)
        method, params = data["method"], data.get("params")
        call = Call(ctx.request_id, ctx.session, progress_token(params))
        answer = await proxy.handle(ctx.lifespan_context, method, params, call)
        return types.ServerResult(getattr(types, FORWARDED[method]).model_validate(answer))

    requests = (
        types.ListResourcesRequest,
        types.ListResourceTemplatesRequest,
        types.ReadResourceRequest,
        types.SubscribeRequest,
        types.UnsubscribeRequest,
        types.ListPromptsRequest,
        types.GetPromptRequest,
        types.CompleteRequest,
        types.SetLevelRequest,
        types.ListToolsRequest,
        types.CallToolRequest,
    )
    for request_type in requests:
        server.request_handlers[request_type] = handle

    async def roots_changed(notification: Any) -> None:
        await proxy.roots_changed(server.request_context.lifespan_context)

    server.notification_handlers[types.RootsListChangedNotification] = roots_changed
    return server
