"""Fit: the largest faithful view of a value or a text that, rendered with its envelope, fits the limit.

Records: as many whole records as fit, the rest as a compact index of their identifiers (and titles where they
fit); rows go before fields and verbose fields before identifiers. One record that alone exceeds the limit is
shrunk, largest members first. Text is cleaned of noise and cut at a paragraph or line boundary. Every candidate is
rendered in full and counted exactly; a last-resort minimal answer guarantees the cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hostshape.budget import Limit
from hostshape.envelope import KEY, LINE_STYLES, Facts, WayBack, envelope, text_line, tiny
from hostshape.project import cap_strings
from hostshape.records import IDENTIFIERS, find_records, primary_key, title_key, with_path
from hostshape.render import dumps

Cursor = Callable[[int], "str | None"]

_DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]{64,}")
_LONG_URL = re.compile(r"(https?://[^\s/)\]>\"']+)[^\s)\]>\"']{200,}")
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True)
class Fitted:
    """The final text and the facts its envelope reports."""

    text: str
    facts: Facts
    strategy: str


def no_cursor(offset: int) -> str | None:
    return None


# -- records and objects ------------------------------------------------------------------------------------


# Record text fields are previewed at the first of these lengths (None: in full) at which every record fits
# whole; failing all, whole records at the last length plus an index of the rest.
PREVIEW_LEVELS: tuple[int | None, ...] = (None, 2000, 1000, 500, 280)
CUT_MARK = "…[+"


def fit_data(value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: Cursor = no_cursor, *,
             index: bool = True, offset: int = 0) -> Fitted:
    """Fit a JSON value. ``offset`` skips that many records (a later page); ``index`` lists records cut."""
    found = find_records(value)
    if found is None or not found[1]:
        return fit_object(value, facts, limit, way)
    path, records = found
    ratio = _Ratio(limit)
    seen = limit.tokens + 1  # no budget shows or indexes more records than it has tokens
    levels = PREVIEW_LEVELS if len(records) - offset <= limit.tokens else PREVIEW_LEVELS[-1:]
    for level in levels:
        capped, cuts = cap_records(records[offset:], level, seen)
        facts.text_cut = cuts > 0
        note = f"text fields cut at {level:,} chars; …[+N chars] marks each cut" if cuts else None
        if note:
            facts.notes.append(note)
        fit = _RecordFit(value, path, records[:offset] + capped, facts, limit, way, cursor, index, offset, ratio)
        fitted = fit.run() if level == levels[-1] else fit.whole()
        if fitted is not None:
            return fitted
        if note:
            facts.notes.remove(note)
    raise AssertionError("unreachable: the last preview level always produces a fit")


def cap_records(records: list[Any], level: int | None, seen: int) -> tuple[list[Any], int]:
    """``records`` with the text fields of the first ``seen`` previewed at ``level`` chars, and how many strings
    were cut."""
    if level is None:
        return records, 0
    cuts = [0]
    capped = [cap_strings(r, level, cuts) for r in records[:seen]]
    return capped + records[seen:], cuts[0]


class _Ratio:
    """Tokens per UTF-8 byte of this payload's rendering, measured on the first candidate and refined by every
    exact count after: it steers the choices, and only the final text is counted exactly."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        self.value: float | None = None

    def estimate(self, text: str) -> int:
        size = len(text.encode("utf-8"))
        if self.value is None:
            sample = text[: self.limit.tokens * 4]
            self.value = self.limit.count(sample) / max(1, len(sample.encode("utf-8")))
        return int(size * self.value) + 1

    def learn(self, text: str, tokens: int) -> None:
        self.value = tokens / max(1, len(text.encode("utf-8")))


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
    cursor: Cursor
    index: bool
    offset: int
    ratio: _Ratio

    def whole(self) -> Fitted | None:
        """Every remaining record, whole, if they fit; else None (without counting when clearly over)."""
        rest = self.records[self.offset :]
        self._begin()
        text = self._text(rest, len(rest), None)
        if self.ratio.estimate(text) > self.limit.tokens * 1.15:
            return None
        return self._verified(text, "records")

    def run(self) -> Fitted:
        rest = self.records[self.offset :]
        self._begin()
        skeleton = self._skeleton(rest)
        budget = self.limit.tokens - self.ratio.estimate(skeleton) - 2
        full = _costs_within((dumps(r) for r in rest), self.ratio, budget)
        for k, index, complete in self._plans(rest, full, budget):
            while k > 0 or index is not None:
                text = self._text(rest, k, index)
                fitted = self._verified(text, "index" if index else "records")
                if fitted is not None:
                    return fitted
                over = self._last_tokens / self.limit.tokens
                if index is not None and len(index[1]) > 1 and (not complete or k == 0):
                    index = (index[0], index[1][: max(1, int(len(index[1]) / over) - 1)])  # fewer index rows
                elif k > 0:
                    k = max(0, min(k - 1, int(k / over)))
                    if index is not None:
                        end = len(rest) if complete else k + len(index[1])
                        index = (index[0], [rows_of(r, index[0]) for r in rest[k:end]])
                else:
                    break
        return self._shrunk_first(rest)

    def _begin(self) -> None:
        self.facts.total = len(self.records)
        self.facts.list_path = ".".join(self.path) or None

    def _plans(self, rest: list[Any], full: list[int], budget: int):  # type: ignore[no-untyped-def]
        """(whole records, index, index lists every other record) layouts to try, best first; each is costed
        only when reached. When no index can list every record, half the budget goes to whole records and the
        rest to index rows for as many of the following records as fit."""
        room = budget - _INDEX_HEADER
        if self.index and isinstance(rest[0], dict):
            for columns in _index_columns(rest):
                rows = [rows_of(r, columns) for r in rest[: self.limit.tokens + 1]]
                row_costs = _costs_within((dumps(row) for row in rows), self.ratio, room)
                if len(row_costs) == len(rest) and sum(row_costs) <= room:
                    k = _most_records(full, row_costs, room)
                    yield k, (columns, rows[k:]), True
                else:
                    k = _most_records(full, [0] * len(full), room // 2)
                    used = sum(full[:k])
                    listed = _prefix_within(_costs_within((dumps(row) for row in rows[k:]), self.ratio, room - used),
                                            room - used)
                    yield k, (columns, rows[k : k + max(1, listed)]), False
        yield _most_records(full, [0] * len(full), budget), None, True

    def _skeleton(self, rest: list[Any]) -> str:
        """Everything but the records, with the envelope at its longest: the fixed cost of any candidate."""
        self.facts.returned, self.facts.listed, self.facts.truncated = len(rest), len(rest), True
        self.facts.next_offset = self.offset
        return self._render([], None, self.cursor(self.offset + len(rest)), dropped=len(rest))

    def _render(self, shown: list[Any], index: tuple[list[str], list[list[Any]]] | None, cursor: str | None,
                dropped: int = 0) -> str:
        out: dict[str, Any] = {KEY: envelope(self.facts, self.way, cursor)}
        if dropped and index is not None:
            out[KEY]["dropped"] = dropped
        out.update(with_path(self.value, self.path, shown) if self.path else {"items": shown})
        if index is not None and index[1]:
            out["_index"] = {"fields": index[0], "rows": index[1]}
        return dumps(out)

    def _text(self, rest: list[Any], k: int, index: tuple[list[str], list[list[Any]]] | None) -> str:
        rows = index[1] if index else []
        more = k < len(rest)
        self.facts.returned = k
        self.facts.listed = len(rows) if index else None
        self.facts.truncated = more
        self.facts.next_offset = self.offset + k if more else None
        return self._render(rest[:k], index, self.cursor(self.offset + k) if more else None,
                            dropped=len(rest) - k - len(rows))

    _last_tokens: int = field(default=0, init=False)

    def _verified(self, text: str, strategy: str) -> Fitted | None:
        if self.limit.cheap_fit(text):
            return Fitted(text, self.facts, strategy)
        self._last_tokens = self.limit.count(text) if len(text) <= self.limit.tokens * 16 else len(text)
        self.ratio.learn(text, self._last_tokens)
        if self._last_tokens <= self.limit.tokens and (self.limit.chars is None or len(text) <= self.limit.chars):
            return Fitted(text, self.facts, strategy)
        if self._last_tokens <= self.limit.tokens:  # within tokens, over the character cap
            self._last_tokens = int(self.limit.tokens * len(text) / self.limit.chars) + 1  # type: ignore[operator]
        return None

    def _shrunk_first(self, rest: list[Any]) -> Fitted:
        """Not even one whole record fits: shrink the first one to fit, with its envelope."""
        self.facts.truncated = True
        self.facts.returned = 1
        self.facts.listed = None
        more = len(rest) > 1
        self.facts.next_offset = self.offset + 1 if more else None
        self.facts.notes.append("record shrunk to fit; …[+N chars] marks each cut")
        container = with_path(self.value, self.path, [rest[0]]) if self.path else rest[0]
        return fit_object(container, self.facts, self.limit, self.way, self.cursor(self.offset + 1) if more else None)


def _costs_within(texts: Any, ratio: _Ratio, budget: int) -> list[int]:
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


_INDEX_HEADER = 12  # tokens of ',"_index":{"fields":[...],"rows":[]}' beyond the rows themselves


def rows_of(record: Any, columns: list[str]) -> list[Any]:
    return [record.get(c) if isinstance(record, dict) else record for c in columns]


def _index_columns(rest: list[Any]) -> list[list[str]]:
    """Index layouts to try: identifier with title and state, then the identifier alone."""
    key = primary_key(rest)
    if key is None:
        return []
    extra = [c for c in (title_key(rest), "state") if c and c != key and any(isinstance(r, dict) and c in r
                                                                            for r in rest[:20])]
    return [[key, *extra], [key]] if extra else [[key]]


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


def fit_object(value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: str | None = None) -> Fitted:
    """Fit one value by cutting its largest members first, as little as the limit allows.

    The cut is a size in bytes searched for between "known to fit" and "known too large", steered by estimated
    tokens; candidates are counted exactly only when the estimate says they may fit. It stops once a fit uses
    over 85% of the limit.
    """

    def render(current: Any) -> str:
        env = envelope(facts, way, cursor)
        return dumps({KEY: env, **current} if isinstance(current, dict) else {KEY: env, "value": current})

    text = render(value)
    if limit.fits(text):
        return Fitted(text, facts, "object")
    facts.truncated = True
    ratio = _Ratio(limit)
    fits_at, too_big_at = 0, dumps_size(value)
    best: str | None = None
    target = int(too_big_at * min(0.9, limit.tokens / ratio.estimate(text)))
    for _ in range(12):
        if target <= fits_at or target >= too_big_at:
            target = (fits_at + too_big_at) // 2
        if target <= fits_at:
            break
        text = render(reduce(value, target))
        used = ratio.estimate(text)
        if used <= limit.tokens * 1.05:
            used = _tokens_or_bytes(text, limit)
            ratio.learn(text, used)
        if used <= limit.tokens and (limit.chars is None or len(text) <= limit.chars):
            best, fits_at = text, target
            if used >= limit.tokens * 0.85:
                break
        else:
            too_big_at = target
        target = int(target * limit.tokens / max(used, 1) * 0.97)
    if best is not None:
        return Fitted(best, facts, "object")
    return _json_preview(value, facts, limit, way, cursor)


def _json_preview(value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: str | None) -> Fitted:
    """The start of the value's compact JSON as one string: for structures whose members cannot be cut to fit."""
    facts.notes.append("shown as the start of its compact JSON text")
    source = dumps(value)[: limit.tokens * 8]
    low, high, best = 0, len(source), None
    for _ in range(14):
        if low > high:
            break
        middle = (low + high) // 2
        text = dumps({KEY: envelope(facts, way, cursor), "preview": source[:middle] + "…"})
        if limit.fits(text):
            best, low = text, middle + 1
        else:
            high = middle - 1
    if best is not None and low > 1:
        return Fitted(best, facts, "preview")
    facts.notes.pop()
    return last_resort(True, way, limit, facts)


def _tokens_or_bytes(text: str, limit: Limit) -> int:
    """Exact tokens of ``text`` when it is of budget size, else its byte length (an upper bound)."""
    return limit.count(text) if len(text) <= limit.tokens * 16 else len(text.encode("utf-8"))


def dumps_size(value: Any) -> int:
    return len(dumps(value).encode("utf-8"))


def reduce(value: Any, target: int, depth: int = 0) -> Any:
    """``value`` cut so that its compact JSON takes about ``target`` bytes: large members are shortened largest
    first, then members are dropped from the end (identifiers last), with a marker saying how many."""
    size = dumps_size(value)
    if size <= target:
        return value
    if isinstance(value, str) or depth >= _MAX_REDUCE_DEPTH:
        text = value if isinstance(value, str) else dumps(value)
        keep = max(0, min(len(text), int(len(text) * (target - 24) / size)))
        return f"{text[:keep]}…[+{len(text) - keep:,} chars]"
    if isinstance(value, list):
        kept, used = [], 2
        for item in value:
            item_size = dumps_size(item) + 1
            if used + item_size > target - 16:
                break
            kept.append(item)
            used += item_size
        if not kept and value:
            kept = [reduce(value[0], target - 24, depth + 1)]
        if len(kept) < len(value):
            kept.append(f"…+{len(value) - len(kept)} more")
        return kept
    if isinstance(value, dict):
        return _reduce_object(value, size, target, depth)
    return value


_MAX_REDUCE_DEPTH = 64
_SMALL = 64  # bytes: members this small are dropped whole rather than shortened


def _reduce_object(value: dict[str, Any], size: int, target: int, depth: int) -> dict[str, Any]:
    sizes = {k: dumps_size(v) for k, v in value.items()}
    excess = size - target
    out = dict(value)
    for key in sorted((k for k in sizes if sizes[k] >= _SMALL and k not in IDENTIFIERS), key=lambda k: -sizes[k]):
        if excess <= 0:
            break
        member_target = max(16, sizes[key] - excess)
        out[key] = reduce(value[key], member_target, depth + 1)
        excess -= sizes[key] - dumps_size(out[key])
    if excess > 0:
        keys = list(out)
        order = [k for k in reversed(keys) if k not in IDENTIFIERS] + [k for k in reversed(keys) if k in IDENTIFIERS]
        dropped = 0
        for key in order[:-1]:  # keep at least one member
            if excess <= 0:
                break
            excess -= dumps_size(out.pop(key)) + len(dumps(key)) + 2
            dropped += 1
        if dropped:
            out["…"] = f"+{dropped} more members"
    return out


# -- text ---------------------------------------------------------------------------------------------------


def clean(text: str) -> str:
    """Prose without noise: data URIs, overlong tracking URLs and runs of blank lines."""
    text = _DATA_URI.sub("[data URI omitted]", text)
    text = _LONG_URL.sub(lambda m: m.group(1) + "/…", text)
    return _BLANK_RUNS.sub("\n\n", text)


def fit_text(text: str, facts: Facts, limit: Limit, way: WayBack, cursor: Cursor = no_cursor,
             *, offset: int = 0) -> Fitted:
    """The longest prefix of ``text[offset:]``, cut at a paragraph or line, that fits with its envelope line;
    the line is shortened (no hint, then no detail) when the budget is too small for it."""
    for style in LINE_STYLES:
        fitted = _fit_text(text, facts, limit, way, cursor, offset, style)
        if fitted is not None:
            return fitted
    return last_resort(False, way, limit, facts)


def _fit_text(text: str, facts: Facts, limit: Limit, way: WayBack, cursor: Cursor, offset: int,
              style: str) -> Fitted | None:
    rest = text[offset:]
    total_lines = text.count("\n") + 1
    probe = text_line(facts, way, cursor(len(text)) if offset < len(text) else None,
                      _detail(0, 1, total_lines, len(text), len(text), len(text)), style)
    avail = limit.tokens - limit.count(probe) - 4
    avail_chars = len(rest) if limit.chars is None else limit.chars - len(probe) - 2
    end = _prefix_end(rest, avail, avail_chars, limit)
    first = text.count("\n", 0, offset) + 1
    for _ in range(12):
        if end <= 0:
            return None
        body = rest[:end]
        facts.truncated = end < len(rest) or offset > 0
        next_cursor = cursor(offset + end) if offset + end < len(text) else None
        facts.next_offset = offset + end if next_cursor else None
        last = first + body.count("\n") - (1 if body.endswith("\n") else 0)
        detail = _detail(first, last, total_lines, offset, offset + end, len(text))
        candidate = f"{body.rstrip()}\n{text_line(facts, way, next_cursor, detail, style)}"
        if limit.fits(candidate):
            return Fitted(candidate, facts, "text")
        end = _boundary(rest, int(end * 0.85))
    return None


def _detail(first: int, last: int, lines: int, start: int, end: int, chars: int) -> str:
    return f"lines {first}-{last} of {lines:,} (chars {start:,}-{end:,} of {chars:,})"


def _prefix_end(rest: str, avail: int, avail_chars: int, limit: Limit) -> int:
    """Where to cut ``rest`` so that the prefix holds about ``avail`` tokens, at a natural boundary."""
    if avail <= 0 or avail_chars <= 0:
        return 0
    window = rest[: min(len(rest), avail * 8, avail_chars)]
    enc_tokens = _encode(window, limit)
    if len(enc_tokens) <= avail and len(window) == len(rest):
        return len(rest)
    if len(enc_tokens) <= avail:
        cut = len(window)
    else:
        cut = len(_decode_bytes(enc_tokens[:avail], limit).decode("utf-8", "ignore"))
    return _boundary(rest, cut)


def _boundary(rest: str, cut: int) -> int:
    """A paragraph end near ``cut``, else a line end, else ``cut`` itself."""
    if cut >= len(rest):
        return len(rest)
    for mark, reach in (("\n\n", 0.8), ("\n", 0.5)):
        at = rest.rfind(mark, 0, cut)
        if at >= cut * reach and at > 0:
            return at + len(mark)
    return cut


def _encode(text: str, limit: Limit) -> list[int]:
    from hostshape.tokens import encoding

    return encoding(limit.encoding_name).encode_ordinary(text)


def _decode_bytes(tokens: list[int], limit: Limit) -> bytes:
    from hostshape.tokens import encoding

    return encoding(limit.encoding_name).decode_bytes(tokens)


def last_resort(is_json: bool, way: WayBack, limit: Limit, facts: Facts) -> Fitted:
    """The shortest answers that still say something was cut; the last one fits any budget of 1 token."""
    facts.truncated = True
    options = tiny(is_json, way.handle)
    for text in options:
        if limit.fits(text):
            return Fitted(text, facts, "minimal")
    return Fitted(options[-1], facts, "minimal")
