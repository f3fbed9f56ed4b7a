"""The proxy's side toward the upstream server: how to reach it (``Upstream``) and one live, restartable
connection with bounded waits (``Link``). Upstream faults become ``UpstreamError`` with a message for the client."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from hostshape.proxy import sdk

log = logging.getLogger("hostshape.proxy")

DEFAULT_TIMEOUT = 300.0  # seconds a tools/call may take upstream; other requests get CONNECT_TIMEOUT
CONNECT_TIMEOUT = 60.0
PING_TIMEOUT = 5.0


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
            from hostshape.proxy.stdio import stdio_process

            # The whole environment, as the host gave it to the proxy: a host's config sets the server's variables
            # (tokens, API keys) on the proxy's process, and the SDK default would keep only HOME, PATH and a few.
            env = {**os.environ, **dict(self.env or {})}
            command, args = self.command[0], list(self.command[1:])
            async with stdio_process(command, args, env=env, cwd=self.cwd, errlog=errlog) as (
                read_stream,
                write_stream,
            ):
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
            transport.streamable_http_client(url, http_client=client) as streams,  # 2.x: no session-id getter
        ):
            yield streams[0], streams[1]
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

    def bind(self, task_group: Any) -> None:
        """Use ``task_group`` for the connection tasks; the first request connects."""
        self._tg = task_group

    async def start(self, task_group: Any) -> Any:
        """Bind to ``task_group`` (which owns the connection tasks) and connect; returns the InitializeResult."""
        self.bind(task_group)
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
                reason = describe(conn.failure) if conn.failure else f"no answer within {self.connect_timeout:g} s"
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
            conn.fail(conn.broken or (f"it stopped ({describe(conn.failure)})" if conn.failure else "it stopped"))
            conn.session = None
            conn.ready.set()

    def _callbacks(self) -> dict[str, Any]:
        """The upstream's requests to the client (sampling, elicitation, roots), relayed to the downstream client."""
        from mcp import types

        ask = self.on_request
        if ask is None:
            return {}

        def relay(request: Callable[[Any], Any], result: type, needs: Any, what: str) -> Any:
            async def callback(context: Any, params: Any = None) -> Any:  # list_roots gets no params
                return await ask(request(params), result, needs, what)

            return callback

        caps = types.ClientCapabilities
        return {
            "sampling_callback": relay(
                lambda p: types.CreateMessageRequest(params=p),
                types.CreateMessageResult,
                caps(sampling=types.SamplingCapability()),
                "sampling",
            ),
            "elicitation_callback": relay(
                lambda p: types.ElicitRequest(params=p),
                types.ElicitResult,
                caps(elicitation=types.ElicitationCapability()),
                "elicitation",
            ),
            "list_roots_callback": relay(
                lambda p: types.ListRootsRequest(), types.ListRootsResult, caps(roots=types.RootsCapability()), "roots"
            ),
        }

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

        if isinstance(message, RuntimeError) and "unknown request id" in str(message).lower():
            # a late answer to a request that was cancelled or timed out (mcp/shared/session.py:518, 1.30)
            log.debug("hostshape proxy: ignoring %s", describe(message))
            return
        if isinstance(message, Exception):  # a line that is not JSON-RPC (stdio.MalformedLine, or the SDK's)
            reason = f"it sent malformed JSON-RPC ({describe(message)})"
            log.warning("hostshape proxy: the upstream server %s", reason)
            if conn.inflight:
                conn.broken = conn.broken or reason
                for scope in list(conn.inflight):
                    scope.cancel()
            return
        if isinstance(message, types.ServerNotification) and self.on_notification is not None:  # 2.x: a union
            if isinstance(sdk.unwrap(message), (types.ProgressNotification, types.CancelledNotification)):
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

        conn = await self._connection()
        session = conn.session
        wait = self.timeout if timeout is None else timeout
        # the id send_request is about to use (1.x shared/session.py); 2.x has none: its dispatcher cancels an
        # abandoned request itself (mcp/shared/dispatcher.py:103)
        request_id = getattr(session, "_request_id", None)
        with anyio.CancelScope() as scope:
            conn.inflight.add(scope)
            try:
                return await session.send_request(
                    request,
                    result_type,
                    request_read_timeout_seconds=sdk.read_timeout(wait),
                    progress_callback=progress,
                )
            except sdk.error_class() as exc:
                code = exc.error.code  # type: ignore[attr-defined]
                # The SDK answers a request with CONNECTION_CLOSED (-32000) when the connection ends
                # (mcp/shared/session.py:451, 1.30), and -32000 is also a code any server may use for its own
                # errors: only an upstream that then fails a ping is gone.
                if conn.broken or (code == types.CONNECTION_CLOSED and not await self._alive(conn)):
                    conn.fail(conn.broken or "it closed the connection")
                    raise UpstreamError(self._message(conn.broken or "it closed the connection")) from None
                if code == sdk.timeout_code():  # the read timeout expired
                    await self._cancel_upstream(session, request_id, "timed out")
                    if not await self._alive(conn):
                        conn.fail("it stopped answering")
                    raise UpstreamError(self._message(f"it did not answer within {wait:g} s")) from None
                raise
            except anyio.get_cancelled_exc_class():
                if not scope.cancel_called:  # the client cancelled: tell the upstream too
                    with anyio.CancelScope(shield=True):
                        await self._cancel_upstream(session, request_id, "cancelled by the client")
                raise
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as exc:
                conn.fail(f"its connection failed ({describe(exc)})")
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
                cancelled = types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=request_id, reason=reason)
                )
                await session.send_notification(sdk.client_notification(cancelled))
            except Exception:  # the upstream may already be gone
                log.debug("could not tell the upstream about the cancelled request", exc_info=True)

    async def _alive(self, conn: _Connection) -> bool:
        """Whether the upstream still answers a ping within PING_TIMEOUT."""
        import anyio

        session = conn.session
        if session is None:
            return False
        with anyio.move_on_after(PING_TIMEOUT):
            try:
                await session.send_ping()
                return True
            except Exception:  # noqa: BLE001 - any failure means it is gone
                return False
        return False


try:  # anyio's task groups raise exception groups: the backport on 3.10 (it re-exports the builtin on 3.11+)
    from exceptiongroup import BaseExceptionGroup as GROUP
except ImportError:  # 3.11+ without the backport installed
    import builtins

    GROUP = builtins.BaseExceptionGroup  # type: ignore[attr-defined, misc]  # 3.11+ only; mypy checks as 3.10


def describe(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown"
    if isinstance(exc, GROUP):  # anyio task groups wrap the cause
        inner = exc.exceptions[0] if exc.exceptions else None
        if inner is not None:
            return describe(inner)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
