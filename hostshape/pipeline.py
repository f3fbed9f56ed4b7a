"""The pipeline: one tool result under one policy, as the list of steps in ``STEPS``.

Each step is a plain function from one ``Shaping`` (immutable) to the next; a step that has the answer sets
``answer`` and the steps after it are skipped. In order:

- ``read``: the input contract (``hostshape.input.contract.ToolResult``) read into one ``Payload``
  (``hostshape.input.payload``);
- ``leave_alone``: a result that fits as it is (and that no rule projects) is left as the host made it; an empty
  one is named (never an empty page);
- ``compact``: JSON data that fits once compacted is sent compact: the original minus its whitespace when parsing
  lost something (a number rounded, a repeated key's first value; ``hostshape.input.lossless``), which ``fit``
  then names;
- ``save``: the full original is saved for the way back (``hostshape.wayback``), and its cursor maker made;
- ``fit``: the first payload kind in ``KINDS`` that reads the payload projects it (``hostshape.records``) and fits
  it to the limit (``hostshape.fit``), its envelope saying what was cut (``hostshape.output``);
- ``cap``: the cap is absolute: a text over the limit, whatever went wrong above, becomes the last resort.

``shape`` never raises. A fault inside any step is logged and answered per ``policy.on_fault``: by default a plain
cut within the budget (hostshape/fault.py), never the raw result unless the policy opts in with ``"pass"``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from hostshape import telemetry
from hostshape.collector import paused
from hostshape.documents import kind_of
from hostshape.documents.notebook import is_notebook
from hostshape.fault import after_fault
from hostshape.fit import (
    CursorAt,
    Fitted,
    clean,
    clip_long,
    fit_data,
    fit_object,
    fit_text,
    last_resort,
    narrow_wide,
    no_cursor,
)
from hostshape.fit.budget import Limit, utf8_length
from hostshape.fit.document import ViewCursor, fit_document, no_view_cursor
from hostshape.fit.host_limit import fit_to_host
from hostshape.input.contract import ToolResult
from hostshape.input.host_form import HostForm
from hostshape.input.host_forms import tool_result
from hostshape.input.lossless import losses, minify
from hostshape.input.parse import MISSING, looks_like_json, parse_json
from hostshape.input.payload import Payload, payload_of
from hostshape.output.envelope import (
    HANDLELESS_ANSWERS,
    KEY,
    TEXT_PREFIX,
    TOOL_COPY_LINE,
    TOOL_ERROR,
    TOOL_FIRST_LINE,
    TOOL_HEAD_LINE,
    TOOL_HEAD_NOTE,
    TOOL_LAST_LINE,
    TOOL_LINE,
    Facts,
    WayBack,
    empty_results,
    not_json,
    too_wide,
)
from hostshape.output.render import NotExact, dumps
from hostshape.policy import Policy, Rule
from hostshape.records.listing import list_query
from hostshape.records.locate import TextRecords, records_from_text
from hostshape.records.project import project, surrogate_note
from hostshape.result import Shaped
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN
from hostshape.wayback.cursor import Position, encode
from hostshape.wayback.spill import HANDLE, SpillError
from hostshape.wayback.stores import open_store, unsaved_reason

log = logging.getLogger("hostshape")

_DEFAULT = Policy()
# Document kinds that a text may be although it opens like JSON: a log whose lines start with a [branch] prefix,
# Markdown opening with a [badge].
_OPENS_LIKE_JSON = ("markdown", "log", "diff", "aria", "config", "asciidoc", "org", "manpage", "sql")


def shape(
    raw: Any,
    *,
    policy: Policy | None = None,
    tool: str | None = None,
    server: str | None = None,
    args: Mapping[str, Any] | None = None,
    host: HostForm | None = None,
) -> Shaped:
    """Shape one tool result for the model. Never raises; see ``Shaped`` for what comes back.

    ``raw`` is the input contract, a ``hostshape.input.contract.ToolResult`` (content blocks of each MCP kind, the
    structured copy, ``isError``, the host wrapper it came in), which every adapter builds from its host's
    objects. Anything else is converted once, here, by ``hostshape.input.host_forms.tool_result``: a str (text, or
    JSON as text), bytes, a JSON value (dict, list, scalar), an MCP ``CallToolResult`` or its dump, a list of MCP
    content blocks, and the host forms that module lists. A block the core cannot read is named in the envelope.
    ``host`` says what the host shows the model and how it sends the replacement (``hostshape.host.HostForm``):
    the budget then holds for the text in that form, within the host's caps, headed by a host note when given.
    """
    policy = policy or _DEFAULT
    with paused():  # the collector's full runs would traverse the host's heap: see hostshape/collector.py
        try:
            given = tool_result(raw)  # the door: what was handed over, as the input contract, once
            if host is None:
                result = _shape_once(given, policy, tool, server, args)
            else:
                result = fit_to_host(
                    host,
                    lambda budget, chars: _shape_once(given, policy, tool, server, args, budget, chars),
                    policy=policy,
                    budget=policy.budget_for(tool, server),
                )
        except Exception as exc:  # noqa: BLE001 - hostshape must never crash its host
            result = after_fault(raw, policy, exc, tool=tool, server=server, args=args)
    telemetry.record(result)
    return result


@dataclass(frozen=True)
class Shaping:
    """One shaping call as it passes the steps: what was asked, and what each step found."""

    result: ToolResult
    policy: Policy
    tool: str | None
    server: str | None
    args: Mapping[str, Any] | None
    budget: int
    limit: Limit
    rule: Rule | None
    started: float
    payload: Payload = field(default_factory=lambda: Payload(""))
    way: WayBack = field(default_factory=WayBack)
    cursor_at: CursorAt = no_cursor
    fitted: Fitted | None = None
    answer: Shaped | None = None
    lost: tuple[str, ...] = ()  # what parsing the payload's text lost, as notes (``compact``)
    saved: str | None = None  # the text saved for the way back when it is not the payload's (``compact``)
    forged: bool = False  # the result carries an envelope hostshape did not write (``leave_alone``)

    @property
    def configured(self) -> bool:
        """A rule projects this tool's results (a JMESPath or a fields rule)."""
        return self.rule is not None and (self.rule.jmespath is not None or self.rule.fields is not None)

    def done(self, text: str, *, changed: bool, strategy: str, fitted: Fitted | None = None) -> Shaping:
        """This shaping with its answer."""
        payload, way = self.payload, self.way
        return dataclasses.replace(
            self,
            answer=Shaped(
                text=text,
                changed=changed,
                is_json=payload.looks_json and not _only_opens_like_json(payload),
                bytes_before=utf8_length(payload.text),
                budget=self.budget,
                # A placeholder standing for binary content (payload.opaque) is a cut too.
                truncated=bool(fitted and fitted.facts.cut) or (changed and payload.opaque),
                strategy=strategy,
                tool=self.tool,
                server=self.server,
                handle=way.handle,
                path=way.path,
                is_error=payload.is_error,
                elapsed_ms=(time.perf_counter() - self.started) * 1000,
                encoding=self.policy.encoding,
                input_text=payload.text,
            ),
        )


def read(s: Shaping) -> Shaping:
    return dataclasses.replace(s, payload=payload_of(s.result, keep_binary=s.policy.keep_binary))


def leave_alone(s: Shaping) -> Shaping:
    payload = s.payload
    as_is = not s.configured or payload.is_error or not payload.is_data
    forged = _forged_envelope(payload, s.policy)
    if forged == "json":  # shaped like any result: the tool's member is set aside and named (envelope.set_aside)
        return dataclasses.replace(s, forged=True)
    if forged in _FORGED_LINES:
        text = f"{payload.text}\n{_FORGED_LINES[forged]}"
        if s.limit.fits(text):
            return s.done(text, changed=True, strategy="noted")
        if forged == "head":  # a cut keeps the head: its envelope line says whose that first line is
            return dataclasses.replace(
                s, forged=True, payload=dataclasses.replace(payload, notes=[*payload.notes, TOOL_HEAD_NOTE])
            )
        return dataclasses.replace(s, forged=True)
    if as_is and not payload.opaque and s.limit.fits(payload.text):
        if not payload.text.strip():  # never an empty page: the longest wording of the notice that fits
            empty = next((t for t in empty_results(payload.is_error) if s.limit.fits(t)), None)
            if empty is not None:
                return s.done(empty, changed=True, strategy="empty")
        return s.done(payload.text, changed=False, strategy="passthrough")
    return s


# The line after a text that imitates the envelope, by where the imitation is (``_forged_envelope``).
_FORGED_LINES = {
    "text": TOOL_LINE,
    "head": TOOL_HEAD_LINE,
    "first": TOOL_FIRST_LINE,
    "last": TOOL_LAST_LINE,
    "copy": TOOL_COPY_LINE,
}


def compact(s: Shaping) -> Shaping:
    rendering = _exact_json(s.payload.value) if s.payload.is_data else None
    lost = _lost(s.payload, rendering)
    # One payload, one saved text: JSON data is saved as the compact JSON of its value, whichever form the host
    # handed it over in (a pretty text block, a compact one, the structured copy, whose text is that already), so
    # each host's handle is the same; the original minus its whitespace when parsing lost something (that is the
    # payload, exactly).
    # Several JSON blocks are saved as the list of their values (``Payload.canonical``); any other text orjson did
    # not read strictly (NaN) as it is, and so is a notebook, outlined by the lines of its text (``_fit_notebook``).
    if _notebook(s.payload) is not None:
        saved = None
    elif s.payload.canonical is not None:
        saved = s.payload.canonical
    else:
        saved = minify(s.payload.text) if lost else _decoded(rendering) if s.payload.strict else None
    s = dataclasses.replace(s, lost=lost, saved=saved)
    if s.payload.is_data and not s.configured and not s.forged:
        text = (s.payload.canonical or minify(s.payload.text)) if lost else _may_fit(rendering, s.limit)
        if text is not None and len(text) < len(s.payload.text) * 0.9 and s.limit.fits(text) and _strict(text):
            return s.done(text, changed=True, strategy="compact")
    return s


def _lost(payload: Payload, rendering: bytes | None) -> tuple[str, ...]:
    """What parsing the payload's JSON changed, as notes: per block for several JSON blocks (their joined text is
    not one JSON document), else of its one text (``rendering`` lets a strict text that lost nothing pass fast)."""
    if not payload.is_data:
        return ()
    if payload.canonical is not None:
        return payload.lost
    return tuple(losses(payload.text, rendering if payload.strict else None))


def save(s: Shaping) -> Shaping:
    way = _way_back(s.payload, s.policy, s.tool, s.args, s.saved)
    query = s.rule.jmespath if s.configured and s.rule is not None else None
    return dataclasses.replace(s, way=way, cursor_at=_cursor_maker(s.policy, way, query))


def fit(s: Shaping) -> Shaping:
    # orjson refuses a lone surrogate escape: a text it parsed (``strict``) holds none, and is not scanned
    note = surrogate_note(s.payload.text) if s.payload.is_data and not s.payload.strict else None
    # lone surrogates the answer shows as U+FFFD; numbers rounded, a repeated key's first value: never rendered
    # without saying so
    replaced = [*([note] if note else []), *s.lost]
    facts = Facts(notes=[*s.payload.notes, *replaced], replaced=bool(replaced))
    # read once (a table's rows, an error's JSON): prose reads every payload
    kind, reading = next((k, reading) for k in KINDS if (reading := k.read(s.payload)) is not None)
    return dataclasses.replace(s, fitted=kind.fit(s, reading, facts))


def cap(s: Shaping) -> Shaping:
    fitted = s.fitted
    if fitted is None or not s.limit.fits(fitted.text):
        fitted = last_resort(s.payload.looks_json, s.way, s.limit, Facts())
    return s.done(fitted.text, changed=True, strategy=fitted.strategy, fitted=fitted)


STEPS: tuple[Callable[[Shaping], Shaping], ...] = (read, leave_alone, compact, save, fit, cap)


@dataclass(frozen=True)
class Kind:
    """One kind of payload: ``read`` says what this kind makes of a payload (None: not this kind), ``fit`` projects
    and fits that reading, adding to the envelope's ``facts``."""

    name: str
    read: Callable[[Payload], Any]
    fit: Callable[[Shaping, Any, Facts], Fitted]


def _projected(
    s: Shaping,
    value: Any,
    facts: Facts,
    *,
    rule: Rule | None = None,
    allow_shrink: bool = True,
    cursor_at: CursorAt = no_cursor,
) -> Fitted:
    """``value`` projected (by ``rule``, else the zero-configuration shrink) and fitted: the record list and its
    index are decided once, by the records stage, and carried to the fit as data."""
    most = s.limit.tokens + 1  # no budget shows or lists more records than it has tokens
    projection = project(value, rule, allow_shrink=allow_shrink, count=s.limit.count, max_records=most)
    records = projection.listing(s.limit.count, rows=most)
    chosen = rule is not None and (rule.jmespath is not None or rule.fields is not None)  # keeps its shape: no table
    if records is not None and records.path and not chosen:  # the list as a query of the saved result
        records = dataclasses.replace(records, query=list_query(value, records.path))
    reported = projection.reported(facts)
    return fit_data(projection.value, reported, s.limit, s.way, cursor_at, records=records, tables=not chosen)


def _fit_data(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    value = clip_long(payload.value, payload.text, s.limit)
    value, hidden = narrow_wide(value, len(payload.text), s.limit)
    if hidden:
        facts = dataclasses.replace(_noted(facts, too_wide(hidden)), truncated=True)
    allow_shrink = s.rule.shrink if s.rule is not None else True
    return _projected(s, value, facts, rule=s.rule, allow_shrink=allow_shrink, cursor_at=s.cursor_at)


def _fit_table(s: Shaping, table: TextRecords, facts: Facts) -> Fitted:
    """JSON lines or CSV: records, shaped as a record list, paged and queried as the saved file's rows; lines left
    out (not records) are a cut, named in the note."""
    records = clip_long(table.records, s.payload.text, s.limit, json_text=False)  # CSV's quotes are not JSON's
    facts = _noted(facts, table.note)
    if table.left_out:
        facts = dataclasses.replace(facts, truncated=True)
    return _projected(s, records, facts, cursor_at=s.cursor_at)


def _noted(facts: Facts, note: str) -> Facts:
    return dataclasses.replace(facts, notes=[*facts.notes, note])


def _only_opens_like_json(payload: Payload) -> bool:
    """The text starts like JSON, is not JSON, and reads as a document."""
    return payload.looks_json and payload.parse_error is not None and kind_of(payload.text) in _OPENS_LIKE_JSON


def _document(payload: Payload) -> Payload | None:
    """The text of a result that is not data: the payload, unless it is broken JSON (which ``invalid json`` fits)."""
    if payload.is_data or payload.is_error:
        return None
    if payload.looks_json and payload.parse_error is not None and not _only_opens_like_json(payload):
        return None
    return payload


def _fit_document(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    """The outline answer (hostshape.fit.document); prose's cut when the text has no parts of its own, the budget
    is too small for an outline, or a document reader fails (logged)."""
    way = dataclasses.replace(s.way, reads="document")
    try:
        outlined = fit_document(payload.text, facts, s.limit, way, _view_cursor(s.policy, way))
    except Exception:  # noqa: BLE001 - the plain cut still answers
        log.warning("hostshape could not outline a text result", exc_info=True)
        outlined = None
    return outlined if outlined is not None else _fit_prose(s, payload, facts)


def _notebook(payload: Payload) -> Payload | None:
    """A Jupyter notebook (nbformat's JSON file format, told from its structure), read as a document."""
    return payload if payload.is_data and not payload.is_error and is_notebook(payload.value) else None


def _fit_notebook(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    """The map of its cells as the ``document`` member of a JSON answer (a JSON input stays JSON); a tool with a
    rule, or a budget too small for a map, gets the data fit."""
    if not s.configured:
        way = dataclasses.replace(s.way, reads="document")
        try:
            outlined = fit_document(payload.text, facts, s.limit, way, _view_cursor(s.policy, way), as_json=True)
        except Exception:  # noqa: BLE001 - the data fit still answers
            log.warning("hostshape could not outline a notebook", exc_info=True)
            outlined = None
        if outlined is not None:
            return outlined
    return _fit_data(s, payload, facts)


def _fit_invalid_json(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    facts = _noted(facts, not_json(str(payload.parse_error)))
    return fit_object({"text": payload.text[: s.limit.tokens * 8]}, facts, s.limit, s.way)


def _error_json(payload: Payload) -> tuple[Any] | None:
    """(value,) when an error's text is a JSON object or array, else None."""
    if not payload.is_error or not looks_like_json(payload.text):
        return None
    parsed = parse_json(payload.text)
    return (parsed.value,) if parsed.ok else None


def _fit_error_json(s: Shaping, error: tuple[Any], facts: Facts) -> Fitted:
    """An error whose text is JSON stays JSON: fitted as data, with the note that the tool reported an error."""
    value = clip_long(error[0], s.payload.text, s.limit)
    return _projected(s, value, _noted(facts, TOOL_ERROR))


def _fit_error(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    return _fit_prose(s, payload, _noted(facts, TOOL_ERROR))


def _fit_prose(s: Shaping, payload: Payload, facts: Facts) -> Fitted:
    return fit_text(clean(payload.text), facts, s.limit, dataclasses.replace(s.way, reads="text"), s.cursor_at)


def _accepts(test: Callable[[Payload], bool]) -> Callable[[Payload], Payload | None]:
    return lambda payload: payload if test(payload) else None


def _table(payload: Payload) -> TextRecords | None:
    return records_from_text(payload.text) if not payload.is_data and not payload.is_error else None


# The payload kinds, in the order they are tried: the first whose ``read`` accepts the payload fits it.
KINDS: tuple[Kind, ...] = (
    Kind("notebook", _notebook, _fit_notebook),  # nbformat JSON, outlined by its cells (documents/notebook.py)
    Kind("data", _accepts(lambda p: p.is_data and not p.is_error), _fit_data),  # a record list, or one object
    Kind("table", _table, _fit_table),
    Kind("document", _document, _fit_document),  # text outlined by its kind (hostshape/documents/)
    Kind("invalid json", _accepts(lambda p: p.looks_json and p.parse_error is not None), _fit_invalid_json),
    Kind("error json", _error_json, _fit_error_json),
    Kind("error", _accepts(lambda p: p.is_error), _fit_error),
    Kind("prose", _accepts(lambda p: True), _fit_prose),
)


def _shape_once(
    given: ToolResult,
    policy: Policy,
    tool: str | None,
    server: str | None,
    args: Mapping[str, Any] | None,
    budget: int | None = None,
    chars: int | None = None,
) -> Shaped:
    """``shape`` under one policy, without a host form or telemetry; ``budget`` and ``chars`` (the host's caps)
    replace the tool's budget and the policy's character cap when given. Never raises."""
    started = time.perf_counter()
    fits = None
    try:
        budget = policy.budget_for(tool, server) if budget is None else max(1, budget)
        limit = Limit(max(1, math.floor(budget / policy.safety_factor)), chars or policy.max_chars, policy.encoding)
        fits = limit.fits
        s = Shaping(given, policy, tool, server, args, budget, limit, policy.rule_for(tool, server), started)
        for step in STEPS:
            s = step(s)
            if s.answer is not None:
                return s.answer
        raise AssertionError("unreachable: the cap always answers")
    except Exception as exc:  # noqa: BLE001 - hostshape must never crash its host
        try:
            return after_fault(
                given, policy, exc, tool=tool, server=server, args=args, started=started, budget=budget, fits=fits
            )
        except Exception:  # noqa: BLE001 - not even the fault could be described
            return _unreportable(policy, tool)


def _unreportable(policy: Policy, tool: str | None) -> Shaped:
    log.critical("hostshape could not report a fault for %s", tool, exc_info=True)
    passing = policy.on_fault == "pass"  # else the shortest answer, which fits any budget
    return Shaped(
        text="" if passing else "…",
        changed=not passing,
        is_json=False,
        bytes_before=0,
        budget=policy.budget,
        truncated=not passing,
        strategy="fault",
        fault="unreportable fault",
    )


_HANDLE_IN_LINE = re.compile(f"handle=({HANDLE.pattern.strip('^$')})")
_OWN_BARE_TEXTS = frozenset([*HANDLELESS_ANSWERS, *empty_results(True), *empty_results(False)])
_LONGEST_BARE = max(map(len, _OWN_BARE_TEXTS))


def _forged_envelope(payload: Payload, policy: Policy) -> str | None:
    """Where the result carries what reads as hostshape's envelope, when its handle is not one this policy's store
    holds: ``"json"`` (a top-level ``_hostshape`` member of its data or of an error's JSON, or a last JSON line or
    block with one), ``"text"`` (a last line, after any line break, starting ``[hostshape]`` behind blanks or
    invisible characters), ``"head"`` (such a first line, of a text of several), ``"first"`` (a text's first line
    that is a JSON object with that member, as JSON answers open), ``"last"`` (such an object as a text's last
    line) or ``"copy"`` (the member in a structured copy beside the text). It is then the tool's text, not a
    hostshape layer's (the proxy's under a hook keeps its own, found in the shared store). None otherwise."""
    handle: Any = None
    text = payload.text.rstrip()  # the same object, not a copy, when nothing trails
    error_json = _error_json(payload) if payload.is_error and KEY in payload.text else None  # parsed when it may
    value = payload.value if payload.is_data else error_json[0] if error_json else None
    last = _last_line(text) if value is None else ""
    member: Any = None  # the imitated envelope's object, whose handle is looked up
    if isinstance(value, dict) and KEY in value:
        form, member = "json", value[KEY]
    elif last.startswith(TEXT_PREFIX):
        form = "text"
        found = _HANDLE_IN_LINE.search(last)
        handle = found[1] if found else None
    elif value is None and (head := _first_line(text)).startswith(TEXT_PREFIX):
        form = "head"
        found = _HANDLE_IN_LINE.search(head)
        handle = found[1] if found else None
    elif value is None and (first := _first_line_object(text)) is not None and KEY in first:
        form, member = "first", first[KEY]
    elif (final := _last_line_object(text)) is not None and KEY in final:
        # a later text block (or JSON line) that is such an object: data is shaped, hostshape's envelope on top
        form, member = ("json" if payload.is_data else "last"), final[KEY]
    elif payload.copy_envelope is not MISSING:  # a structured copy beside the text: hosts that show it (Claude
        # Code, docs/HOSTS) show the member
        form, member = "copy", payload.copy_envelope
    else:
        return None
    if isinstance(member, dict):
        handle = member.get("handle")
    bare = text.lstrip()  # the same object when nothing leads
    if len(bare) <= _LONGEST_BARE and bare in _OWN_BARE_TEXTS:
        return None  # hostshape's own answers that name no handle (a last resort, an empty result)
    if isinstance(handle, str) and HANDLE.fullmatch(handle):
        try:
            if open_store(policy).exists(handle):
                return None
        except Exception:  # noqa: BLE001 - a store that cannot answer holds no proof either way
            log.debug("hostshape: could not look up handle %s", handle, exc_info=True)
    return form


# Where str.splitlines ends a line (a host may show any of them as one), and the most of a last line read.
_LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LAST_LINE_CHARS = 400


def _last_line(text: str) -> str:
    """The start of ``text``'s last line (after any line break), without the blanks and invisible characters
    (Unicode format characters: a byte order mark, zero-width spaces) that lead it; never a copy of a long line."""
    start = text.rfind("\n") + 1
    start = max(start, *(text.rfind(mark, start) + 1 for mark in _LINE_BREAKS))
    line = text[start : start + 2 * _LAST_LINE_CHARS]
    lead = _lead(line)
    return line[lead : lead + _LAST_LINE_CHARS]


def _lead(text: str) -> int:
    """How many blanks and invisible characters (Unicode format characters: a byte order mark, zero-width spaces)
    open ``text``."""
    lead = 0
    while lead < len(text) and (text[lead].isspace() or unicodedata.category(text[lead]) == "Cf"):
        lead += 1
    return lead


def _first_line(text: str) -> str:
    """The start of ``text``'s first line without the blanks and invisible characters that lead it; "" for a text of
    one line that starts ``[hostshape]`` (that line is its last: read as such). Never a copy of a long text."""
    head = text[: 4 * _LAST_LINE_CHARS]
    lead = _lead(head)
    line = head[lead : lead + _LAST_LINE_CHARS]
    ends = [at for at in (line.find(mark) for mark in ("\n", *_LINE_BREAKS)) if at >= 0]
    if ends:
        return line[: min(ends)]
    if not line.startswith(TEXT_PREFIX):  # no need to look further: no envelope line either way
        return line
    return line if any(mark in text for mark in ("\n", *_LINE_BREAKS)) else ""


_FIRST_LINE_CHARS = 20_000  # a first line longer than this is not read as an envelope


def _first_line_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text``'s first line holds (read within its first ``_FIRST_LINE_CHARS`` characters); None
    when it holds none."""
    line = text[:_FIRST_LINE_CHARS].lstrip().split("\n", 1)[0]
    if not line.startswith("{") or KEY not in line:
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _last_line_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text``'s last line holds when it has more than one (a line longer than
    ``_FIRST_LINE_CHARS`` is not read); None when it holds none."""
    start = text.rfind("\n", max(0, len(text) - _FIRST_LINE_CHARS - 1)) + 1
    if start == 0:
        return None
    return _first_line_object(text[start:])


def _strict(text: str) -> bool:
    """True when ``text`` is strict JSON (the minified original of a text with ``NaN`` in it is not)."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def _exact_json(value: Any) -> bytes | None:
    """Compact JSON of ``value`` in UTF-8 (``dumps(value, exact=True)``, not decoded: the loss check reads bytes)
    when it renders without replacements, else None."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        pass  # what orjson declines: the standard library's rendering, when it is exact
    try:
        return dumps(value, exact=True).encode("utf-8")
    except NotExact:
        return None


def _may_fit(rendering: bytes | None, limit: Limit) -> str | None:
    """``rendering`` as text, unless it is too long to fit ``limit`` (at most 4 bytes a character: longer than
    ``Limit.fits`` takes any text to fit, in characters; a large rendering is not decoded to learn it)."""
    if rendering is None:
        return None
    chars = len(rendering) // 4
    if chars > limit.tokens * SURELY_OVER_CHARS_PER_TOKEN or (limit.chars is not None and chars > limit.chars):
        return None
    return rendering.decode("utf-8")


def _decoded(rendering: bytes | None) -> str | None:
    return rendering.decode("utf-8") if rendering is not None else None


def _way_back(
    payload: Payload, policy: Policy, tool: str | None, args: Mapping[str, Any] | None, saved: str | None = None
) -> WayBack:
    """The full result saved (``saved`` when given, else the payload's text) and the way back to it."""
    if not policy.spill:
        return WayBack.unsaved()
    try:
        store = open_store(policy)
        is_json = payload.is_data or _error_json(payload) is not None  # an error whose text is JSON reads back as JSON
        stored = store.save(tool, dict(args or {}), payload.text if saved is None else saved, is_json=is_json)
    except (SpillError, OSError) as exc:
        log.warning("hostshape could not save the full result: %s", exc)
        return WayBack.unsaved(unsaved_reason(policy))
    return WayBack(handle=stored.handle, path=stored.path, tool=policy.retrieval_tool)


def _view_cursor(policy: Policy, way: WayBack) -> ViewCursor:
    if not (way.handle and way.tool):
        return no_view_cursor
    secret = open_store(policy).secret
    handle = way.handle
    return lambda view, offset: encode(secret, Position(handle, None, offset, view))


def _cursor_maker(policy: Policy, way: WayBack, query: str | None) -> CursorAt:
    if not (way.handle and way.tool):
        return no_cursor
    secret = open_store(policy).secret
    handle = way.handle
    return lambda offset: encode(secret, Position(handle, query, offset))
