"""Fit a record list: whole records first, then an index of the rest, within the limit."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from hostshape.fit._base import Cursor, Fitted, no_cursor
from hostshape.fit.beside import REST_SHARE, outlined
from hostshape.fit.budget import Limit, TokenEstimate
from hostshape.fit.objects import cut_to_bytes, fit_object
from hostshape.output.columns import FORM, Table, table_for
from hostshape.output.envelope import KEY, Facts, WayBack, compact, envelope
from hostshape.output.render import dumps
from hostshape.records.locate import find_records, with_path
from hostshape.records.previews import cap_strings
from hostshape.records.structure import ANY_OF, SAMPLE, dotted, index_columns, is_key_like
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

# Record text fields are previewed at the first of these lengths (None: in full) at which every record fits
# whole; failing all, whole records at the last length plus an index of the rest.
PREVIEW_LEVELS: tuple[int | None, ...] = (None, 2000, 1000, 500, 280)
ENVELOPE_CROWDS = 0.3  # an envelope taking more of the budget than this is compacted (envelope.compact); notes are
# bounded where they are made (cut paths as patterns, a few per note), so values stated once keep their room


def fit_data(
    value: Any,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: Cursor = no_cursor,
    *,
    index: bool = True,
    offset: int = 0,
    records_at: tuple[str, ...] | None = None,
    layouts: list[list[str]] | None = None,
    tables: bool = True,
) -> Fitted:
    """Fit a JSON value. ``cursor_at(n)`` makes the cursor of the page starting at record ``n`` (None: no way to
    page); ``offset`` skips that many records (a later page); ``index`` lists records cut;
    ``records_at`` is where the record list is when the caller knows (the shrink found it), else it is found;
    ``layouts`` are the index layouts to try when the caller chose them (the shrink did, before shrinking);
    ``tables`` lets uniform records be shown as a table when that is cheaper (hostshape.output.columns).
    Returns its own facts (what was shown and cut); ``facts`` is not changed."""
    found = _records_at(value, records_at) if records_at is not None else find_records(value)
    if found is None or not found[1]:
        return fit_object(value, facts, limit, way)
    path, records = found
    ratio = TokenEstimate(limit)
    ratio.estimate(dumps(records[offset : offset + 20])[:4000])  # seeded by the records, not the (random) handle
    facts = _own(facts)
    value, beside = outlined(value, path, int(limit.tokens * REST_SHARE), lambda t: _tokens(t, limit, ratio))
    if beside:  # the members beside the list would crowd its records out
        facts.notes.append("beside the records, shown in outline: " + "; ".join(beside))
        facts.shrunk = True  # a cut, whatever the records' own fit says
    heavy = ratio.estimate(dumps(envelope(facts, way, None)))
    if heavy > limit.tokens * ENVELOPE_CROWDS:
        compact(facts)
    # no budget shows or indexes more records than it has tokens, nor shows whole what lies past _SEEN_CHARS
    # characters a token: text is previewed in those only, so the time grows with the budget, not the input
    seen = _within(records[offset : offset + limit.tokens + 1], limit.tokens * _SEEN_CHARS)
    levels = PREVIEW_LEVELS if _may_fit_whole(records[offset:], ratio, limit) else PREVIEW_LEVELS[-1:]
    for level in levels:
        capped, cuts = cap_records(records[offset:], level, seen)
        note = [f"text fields cut at {level:,} chars; …[+N chars] marks each cut"] if cuts else []
        level_facts = _own(facts, text_cut=cuts > 0, notes=[*facts.notes, *note])
        first = layouts[0][0] if layouts and layouts[0] else None
        table = table_for(capped[offset : offset + seen], limit.count, first) if tables else None
        fit = _RecordFit(
            value, path, records[:offset] + capped, level_facts, limit, way, cursor_at, index, offset, ratio, layouts
        )
        fit.table = table
        fitted = fit.run() if level == levels[-1] else fit.whole()
        if fitted is not None:
            return fitted
    raise AssertionError("unreachable: the last preview level always produces a fit")


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


def _own(facts: Facts, **changes: Any) -> Facts:
    """A copy of ``facts`` (with ``changes``) whose lists and maps are its own: fitting changes the copy only."""
    copied = dataclasses.replace(facts, **changes)
    copied.notes, copied.omitted, copied.same = list(copied.notes), list(copied.omitted), dict(copied.same)
    return copied


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


def _records_at(value: Any, path: tuple[str, ...]) -> tuple[tuple[str, ...], list[Any]] | None:
    member = value
    for key in path:
        if not isinstance(member, dict) or key not in member:
            return find_records(value)
        member = member[key]
    return (path, member) if isinstance(member, list) else find_records(value)


def cap_records(records: list[Any], level: int | None, seen: int) -> tuple[list[Any], int]:
    """``records`` with the text fields of the first ``seen`` previewed at ``level`` chars, and how many strings
    were cut."""
    if level is None:
        return records, 0
    cuts = [0]
    capped = [cap_strings(r, level, cuts) for r in records[:seen]]
    return capped + records[seen:], cuts[0]


@dataclass
class _RecordFit:
    """Choose how many whole records to show (and which to index) from estimated token costs, render, and verify
    with an exact count; an over-budget candidate retries with proportionally fewer records."""

    value: Any
    path: tuple[str, ...]
    records: list[Any]
    facts: Facts
    limit: Limit
    way: WayBack
    cursor_at: Cursor
    index: bool
    offset: int
    ratio: TokenEstimate
    layouts: list[list[str]] | None

    def whole(self) -> Fitted | None:
        """Every remaining record, whole, if they fit: as a list of objects, else as the table (if any); None when
        neither fits (found without counting when clearly over)."""
        rest = self.records[self.offset :]
        self._begin()
        table, self.table = self.table, None
        for form in (None, table) if table is not None else (None,):
            self.table = form
            text = self._text(rest, len(rest), None)
            if self.ratio.estimate(text) <= self.limit.tokens * 1.15:
                fitted = self._verified(text, "records")
                if fitted is not None:
                    return fitted
        return None

    def run(self) -> Fitted:
        rest = self.records[self.offset :]
        self._begin()
        skeleton = self._skeleton(rest)
        budget = self.limit.tokens - self.ratio.estimate(skeleton) - 2
        if self.table is not None:  # the table's field names, once
            budget -= self.ratio.estimate(dumps(list(self.table.fields)))
        full = _costs_within((dumps(self.table.row(r)) if self.table else dumps(r) for r in rest), self.ratio, budget)
        for k, index, complete in self._plans(rest, full, budget):
            while k > 0 or index is not None:
                text = self._text(rest, k, index)
                fitted = self._verified(text, "index" if index else "records")
                if fitted is not None:
                    if k == 0 and index is not None and complete:
                        return self._with_a_shrunk_first(rest, index, text) or self._widest(rest, index, fitted)
                    if index is not None and not complete:
                        return self._more_rows(rest, k, index, fitted)
                    return fitted
                over = self._last_tokens / self.limit.tokens
                if index is not None and complete and k == 0 and len(index[0]) > 1:
                    break  # a listing of every record that does not fit: narrower columns next, rows go last
                if index is not None and len(index[1]) > 1 and (not complete or k == 0):
                    index = (index[0], index[1][: max(1, int(len(index[1]) / over) - 1)])  # fewer index rows
                elif k > 0:
                    k = max(0, min(k - 1, int(k / over)))
                    if k == 0 and index is not None and complete and len(index[0]) > self._narrowest + 2:
                        break  # short columns would crowd out every whole record: the narrower layout next
                    if index is not None:
                        end = len(rest) if complete else k + len(index[1])
                        index = (index[0], [rows_of(r, index[0]) for r in rest[k:end]])
                else:
                    break
        return self._shrunk_first(rest)

    def _widest(self, rest: list[Any], index: tuple[list[str], list[list[Any]]], fitted: Fitted) -> Fitted:
        """A listing of every record and nothing else: the widest layout that lists every record within the
        limit (columns a narrower try gave up in the hope of room for a whole record)."""
        wider = [c for c in self._layouts if len(c) > len(index[0])]
        best = (index, fitted)
        for columns in wider[::-1][:_WIDER_TRIES]:  # nearest first, as long as each fits
            candidate = (columns, [rows_of(r, columns) for r in rest])
            better = self._verified(self._text(rest, 0, candidate), "index")
            if better is None:
                break
            best = (candidate, better)
        self._text(rest, 0, best[0])  # the facts of the listing returned
        return best[1]

    def _more_rows(self, rest: list[Any], k: int, index: tuple[list[str], list[list[Any]]], fitted: Fitted) -> Fitted:
        """A partial listing that fits, grown by as many following rows as the budget it left unused holds
        (measured on the rows already listed)."""
        columns, rows = index
        for _ in range(3):
            used = self.limit.count(fitted.text)
            room = self.limit.tokens - used
            end = k + len(rows)
            if room < self.limit.tokens // 50 or end >= len(rest):
                break
            per_row = max(1.0, self.limit.count(dumps(rows)) / max(1, len(rows)))
            extra = int(room / per_row * 0.9)
            if extra < 1:
                break
            grown = rows + [rows_of(r, columns) for r in rest[end : end + extra]]
            candidate = self._verified(self._text(rest, k, (columns, grown)), "index")
            if candidate is None:
                break
            rows, fitted = grown, candidate
        self._text(rest, k, (columns, rows))  # the facts of the answer returned
        return fitted

    def _begin(self) -> None:
        self.facts.total = len(self.records)
        self.facts.list_path = ".".join(self.path) or None

    def _plans(self, rest: list[Any], full: list[int], budget: int):
        """(whole records, index, index lists every other record) layouts to try, best first; each is costed
        only when reached. When no index can list every record, a quarter of the budget goes to whole records
        and the rest to index rows for as many of the following records as fit."""
        room = budget - _INDEX_HEADER
        layouts = (
            []
            if not self.index
            else row_layouts(rest)
            if isinstance(rest[0], list)
            else []
            if not isinstance(rest[0], dict)
            else (self.layouts if self.layouts is not None else index_columns(rest, self.limit.count))
        )
        self._layouts = layouts
        # an index row costs two tokens at least: no budget lists more rows than half its tokens
        wide = [rows_of(r, layouts[0]) for r in rest[: self.limit.tokens // 2 + 1]] if layouts else []
        deferred = None  # the widest listing of every record, skipped in the hope a narrower one leaves room
        for columns in layouts:  # widest first: columns go before rows do
            if len(wide) < len(rest):
                break  # no listing of every record can fit
            rows = _narrower(wide, layouts[0], columns)
            slack = int(room * (1.1 if columns is layouts[-1] else 1.0))  # nearly all fit: cut rows after measuring
            row_costs = self._measured(rows, slack) if len(rows) == len(rest) else []
            if len(row_costs) == len(rest) and sum(row_costs) <= slack:
                k = _most_records(full, row_costs, room)
                self._narrowest = len(layouts[-1])
                if k == 0 and len(columns) > self._narrowest + 2:
                    deferred = deferred or (k, (columns, rows[k:]), True)
                    continue  # short columns beside the key crowd out every whole record: narrower first
                yield k, (columns, rows[k:]), True
        if deferred is not None:
            yield deferred
        if layouts:  # no listing of every record fits: half the budget to whole records, the rest to identifiers
            columns = layouts[-1]
            rows = _narrower(wide, layouts[0], columns)
            k = _most_records(full, [0] * len(full), room // _WHOLE_SHARE)
            used = sum(full[:k])
            listed = _prefix_within(
                _costs_within((dumps(row) for row in rows[k:]), self.ratio, room - used), room - used
            )
            yield k, (columns, rows[k : k + max(1, listed)]), False
        yield _most_records(full, [0] * len(full), budget), None, True

    def _measured(self, rows: list[list[Any]], room: int) -> list[int]:
        """Token costs of index rows whose listing is counted exactly (the estimate only spreads the count over
        the rows); empty when the listing is clearly over ``room``."""
        texts = [dumps(row) for row in rows]
        size = sum(map(len, texts)) + len(texts)
        if size > room * SURELY_OVER_CHARS_PER_TOKEN:
            return []
        estimates = [self.ratio.estimate(t) + 1 for t in texts]
        if not 0.8 * room <= sum(estimates) <= 1.25 * room:  # clearly within or over: the estimate decides
            return estimates if sum(estimates) <= room else []
        listing = ",".join(texts)
        exact = self.limit.count(listing)
        self.ratio.learn(listing, exact)  # the next (narrower) listing is estimated from this one
        if exact > room:
            return []
        scale = exact / max(1, sum(estimates))
        return [max(1, round(e * scale)) for e in estimates]

    def _skeleton(self, rest: list[Any]) -> str:
        """Everything but the records, with the envelope at its longest: the fixed cost of any candidate."""
        self.facts.returned, self.facts.listed, self.facts.truncated = len(rest), len(rest), True
        return self._render([], None, self.cursor_at(self.offset + len(rest)), dropped=len(rest))

    def _render(
        self, shown: list[Any], index: tuple[list[str], list[list[Any]]] | None, cursor: str | None, dropped: int = 0
    ) -> str:
        tabled = self.table.render(shown) if self.table is not None and len(shown) > 1 else None
        self.facts.form = FORM if tabled is not None else None
        out: dict[str, Any] = {KEY: envelope(self.facts, self.way, cursor)}
        if dropped and index is not None:
            out[KEY]["dropped"] = dropped
        records = shown if tabled is None else tabled
        out.update(with_path(self.value, self.path, records) if self.path else {"items": records})
        if index is not None and index[1]:
            out["_index"] = {"fields": index[0], "rows": index[1]}
        return dumps(out)

    def _text(self, rest: list[Any], k: int, index: tuple[list[str], list[list[Any]]] | None) -> str:
        rows = index[1] if index else []
        more = k < len(rest)
        self.facts.returned = k
        self.facts.listed = len(rows) if index else None
        self.facts.truncated = more
        return self._render(
            rest[:k], index, self.cursor_at(self.offset + k) if more else None, dropped=len(rest) - k - len(rows)
        )

    _last_tokens: int = field(default=0, init=False)
    _narrowest: int = field(default=1, init=False)  # columns of the narrowest index layout
    _layouts: list[list[str]] = field(default_factory=list, init=False)  # the index layouts tried, widest first
    table: Table | None = field(default=None, init=False)  # the records shown are rendered as this table

    def _verified(self, text: str, strategy: str) -> Fitted | None:
        if self.limit.cheap_fit(text):
            return Fitted(text, self.facts, strategy)
        self._last_tokens = (
            self.limit.count(text) if len(text) <= self.limit.tokens * SURELY_OVER_CHARS_PER_TOKEN else len(text)
        )
        self.ratio.learn(text, self._last_tokens)
        if self._last_tokens <= self.limit.tokens and (self.limit.chars is None or len(text) <= self.limit.chars):
            return Fitted(text, self.facts, strategy)
        if self._last_tokens <= self.limit.tokens:  # within tokens, over the character cap
            self._last_tokens = int(self.limit.tokens * len(text) / self.limit.chars) + 1  # type: ignore[operator]
        return None

    def _with_a_shrunk_first(
        self, rest: list[Any], index: tuple[list[str], list[list[Any]]], text: str
    ) -> Fitted | None:
        """An index of every record that leaves much of the budget unused (no whole record fits): the first
        record, shrunk to the room left, shown before it; None when that does not fit."""
        used = self.limit.count(text)
        room = self.limit.tokens - used
        if used >= self.limit.tokens * _FILL or not isinstance(rest[0], (dict, list)):
            return None
        without = self.facts
        self.facts = _own(without, notes=[*without.notes, "first record shrunk to fit; …[+N chars] marks each cut"])
        bytes_per_token = len(text.encode("utf-8")) / max(1, used)
        for share in (0.8, 0.6, 0.4):
            first = cut_to_bytes(rest[0], int(room * share * bytes_per_token))
            candidate = self._text([first, *rest[1:]], 1, (index[0], index[1][1:]))
            if self.limit.fits(candidate):
                return Fitted(candidate, self.facts, "index")
        self.facts = without
        self._text(rest, 0, index)  # the facts of the index-only answer again
        return None

    def _shrunk_first(self, rest: list[Any]) -> Fitted:
        """Not even one whole record fits: shrink the first one to fit, with its envelope."""
        self.facts.truncated = True
        self.facts.returned = 1
        self.facts.listed = None
        more = len(rest) > 1
        self.facts.notes.append("record shrunk to fit; …[+N chars] marks each cut")
        container = with_path(self.value, self.path, [rest[0]]) if self.path else rest[0]
        return fit_object(
            container, self.facts, self.limit, self.way, self.cursor_at(self.offset + 1) if more else None
        )


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


_WIDER_TRIES = 3  # wider layouts tried (nearest first) for a listing that fits with room to spare
_WHOLE_SHARE = 4  # when no index lists every record, 1/this of the room goes to whole records, the rest to rows
_FILL = 0.5  # an index-only answer using less of the budget than this also shows the first record, shrunk
_INDEX_HEADER = 12  # tokens of ',"_index":{"fields":[...],"rows":[]}' beyond the rows themselves


def _narrower(rows: list[list[Any]], wide: list[str], columns: list[str]) -> list[list[Any]]:
    """Index rows of the ``wide`` layout cut to ``columns`` (a subset of it, in its order)."""
    if columns == wide:
        return rows
    at = [wide.index(c) for c in columns]
    return [[row[i] for i in at] for row in rows]


def rows_of(record: Any, columns: list[str]) -> list[Any]:
    """One index row: the record's values at the (dotted) columns; a record that is not an object as itself."""
    if isinstance(record, list):
        return [_short(_cell(record, c)) for c in columns]
    if not isinstance(record, dict):
        return [record for _ in columns]
    return [_short(record[c] if c in record else _any_of(record, c)) for c in columns]


def _any_of(record: dict[str, Any], column: str) -> Any:
    """The value at a dotted column, or at the first present of a coalesced one (``user_id|order_no``)."""
    for part in column.split(ANY_OF):
        value = record[part] if part in record else dotted(record, part)
        if value is not None:
            return value
    return None


def _cell(row: list[Any], column: str) -> Any:
    """A row-as-array's cell at a positional column ``[i]``; the whole row for any other column."""
    if column.startswith("[") and column.endswith("]") and column[1:-1].isdigit():
        i = int(column[1:-1])
        return row[i] if i < len(row) else None
    return row


def row_layouts(rows: list[Any]) -> list[list[str]]:
    """Index layouts for rows given as arrays of scalars without a header: the first position that is unique and
    key-like in every sampled row (``[0]``); none when there is no such position."""
    sample = rows[:SAMPLE]
    if not sample or not all(
        isinstance(r, list) and r and not any(isinstance(c, (dict, list)) for c in r) for r in sample
    ):
        return []
    for i in range(min(len(r) for r in sample)):
        values = [r[i] for r in sample]
        if len({repr(v) for v in values}) == len(values) and all(is_key_like(v) for v in values):
            return [[f"[{i}]"]]
    return []


def _short(value: Any) -> Any:
    """A nested object in an index row is not shown (index columns are scalar columns of most records)."""
    return "{…}" if isinstance(value, (dict, list)) else value


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
