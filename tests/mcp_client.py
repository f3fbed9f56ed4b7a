"""The real ``mcp`` SDK client as the proxy tests use it, on mcp 1.x and 2.x alike.

The two differ in attribute names (1.x ``result.structuredContent``, 2.x ``result.structured_content``; the wire
form is the same, so these helpers read ``wire``), in the error class, in the read timeout's type and in what the
streamable-HTTP transport yields (1.x adds a session-id getter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from hostshape.proxy import sdk

McpError = sdk.error_class()


def wire(model: Any) -> dict[str, Any]:
    """A result, tool or notification as it went over the wire (camelCase keys, no nulls)."""
    return sdk.wire(model)


def structured(result: Any) -> Any:
    return wire(result).get("structuredContent")


def is_error(result: Any) -> bool:
    return bool(wire(result).get("isError"))


def next_cursor(page: Any) -> str | None:
    return wire(page).get("nextCursor")


def notification(message: Any) -> Any:
    """The concrete notification a ``message_handler`` received (1.x wraps it in a union model)."""
    return sdk.unwrap(message)


def read_timeout(seconds: float) -> Any:
    return sdk.read_timeout(seconds)


@asynccontextmanager
async def http_streams(url: str) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of the SDK's streamable-HTTP client."""
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as streams:
        yield streams[0], streams[1]
