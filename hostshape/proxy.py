"""``hostshape proxy``: an MCP server in front of one upstream MCP server that shapes every successful tool result.

For hosts with no result hook (Claude Desktop, Cursor, VS Code, Windsurf, Zed, Gemini CLI, Goose, agents in other
languages): the host starts ``hostshape proxy -- <the server's command>`` instead of the server. The proxy fires
*before* the host, so a host limit such as Claude Code's 25,000-token MAX_MCP_OUTPUT_TOKENS never triggers.

Built on the ``mcp`` SDK (1.x): a low-level ``Server`` downstream whose request handlers forward each request
object unchanged to a ``ClientSession`` upstream. What passes through untouched: tools/list (with its cursor;
``hostshape_read`` is appended to the last page), resources, resource templates, prompts, completion, logging
level, subscriptions, every upstream notification (to every downstream session), progress (per request),
cancellation (a cancelled downstream request sends ``notifications/cancelled`` upstream), JSON-RPC errors and
``isError`` results. Only a successful ``tools/call`` result is reshaped by ``hostshape.shape`` under the policy
(per-tool rules match the upstream's tool names; ``--server NAME`` sets the server name rules may match).

Faults of the upstream never take the proxy down: a crashed upstream answers the calls in flight with a clear error
and is restarted (stdio) or reconnected (HTTP) on the next request; a call that gets no answer within ``timeout``
seconds gets an error, and an upstream that then fails a ping is restarted; malformed JSON-RPC from the upstream
fails the calls in flight with an error that quotes it.

Usage::

    hostshape proxy [--policy FILE] [--budget N] -- npx -y @some/server ...
    hostshape proxy --url https://example.com/mcp --header "Authorization=Bearer ..."
    hostshape proxy --http 127.0.0.1:8765 -- python -m my_server       # serve streamable HTTP at /mcp
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Literal

from hostshape.adapters._require import require
from hostshape.policy import Policy
from hostshape.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "Proxy", "Upstream", "UpstreamError", "main", "shape_call_result"]

HOST = "any MCP host, via proxy"
INTERCEPTION_POINT = "hostshape proxy -- <server command>"
FIRES = "before the host (its own limit never triggers)"

log = logging.getLogger("hostshape.proxy")

DEFAULT_TIMEOUT = 300.0  # seconds a tools/call may take upstream; other requests get CONNECT_TIMEOUT
CONNECT_TIMEOUT = 60.0
PING_TIMEOUT = 5.0

RETRIEVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "handle": {"type": "string", "description": "the handle from a _hostshape envelope or [hostshape] line"},
        "query": {"type": "string", "description": "optional JMESPath expression over the full saved result"},
        "cursor": {"type": "string", "description": "the `next` value of the previous page, for the next page"},
    },
    "required": ["handle"],
}


def require_mcp() -> None:
    """Raise ImportError unless the ``mcp`` SDK 1.x is importable (the proxy is built on its 1.x server API)."""
    require("proxy", "mcp")
    from importlib.metadata import version

    major = version("mcp").split(".", 1)[0]
    if major != "1":
        # mcp 2.x (2.3.0 checked) replaced Server.request_handlers with on_* handlers taking (ctx, params) and
        # changed ClientSession's construction; langchain-mcp-adapters and fastmcp 3.4 still require mcp<2.
        raise ImportError(f"hostshape proxy needs the mcp SDK 1.x, found {version('mcp')}: pip install 'mcp>=1.20,<2'")


OutputSchemas = Literal["auto", "keep", "drop"]
"""What the proxy does with a tool's ``outputSchema`` in tools/list. Clients such as the mcp Python SDK validate a
result's ``structuredContent`` against it, and a shaped copy cannot satisfy every schema (projection drops fields a
schema may require). ``auto`` (default) keeps the schemas every shaped copy satisfies (``always_satisfied``) and
leaves the others out; ``keep`` keeps all (a warning names a tool whose shaped result does not match); ``drop``
leaves all out."""


class UpstreamError(Exception):
    """The upstream server failed (crashed, hung, or sent something that is not JSON-RPC)."""


@dataclass(frozen=True)
class Upstream:
    """How to reach the upstream server: ``command`` (stdio) or ``url`` (streamable HTTP, or SSE)."""

    command: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    transport: str = "auto"  # "http", "sse" or "auto" (SSE when the URL path ends in /sse)

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.url):
            raise ValueError("give the upstream server as a command or as a URL, not both or neither")
        if self.transport not in ("auto", "http", "sse"):
            raise ValueError(f"transport must be auto, http or sse, not {self.transport!r}")

    def describe(self) -> str:
        return self.url or " ".join(self.command)

    @asynccontextmanager
    async def connect(self, errlog: Any) -> AsyncIterator[tuple[Any, Any]]:
        """The (read, write) streams of a fresh connection."""
        if self.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            # The whole environment, as the host gave it to the proxy: a host's config sets the server's variables
            # (tokens, API keys) on the proxy's process, and the SDK default would keep only HOME, PATH and a few.
            env = {**os.environ, **dict(self.env or {})}
            params = StdioServerParameters(command=self.command[0], args=list(self.command[1:]), env=env, cwd=self.cwd)
            async with stdio_client(params, errlog=errlog) as (read_stream, write_stream):
                yield read_stream, write_stream
            return
        assert self.url is not None
        sse = self.transport == "sse" or (self.transport == "auto" and self.url.rstrip("/").endswith("/sse"))
        if sse:
            from mcp.client.sse import sse_client

            async with sse_client(self.url, headers=dict(self.headers)) as (read_stream, write_stream):
                yield read_stream, write_stream
            return
        async with _streamable_http(self.url, dict(self.headers)) as (read_stream, write_stream):
            yield read_stream, write_stream


@asynccontextmanager
async def _streamable_http(url: str, headers: dict[str, str]) -> AsyncIterator[tuple[Any, Any]]:
    import mcp.client.streamable_http as transport

    if hasattr(transport, "streamable_http_client"):  # mcp >= 1.24: the client owns an httpx client we configure
        from mcp.shared._httpx_utils import create_mcp_http_client

        async with (
            create_mcp_http_client(headers=headers) as client,
            transport.streamable_http_client(url, http_client=client) as (read_stream, write_stream, _),
        ):
            yield read_stream, write_stream
    else:  # pragma: no cover - older mcp 1.x
        async with transport.streamablehttp_client(url, headers=headers) as (read_stream, write_stream, _):
            yield read_stream, write_stream


class _Connection:
    """One live upstream session, owned by a background task (anyio contexts must exit in the task that entered
    them). ``inflight`` holds the cancel scopes of requests waiting on it, so a fault can fail them at once."""

    def __init__(self) -> None:
        import anyio

        self.session: Any = None
        self.init: Any = None
        self.ready = anyio.Event()
        self.stop = anyio.Event()
        self.failure: BaseException | None = None
        self.broken: str | None = None
        self.inflight: set[Any] = set()

    def fail(self, reason: str) -> None:
        """Mark this connection unusable and fail every request waiting on it."""
        if self.broken is None:
            self.broken = reason
        for scope in list(self.inflight):
            scope.cancel()
        self.stop.set()


class Link:
    """The proxy's handle on the upstream: connects lazily, reconnects after a fault, bounds every wait."""

    def __init__(
        self,
        upstream: Upstream,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
        on_notification: Callable[[Any], Awaitable[None]] | None = None,
        on_request: Callable[[Any, type, Any, str], Awaitable[Any]] | None = None,
        errlog: Any = None,
    ) -> None:
        import anyio

        self.upstream = upstream
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.on_notification = on_notification
        self.on_request = on_request
        self.errlog = errlog if errlog is not None else sys.stderr
        self._tg: Any = None
        self._conn: _Connection | None = None
        self._lock = anyio.Lock()
        self.restarts = 0

    async def start(self, task_group: Any) -> Any:
        """Bind to ``task_group`` (which owns the connection tasks) and connect; returns the InitializeResult."""
        self._tg = task_group
        conn = await self._connection()
        return conn.init

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.stop.set()

    async def _connection(self) -> _Connection:
        import anyio

        async with self._lock:
            conn = self._conn
            if conn is not None and conn.session is not None and conn.broken is None and not conn.stop.is_set():
                return conn
            if conn is not None:
                conn.stop.set()
                self.restarts += 1
                log.warning(
                    "hostshape proxy: reconnecting to the upstream server %s (%s)",
                    self.upstream.describe(),
                    conn.broken or "it stopped",
                )
            conn = _Connection()
            self._conn = conn
            self._tg.start_soon(self._own, conn)
            with anyio.move_on_after(self.connect_timeout):
                await conn.ready.wait()
            if conn.session is None:
                conn.stop.set()
                reason = _describe(conn.failure) if conn.failure else f"no answer within {self.connect_timeout:g} s"
                raise UpstreamError(
                    f"the upstream MCP server ({self.upstream.describe()}) could not be started: {reason}"
                )
            return conn

    async def _own(self, conn: _Connection) -> None:
        from mcp import ClientSession

        async def on_message(message: Any) -> None:
            await self._on_message(conn, message)

        try:
            async with AsyncExitStack() as stack:
                read_stream, write_stream = await stack.enter_async_context(self.upstream.connect(self.errlog))
                session = await stack.enter_async_context(
                    ClientSession(read_stream, write_stream, message_handler=on_message, **self._callbacks())
                )
                conn.init = await session.initialize()
                conn.session = session
                conn.ready.set()
                await conn.stop.wait()
        except Exception as exc:
            conn.failure = exc
            log.debug("upstream connection ended: %s", exc, exc_info=True)
        finally:
            conn.fail(conn.broken or (f"it stopped ({_describe(conn.failure)})" if conn.failure else "it stopped"))
            conn.session = None
            conn.ready.set()

    def _callbacks(self) -> dict[str, Any]:
        """The upstream's requests to the client (sampling, elicitation, roots), relayed to the downstream client."""
        from mcp import types

        ask = self.on_request
        if ask is None:
            return {}

        async def sampling(context: Any, params: Any) -> Any:
            return await ask(
                types.CreateMessageRequest(params=params),
                types.CreateMessageResult,
                types.ClientCapabilities(sampling=types.SamplingCapability()),
                "sampling",
            )

        async def elicitation(context: Any, params: Any) -> Any:
            return await ask(
                types.ElicitRequest(params=params),
                types.ElicitResult,
                types.ClientCapabilities(elicitation=types.ElicitationCapability()),
                "elicitation",
            )

        async def list_roots(context: Any) -> Any:
            return await ask(
                types.ListRootsRequest(),
                types.ListRootsResult,
                types.ClientCapabilities(roots=types.RootsCapability()),
                "roots",
            )

        return {"sampling_callback": sampling, "elicitation_callback": elicitation, "list_roots_callback": list_roots}

    async def notify(self, notification: Any) -> None:
        """Send a client notification (e.g. roots/list_changed) upstream, if connected; never raises."""
        conn = self._conn
        if conn is None or conn.session is None or conn.broken:
            return
        try:
            await conn.session.send_notification(notification)
        except Exception:
            log.debug("could not forward a notification upstream", exc_info=True)

    async def _on_message(self, conn: _Connection, message: Any) -> None:
        from mcp import types

        if isinstance(message, Exception):  # a line that is not JSON-RPC (mcp/client/stdio/__init__.py, 1.30)
            reason = f"it sent malformed JSON-RPC ({_describe(message)})"
            log.warning("hostshape proxy: the upstream server %s", reason)
            if conn.inflight:
                conn.broken = conn.broken or reason
                for scope in list(conn.inflight):
                    scope.cancel()
            return
        if isinstance(message, types.ServerNotification) and self.on_notification is not None:
            if isinstance(message.root, (types.ProgressNotification, types.CancelledNotification)):
                return  # progress goes to its request's callback; cancellation is per request
            try:
                await self.on_notification(message)
            except Exception:
                log.debug("could not forward a notification", exc_info=True)

    async def request(
        self,
        request: Any,
        result_type: type,
        *,
        timeout: float | None = None,
        progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
    ) -> Any:
        """Send ``request`` (a ``ClientRequest``) upstream and return its result.

        Raises ``McpError`` for the upstream's own JSON-RPC errors (passed through to the client as they are) and
        ``UpstreamError`` when the upstream failed; a cancelled caller cancels the upstream request too."""
        import anyio
        from mcp import types
        from mcp.shared.exceptions import McpError

        conn = await self._connection()
        session = conn.session
        wait = self.timeout if timeout is None else timeout
        request_id = getattr(session, "_request_id", None)  # the id send_request is about to use (shared/session.py)
        with anyio.CancelScope() as scope:
            conn.inflight.add(scope)
            try:
                return await session.send_request(
                    request,
                    result_type,
                    request_read_timeout_seconds=timedelta(seconds=wait),
                    progress_callback=progress,
                )
            except McpError as exc:
                code = exc.error.code
                if code == types.CONNECTION_CLOSED or conn.broken:
                    conn.fail(conn.broken or "it closed the connection")
                    raise UpstreamError(self._message(conn.broken or "it closed the connection")) from None
                if code == 408:  # REQUEST_TIMEOUT: mcp/shared/session.py raises it when the read timeout expires
                    await self._cancel_upstream(session, request_id, "timed out")
                    await self._check_alive(conn)
                    raise UpstreamError(self._message(f"it did not answer within {wait:g} s")) from None
                raise
            except anyio.get_cancelled_exc_class():
                if not scope.cancel_called:  # the client cancelled: tell the upstream too
                    with anyio.CancelScope(shield=True):
                        await self._cancel_upstream(session, request_id, "cancelled by the client")
                raise
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as exc:
                conn.fail(f"its connection failed ({_describe(exc)})")
                raise UpstreamError(self._message(conn.broken or "its connection failed")) from None
            finally:
                conn.inflight.discard(scope)
        # the scope was cancelled by a fault of the connection (never by the caller: that raised above)
        raise UpstreamError(self._message(conn.broken or "it stopped"))

    def _message(self, what: str) -> str:
        return (
            f"[hostshape proxy] the upstream MCP server ({self.upstream.describe()}) failed: {what}. The proxy "
            "is still running and reconnects on the next request; call the tool again."
        )

    async def _cancel_upstream(self, session: Any, request_id: Any, reason: str) -> None:
        import anyio
        from mcp import types

        if request_id is None:
            return
        with anyio.move_on_after(2):
            try:
                await session.send_notification(
                    types.ClientNotification(
                        types.CancelledNotification(
                            params=types.CancelledNotificationParams(requestId=request_id, reason=reason)
                        )
                    )
                )
            except Exception:  # the upstream may already be gone
                log.debug("could not tell the upstream about the cancelled request", exc_info=True)

    async def _check_alive(self, conn: _Connection) -> None:
        """After a timeout: restart the upstream unless it still answers a ping."""
        import anyio

        alive = False
        with anyio.move_on_after(PING_TIMEOUT):
            try:
                await conn.session.send_ping()
                alive = True
            except Exception:  # noqa: BLE001
                alive = False
        if not alive:
            conn.fail("it stopped answering")


try:  # anyio's task groups raise exception groups: the backport on 3.10 (it re-exports the builtin on 3.11+)
    from exceptiongroup import BaseExceptionGroup as _GROUP
except ImportError:  # 3.11+ without the backport installed
    import builtins

    _GROUP = builtins.BaseExceptionGroup  # type: ignore[misc]


def _describe(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown"
    if isinstance(exc, _GROUP):  # anyio task groups wrap the cause
        inner = exc.exceptions[0] if exc.exceptions else None
        if inner is not None:
            return _describe(inner)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


# --- shaping ------------------------------------------------------------------------------------------------------


def shape_call_result(
    result: Any, policy: Policy, *, tool: str, server: str | None = None, args: Mapping[str, Any] | None = None
) -> Any:
    """A successful ``CallToolResult`` shaped to ``policy``; the same object when it fits (or is an error).

    The shaped result has one text block and, when the original had ``structuredContent``, a structured copy that
    fits the same budget (see ``shape_mcp_result``). Never raises on bad data: ``shape`` does not."""
    from mcp import types

    if result.isError:
        return result
    shaped = shape_mcp_result(
        result.model_dump(mode="json", by_alias=True, exclude_none=True), policy, tool=tool, server=server, args=args
    )
    if shaped is None:
        return result
    text, structured = shaped
    return result.model_copy(
        update={"content": [types.TextContent(type="text", text=text)], "structuredContent": structured}
    )


def shape_mcp_result(
    raw: Mapping[str, Any],
    policy: Policy,
    *,
    tool: str,
    server: str | None = None,
    args: Mapping[str, Any] | None = None,
) -> tuple[str, dict[str, Any] | None] | None:
    """Shape one MCP tool result (``{"content": [...], "structuredContent": ...}`` as plain data).

    None when it is left as it is (it fits, or on a fault with ``on_fault="pass"``); else ``(text, structured)``:
    the text for a single text block, and for results that had ``structuredContent`` a structured copy (None
    otherwise). Hosts differ in which of the two they show the model (Claude Code shows the structured copy, most
    others the text), so both fit the budget as the host serialises them (compact JSON): FastMCP's
    ``{"result": "<text>"}`` wrapper becomes ``{"result": text}``, with the text shaped to a smaller budget when the
    JSON escaping would push it over; other structured results become the shaped JSON object."""
    from hostshape.pipeline import shape
    from hostshape.tokens import count_tokens

    shaped = shape(dict(raw), policy=policy, tool=tool, server=server, args=args)
    if not shaped.changed:
        return None
    original = raw.get("structuredContent")
    budget = policy.budget_for(tool, server)
    current = policy
    structured = None
    for attempt in range(6):
        structured = _structured(original, shaped)
        if structured is None:
            break
        over = count_tokens(_compact(structured), policy.encoding) * policy.safety_factor - budget
        if over <= 0:
            break
        # The fit moves in steps (whole records, whole pages), so a cut the size of the excess may change nothing:
        # cut twice as much each time.
        smaller = max(1, int(current.budget_for(tool, server) - (over + 8) * 2**attempt))
        current = _with_budget(current, tool, server, smaller)
        shaped = shape(dict(raw), policy=current, tool=tool, server=server, args=args)
    else:  # the structured copy could not be made to fit: leave it out rather than break the budget
        structured = None
    return shaped.text, structured


def _structured(original: Any, shaped: Any) -> dict[str, Any] | None:
    if original is None:
        return None
    if isinstance(original, dict) and set(original) == {"result"} and isinstance(original["result"], str):
        return {"result": shaped.text}
    if shaped.is_json:
        value = json.loads(shaped.text)
        return value if isinstance(value, dict) else {"result": value}
    return {"result": shaped.text}


def _compact(value: Any) -> str:
    """As hosts written in JavaScript serialise it (JSON.stringify)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _with_budget(policy: Policy, tool: str, server: str | None, budget: int) -> Policy:
    rule = policy.rule_for(tool, server)
    if rule is None or rule.budget is None:
        return policy.replace(budget=budget)
    rules = tuple(replace(r, budget=budget) if r is rule else r for r in policy.rules)
    return policy.replace(rules=rules)


# --- the proxy server ---------------------------------------------------------------------------------------------


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
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"hostshape proxy: {_describe(exc)}")

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

        class ProxyServer(Server):  # type: ignore[misc, type-arg]
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
            problem = _schema_problem(shaped.structuredContent, schema)
            if problem:
                self._warned.add(name)
                log.warning(
                    "hostshape proxy: the shaped result of %s does not match its outputSchema (%s); clients "
                    "that validate it will reject it: run the proxy with --output-schemas auto or drop",
                    name,
                    problem,
                )
        return shaped


def always_satisfied(schema: Mapping[str, Any]) -> bool:
    """True for output schemas every shaped structured copy satisfies: FastMCP's ``{"result": string}`` wrapper
    (the copy is ``{"result": <shaped text>}``) and free-form objects (no properties, nothing required)."""
    if schema.get("type") != "object":
        return False
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if set(properties) == {"result"} and (properties["result"] or {}).get("type") == "string":
        return required <= {"result"}
    return not properties and not required and schema.get("additionalProperties", True) is not False


def _schema_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """Why ``value`` fails ``schema`` (None when it passes or cannot be checked)."""
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - a dependency of mcp
        return None
    if value is None:
        return "no structured content"
    try:
        jsonschema.validate(value, dict(schema))
    except jsonschema.ValidationError as exc:
        return exc.message[:200]
    except Exception:  # noqa: BLE001 - an unusable schema is the client's problem too, not ours
        return None
    return None


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hostshape proxy",
        description="An MCP server in front of one upstream MCP server that shapes every successful tool result "
        "to the policy's token budget and adds the hostshape_read tool.",
        epilog="Example: hostshape proxy --budget 4000 -- npx -y @modelcontextprotocol/server-github",
    )
    parser.add_argument("--policy", help="a policy TOML file (the same format as everywhere in hostshape)")
    parser.add_argument("--budget", type=int, help="token budget per tool result (default: the policy's, 4000)")
    parser.add_argument("--server", dest="server_name", help="server name that policy rules with server= match")
    parser.add_argument("--url", help="the upstream's URL (streamable HTTP; SSE when it ends in /sse)")
    parser.add_argument(
        "--transport",
        choices=("auto", "http", "sse"),
        default="auto",
        help="the upstream URL's transport (default: auto)",
    )
    parser.add_argument(
        "--header", action="append", default=[], metavar="K=V", help="an HTTP header for the upstream URL (repeatable)"
    )
    parser.add_argument(
        "--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio"
    )
    parser.add_argument(
        "--output-schemas",
        choices=("auto", "keep", "drop"),
        default="auto",
        help="tools' outputSchema in tools/list: auto (default) leaves out those a shaped result could not satisfy",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds a tool call may take upstream (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the upstream server's command and arguments")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``hostshape proxy``: parse arguments and serve until the client goes away. Returns the exit code."""
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    logging.basicConfig(
        level=os.environ.get("HOSTSHAPE_LOG", "WARNING").upper(),
        stream=sys.stderr,
        format="%(name)s: %(message)s",
        force=True,
    )
    try:
        headers = dict(_header(h) for h in args.header)
        upstream = Upstream(command=tuple(command), url=args.url, headers=headers, transport=args.transport)
        policy = Policy.from_toml(args.policy) if args.policy else Policy()
        if args.budget:
            policy = policy.replace(budget=args.budget)
    except (OSError, ValueError) as exc:
        print(f"hostshape proxy: {exc}", file=sys.stderr)
        return 2
    try:
        require_mcp()
        import anyio
    except ImportError as exc:
        print(f"hostshape proxy: {exc}", file=sys.stderr)
        return 2
    proxy = Proxy(
        upstream, policy, server_name=args.server_name, output_schemas=args.output_schemas, timeout=args.timeout
    )
    try:
        if args.http:
            host, _, port = args.http.rpartition(":")
            anyio.run(serve_http, proxy, host or "127.0.0.1", int(port))
        else:
            anyio.run(serve_stdio, proxy)
    except UpstreamError as exc:
        print(f"hostshape proxy: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except Exception as group:  # anyio wraps a startup failure in an ExceptionGroup
        failure = next((e for e in _leaves(group) if isinstance(e, UpstreamError)), None)
        if failure is None:
            raise
        print(f"hostshape proxy: {failure}", file=sys.stderr)
        return 1
    return 0


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, _GROUP):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _header(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--header wants KEY=VALUE, not {text!r}")
    return key.strip(), value.strip()


if __name__ == "__main__":
    raise SystemExit(main())
