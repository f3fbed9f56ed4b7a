"""Fit a record list: whole records first, then an index of the rest, within the limit."""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hostshape.fit._base import CursorAt, Fitted, no_cursor
from hostshape.fit.beside import REST_SHARE, outlined
from hostshape.fit.budget import Limit, TokenEstimate, utf8_length
from hostshape.fit.objects import cut_to_bytes, fit_object
from hostshape.output.columns import FORM, Table, table_for
from hostshape.output.envelope import (
    FIRST_RECORD_SHRUNK,
    ITEMS,
    LAST_SHOWN_SHRUNK,
    RECORD_SHRUNK,
    Facts,
    WayBack,
    compacted,
    envelope,
    last_shown,
    middle_shown,
    outlined_beside,
    records_json,
    spread_index,
    text_fields_cut,
)
from hostshape.output.previews import cap_strings
from hostshape.output.render import dumps, dumps_each, with_path
from hostshape.output.spacing import kept_once
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN, counter

Index = tuple[list[str], list[list[Any]]]  # an index's columns and its rows

# Record text fields are previewed at the first of these lengths (None: in full) at which every record fits
# whole; failing all, whole records at the last length plus an index of the rest.
PREVIEW_LEVELS: tuple[int | None, ...] = (None, 2000, 1000, 500, 280)
ENVELOPE_CROWDS = 0.3  # an envelope taking more of the budget than this is compacted (envelope.compact); notes are
# bounded where they are made (cut paths as patterns, a few per note), so values stated once keep their room


class RecordList(Protocol):
    """The record list as the records stage decided it (``hostshape.records.listing.Listing``): where it is in the
    value (``()``: the value is the list), the index layouts to try, widest first (each a subset of the widest, in
    its order; empty: no index), the index row of each of the first records in the widest layout, the
    identifiers of the records of each other record list beside it, by where that list is, and the layout of a
    listing of some of the records (a subset of the widest; None: the narrowest). Rows are read in order, as far
    as the fit needs them (a long list's rows may be made only when read)."""

    @property
    def path(self) -> tuple[str, ...]: ...
    @property
    def records(self) -> list[Any]: ...
    @property
    def layouts(self) -> list[list[str]]: ...
    @property
    def rows(self) -> Sequence[list[Any]]: ...
    @property
    def beside_ids(self) -> Mapping[tuple[str, ...], list[Any]]: ...
    @property
    def partial(self) -> list[str] | None: ...
    @property
    def query(self) -> str | None: ...
    def row_at(self, at: int) -> list[Any]: ...  # the index row of any record, in the widest layout


def fit_data(
    value: Any,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: CursorAt = no_cursor,
    *,
    records: RecordList | None = None,
    offset: int = 0,
    tables: bool = True,
) -> Fitted:
    """Fit a JSON value whose record list is ``records`` (None: it has none, and is fitted as one object).
    ``cursor_at(n)`` makes the cursor of the page starting at record ``n`` (None: no way to page); ``offset`` skips
    that many records (a later page); records cut are listed in an index when ``records`` has index layouts;
    ``tables`` lets uniform records be shown as a table when that is cheaper (hostshape.output.columns).
    Returns its own facts (what was shown and cut); ``facts`` is not changed."""
    if records is None:
        return fit_object(value, facts, limit, way)
    path, listed = records.path, records.records
    ratio = TokenEstimate(limit)
    ratio.estimate(dumps(listed[offset : offset + 20])[:4000])  # seeded by the records, not the (random) handle
    around = _tokens(dumps(with_path(value, path, [])), limit, ratio) if path else 0
    room = _beside_room(records, offset, around, ratio.estimate(dumps(envelope(facts, way, None))), limit)
    value, beside = outlined(value, path, room, lambda t: _tokens(t, limit, ratio), records.beside_ids)
    if beside:  # the members beside the list would crowd its records out; a cut, whatever the records' own fit says
        facts = dataclasses.replace(_noted(facts, outlined_beside(beside)), shrunk=True)
    if ratio.estimate(dumps(envelope(facts, way, None))) > limit.tokens * ENVELOPE_CROWDS:
        facts = compacted(facts, keep=kept_once(facts.same, min(_SAME_KEPT_CHARS, limit.tokens // 5)))
    # a top-level list is shown as {"items": [...]}: its cut names that key
    facts = dataclasses.replace(facts, total=len(listed), list_path=records.query or ".".join(path) or ITEMS)
    # no budget shows or indexes more records than it has tokens, nor shows whole what lies past _SEEN_CHARS
    # characters a token: text is previewed in those only, so the time grows with the budget, not the input
    seen = _within(listed[offset : offset + limit.tokens + 1], limit.tokens * _SEEN_CHARS)
    levels = PREVIEW_LEVELS if _may_fit_whole(listed[offset:], ratio, limit) else PREVIEW_LEVELS[-1:]
    for level in levels:
        capped, cuts = cap_records(listed[offset:], level, seen)
        note = [text_fields_cut(level)] if cuts and level is not None else []
        level_facts = dataclasses.replace(facts, text_cut=cuts > 0, notes=[*facts.notes, *note])
        table = table_for(capped[:seen], limit.count) if tables else None
        if level != levels[-1]:
            fit = _RecordFit(value, path, capped, level_facts, limit, way, cursor_at, offset, ratio, table=table)
            fitted = fit.whole()
        else:  # only the last level lists records in an index: its rows are previewed as its records are
            index = _IndexSource(
                records.layouts, records.rows, offset, level, seen, records.partial, records.row_at, len(listed)
            )
            fit = _RecordFit(value, path, capped, level_facts, limit, way, cursor_at, offset, ratio, index, table)
            fitted = fit.run()
        if fitted is not None:
            return fitted
    raise AssertionError("unreachable: the last preview level always produces a fit")


def _beside_room(records: RecordList, offset: int, beside: int, envelope_tokens: int, limit: Limit) -> int:
    """Tokens the members beside the record list may take: REST_SHARE of the budget, less when the document
    without its records (``beside`` tokens) and the envelope leave too little for a listing of every record by the
    narrowest index layout (counted on a sample) and a smaller share (of at least _LEAST_BESIDE) would not: the
    index of every record comes before what sits beside it."""
    share = int(limit.tokens * REST_SHARE)
    rest = len(records.records) - offset
    if not records.layouts or len(records.rows) < len(records.records) or rest <= _LISTING_SAMPLE:
        return share
    sample = _narrower(list(records.rows[offset : offset + _LISTING_SAMPLE]), records.layouts[0], records.layouts[-1])
    need = int(limit.count(dumps(sample)) * rest / len(sample) * _LISTING_SLACK) + _INDEX_HEADER
    left = limit.tokens - envelope_tokens - _ENVELOPE_GROWS - need
    if beside <= left:
        return share  # the listing fits beside them as they are
    return share if left >= share or left < limit.tokens * _LEAST_BESIDE else left


_SAME_KEPT_CHARS = 240  # a compacted envelope still states this many characters of the values stated once (told
# short: a series' shared times by their ends and step), at most one character per 5 tokens of the budget
_LISTING_SAMPLE = 100  # index rows whose cost estimates a listing of every record
_LISTING_SLACK = 1.02  # the rows not counted may run a little longer than the sample
_ENVELOPE_GROWS = 40  # tokens the envelope gains once the fit states what it showed (returned, listed, dropped)
_LEAST_BESIDE = 0.03  # the members beside the record list keep at least this share of the budget


_SEEN_CHARS = (
    2 * SURELY_OVER_CHARS_PER_TOKEN
)  # twice tokens.py SURELY_OVER_CHARS_PER_TOKEN: previews may halve a record


def _within(records: list[Any], chars: int) -> int:
    """How many of the first records fit in ``chars`` characters of compact JSON (at least one)."""
    total = 0
    for i, record in enumerate(records):
        total += len(dumps(record)) + 1
        if total > chars:
            return max(1, i)
    return len(records)


def _tokens(text: str, limit: Limit, ratio: TokenEstimate) -> int:
    """Exact tokens of a text of budget size, else estimated."""
    return limit.count(text) if len(text) <= limit.tokens * 8 else ratio.estimate(text)


def _may_fit_whole(records: list[Any], ratio: TokenEstimate, limit: Limit) -> bool:
    """Whether every record, previewed at the shortest level, could fit: extrapolated from the first 20 (so a long
    list skips the longer preview levels instead of rendering each)."""
    if len(records) > limit.tokens:
        return False
    sample = records[:20]
    if len(sample) == len(records):
        return True
    capped, _ = cap_records(sample, PREVIEW_LEVELS[-1], len(sample))
    return ratio.estimate(dumps(capped)) * len(records) / len(sample) <= limit.tokens * 1.5


def cap_records(records: list[Any], level: int | None, seen: int) -> tuple[list[Any], int]:
    """``records`` with the text fields of the first ``seen`` previewed at ``level`` chars, and how many strings
    were cut."""
    if level is None:
        return records, 0
    cuts = [0]
    capped: list[Any] = []
    for start in range(0, min(seen, len(records)), _BLOCK):  # a block with no long text is told at once
        block = records[start : min(seen, start + _BLOCK)]
        if _all_short(block, level):
            capped += block
        else:
            capped += [r if _all_short(r, level) else cap_strings(r, level, cuts) for r in block]
    return capped + records[seen:], cuts[0]


def _all_short(record: Any, level: int) -> bool:
    """No text in ``record`` is longer than ``level`` characters, told from its JSON at C speed (no piece between
    two quotes is longer; an escaped quote in it leaves the question to ``cap_strings``)."""
    text = dumps(record)
    return '\\"' not in text and not _longer_piece_in(text, level)


def _longer_piece_in(text: str, level: int) -> bool:
    """Whether a piece of ``text`` before its first quote, or after any quote up to the next, is longer than
    ``level`` characters: the first told by where that quote is, the others by a pattern that starts with a
    quote (searched from one quote to the next at C speed; a pattern that may also start at the beginning is
    tried at every character)."""
    first = text.find('"')
    return (len(text) if first < 0 else first) > level or _quoted_longer(level).search(text) is not None


@functools.lru_cache(maxsize=16)
def _quoted_longer(level: int) -> re.Pattern[str]:
    """A quote followed by more than ``level`` characters that are not one."""
    return re.compile(f'"[^"]{{{level + 1}}}')


def _long_cell(row: list[Any], level: int) -> bool:
    """Whether an index row (scalars, nested values shown as a mark: listing.rows_of) has a string longer than
    ``level`` characters, the only cells ``cap_strings`` changes."""
    return any(isinstance(cell, str) and len(cell) > level for cell in row)


@dataclass(frozen=True)
class _IndexSource:
    """The layouts an index may take, widest first, and the rows of the records from the page's first in the
    widest, previewed at ``level`` as the records are (the first ``seen``), each read when the fit first needs it;
    ``partial``, the layout of a listing of some of them (None: the narrowest)."""

    layouts: list[list[str]]
    rows: Sequence[list[Any]]  # from the list's first record
    offset: int = 0
    level: int | None = None
    seen: int = 0
    partial: list[str] | None = None
    row_at: Callable[[int], list[Any]] | None = None  # the row of any record of the list (rows holds the first)
    total: int = 0  # records in the list
    _capped: dict[int, list[Any]] = field(default_factory=dict, repr=False)
    _blocks: dict[int, list[list[Any]]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return max(0, len(self.rows) - self.offset)

    def rows_in(self, columns: list[str], start: int, end: int) -> list[list[Any]]:
        """The rows of records ``start`` to ``end`` (from the page's first) in the layout ``columns``."""
        end = min(end, len(self))
        if end - start < _BLOCK:
            return _narrower([self._row(i) for i in range(start, end)], self.layouts[0], columns)
        first, last = start // _BLOCK, (end - 1) // _BLOCK
        rows = [row for b in range(first, last + 1) for row in self._block(b)]
        return _narrower(rows[start - first * _BLOCK : end - first * _BLOCK], self.layouts[0], columns)

    def rows_at(self, columns: list[str], positions: list[int]) -> list[list[Any]]:
        """The rows of the records at ``positions`` (from the page's first, ascending) in the layout ``columns``:
        those past ``rows`` read by ``row_at`` and previewed at ``level``; only these rows are made."""
        near = [p for p in positions if p < len(self)]
        out = [self._row(p) for p in near]
        for p in positions[len(near) :]:
            row = self.row_at(self.offset + p) if self.row_at is not None else []
            out.append(cap_strings(row, self.level, [0]) if self.level is not None else row)
        return _narrower(out, self.layouts[0], columns)

    def each(self, columns: list[str], start: int) -> Iterator[list[Any]]:
        """The rows from record ``start`` on in the layout ``columns``, made as they are read (a block of
        ``_BLOCK`` at a time)."""
        wide = columns == self.layouts[0]
        at = [self.layouts[0].index(c) for c in columns]
        first = -(-start // _BLOCK)  # the first block wholly read
        for i in range(start, min(len(self), first * _BLOCK)):
            row = self._row(i)
            yield row if wide else [row[j] for j in at]
        for b in range(first, -(-len(self) // _BLOCK)):
            block = self._block(b)
            yield from block if wide else _narrower(block, self.layouts[0], columns)

    def _row(self, i: int) -> list[Any]:
        """The row of record ``i`` (from the page's first), previewed at ``level`` when it is among the ``seen``."""
        block = self._blocks.get(i // _BLOCK)
        if block is not None:
            return block[i % _BLOCK]
        capped = self._capped
        row = capped.get(i)
        if row is None:
            row = self.rows[self.offset + i]
            if self.level is not None and i < self.seen and _long_cell(row, self.level):
                row = cap_strings(row, self.level, [0])
            capped[i] = row
        return row

    def _block(self, b: int) -> list[list[Any]]:
        """The rows of records ``b * _BLOCK`` to the next block's first, made at once, previewed as ``_row``
        previews them (a block whose JSON has no piece between quotes longer than ``level`` has no long cell)."""
        known = self._blocks.get(b)
        if known is not None:
            return known
        start = b * _BLOCK
        end = min(len(self), start + _BLOCK)
        block: list[list[Any]] = list(self.rows[self.offset + start : self.offset + end])
        level, seen = self.level, self.seen
        if level is not None and start < seen and not _all_short(block, level):
            block = [
                cap_strings(row, level, [0]) if i < seen and _long_cell(row, level) else row
                for i, row in enumerate(block, start)
            ]
        self._blocks[b] = block
        return block


_BLOCK = 64  # index rows made and previewed at once when the fit reads a run of them


_NO_INDEX = _IndexSource([], [])  # never filled


@dataclass(frozen=True)
class _Last:
    """The list's last record, previewed as the others are, shown whole after a partial index; ``cut``: its
    preview (or the middle's) cut text; ``middle``: the record midway from the page's first to the last, previewed,
    shown whole with it (None: not shown)."""

    record: Any
    cut: bool
    middle: Any = None
    most: int = 0  # the tokens the middle record may cost to be shown whole, at the estimate of ...
    priced: int = 0  # ... which put the last record at this many tokens (the estimate learns as the fit counts)


@dataclass(frozen=True)
class _Plan:
    """A layout to try: ``k`` whole records, the index (None: none), whether it lists every other record, the last
    record shown whole after it (None: not shown) and the position column of an index spread over the list
    (None: no such index)."""

    k: int
    index: Index | None
    complete: bool
    last: _Last | None = None
    position: str | None = None


@dataclass
class _RecordFit:
    """Choose how many whole records to show (and which to index) from estimated token costs, render, and verify
    with an exact count; an over-budget candidate retries with proportionally fewer records. Every candidate
    carries its own facts: rendering changes none."""

    value: Any
    path: tuple[str, ...]
    rest: list[Any]  # the records from the page's first
    facts: Facts
    limit: Limit
    way: WayBack
    cursor_at: CursorAt
    offset: int
    ratio: TokenEstimate
    index: _IndexSource = _NO_INDEX
    table: Table | None = None  # the records shown are rendered as this table (two or more of them)
    position: str | None = None  # the position column of an index spread over the list (None: no such index)
    last: _Last | None = None  # the list's last record, shown whole after a partial index (None: not shown)
    _last_tokens: int = field(default=0, init=False)

    def whole(self) -> Fitted | None:
        """Every remaining record, whole, if they fit: as a list of objects, else as the table (if any); None when
        neither fits (found without counting when clearly over)."""
        rest, most = self.rest, self.limit.tokens * 1.15
        text, facts = dataclasses.replace(self, table=None)._text(rest, len(rest), None)
        estimate = self.ratio.estimate(text)
        if estimate <= most:
            fitted = self._verified(text, facts, "records")
            if fitted is not None:
                return fitted
        if self.table is None or estimate * self.table.share > most:  # the table is rendered only when it may fit
            return None
        text, facts = self._text(rest, len(rest), None)
        return self._verified(text, facts, "records") if self.ratio.estimate(text) <= most else None

    def run(self) -> Fitted:
        rest = self.rest
        budget = self.limit.tokens - self.ratio.estimate(self._skeleton()) - 2
        table = self.table
        if table is None:
            full = _costs_within((dumps(r) for r in rest), self.ratio, budget)
        else:  # rows cost what their table costs, counted on the first few: the names once, the rows' share each
            head = table.render(rest[:_TABLE_HEAD]) or {"fields": [], "rows": []}
            names = self.limit.count(dumps(head["fields"]))
            rows = max(1, len(head["rows"]))  # none when the first records render to no row
            per = (self.limit.count(dumps(head["rows"])) + 1) / rows
            scale = per / max(1.0, sum(self.ratio.estimate(dumps(r)) + 1 for r in head["rows"]) / rows)
            budget -= names
            estimates = _costs_within((dumps(table.row(r)) for r in rest), self.ratio, int(budget / scale) + 1)
            full = [max(1, round(c * scale)) for c in estimates]
        for plan in self._plans(full, budget):
            k, index, complete = plan.k, plan.index, plan.complete
            planned = dataclasses.replace(self, last=plan.last, position=plan.position)
            fit = planned
            if index is not None and not complete and table is not None:
                fit, index, k = planned._objects_first(index, k, budget)
            while k > 0 or index is not None:
                text, facts = fit._text(rest, k, index)
                fitted = fit._verified(text, facts, "index" if index else "records")
                if fitted is not None:
                    if k == 0 and index is not None and complete:
                        index, fitted = planned._widest(index, fitted)  # columns for every record before one's detail
                        first = planned._with_a_shrunk_first(index, fitted)
                        if first is not None:
                            return first
                        return planned._with_a_shrunk_next(0, index, fitted) or fitted
                    if index is not None and not complete:
                        return fit._more_rows(k, index, fitted)
                    if index is not None and k > 0:
                        return fit._with_a_shrunk_next(k, index, fitted) or fitted
                    return fitted
                over = fit._last_tokens / self.limit.tokens
                if index is not None and complete and k == 0 and len(index[0]) > 1:
                    break  # a listing of every record that does not fit: narrower columns next, rows go last
                if index is not None and len(index[1]) > 1 and (not complete or k == 0):
                    fewer = fit._fewer_rows(index[1], text, over)
                    index = fit._spread(fit._base(index), k, fewer) if fit.position else (index[0], index[1][:fewer])
                elif k > 0:
                    k = max(0, min(k - 1, int(k / over)))
                    if k == 0 and index is not None and complete and len(index[0]) > self._narrowest + 2:
                        break  # short columns would crowd out every whole record: the narrower layout next
                    if index is not None:
                        index = fit._restarted(index, k, len(rest) if complete else k + len(index[1]))
                    fit = fit._middle_again(k)
                else:
                    break
        return self._shrunk_first()

    def _fewer_rows(self, rows: list[list[Any]], text: str, over: float) -> int:
        """How many of the index rows ``rows`` of the over-budget candidate ``text`` (``over`` times the limit) to
        keep: fewer by its excess tokens (and a margin) over the exact tokens of one of the last rows, those cut (the
        rows are the part that shrinks, not the whole text: a cut in proportion to the whole keeps too many). A text
        far over, or over the character cap, is cut in proportion."""
        if over > _CLOSE_OVER or (self.limit.chars is not None and len(text) > self.limit.chars):
            return max(1, int(len(rows) / over) - 1)
        excess = self._last_tokens - self.limit.tokens + max(2, self.limit.tokens * _UNDER)
        # the estimate has just learnt this text's tokens per byte, which the rows (short values) run above:
        # more rows than are cut, whose exact tokens tell how many are
        guess = math.ceil(excess / max(1, self.ratio.estimate(dumps(rows)) / len(rows)))
        # rows spread over the list are cut all over it (their mean), the following ones at the end
        tail = rows if self.position is not None else rows[-min(len(rows), 2 * guess + 8) :]
        per_row = self.limit.count(dumps(tail)) / len(tail)
        return max(1, len(rows) - math.ceil(excess / max(per_row, 1.0)))

    def _objects_first(self, index: Index, k: int, budget: int) -> tuple[_RecordFit, Index, int]:
        """No listing of every record fits: its quarter of the budget shows whole records as objects, whose cost is
        known better than a table's, and the rows listed run to the same record; the middle and the last shown
        whole give way to the head's first record. Returns the fit, its index and its whole records."""
        fit = dataclasses.replace(self, table=None)
        plain = _costs_within((dumps(r) for r in self.rest), self.ratio, budget)
        share = (budget - _INDEX_HEADER) // _WHOLE_SHARE
        whole = _most_records(plain, [0] * len(plain), share - _last_cost(fit.last, self.ratio))
        while whole == 0 and fit.last is not None:
            fit = dataclasses.replace(fit, last=_fewer_landmarks(fit.last))
            whole = _most_records(plain, [0] * len(plain), share - _last_cost(fit.last, self.ratio))
        return fit, fit._restarted(index, whole, k + len(index[1])), whole

    def _widest(self, index: Index, fitted: Fitted) -> tuple[Index, Fitted]:
        """A listing of every record and nothing else: the widest layout that lists every record within the
        limit (columns a narrower try gave up in the hope of room for a whole record), and its answer."""
        wider = [c for c in self.index.layouts if len(c) > len(index[0])]
        for columns in wider[::-1][:_WIDER_TRIES]:  # nearest first, as long as each fits
            candidate = (columns, self.index.rows_in(columns, 0, len(self.rest)))
            better = self._verified(*self._text(self.rest, 0, candidate), "index")
            if better is None:
                break
            index, fitted = candidate, better
        return index, fitted

    def _more_rows(self, k: int, index: Index, fitted: Fitted) -> Fitted:
        """A partial listing that fits, grown by as many more rows as the budget it left unused holds (measured on
        the last rows listed): the following ones, or, spread over the list, a closer spread; a grown listing of the
        following rows over the limit is cut back by its excess (``_fewer_rows``)."""
        columns, rows = index
        for _ in range(3):
            used = self.limit.count(fitted.text)
            room = self.limit.tokens - used
            end = k + len(rows)
            stop = len(self.rest)
            # a spread is made anew at each count, its rows elsewhere: it grows by the larger steps only
            if room < self.limit.tokens // (50 if self.position else 100) or (self.position is None and end >= stop):
                break
            tail = rows[-_BLOCK:]  # the last rows listed, the nearest to those that follow
            per_row = max(1.0, self.limit.count(dumps(tail)) / max(1, len(tail)))
            extra = int(room / per_row * 0.9)
            if extra < 1:
                break
            grown = self._grown(columns, rows, k, len(rows) + extra)
            if len(grown) <= len(rows):
                break
            text, facts = self._text(self.rest, k, (columns, grown))
            candidate = self._verified(text, facts, "index")
            if candidate is None and self.position is not None:
                break
            if candidate is None:  # over: as many rows as its exact tokens leave room for, if more than before
                grown = self._grown(
                    columns, rows, k, self._fewer_rows(grown, text, self._last_tokens / self.limit.tokens)
                )
                if len(grown) <= len(rows):
                    break
                candidate = self._verified(*self._text(self.rest, k, (columns, grown)), "index")
                if candidate is None:
                    break
            rows, fitted = grown, candidate
        return fitted

    def _grown(self, columns: list[str], rows: list[list[Any]], k: int, count: int) -> list[list[Any]]:
        """The index rows ``rows`` (after ``k`` whole records, in the layout ``columns``) grown to ``count``: the
        following ones, or, spread over the list, a closer spread (as many rows when ``count`` is not more)."""
        if count <= len(rows):
            return rows
        if self.position is not None:
            return self._spread(self._base((columns, rows)), k, count)[1]
        end = k + len(rows)
        return rows + self.index.rows_in(columns, end, min(len(self.rest), end + count - len(rows)))

    def _spread(self, columns: list[str], k: int, count: int) -> Index:
        """An index of at most ``count`` rows in the layout ``columns`` spread evenly over the records from ``k`` to
        the list's last, both included, each row led by its record's position in the list; through the record
        midway through the list, unless it is shown whole."""
        shown = self.last is not None and self.last.middle is not None  # the middle answered by itself
        at = _positions(k, len(self.rest), count, through=None if shown else _middle_of(self.rest))
        rows = self.index.rows_at(columns, at)
        assert self.position is not None
        return [self.position, *columns], [[self.offset + p, *row] for p, row in zip(at, rows, strict=True)]

    def _restarted(self, index: Index, k: int, end: int) -> Index:
        """``index`` made again from record ``k``: spread over the list as many rows (when it is), else the rows
        of the records to ``end``."""
        if self.position is not None:
            return self._spread(self._base(index), k, len(index[1]))
        return index[0], self.index.rows_in(index[0], k, end)

    def _base(self, index: Index) -> list[str]:
        """The layout of an index's rows without its position column."""
        return index[0][1:] if self.position is not None and index[0][:1] == [self.position] else index[0]

    @property
    def _narrowest(self) -> int:
        """Columns of the narrowest index layout (1 when there is none)."""
        return len(self.index.layouts[-1]) if self.index.layouts else 1

    def _plans(self, full: list[int], budget: int) -> Iterator[_Plan]:
        """The layouts to try, best first; each is costed only when reached, and each carries all it needs (this
        fit is not changed). When no index can list every record, a quarter of the budget goes to whole records
        and the rest to index rows for as many of the following records as fit."""
        rest, layouts = self.rest, self.index.layouts
        room = budget - _INDEX_HEADER
        # an index row costs two tokens at least: no budget lists more rows than half its tokens
        listable = min(len(self.index), self.limit.tokens // 2 + 1) if layouts else 0
        deferred = None  # the widest listing of every record, skipped in the hope a narrower one leaves room
        # a wider layout's rows are longer, so their estimate is larger: when the narrowest listing of every record
        # is clearly over (its slack the largest), so is every other
        narrowest = self.index.each(layouts[-1], 0) if layouts else iter(())
        narrowest_over = (
            bool(layouts)
            and listable >= len(rest)
            and (self._sampled_over(layouts[-1], int(room * 1.1)) or self._over(narrowest, int(room * 1.1)))
        )
        for columns in layouts:  # widest first: columns go before rows do
            if listable < len(rest) or narrowest_over:
                break  # no listing of every record can fit
            slack = int(room * (1.1 if columns is layouts[-1] else 1.0))  # nearly all fit: cut rows after measuring
            rows, row_costs = self._measured(self.index.each(columns, 0), slack)
            if len(row_costs) == len(rest) and sum(row_costs) <= slack:
                k = _most_records(full, row_costs, room)
                if k == 0 and len(columns) > self._narrowest + 2:
                    deferred = deferred or _Plan(k, (columns, rows[k:]), True)
                    continue  # short columns beside the key crowd out every whole record: narrower first
                head = max((self.ratio.estimate(dumps(r)) for r in rest[: min(k, _TABLE_HEAD)]), default=0)
                # for a record of the head, when not much larger
                last = self._last_whole(int(head * _LANDMARK_SLACK) + _LAST_WRAP, k)
                if last is not None:
                    beside, last = self._beside_landmarks(full, row_costs, room, last)
                    if 0 < beside < len(rest) - 1:
                        yield _Plan(beside, (columns, rows[beside:]), True, last)
                yield _Plan(k, (columns, rows[k:]), True)
        if deferred is not None:
            yield deferred
        if layouts:  # no listing of every record fits: a quarter of the room to whole records, the rest to rows
            columns = self.index.partial or layouts[-1]
            share = room // _WHOLE_SHARE
            k = _most_records(full, [0] * len(full), share)
            last = self._last_whole(share // 2, k)
            if last is not None:  # shown when a whole record still comes first
                beside, last = self._beside_landmarks(full, [0] * len(full), share, last)
                last, k = (last, beside) if beside else (None, k)
            used = sum(full[:k]) + _last_cost(last, self.ratio)
            following = itertools.islice(self.index.each(columns, k), max(0, listable - k))
            listed, per_row = self._listed_within(following, room - used)
            width = self.ratio.estimate(f"{self.offset + len(rest)},")  # a position's tokens in a row
            end = min(k + max(1, listed), listable)
            if k + listed >= len(rest) or not per_row:  # the following rows reach the end: listed as they are
                yield _Plan(k, (columns, self.index.rows_in(columns, k, end)), False)
            elif width <= per_row * _POSITION_SHARE:  # spread over the whole list: its extent, any record's place
                position = _position_name(columns, last.record if last else None)
                spreading = dataclasses.replace(self, position=position, last=last)
                spread = spreading._spread(columns, k, spreading._spread_within(columns, k, room - used))
                yield _Plan(k, spread, False, last, position)
            else:  # positions would crowd out the rows: the following ones, and the last whole
                yield _Plan(k, (columns, self.index.rows_in(columns, k, end)), False, last)
        yield _Plan(_most_records(full, [0] * len(full), budget), None, True)

    def _sampled_over(self, columns: list[str], room: int) -> bool:
        """Whether a listing of every record in the layout ``columns`` is far over ``room``: rows spread evenly over
        a long list, counted exactly, come to ``_SAMPLED_FAR`` times it at their rate (a short list: never)."""
        n = len(self.index)
        if n < len(self.rest) or n <= 4 * _BLOCK:
            return False
        sample = self.index.rows_at(columns, _positions(0, n, _BLOCK))
        return counter(self.limit.encoding_name).count(dumps(sample)) * n > _SAMPLED_FAR * room * len(sample)

    def _spread_within(self, columns: list[str], k: int, room: int) -> int:
        """How many rows of an index spread over the records from ``k`` to the last, in the layout ``columns`` and
        each led by its position, fit ``room`` tokens: at the exact tokens of a sample of them, spread alike."""
        at = _positions(k, len(self.rest), _BLOCK)
        sample = [[self.offset + p, *row] for p, row in zip(at, self.index.rows_at(columns, at), strict=True)]
        per_row = counter(self.limit.encoding_name).count(dumps(sample)) / len(sample)
        return max(1, int(room / max(per_row, 1.0)))

    def _listed_within(self, rows: Iterable[list[Any]], room: int) -> tuple[int, float]:
        """How many of ``rows`` a listing holds within ``room`` tokens, and the estimated tokens of one of them (0
        when there is none; what decides whether positions would crowd them): rows are costed a block at a time at
        the tokens per byte of an exact count of their first block (short rows run denser than the records the
        estimate learnt from), the last block row by row."""
        value = self.ratio.value or 0.25
        listed, spent, size = 0, 0.0, 0
        density = None
        it = iter(rows)
        while block := list(itertools.islice(it, _BLOCK)):
            text = dumps(block)
            length = utf8_length(text) - 1  # the rows and a separator each
            if density is None:
                density = counter(self.limit.encoding_name).count(text) / max(1, length + 1)
            if spent + length * density <= room:
                listed, spent, size = listed + len(block), spent + length * density, size + length
                continue
            for row in block:
                length = utf8_length(dumps(row)) + 1
                if spent + length * density > room:
                    break
                listed, spent, size = listed + 1, spent + length * density, size + length
            if not listed:
                size = length
            break
        if density is None:
            return 0, 0.0
        return listed, (size * value + listed) / max(1, listed)  # as the estimate costs a row (and its separator)

    def _beside_landmarks(self, full: list[int], rows: list[int], room: int, last: _Last) -> tuple[int, _Last]:
        """The whole records that fit ``room`` beside ``last`` (and its middle record) shown whole, index rows of
        cost ``rows`` included, and ``last`` without its middle when no whole record would fit beside both, or the
        whole records reach it."""
        beside = _most_records(full, rows, room - _last_cost(last, self.ratio))
        if last.middle is not None and (beside == 0 or beside > _middle_of(self.rest)):
            last = dataclasses.replace(last, middle=None)
            beside = _most_records(full, rows, room - _last_cost(last, self.ratio))
        return beside, last

    def _measured(self, rows: Iterable[list[Any]], room: int) -> tuple[list[list[Any]], list[int]]:
        """The rows read, and the token costs of index rows whose listing is counted exactly (the estimate only
        spreads the count over the rows); no costs when the listing is clearly over ``room`` (see ``_over``), or its
        rows sampled over it count more than ``_SAMPLED_OVER`` times it (a sample's tokens per byte tell a listing's
        within a few per cent)."""
        read: list[list[Any]] = []
        texts: list[str] = []
        if self._over(rows, room, read, texts):
            return read, []
        estimates = [self.ratio.estimate(t) + 1 for t in texts]
        listing = ",".join(texts)
        if len(texts) > 2 * _BLOCK:  # rows spread over the listing, counted exactly, tell one far over without it
            sample = ",".join(texts[:: len(texts) // _BLOCK][:_BLOCK])
            tokens = counter(self.limit.encoding_name).count(sample)
            if tokens * utf8_length(listing) > room * _SAMPLED_OVER * utf8_length(sample):
                self.ratio.learn(sample, tokens)
                return read, []
        exact = self.limit.count(listing)
        self.ratio.learn(listing, exact)  # the next (narrower) listing is estimated from this one
        if exact > room:
            return read, []
        scale = exact / max(1, sum(estimates))
        return read, [max(1, round(e * scale)) for e in estimates]

    def _over(
        self, rows: Iterable[list[Any]], room: int, read: list[list[Any]] | None = None, texts: list[str] | None = None
    ) -> bool:
        """Whether a listing of ``rows`` is clearly over ``room`` by its size or estimate (short rows are never
        estimated within: their tokens run denser than the records' the estimate learnt from), found as soon as
        the rows read so far are (the rest are not made); ``read`` receives the rows read and ``texts`` their JSON.
        Changes nothing."""
        size = estimated = 0
        if read is None and texts is None:  # only the answer is wanted: a block of rows rendered and estimated at once
            it = iter(rows)
            while block := list(itertools.islice(it, _BLOCK)):
                text = dumps(block)
                size += len(text) - 1  # each row and its separator
                # as each row's estimate (its bytes at the estimate's rate, rounded down, and one) and separator
                estimated += int(self.ratio.estimate(text[1:-1].replace("],[", "][")) + 1.5 * len(block) - 1)
                if size > room * SURELY_OVER_CHARS_PER_TOKEN or estimated > 1.25 * room:
                    return True
            return False
        rate = self.ratio.value
        if read is not None and texts is not None and rate is not None:
            return _over_by_block(rows, rate, room, read, texts)
        for row in rows:
            text = dumps(row)
            if read is not None:
                read.append(row)
            if texts is not None:
                texts.append(text)
            size += len(text) + 1
            estimated += self.ratio.estimate(text) + 1
            if size > room * SURELY_OVER_CHARS_PER_TOKEN or estimated > 1.25 * room:
                return True
        return False

    def _skeleton(self) -> str:
        """Everything but the records, with the envelope at its longest: the fixed cost of any candidate."""
        n = len(self.rest)
        facts = dataclasses.replace(self.facts, returned=n, listed=n, truncated=True)
        return records_json(facts, self.way, self.cursor_at(self.offset + n), self.value, self.path, [])

    def _text(self, rest: list[Any], k: int, index: Index | None) -> tuple[str, Facts]:
        """The answer showing the first ``k`` of ``rest`` whole and ``index`` (and the list's last record whole after
        it, when it was chosen to be), and the facts it reports."""
        rows = index[1] if index else []
        more = k < len(rest)
        facts = dataclasses.replace(self.facts, returned=k, listed=len(rows) if index else None, truncated=more)
        cursor = self.cursor_at(self.offset + k) if more else None
        dropped = len(rest) - k - len(rows)
        last = middle = None
        if index is not None and rows and self.position is not None and index[0][:1] == [self.position]:
            facts = self._spread_noted(facts, rows)
        if index is not None and rows and self.last is not None and k < len(rest) - 1:
            at = self.offset + len(rest) - 1
            last = (self.position or _position_name(index[0], self.last.record), at, self.last.record)
            listed = self.position is not None or k + len(rows) == len(rest)  # its row is the index's last
            facts = _noted(facts, last_shown(at, listed))
            if not listed:  # shown whole, not listed: counted once, among the records returned
                facts, dropped = dataclasses.replace(facts, returned=k + 1), dropped - 1
            mid = _middle_of(rest)
            midway = self.last.middle
            if midway is not None and k <= mid and not (isinstance(midway, dict) and last[0] in midway):
                middle = (last[0], self.offset + mid, midway)
                listed = any(r[0] == self.offset + mid for r in rows) if self.position else k + len(rows) > mid
                facts = _noted(facts, middle_shown(self.offset + mid, listed))
                if not listed:
                    facts, dropped = dataclasses.replace(facts, returned=(facts.returned or k) + 1), dropped - 1
            if self.last.cut and not facts.text_cut and self.index.level is not None:
                facts = dataclasses.replace(_noted(facts, text_fields_cut(self.index.level)), text_cut=True)
        tabled = self.table.render(rest[:k]) if self.table is not None and k > 1 else None
        if tabled is not None:
            facts = dataclasses.replace(facts, form=FORM)
        shown = rest[:k] if tabled is None else tabled
        return records_json(facts, self.way, cursor, self.value, self.path, shown, index, dropped, last, middle), facts

    def _spread_noted(self, facts: Facts, rows: list[list[Any]]) -> Facts:
        """``facts`` with the note saying how the index rows ``rows`` (each led by its position) are spread."""
        at = [row[0] for row in rows]
        step = (at[-1] - at[0]) / max(1, len(at) - 1)
        query = None if "[]" in (facts.list_path or "[]") else facts.list_path if self.path else ""
        return _noted(facts, spread_index(len(rows), at[0], at[-1], step, str(self.position), query))

    def _last_whole(self, most: int, k: int) -> _Last | None:
        """The list's last record, previewed as the others are, when it is worth showing whole beside the first
        ``k``: past them and not the next, an object or list, costing at most ``most`` tokens; else None. With it,
        on the same terms (past the first ``k``, at most ``most`` tokens), the record midway from the page's first
        to the last: records from the start, the middle and the end of a list show how its values vary over it,
        whatever order it is in."""
        rest = self.rest
        if k < 1 or k >= len(rest) - 1 or not isinstance(rest[-1], (dict, list)):
            return None
        last, level, cuts = rest[-1], self.index.level, [0]
        if level is not None and not _all_short(last, level):
            last = cap_strings(last, level, cuts)
        priced = self.ratio.estimate(dumps(last))
        if priced + _LAST_WRAP > most:
            return None
        middle = self._middle_whole(most, k, cuts)
        return _Last(last, cuts[0] > 0, middle, most, priced)

    def _middle_whole(self, most: int, k: int, cuts: list[int]) -> Any:
        """The record midway from the page's first to the last, previewed as the others are (its cuts counted in
        ``cuts``), when it is past the first ``k`` and not the last, and costs at most ``most`` tokens; else None."""
        rest, level, at = self.rest, self.index.level, _middle_of(self.rest)
        if not (k <= at < len(rest) - 1 and isinstance(rest[at], (dict, list))):
            return None
        middle = rest[at]
        if level is not None and not _all_short(middle, level):
            middle = cap_strings(middle, level, cuts)
        return None if self.ratio.estimate(dumps(middle)) + _LAST_WRAP > most else middle

    def _middle_again(self, k: int) -> _RecordFit:
        """This fit after its whole records were cut back to ``k``: the middle record, left out while the whole
        ones reached it, shown whole beside the last again once they no longer do (on the terms it had)."""
        last = self.last
        if last is None or last.middle is not None or not last.most or k > _middle_of(self.rest):
            return self
        cuts = [0]
        most = last.most * self.ratio.estimate(dumps(last.record)) // max(1, last.priced)  # at today's estimate
        middle = self._middle_whole(most, k, cuts)
        if middle is None:
            return self
        return dataclasses.replace(self, last=dataclasses.replace(last, middle=middle, cut=last.cut or cuts[0] > 0))

    def _verified(self, text: str, facts: Facts, strategy: str) -> Fitted | None:
        if self.limit.cheap_fit(text):
            return Fitted(text, facts, strategy)
        self._last_tokens = (
            self.limit.count(text) if len(text) <= self.limit.tokens * SURELY_OVER_CHARS_PER_TOKEN else len(text)
        )
        self.ratio.learn(text, self._last_tokens)
        if self._last_tokens <= self.limit.tokens and (self.limit.chars is None or len(text) <= self.limit.chars):
            return Fitted(text, facts, strategy)
        if self._last_tokens <= self.limit.tokens:  # within tokens, over the character cap
            self._last_tokens = int(self.limit.tokens * len(text) / self.limit.chars) + 1  # type: ignore[operator]
        return None

    def _with_a_shrunk_first(self, index: Index, fitted: Fitted) -> Fitted | None:
        """An index of every record that leaves much of the budget unused (no whole record fits): the first
        record, shrunk to the room left, shown before it; None when that does not fit."""
        rest = self.rest
        used = self.limit.count(fitted.text)
        room = self.limit.tokens - used
        if used >= self.limit.tokens * _FILL or not isinstance(rest[0], (dict, list)):
            return None
        shrunk = dataclasses.replace(
            self, facts=dataclasses.replace(_noted(self.facts, FIRST_RECORD_SHRUNK), shrunk=True)
        )
        bytes_per_token = len(fitted.text.encode("utf-8")) / max(1, used)
        for share in (0.8, 0.6, 0.4):
            first = cut_to_bytes(rest[0], int(room * share * bytes_per_token))
            candidate, facts = shrunk._text([first, *rest[1:]], 1, (index[0], index[1][1:]))
            if self.limit.fits(candidate):
                return Fitted(candidate, facts, "index")
        return None

    def _with_a_shrunk_next(self, k: int, index: Index, fitted: Fitted) -> Fitted | None:
        """Whole records (or none) and a listing of the rest that leave room unused: the first record listed shown
        instead, shrunk to that room (its row's tokens included) and still holding every value of its row; None
        when there is little room, it does not fit, or the shrink cut a value its row shows."""
        rest = self.rest
        used = self.limit.count(fitted.text)
        room = self.limit.tokens - used
        if room < self.limit.tokens * _NEXT_ROOM or not index[1] or not isinstance(rest[k], (dict, list)):
            return None
        note = FIRST_RECORD_SHRUNK if k == 0 else LAST_SHOWN_SHRUNK
        facts = dataclasses.replace(_noted(self.facts, note), shrunk=True)
        shrunk = dataclasses.replace(self, facts=facts)
        bytes_per_token = len(fitted.text.encode("utf-8")) / max(1, used)
        row = len(dumps(index[1][0]).encode("utf-8"))
        values = index[1][0][len(index[0]) - len(self._base(index)) :]  # the row but its position
        for share in (0.8, 0.6, 0.4):
            nxt = cut_to_bytes(rest[k], int(room * share * bytes_per_token) + row)
            text = dumps(nxt)
            if any(dumps(c) not in text for c in values if c is not None and not isinstance(c, (dict, list))):
                return None  # the row answers something the shrunk record would not
            rows = index[1][1:]
            candidate, cut = shrunk._text([*rest[:k], nxt, *rest[k + 1 :]], k + 1, (index[0], rows) if rows else None)
            if self.limit.fits(candidate):
                return Fitted(candidate, cut, "index" if rows else "records")
        return None

    def _shrunk_first(self) -> Fitted:
        """Not even one whole record fits: shrink the first one to fit, with its envelope."""
        rest = self.rest
        facts = _noted(self.facts, RECORD_SHRUNK)
        facts = dataclasses.replace(facts, truncated=True, returned=1, listed=None)
        more = len(rest) > 1
        container = with_path(self.value, self.path, [rest[0]]) if self.path else rest[0]
        # cuts inside the record are named from the record itself, found by its position in the saved list
        at = f"[{self.offset}]"
        place: tuple[str | int, ...] = (*self.path, 0) if self.path else ()
        record = (place, f"{facts.list_path} | {at}" if self.path else at)
        cursor = self.cursor_at(self.offset + 1) if more else None
        return fit_object(container, facts, self.limit, self.way, cursor, record=record)


def _over_by_block(rows: Iterable[list[Any]], rate: float, room: int, read: list[list[Any]], texts: list[str]) -> bool:
    """``_RecordFit._over`` with its rows read and their JSON kept, for an estimate that has its rate (``rate``
    tokens a byte): the same rows read, texts and answer, each row costed as ``TokenEstimate.estimate`` costs it
    (its bytes at the rate, rounded down, and one) and a separator, the rows rendered a block at a time and the
    first row over found by a binary search of the running totals (they only grow)."""
    most_size, most_estimate = room * SURELY_OVER_CHARS_PER_TOKEN, 1.25 * room
    size = estimated = 0
    it = iter(rows)
    while block := list(itertools.islice(it, _BLOCK)):
        made = dumps_each(block)
        sizes = list(itertools.accumulate((len(t) + 1 for t in made), initial=size))
        estimates = list(itertools.accumulate((int(utf8_length(t) * rate) + 2 for t in made), initial=estimated))
        over = min(bisect.bisect_right(sizes, most_size, 1), bisect.bisect_right(estimates, most_estimate, 1))
        if over <= len(made):  # row ``over - 1`` of the block is the first past either limit
            read += block[:over]
            texts += made[:over]
            return True
        read += block
        texts += made
        size, estimated = sizes[-1], estimates[-1]
    return False


def _last_cost(last: _Last | None, ratio: TokenEstimate) -> int:
    """Estimated tokens of the last record shown whole, and of the middle one with it (0 when it is not)."""
    if last is None:
        return 0
    middle = 0 if last.middle is None else ratio.estimate(dumps(last.middle)) + _LAST_WRAP
    return ratio.estimate(dumps(last.record)) + _LAST_WRAP + middle


def _fewer_landmarks(last: _Last) -> _Last | None:
    """``last`` without its middle record, or nothing when it has none: what gives way to the head's first."""
    return dataclasses.replace(last, middle=None) if last.middle is not None else None


def _middle_of(records: list[Any]) -> int:
    """The position of the record midway through ``records`` (the earlier of two)."""
    return (len(records) - 1) // 2


def _noted(facts: Facts, note: str) -> Facts:
    return dataclasses.replace(facts, notes=[*facts.notes, note])


def _positions(start: int, end: int, count: int, through: int | None = None) -> list[int]:
    """``count`` positions evenly spread from ``start`` to ``end - 1``, both included (every one when ``count``
    covers them all); with ``through`` (a position between them), the position nearest it is moved onto it, so a
    spread from the first to the last record also passes through the middle one (the others stay where they were)."""
    span = end - start
    if count >= span:
        return list(range(start, end))
    if count <= 1:
        return [start]
    at = [start + i * (span - 1) // (count - 1) for i in range(count)]
    if through is not None and start < through < end - 1:
        nearest = min(range(1, count - 1), key=lambda i: abs(at[i] - through), default=None)
        if nearest is not None:
            at[nearest] = through  # between its neighbours: the nearest to it of all
    return at


def _position_name(columns: list[str], last: Any) -> str:
    """The name of an index's position column: ``#``, or a longer run of ``#`` when a column or the last record
    shown whole has that name."""
    taken = set(columns) | (set(last) if isinstance(last, dict) else set())
    name = "#"
    while name in taken:
        name += "#"
    return name


def _costs_within(texts: Any, ratio: TokenEstimate, budget: int) -> list[int]:
    """Estimated tokens of each text (plus a separator), stopping once their sum exceeds ``budget``."""
    costs, total = [], 0
    for text in texts:
        cost = ratio.estimate(text) + 1
        costs.append(cost)
        total += cost
        if total > budget:
            break
    return costs


def _prefix_within(costs: list[int], budget: int) -> int:
    total = 0
    for i, cost in enumerate(costs):
        total += cost
        if total > budget:
            return i
    return len(costs)


_SAMPLED_FAR = 1.5  # a long list's rows, sampled over it, counting this many times the room are not all read
_SAMPLED_OVER = 1.1  # a listing whose rows, sampled over it, count this many times its room is not counted whole
_CLOSE_OVER = 1.5  # a candidate at most this many times the limit cuts its index rows by their exact tokens
_UNDER = 0.002  # ... aiming this share of the limit under it (the rows cut may be shorter than most)
_TABLE_HEAD = 10  # records whose table rows are counted exactly, to cost the others
_WIDER_TRIES = 3  # wider layouts tried (nearest first) for a listing that fits with room to spare
_WHOLE_SHARE = 4  # when no index lists every record, 1/this of the room goes to whole records, the rest to rows
_NEXT_ROOM = 0.05  # whole records and a listing leaving this share of the budget unused show one more record, shrunk
_FILL = 0.5  # an index-only answer using less of the budget than this also shows the first record, shrunk
_INDEX_HEADER = 12  # tokens of ',"_index":{"fields":[...],"rows":[]}' beyond the rows themselves
_LAST_WRAP = 40  # tokens of ',"_last":{"#":N,...}' and its note beyond the record itself
_LANDMARK_SLACK = 1.5  # beside a listing of every record, the last (and middle) record shown whole may cost this
# many times the largest record of the head (records vary in size; whole records beside them are counted after)
_POSITION_SHARE = 0.25  # an index is spread over the list, each row led by its position, when a position costs at
# most this share of a row's tokens; else it lists the records that follow the whole ones


def _narrower(rows: list[list[Any]], wide: list[str], columns: list[str]) -> list[list[Any]]:
    """Index rows of the ``wide`` layout cut to ``columns`` (a subset of it, in its order)."""
    if columns == wide:
        return rows
    at = [wide.index(c) for c in columns]
    return [[row[i] for i in at] for row in rows]


def _most_records(full: list[int], rows: list[int], budget: int) -> int:
    """The largest k such that k whole records plus index rows for the rest fit ``budget``."""
    n = len(rows)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + rows[i]
    best, prefix = 0, 0
    for k in range(1, min(len(full), n) + 1):
        prefix += full[k - 1]
        if prefix + suffix[k] <= budget:
            best = k
    return best
