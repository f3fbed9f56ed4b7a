"""The envelope: in-band facts about what the model is reading, what was cut and how to get the rest.

In JSON output it is the first member, ``"_hostshape"``; in text output, the last line, starting ``[hostshape]``.
Keys are short and stable. "Nothing matched" (``"matched": false``) and "something was cut" (``"truncated":
true``, with ``notes`` naming the cut) are different states and read differently. ``same`` states once the members
identical in every record shown (removed from the records); ``derived`` states once, as a template, the members
each record's own values rebuild exactly (removed from the records; syntax: hostshape.records.derived); ``form``
says the records shown take another form than a list of objects (``"table"``: hostshape.output.columns).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hostshape.output.render import dumps, with_path

KEY = "_hostshape"
TEXT_PREFIX = "[hostshape]"
# Members beside the envelope in JSON output: a shown value that is not an object, a record list that is the whole
# value, the start of a compact JSON text shown as one string, and the index of records not shown whole.
VALUE, ITEMS, PREVIEW, INDEX = "value", "items", "preview", "_index"
MIDDLE = "_middle"  # the record midway through the list, shown whole with the last (with its position)
LAST = "_last"  # the list's last record, shown whole after a spread index (with its position), when room allows
SPILL_OFF = "spill is off"  # why there is no way back, by default
MAX_OMITTED_NAMES = 12
MAX_OMITTED_CHARS = 40  # a longer field name (a tool may send any key) is shown by its start

# The one refusal, longest wording first: the core and every adapter answer a fault they cannot shape with the
# longest of these that fits. ``{fault}`` is the exception's type name, ``{tool}`` the tool's name ("the tool").
REFUSALS = (
    "[hostshape] this result could not be shaped ({fault}) and was withheld. Remedy: call {tool} again with "
    "narrower arguments, or set on_fault='pass' to receive results unshaped.",
    "[hostshape] result withheld (hostshape failed); retry with narrower arguments, or set on_fault='pass'.",
    "[hostshape] withheld",
)


@dataclass(frozen=True)
class WayBack:
    """How the model gets the rest: a retrieval tool and handle, or a file path, or nothing. ``reads`` says which
    reads work on the saved result, and so which the hint names: ``query`` (JSON: a JMESPath query), ``document``
    (text with an outline: section, lines, grep) or ``text`` (lines, grep)."""

    handle: str | None = None
    path: str | None = None
    tool: str | None = None
    reason: str | None = None
    reads: str = "query"

    @classmethod
    def unsaved(cls, reason: str = SPILL_OFF) -> WayBack:
        """No way back: the full result was not saved, for ``reason``."""
        return cls(reason=reason)

    def hint(self, cursor: bool) -> str:
        if self.handle and self.tool and self.reads != "query":
            return self._text_hint(cursor)
        if self.handle and self.tool and " " in self.tool:  # a command line, e.g. the CLI's "hostshape read"
            command, given = (
                (f"{self.tool} HANDLE --cursor NEXT", "handle and next")
                if cursor
                else (f"{self.tool} HANDLE", "handle")
            )
            return f"run `{command}` with the {given} above; add --query JMESPATH to pick records or fields"
        if self.handle and self.tool:
            more = "handle and next" if cursor else "handle"
            return f"call {self.tool} with {more}; add query (JMESPath) to pick records or fields"
        if self.path:
            return f"full result saved at {self.path}"
        return f"full result not saved ({self.reason or SPILL_OFF}); call the tool with narrower arguments"

    def _text_hint(self, cursor: bool) -> str:
        section = self.reads == "document"
        if self.tool and " " in self.tool:  # a command line, e.g. the CLI's "hostshape read"
            then = f"`{self.tool} HANDLE --cursor NEXT` for the next page, or " if cursor else ""
            parts = "--section ID|TITLE (from the outline), " if section else ""
            return f"run {then}`{self.tool} HANDLE` with {parts}--lines START-END or --grep PATTERN"
        then = "handle and next for the next page, or with handle and " if cursor else "handle and "
        parts = "section (an outline id or title), " if section else ""
        return f'call {self.tool} with {then}{parts}lines ("START-END") or grep (a pattern)'


@dataclass(frozen=True)
class Facts:
    """What shaping did to one result. Immutable: each step makes new facts (``dataclasses.replace``) from the facts
    it receives, and its lists are never changed once made."""

    truncated: bool = False
    returned: int | None = None
    total: int | None = None
    listed: int | None = None
    list_path: str | None = None
    omitted: list[str] = field(default_factory=list)
    matched: bool = True
    notes: list[str] = field(default_factory=list)
    text_cut: bool = False
    shrunk: bool = False
    replaced: bool = False  # values the output cannot carry as they were (lone surrogates) were replaced
    filtered: bool = False  # a policy rule's query left records out
    same: dict[str, Any] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)  # member -> template rebuilding it (records/derived.py)
    form: str | None = None  # "table": the records shown are a table of fields and rows (output/columns.py)

    @property
    def cut(self) -> bool:
        """Anything was cut: records, text inside them, or fields and nested values by the shrink."""
        return self.truncated or self.text_cut or self.shrunk or self.replaced or self.filtered


def compacted(facts: Facts, note_chars: int = 100, keep: dict[str, Any] | None = None) -> Facts:
    """``facts`` shortened for a budget the full envelope would crowd out: values stated once become a note naming
    them (they are then not shown), but for those in ``keep`` (stated as ``keep`` gives them: a list told by its
    ends and step, hostshape.output.spacing), and each note is cut to ``note_chars``."""
    notes = list(facts.notes)
    keep = {k: v for k, v in (keep or {}).items() if k in facts.same}
    if len(keep) < len(facts.same):
        names = [n for n in facts.same if n not in keep]
        more = f" +{len(names) - 8} more" if len(names) > 8 else ""
        notes.append("same in every record, not shown: " + ", ".join(map(str, names[:8])) + more)
    if facts.derived:
        names = list(facts.derived)
        more = f" +{len(names) - 8} more" if len(names) > 8 else ""
        notes.append("built from other members, not shown: " + ", ".join(names[:8]) + more)
    notes = [n if len(n) <= note_chars else n[: note_chars - 1] + "…" for n in notes]
    return dataclasses.replace(facts, notes=notes, same=keep, derived={})


def envelope(facts: Facts, way: WayBack, cursor: str | None) -> dict[str, Any]:
    """The envelope object for JSON output."""
    env: dict[str, Any] = {"truncated": facts.cut}
    if not facts.matched:
        env["matched"] = False
    for key, value in (
        ("returned", facts.returned),
        ("total", facts.total),
        ("listed", facts.listed),
        ("list", facts.list_path),
    ):
        if value is not None:
            env[key] = value
    if facts.form:
        env["form"] = facts.form
    if facts.same:
        env["same"] = facts.same
    if facts.derived:
        env["derived"] = facts.derived
    if facts.omitted:
        names = sorted(facts.omitted)
        extra = len(names) - MAX_OMITTED_NAMES
        shown = [
            n if len(n) <= MAX_OMITTED_CHARS else n[: MAX_OMITTED_CHARS - 1] + "…" for n in names[:MAX_OMITTED_NAMES]
        ]
        env["omitted"] = shown + ([f"+{extra} more"] if extra > 0 else [])
    if facts.notes:
        env["notes"] = facts.notes
    if way.handle:
        env["handle"] = way.handle
    if cursor:
        env["next"] = cursor
    env["hint"] = way.hint(cursor is not None)
    return env


LINE_STYLES = ("full", "next", "short", "handle", "no_room", "bare")
NO_ROOM = "budget too small for its handle"  # said by an answer that has a handle it cannot show


def text_line(facts: Facts, way: WayBack, cursor: str | None, detail: str, style: str = "full") -> str:
    """The envelope as the last line of text output: ``full`` (with the hint), ``next`` (what was shown, the handle
    and the cursor), ``short`` (what was shown and the handle), ``handle`` (that it was cut, and the handle),
    ``no_room`` (that it was cut, and that the budget has no room for the handle it has) or ``bare`` (only that it
    was cut), for ever smaller budgets."""
    state = "truncated" if facts.cut else "shaped"
    if style == "no_room" and way.handle:
        return f"{TEXT_PREFIX} {state}; {NO_ROOM}"
    if style in ("bare", "no_room") or (style == "handle" and not way.handle):
        return f"{TEXT_PREFIX} {state}"
    if style == "handle":
        return f"{TEXT_PREFIX} {state} handle={way.handle}"
    parts = [TEXT_PREFIX, f"{state}:", detail]
    if facts.notes and style == "full":
        parts.append("(" + "; ".join(facts.notes) + ")")
    if way.handle:
        parts.append(f"handle={way.handle}")
    if cursor and style in ("full", "next"):
        parts.append(f"next={cursor}")
    if style == "full":
        parts.append("- " + way.hint(cursor is not None))
    return " ".join(parts)


def last_resort_texts(is_json: bool, handle: str | None) -> list[str]:
    """Ever shorter last-resort answers, for budgets too small for anything else: with ``handle``, first the one
    naming it, then one saying the budget has no room for it."""
    if is_json:
        options = [f'{{"{KEY}":{{"truncated":true,"handle":"{handle}"}}}}', _NO_ROOM_JSON] if handle else []
        return [*options, f'{{"{KEY}":"truncated"}}', '"truncated"', "0"]
    options = [f"{TEXT_PREFIX} truncated; handle={handle}", _NO_ROOM_TEXT] if handle else []
    return [*options, f"{TEXT_PREFIX} truncated", "…"]


_NO_ROOM_JSON = f'{{"{KEY}":"truncated; {NO_ROOM}"}}'
_NO_ROOM_TEXT = f"{TEXT_PREFIX} truncated; {NO_ROOM}"
HANDLELESS_ANSWERS = (_NO_ROOM_JSON, _NO_ROOM_TEXT, *last_resort_texts(True, None), *last_resort_texts(False, None))


# Faults named in a refusal when the host's caps, not hostshape, leave no room.
HOST_FORM_TOO_BIG = "the host's form of the text does not fit"
PAGE_TOO_BIG = "the page does not fit"


def refusal(fault: str, fits: Callable[[str], bool], tool: str | None = None) -> str:
    """The longest wording of the one refusal that ``fits``; the shortest when none does."""
    for wording in REFUSALS:
        text = wording.format(fault=fault, tool=tool or "the tool")
        if fits(text):
            return text
    return REFUSALS[-1]


def fault_note(fault: str) -> str:
    """The note of an answer cut after hostshape itself failed with ``fault`` (an exception's type name)."""
    return f"shaping failed ({fault}); shown from the start, cut to the budget"


# ---- notes: what the fit and the projection say they did, in the envelope's ``notes`` ---------------------------

CUT_MARK = "…[+N chars] marks each cut"
RECORD_SHRUNK = f"record shrunk to fit; {CUT_MARK}"
FIRST_RECORD_SHRUNK = f"first record shrunk to fit; {CUT_MARK}"
LAST_SHOWN_SHRUNK = f"last record shown shrunk to fit; {CUT_MARK}"
AS_JSON_START = "shown as the start of its compact JSON text"


def derived_checked_on(checked: int, total: int) -> str:
    """The note of templates in ``derived`` checked on ``checked`` of ``total`` records (spread over a long list,
    and every record shown whole)."""
    return f"derived checked on {checked:,} of {total:,} records (spread over the list) and on each shown"


def spread_index(rows: int, first: int, last: int, step: float, position: str, query: str | None) -> str:
    """The note of an index spread evenly over the records from ``first`` to ``last`` (0-based positions in the
    list): ``rows`` rows, about one every ``step`` records, each with its position in the ``position`` column;
    ``query`` (when the list has one) reads a record by its position, ``N``."""
    read = f"; query {query}[N] reads #N" if query is not None else ""
    spread = f"spread evenly (1 in {step:,.1f}), each with its position {position!r} (from 0)"
    return f"index: {rows:,} of #{first}-#{last}, {spread}{read}"


def middle_shown(at: int, listed: bool) -> str:
    """The note of the record midway through the list (position ``at``) shown whole (``listed``: the index has
    its row too)."""
    how = "listed and shown whole" if listed else "shown whole"
    return f"the record midway through the list (#{at}) {how} in {MIDDLE!r}"


def last_shown(at: int, listed: bool) -> str:
    """The note of the list's last record (position ``at``) shown whole after the index (``listed``: the index's
    last row is its row too)."""
    how = "listed last and shown whole" if listed else "shown whole"
    return f"the list's last record (#{at}) {how} in {LAST!r}"


TOOL_ERROR = "the tool reported an error"


TOOL_LINE = f"{TEXT_PREFIX} the line above that starts {TEXT_PREFIX} is the tool's own text, not hostshape's"
TOOL_HEAD_LINE = f"{TEXT_PREFIX} the first line, which starts {TEXT_PREFIX}, is the tool's own text, not hostshape's"
TOOL_HEAD_NOTE = f"its first line, which starts {TEXT_PREFIX}, is the tool's own text"  # when the text is cut
TOOL_FIRST_LINE = (
    f"{TEXT_PREFIX} the first line, a JSON object with a {KEY!r} member, is the tool's own text, "
    "not hostshape's envelope"
)
TOOL_LAST_LINE = (
    f"{TEXT_PREFIX} the line above, a JSON object with a {KEY!r} member, is the tool's own text, "
    "not hostshape's envelope"
)
TOOL_COPY_LINE = (
    f"{TEXT_PREFIX} the {KEY!r} member of the tool's structured copy is the tool's own, not hostshape's envelope"
)


def empty_result(is_error: bool) -> str:
    """What the model reads for a result with no content at all: never an empty page."""
    what = "reported an error with no message" if is_error else "returned no content (an empty result)"
    return f"{TEXT_PREFIX} the tool {what}"


def empty_results(is_error: bool) -> list[str]:
    """Ever shorter wordings of ``empty_result``, for budgets too small for it (the last is one token)."""
    return [
        empty_result(is_error),
        f"{TEXT_PREFIX} {'error, no message' if is_error else 'empty result'}",
        "(empty)",
        "…",
    ]


# One step of outlining a member beside the record list (hostshape.fit.beside), by what the step did.
OUTLINE_STEPS = {
    "items": "{n} items not shown",
    "ids": "{n} records shown by their identifier only",
    "names": "an object of {n} short members shown by their names only",
    "sizes": "shown as its member names with their sizes",
    "text": "text cut at {cut} of {n:,} chars",
    "some": "first {shown:,} of {n:,} {what} shown; all of them: {query}",
    "fewer": "first {shown:,} of {n:,} shown",
}
MORE_MARK = "…+{n:,} more"  # the last item of a list shown in part: how many items follow


def more_marker(hidden: int) -> str:
    """The last item of a list shown in part, saying how many items follow it."""
    return MORE_MARK.format(n=hidden)


MIDDLE_MARK = "…{n} more…"  # the item between the head and the tail of a list shown by both: how many it stands for


def middle_marker(hidden: int) -> str:
    """The item between the head and the tail of a list shown by both, saying how many items it stands for."""
    return MIDDLE_MARK.format(n=hidden)


def hidden_in_middle(item: Any) -> int | None:
    """How many items the middle marker ``item`` stands for; None when ``item`` is no such marker."""
    if not (isinstance(item, str) and item.startswith("…") and item.endswith(" more…")):
        return None
    digits = item[1 : -len(" more…")]
    return int(digits) if digits.isdigit() else None


def hidden_by_marker(item: Any) -> int | None:
    """How many items the marker ``item`` says follow it; None when ``item`` is no such marker."""
    if not (isinstance(item, str) and item.startswith("…+") and item.endswith(" more")):
        return None
    digits = item[2 : -len(" more")].replace(",", "")
    return int(digits) if digits.isdigit() else None


_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def query_key(key: str) -> str:
    """``key`` as one step of a JMESPath query: bare when it is an unquoted identifier (``tags``), else a quoted
    identifier (``"a.b"``, ``"2024"``, ``"név"``), so that no key reads as a path or a wildcard. A key with a lone
    surrogate is escaped as ``\\udxxx`` (JMESPath reads its quoted identifiers as JSON strings)."""
    if _BARE_KEY.fullmatch(key):
        return key
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(key)
    return json.dumps(key, ensure_ascii=False)


def query_of(where: Sequence[str | int], names: bool = False) -> str:
    """The JMESPath query that reads the member at ``where`` (its keys from the top, each as ``query_key`` writes
    it, and a list's items by their positions, ``[0]``); ``names``: its member names (``keys(...)``)."""
    path = ""
    for step in where:
        path += f"[{step}]" if isinstance(step, int) else f".{query_key(step)}" if path else query_key(step)
    path = path or "@"
    return f"keys({path})" if names else path


def members_cut(places: list[tuple[str, int, int, str]], total: int) -> str:
    """The note naming where members or items were cut from an object: the first ``places`` (place, shown, total,
    the JMESPath query that reads them all) of ``total``."""
    more = f"; +{total - len(places):,} more places, each marked" if total > len(places) else ""
    if not places:
        return f"members cut to fit, each place marked with {CUT_MARK_MEMBERS}"
    return (
        "cut to fit (first shown; all by query): "
        + "; ".join(f"{place} {shown:,} of {total:,} ({query})" for place, shown, total, query in places)
        + more
    )


CUT_MARK_MEMBERS = '"…": "+N more members"'


def text_fields_cut(level: int) -> str:
    return f"text fields cut at {level:,} chars; {CUT_MARK}"


def outlined_beside(steps: list[str]) -> str:
    """The note naming each outlining step (``where: what``) taken on the members beside the record list."""
    return "beside the records, shown in outline: " + "; ".join(steps)


def too_wide(hidden: int) -> str:
    return f"{hidden:,} members of objects too wide for the budget not shown"


def not_json(error: str) -> str:
    return f"not valid JSON ({error}); shown as text"


def rule_failed(error: str) -> str:
    return f"the rule's JMESPath failed ({error}); shrunk generically instead"


def rule_kept(query: str, kept: int, total: int) -> str:
    """A policy rule's query left records out: the model must not read the list as the whole result."""
    return f"the policy's JMESPath rule {query[:80]!r} kept {kept:,} of {total:,} records"


def surrogates_replaced(count: int) -> str:
    return f"{count} lone UTF-16 surrogate escapes shown as U+FFFD (the saved original keeps them)"


def set_aside(value: Any) -> tuple[Any, str] | None:
    """A result whose own top level has a ``_hostshape`` member, with it renamed (``_hostshape_input``), and the
    note saying so: the envelope the model reads is always hostshape's (a tool's text imitating it is hostile).
    None when ``value`` has no such member."""
    if not (isinstance(value, dict) and KEY in value):
        return None
    aside = next(n for n in (f"{KEY}_input", f"{KEY}_input_", f"{KEY}_input__") if n not in value)
    renamed = {(aside if k == KEY else k): v for k, v in value.items()}
    return renamed, f"the result's own {KEY!r} member is shown as {aside!r}: it is the tool's, not hostshape's"


# ---- JSON output ---------------------------------------------------------------------------------------------


def object_json(facts: Facts, way: WayBack, cursor: str | None, shown: Any) -> str:
    """JSON output of one value: the envelope first, then the value's members (an object), else the value as
    ``value``."""
    env = envelope(facts, way, cursor)
    return dumps({KEY: env, **shown} if isinstance(shown, dict) else {KEY: env, VALUE: shown})


def preview_json(facts: Facts, way: WayBack, cursor: str | None, start: str) -> str:
    """JSON output of a value shown as the ``start`` of its text, as ``preview``."""
    return dumps({KEY: envelope(facts, way, cursor), PREVIEW: start})


def records_json(
    facts: Facts,
    way: WayBack,
    cursor: str | None,
    document: Any,
    path: tuple[str, ...],
    shown: Any,
    index: tuple[list[str], list[list[Any]]] | None = None,
    dropped: int = 0,
    last: tuple[str, int, Any] | None = None,
    middle: tuple[str, int, Any] | None = None,
) -> str:
    """JSON output of a record list: the envelope first, then ``document`` with the ``shown`` records in place of
    its list at ``path`` (``()``: the document is the list, shown as ``items``; a list, or the table of
    hostshape.output.columns), then the ``index`` (columns and
    rows) of records not shown whole. With an index, the envelope's ``dropped`` counts the records neither shown nor
    listed. ``last`` (position member, position, record) is a record shown whole after the index, as ``_last``:
    its members after its position (a record that is not an object as ``value``); ``middle``, the same for the
    record midway through the list, as ``_middle`` before it."""
    env = envelope(facts, way, cursor)
    if dropped and index is not None:
        env["dropped"] = dropped
    body: dict[str, Any] = with_path(document, path, shown) if path else {ITEMS: shown}
    for key, added in ((INDEX, index is not None and bool(index[1])), (LAST, last is not None)):
        if added and key in body:  # the tool's own member of that name: kept, renamed, never overwritten
            aside = next(n for n in (f"{key}_input", f"{key}_input_", f"{key}_input__") if n not in body)
            body = {(aside if k == key else k): v for k, v in body.items()}
            env["notes"] = [*env.get("notes", []), f"the result's own {key!r} member is shown as {aside!r}"]
    out: dict[str, Any] = {KEY: env, **body}
    if index is not None and index[1]:
        out[INDEX] = {"fields": index[0], "rows": index[1]}
    if middle is not None:
        name, at, record = middle
        out[MIDDLE] = {name: at, **record} if isinstance(record, dict) else {name: at, VALUE: record}
    if last is not None:
        name, at, record = last
        out[LAST] = {name: at, **record} if isinstance(record, dict) else {name: at, VALUE: record}
    return dumps(out)


def fault_answer(start: str, cut: bool, is_json: bool, fault: str, way: WayBack) -> str:
    """The answer after a fault: the ``start`` of the result's text (``cut``: more followed) with the envelope,
    the same keys as any answer: ``{"_hostshape": {...}, "preview": "..."}`` for JSON, else a last ``[hostshape]``
    line."""
    facts = Facts(truncated=cut, notes=[fault_note(fault)])
    shown = start + "…" if cut else start
    if is_json:
        return preview_json(facts, way, None, shown)
    line = text_line(facts, way, None, "the result's start")
    return f"{shown}\n{line}"
