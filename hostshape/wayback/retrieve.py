"""The way back: read a budgeted page of a saved full result, optionally narrowed by a JMESPath query.

Every host gets one retrieval tool, ``hostshape_read(handle, query="", cursor="")``, registered by its adapter.
``read`` is safe to expose to a model: it only reads the spill store, JMESPath has no side effects, a query's
time and the size of what it builds are bounded (hostshape/query.py), and every answer (including errors) is a
short, budgeted text that says what to do next. Pages of a record list hold whole
records; following ``next`` from the first page to the last returns every record exactly once.
"""

from __future__ import annotations

import logging
from typing import Any

from jmespath.exceptions import JMESPathError, JMESPathTypeError

from hostshape.fit import clean, fit_data, fit_text, last_resort
from hostshape.fit.budget import Limit
from hostshape.input.parse import parse_json
from hostshape.output.envelope import Facts, WayBack
from hostshape.output.render import safe_text
from hostshape.policy import Policy
from hostshape.records.project import shrink
from hostshape.records.query import QueryTooCostly
from hostshape.records.query import search as bounded_search
from hostshape.wayback.cursor import CursorError, Position, decode, encode
from hostshape.wayback.spill import SpillError
from hostshape.wayback.stores import Store, open_store

log = logging.getLogger("hostshape")

RETRIEVAL_TOOL = "hostshape_read"
RETRIEVAL_DESCRIPTION = (
    "Read more of a tool result that hostshape shortened. Pass `handle` from the result's _hostshape envelope "
    "(or its [hostshape] line) and `cursor` = its `next` value for the following page. Optionally pass `query`, "
    "a JMESPath expression over the full original result, to pick records or fields, e.g. "
    '"[?number==`1033`]" or "[].{number: number, body: body}" (for objects with a list inside, start from '
    "its key, e.g. \"items[?state=='open'].title\"). Without a query, pages show records in the same compact form "
    "as the first page; use a query to see fields it omitted."
)
# The arguments of the retrieval tool, as JSON Schema, for hosts that declare a tool by its schema.
RETRIEVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "handle": {"type": "string", "description": "the handle from a _hostshape envelope or [hostshape] line"},
        "query": {"type": "string", "description": "optional JMESPath expression over the full saved result"},
        "cursor": {"type": "string", "description": "the `next` value of the previous page, for the next page"},
    },
    "required": ["handle"],
}


def read(handle: str, query: str | None = None, cursor: str | None = None, *, policy: Policy | None = None) -> str:
    """One page of the saved result ``handle``. Never raises: errors come back as text naming the remedy.

    Pages name the retrieval tool as ``policy.retrieval_tool`` (a host may qualify it, e.g. Claude's
    ``mcp__hostshape__hostshape_read``), ``hostshape_read`` when unset."""
    policy = policy or Policy()
    if policy.retrieval_tool is None:
        policy = policy.replace(retrieval_tool=RETRIEVAL_TOOL)
    limit = Limit.of(policy, policy.budget)
    try:
        answer = _read(str(handle), str(query) if query else None, str(cursor) if cursor else None, policy)
    except Exception as exc:  # noqa: BLE001 - the model gets a message, the host keeps running
        log.exception("hostshape_read failed")
        answer = f"[hostshape] could not read {_shown(handle)} ({type(exc).__name__}); call the original tool again."
    answer = safe_text(answer)
    return answer if limit.fits(answer) else last_resort(False, WayBack(), limit, Facts()).text


def _shown(value: object, most: int = 40) -> str:
    """A model-supplied value, quoted and cut short, for error messages."""
    text = safe_text(str(value))
    return repr(text if len(text) <= most else text[:most] + "…")


def _reason(exc: JMESPathError) -> str:
    """What went wrong, without the value it went wrong on (jmespath's type errors print the whole value, which
    may be the whole saved result)."""
    if isinstance(exc, JMESPathTypeError):
        return (
            f"In function {exc.function_name}(), invalid type: got {exc.actual_type}, expected one of "
            f"{exc.expected_types}"
        )
    return str(exc)


def _read(handle: str, query: str | None, cursor: str | None, policy: Policy) -> str:
    try:
        store = open_store(policy)
        return _read_from(store, handle, query, cursor, policy)
    except SpillError as exc:
        log.warning("hostshape_read could not reach the spill store: %s", exc)
        return (
            f"[hostshape] the spill store holding {_shown(handle)} cannot be reached now. Try again shortly, or "
            "call the original tool again."
        )


def _read_from(store: Store, handle: str, query: str | None, cursor: str | None, policy: Policy) -> str:
    offset = 0
    if cursor:
        try:
            position = decode(store.secret, cursor, handle=handle, query=query)
        except CursorError as exc:
            return f"[hostshape] {exc}"
        query, offset = position.query, position.offset
    loaded = store.load(handle)
    if loaded is None:
        return (
            f"[hostshape] no saved result for handle {_shown(handle)}: it is unknown or was evicted. Call the "
            "original tool again to get a fresh result and handle."
        )
    text, is_json = loaded
    limit = Limit.of(policy, policy.budget)
    way = WayBack(handle=handle, tool=policy.retrieval_tool)
    secret = store.secret

    def next_cursor(at: int) -> str:
        return encode(secret, Position(handle, query, at))

    facts = Facts()
    records_at: tuple[str, ...] | None = None
    if not is_json:
        if query:
            return "[hostshape] this saved result is text, not JSON: call again without query to page through it."
        return fit_text(clean(text), facts, limit, way, next_cursor, offset=offset).text
    value = parse_json(text).value
    if query:
        try:
            value = bounded_search(query, value, len(text))
        except QueryTooCostly as exc:
            return (
                f"[hostshape] the query {_shown(query)} was stopped: {exc}. Narrow it (filter records first, "
                "e.g. \"items[?state=='open']\", pick fewer fields, avoid repeating @), or call again without "
                "query to page through the result."
            )
        except JMESPathError as exc:
            return (
                f"[hostshape] the query {_shown(query)} failed ({type(exc).__name__}: {_shown(_reason(exc), 120)}); "
                "fix it or call again without query."
            )
        facts.matched = value not in (None, [], {})
    else:
        projection = shrink(value, limit.count, max_records=offset + limit.tokens + 1)
        projection.report(facts)
        value, records_at = projection.value, projection.path
    return fit_data(value, facts, limit, way, next_cursor, index=False, offset=offset, records_at=records_at).text
