"""Opaque, tamper-proof cursors: a handle, a query (or a document view) and an offset, signed with the spill store's
secret."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

import orjson

_TAG_BYTES = 8


class CursorError(ValueError):
    """The cursor is malformed, forged, or belongs to another handle or query; the message says what to do."""


@dataclass(frozen=True)
class Position:
    """Where a page starts: ``offset`` into the result (narrowed by ``query``), or into a document ``view``
    (``lines:A-B``, ``section:ID``, ``grep:PATTERN``; see hostshape.fit.document)."""

    handle: str
    query: str | None
    offset: int
    view: str | None = None


def encode(secret: bytes, position: Position) -> str:
    fields = [position.handle, position.query, position.offset]
    body = orjson.dumps([*fields, position.view] if position.view is not None else fields)
    tag = hmac.new(secret, body, hashlib.sha256).digest()[:_TAG_BYTES]
    return base64.urlsafe_b64encode(tag + body).decode().rstrip("=")


def decode(secret: bytes, cursor: str, *, handle: str, query: str | None) -> Position:
    """The position in ``cursor``; raises CursorError unless it was made here for ``handle`` (and ``query``
    when one is given)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        tag, body = raw[:_TAG_BYTES], raw[_TAG_BYTES:]
        if not hmac.compare_digest(tag, hmac.new(secret, body, hashlib.sha256).digest()[:_TAG_BYTES]):
            raise ValueError("bad signature")
        cursor_handle, cursor_query, offset, *view = orjson.loads(body)
        if len(view) > 1 or not all(isinstance(v, str) for v in view):
            raise ValueError("bad view")
    except (ValueError, TypeError, orjson.JSONDecodeError):
        raise CursorError(
            "this cursor is not valid here: call again without cursor to start from the first page"
        ) from None
    if cursor_handle != handle:
        raise CursorError(
            f"this cursor belongs to handle {cursor_handle}, not {handle}: pass the cursor with its "
            "own handle, or omit cursor to start this handle from the first page"
        )
    if query and query != cursor_query:
        if cursor_query is None:
            raise CursorError(
                "this cursor pages the result without a query: pass it without query, or omit "
                "cursor to start your query from its first page"
            )
        raise CursorError(
            f"this cursor was made for query {cursor_query!r}: repeat that query with it, or omit "
            "cursor to start your new query from its first page"
        )
    return Position(cursor_handle, cursor_query, int(offset), view[0] if view else None)
