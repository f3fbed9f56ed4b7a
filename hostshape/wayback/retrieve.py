"""The way back: read a budgeted page of a saved full result, narrowed by a JMESPath query (JSON) or by a part of
a document (text): an outline ``section``, a range of ``lines``, or the lines a ``grep`` pattern finds.

Every host gets one retrieval tool, ``hostshape_read(handle, query="", cursor="", section="", lines="", grep="")``,
registered by its adapter. ``read`` is safe to expose to a model: it only reads the spill store, JMESPath has no
side effects, a query's time and the size of what it builds are bounded (hostshape/query.py), a grep pattern runs
in linear time (hostshape/documents/grep.py), and every answer (including errors) is a short, budgeted text that
says what to do next. Pages of a record list hold whole records; following ``next`` from the first page to the
last returns every record exactly once, and every line of a section or range likewise. A saved CSV or
JSON-lines text is read as its rows, so it pages and answers queries like a JSON list.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from jmespath.exceptions import JMESPathError, JMESPathTypeError

from hostshape.fit import clean, clip_long, fit_data, fit_text, last_resort
from hostshape.fit.budget import Limit
from hostshape.input.lossless import losses
from hostshape.input.parse import parse_json
from hostshape.output.envelope import ITEMS, Facts, WayBack
from hostshape.output.render import safe_text
from hostshape.policy import Policy
from hostshape.records.listing import listing
from hostshape.records.locate import TextRecords, records_from_text
from hostshape.records.project import zero_config
from hostshape.records.query import QueryTooCostly
from hostshape.records.query import search as bounded_search
from hostshape.wayback.cursor import CursorError, Position, decode, encode
from hostshape.wayback.spill import SpillError
from hostshape.wayback.stores import Store, open_store

log = logging.getLogger("hostshape")

RETRIEVAL_TOOL = "hostshape_read"
RETRIEVAL_DESCRIPTION = (
    "Read more of a tool result that hostshape shortened. Pass `handle` from the result's _hostshape envelope "
    "(or its [hostshape] line) and `cursor` = its `next` value for the following page. For JSON results, "
    "optionally pass `query`, a JMESPath expression over the full original result, to pick records or fields, e.g. "
    '"[?number==`1033`]" or "[].{number: number, body: body}" (for objects with a list inside, start from '
    "its key, e.g. \"items[?state=='open'].title\"). Without a query, pages show records in the same compact form "
    "as the first page; use a query to see fields it omitted. For text results (documents, pages, logs, diffs), "
    'pass one of `section` (an outline entry\'s id or title exactly as the outline shows it, e.g. "2.3"), '
    '`lines` ("START-END", e.g. "120-180") or `grep` (text or an RE2 regular expression; without capitals it '
    "ignores case): matching lines come with line numbers and context."
)
# What each argument of the retrieval tool means, for the adapters that describe them one by one.
ARGUMENTS: dict[str, str] = {
    "handle": "the handle from a _hostshape envelope or [hostshape] line",
    "query": "JSON results: optional JMESPath expression over the full saved result",
    "cursor": "the `next` value of the previous page, for the next page",
    "section": "text results: an outline entry's id or title, exactly as the outline shows it",
    "lines": 'text results: a line range "START-END"',
    "grep": "text results: text or an RE2 regular expression; matching lines with line numbers and context",
}
PARTS = ("section", "lines", "grep")
CANNOT_READ_PART = "[hostshape] cannot read that part:"
NOT_THIS_CURSOR = "[hostshape] this cursor pages"  # a cursor passed beside a part it was not made for


def read(
    handle: str,
    query: str | None = None,
    cursor: str | None = None,
    *,
    section: str | None = None,
    lines: str | None = None,
    grep: str | None = None,
    policy: Policy | None = None,
) -> str:
    """One page of the saved result ``handle``. Never raises: errors come back as text naming the remedy.

    ``section``, ``lines`` and ``grep`` (one at a time) read a part of a text result (hostshape.fit.document).
    Pages name the retrieval tool as ``policy.retrieval_tool`` (a host may qualify it, e.g. Claude's
    ``mcp__hostshape__hostshape_read``), ``hostshape_read`` when unset."""
    policy = policy or Policy()
    if policy.retrieval_tool is None:
        policy = policy.replace(retrieval_tool=RETRIEVAL_TOOL)
    limit = Limit.of(policy, policy.budget)
    parts = {name: str(value) for name, value in zip(PARTS, (section, lines, grep), strict=True) if value}
    try:
        answer = _read(str(handle), str(query) if query else None, str(cursor) if cursor else None, parts, policy)
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


def _read(handle: str, query: str | None, cursor: str | None, parts: dict[str, str], policy: Policy) -> str:
    try:
        store = open_store(policy)
        return _read_from(store, handle, query, cursor, parts, policy)
    except SpillError as exc:
        log.warning("hostshape_read could not reach the spill store: %s", exc)
        return (
            f"[hostshape] the spill store holding {_shown(handle)} cannot be reached now. Try again shortly, or "
            "call the original tool again."
        )


def _read_from(
    store: Store, handle: str, query: str | None, cursor: str | None, parts: dict[str, str], policy: Policy
) -> str:
    asked = f"{next(iter(parts))}:{next(iter(parts.values()))}" if parts else None
    position = _start(store.secret, handle, query, cursor, parts, asked)
    if isinstance(position, str):
        return position
    # A cursor made for a part carries it (a section by its id): a part named beside it must be that one.
    query, offset, view = position.query, position.offset, position.view
    loaded = store.load(handle)
    if loaded is None:
        return (
            f"[hostshape] no saved result for handle {_shown(handle)}: it is unknown or was evicted. Call the "
            "original tool again to get a fresh result and handle."
        )
    text, is_json = loaded
    if asked is not None and view is not None and not _same_part(text, asked, view):
        return (
            f"{NOT_THIS_CURSOR} {_part(text, view)}, not {_part(text, asked)}: pass it with its own part, or "
            "omit cursor to start that part from its first page."
        )
    limit = Limit.of(policy, policy.budget)
    way = WayBack(handle=handle, tool=policy.retrieval_tool)
    secret = store.secret

    def next_cursor(at: int) -> str:
        return encode(secret, Position(handle, query, at))

    facts = Facts()
    table = None if is_json else records_from_text(text)
    if view is not None or (table is None and not is_json and not query and not cursor):
        return _read_part(text, view, offset, limit, handle, policy, secret)
    if not is_json and table is None:
        if query:
            return (
                "[hostshape] this saved result is text, not JSON: call again with section, lines or grep, or "
                "without query to page through it."
            )
        return fit_text(
            clean(text), facts, limit, dataclasses.replace(way, reads="text"), next_cursor, offset=offset
        ).text
    value, facts = _saved_value(text, table)
    if query:
        try:
            found = bounded_search(query, value, len(text))
            if found is None and isinstance(value, list):  # the envelope names a top-level list "items"
                found = bounded_search(query, {ITEMS: value}, len(text))
            value = found
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
        facts = dataclasses.replace(facts, matched=value not in (None, [], {}))
        records = listing(value, None, limit.count)  # pages of whole records: no index
    else:  # strings longer than any page cut first, as in the first answer: no step's time grows with them
        value = clip_long(value, text, limit, json_text=table is None)
        projection = zero_config(
            value, limit.count, max_records=offset + limit.tokens + 1, budget=limit.tokens, first=offset
        )
        facts, value, records = projection.reported(facts), projection.value, projection.listing(limit.count)
    return fit_data(value, facts, limit, way, next_cursor, records=records, offset=offset).text


def _saved_value(text: str, table: TextRecords | None) -> tuple[Any, Facts]:
    """The saved result as data: a CSV or JSON-lines text's rows (paged and queried like a JSON list), else its
    parsed JSON; and the facts to report: how it was read, or what re-rendering parsed values changes (the saved
    text keeps them)."""
    if table is not None:
        return table.records, Facts(notes=[table.note], truncated=table.left_out > 0)
    lost = losses(text)
    return parse_json(text).value, Facts(notes=list(lost), replaced=bool(lost))


def _read_part(
    text: str, view: str | None, offset: int, limit: Limit, handle: str, policy: Policy, secret: bytes
) -> str:
    """A page of one part of a document: ``view`` (``section:...``, ``lines:...``, ``grep:...``), or its lines
    from the first when None."""
    from hostshape.fit.document import ViewError, document, fit_view

    if view is None:
        view = f"lines:1-{document(text).lines.count}"
    way = WayBack(handle=handle, tool=policy.retrieval_tool, reads="document")

    def view_cursor(at_view: str, at: int) -> str:
        return encode(secret, Position(handle, None, at, at_view))

    try:
        return fit_view(text, view, offset, Facts(), limit, way, view_cursor).text
    except ViewError as exc:
        return f"{CANNOT_READ_PART} {exc}."


def _start(
    secret: bytes, handle: str, query: str | None, cursor: str | None, parts: dict[str, str], asked: str | None
) -> Position | str:
    """Where the page starts (the cursor's position, else the first page of ``query`` or the part ``asked``), or
    the answer to arguments that cannot go together."""
    if len(parts) > 1:
        return "[hostshape] pass one of section, lines or grep at a time."
    if parts and query:
        return "[hostshape] query picks from JSON results, section, lines and grep read text: pass one of them."
    if not cursor:
        return Position(handle, query, 0, asked)
    try:
        position = decode(secret, cursor, handle=handle, query=query)
    except CursorError as exc:
        return f"[hostshape] {exc}"
    if parts and position.view is None:
        return (
            f"{NOT_THIS_CURSOR} the whole result: pass it without section, lines or grep, or omit cursor to "
            "start that part from its first page."
        )
    return position


def _same_part(text: str, asked: str, carried: str) -> bool:
    """Whether the part a model named (``section:Intro``) is the one a cursor carries: the view its page was made
    for, a section by its id and a line range as clamped to the document (hostshape/fit/document.py fit_view)."""
    if asked == carried:
        return True
    from hostshape.fit.document import document

    name, _, argument = asked.partition(":")
    if name == "section":
        found = document(text).find_section(argument)
        return bool(found) and carried == f"section:{found[0].id}"
    if name == "lines":
        count = document(text).lines.count
        start, _, end = argument.strip().partition("-")
        try:
            first, last = int(start), min(int(end) if end.strip() else count, count)
        except ValueError:
            return False
        return carried == f"lines:{first}-{last}"
    return False


def _part(text: str, view: str) -> str:
    """A view in words, for messages: ``lines '1-40'``, ``grep 'error'``, ``section 2.3 'Install'``."""
    from hostshape.fit.document import document

    name, _, argument = view.partition(":")
    found = document(text).find_section(argument) if name == "section" else []
    return f"section {found[0].id} {_shown(found[0].title)}" if found else f"{name} {_shown(argument)}"
