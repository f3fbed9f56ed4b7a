"""Projection: keep the fields that matter, by a per-tool rule or by a zero-configuration structural shrink."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jmespath
from jmespath.exceptions import JMESPathError

from hostshape.output.envelope import Facts, rule_failed, rule_kept, set_aside, surrogates_replaced
from hostshape.output.render import dumps, with_path
from hostshape.policy import Rule
from hostshape.records.listing import Listing, listing
from hostshape.records.locate import longest_record_list
from hostshape.records.shrink import Cuts, shrink_document
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

if TYPE_CHECKING:
    from hostshape.tokens import Count

__all__ = ["Projection", "project", "surrogate_note", "zero_config"]

# Any escape of a UTF-16 surrogate (a literal prefix, so the scan is fast); pairing is checked per match.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def surrogate_note(text: str) -> str | None:
    """A note when JSON ``text`` escapes lone UTF-16 surrogates, which no UTF-8 text can carry: they are shown
    as U+FFFD, and the envelope must say so (nothing is changed silently)."""
    if "\\" not in text:  # no escape at all, told at C speed (a search for one character)
        return None
    count, pending = 0, -1  # pending: where an unpaired high surrogate escape ends
    for match in _SURROGATE_ESCAPE.finditer(text):
        high = match.group()[3] in "89abAB"
        if pending >= 0:
            paired = not high and match.start() == pending
            pending = -1
            if paired:
                continue
            count += 1
        if high:
            pending = match.end()
        else:
            count += 1
    count += pending >= 0
    return surrogates_replaced(count) if count else None


@dataclass(frozen=True)
class Projection:
    """The projected value, what projection removed (field names, for the envelope) and any note about it."""

    value: Any
    omitted: frozenset[str] = frozenset()
    matched: bool = True
    note: str | None = None
    path: tuple[str, ...] | None = None  # where the projection placed the record list, when it did
    cuts: Cuts | None = None
    filtered: bool = False  # a rule's query left records out (named in ``note``)

    def reported(self, facts: Facts) -> Facts:
        """``facts`` with what projection did: omitted fields, whether anything matched, every cut named."""
        notes = [*facts.notes, *([self.note] if self.note else []), *(self.cuts.summary() if self.cuts else [])]
        changes: dict[str, Any] = {"omitted": sorted(self.omitted), "matched": self.matched, "notes": notes}
        changes["filtered"] = facts.filtered or self.filtered
        if self.cuts is not None:
            changes.update(shrunk=self.cuts.cut, same=dict(self.cuts.same), derived=dict(self.cuts.derived))
        return dataclasses.replace(facts, **changes)

    def listing(self, count: Count, *, rows: int = 0) -> Listing | None:
        """The projected value's record list, with index rows for its first ``rows`` records (0: no index); the
        index layouts are the shrink's when it chose them."""
        layouts = self.cuts.index if self.cuts is not None else None
        partial = self.cuts.partial if self.cuts is not None else None
        return listing(self.value, self.path, count, layouts=layouts, partial=partial, rows=rows)


def project(
    value: Any,
    rule: Rule | None,
    *,
    allow_shrink: bool,
    count: Count,
    max_records: int | None = None,
    budget: int | None = None,
) -> Projection:
    """See ``_project``; then a top-level ``_hostshape`` member of the tool's own is moved aside, so that the
    envelope the model reads is always hostshape's (a tool's text imitating it is hostile)."""
    projection = _project(value, rule, allow_shrink, count, max_records, budget)
    aside = set_aside(projection.value)
    if aside is None:
        return projection
    renamed, moved = aside
    return dataclasses.replace(
        projection, value=renamed, note=f"{projection.note}; {moved}" if projection.note else moved
    )


def _project(
    value: Any, rule: Rule | None, allow_shrink: bool, count: Count, max_records: int | None, budget: int | None
) -> Projection:
    """Apply ``rule`` (JMESPath or fields) to ``value``; else, when ``allow_shrink``, the structural shrink.

    Only the first ``max_records`` records are projected; later ones are kept as they are (a budget can show no
    more records than it has tokens, so they are counted, never shown). A JMESPath rule that fails on this value
    (a type error at run time) falls back to the structural shrink, and the projection's note says so. ``budget``
    (tokens; default ``max_records``) lets the shrink's caps on nested lists and nesting grow to use it; ``count``
    counts tokens in the policy's encoding."""
    budget = budget if budget is not None else max_records
    if rule is not None and rule.jmespath is not None:
        try:
            result = jmespath.search(rule.jmespath, value)
        except JMESPathError as exc:
            failed = rule_failed(type(exc).__name__)
            return dataclasses.replace(zero_config(value, count, max_records, budget), note=failed)
        matched = result not in (None, [], {})
        found = longest_record_list(value)
        if found is not None and isinstance(result, list) and 0 < len(result) < len(found[1]):  # none: matched=False
            kept = rule_kept(rule.jmespath, len(result), len(found[1]))
            return Projection(result, matched=matched, note=kept, filtered=True)  # not to be read as the whole
        return Projection(result, matched=matched)
    if rule is not None and rule.fields is not None:
        return _project_fields(value, rule.fields, dict(rule.rename), max_records)
    if allow_shrink:
        return zero_config(value, count, max_records, budget)
    return Projection(value)


def _project_fields(value: Any, fields: tuple[str, ...], rename: dict[str, str], max_records: int | None) -> Projection:
    found = longest_record_list(value)
    omitted: set[str] = set()

    def pick(record: Any) -> Any:
        if not isinstance(record, dict):
            return record
        out: dict[str, Any] = {}
        for dotted in fields:
            got = _dotted(record, dotted)
            if got is not _ABSENT:
                out[rename.get(dotted, dotted)] = got
        top = {f.split(".", 1)[0] for f in fields}
        omitted.update(k for k in record if k not in top)
        return out

    if found is None:
        projected = pick(value)
        return Projection(projected, frozenset(omitted), matched=bool(projected))
    path, records = found
    picked = [pick(r) for r in records[:max_records]]
    matched = any(picked)
    shown = with_path(value, path, picked + records[len(picked) :])
    return Projection(shown, frozenset(omitted), matched=matched, path=path)


_ABSENT = object()


def _dotted(record: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(record, dict) or part not in record:
            return _ABSENT
        record = record[part]
    return record


def zero_config(
    value: Any, count: Count, max_records: int | None = None, budget: int | None = None, *, first: int = 0
) -> Projection:
    """The zero-configuration projection, the structural shrink (hostshape.records.shrink): the record list found
    wherever it is and made plain, noise decided from the data dropped, every cut named. Records past
    ``max_records`` are kept as they are.

    Caps on nested lists (head and tail) and on nesting are derived from ``budget`` (tokens): while a cap cut
    something and the shrunk value uses under half the budget, the caps grow in proportion to the room left
    (measured, not guessed), as long as the result stays within ``_GROW_TARGET`` of the budget; a step that
    overshoots is retried shorter, in proportion (parallel arrays each cut to the same head and tail fill the room).
    Records are shrunk from ``first`` (a later page) until the shrunk ones reach ``SURELY_OVER_CHARS_PER_TOKEN``
    characters a token of the budget (no answer shows more whole), so the time grows with the budget, not the input."""
    cuts = Cuts()
    chars = budget * SURELY_OVER_CHARS_PER_TOKEN if budget else None
    shrunk, path = shrink_document(value, max_records, cuts, count, first=first, max_chars=chars)
    used = _tokens(shrunk, budget, count) if budget and cuts.capped else None
    items: int | None = None  # the next step's cap on nested lists; None: grown from the current one
    for _ in range(4):
        if used is None or budget is None or used >= budget * _GROW_BELOW or not cuts.capped:
            break
        depth = cuts.depth + (2 if cuts.deep else 0)
        if items is None:
            items = max(cuts.items + 2, int(cuts.items * min(16.0, budget * _GROW_TARGET / max(used, 1))))
        bigger = Cuts(items=items, depth=depth)
        grown, grown_path = shrink_document(value, max_records, bigger, count, first=first, max_chars=chars)
        grown_used = _tokens(grown, budget, count)
        if grown_used is not None and grown_used <= budget * _GROW_TARGET * 1.15:
            cuts, shrunk, path, used, items = bigger, grown, grown_path, grown_used, None
            continue
        # Overshot: the next try is shorter, in proportion to the overshoot (a chart's parallel arrays share it).
        over = grown_used if grown_used is not None else budget * 2
        shorter = cuts.items + int((items - cuts.items) * (budget * _GROW_TARGET - used) / max(over - used, 1))
        floor = cuts.items if depth > cuts.depth else cuts.items + 2
        if shorter >= items or shorter < floor:
            break
        items = shorter
    if budget is not None and cuts.collapsed_count:
        shrunk, path, cuts = _roomier(value, max_records, count, budget, first, chars, (shrunk, path, cuts), "collapse")
    if budget is not None and cuts.empty:
        shrunk, path, cuts = _roomier(value, max_records, count, budget, first, chars, (shrunk, path, cuts), "empty")
    return Projection(shrunk, frozenset(cuts.omitted), path=path, cuts=cuts)


def _roomier(
    value: Any,
    max_records: int | None,
    count: Count,
    budget: int,
    first: int,
    chars: int | None,
    shrunk: tuple[Any, tuple[str, ...] | None, Cuts],
    lifted: str,
) -> tuple[Any, tuple[str, ...] | None, Cuts]:
    """The shrink with one cut the budget does not need lifted, when the result still uses at most
    ``_WHOLE_TARGET`` of the budget; else ``shrunk`` as it is. ``lifted`` is "collapse" (repeated nested objects
    shown whole, not as their identifier: a device type keeps its manufacturer) or "empty" (an empty value of a
    member other records fill is shown: the tasks that failed with an error message beside those with none)."""
    done = shrunk[2]
    used = _tokens(shrunk[0], budget, count)
    if used is None or used > budget * _WHOLE_TARGET:
        return shrunk  # no room even so: no second shrink is spent on it
    whole = Cuts(
        items=done.items,
        depth=done.depth,
        collapse=done.collapse and lifted != "collapse",
        keep_empty=done.keep_empty or lifted == "empty",
    )
    grown, grown_path = shrink_document(value, max_records, whole, count, first=first, max_chars=chars)
    used = _tokens(grown, budget, count)
    if used is not None and used <= budget * _WHOLE_TARGET:
        return grown, grown_path, whole
    return shrunk


_GROW_BELOW = 0.5  # grow the shrink's caps while it uses less than this share of the budget
_GROW_TARGET = 0.7  # ... aiming at this share (the envelope and the fit take the rest)
_WHOLE_TARGET = 0.9  # repeated objects are shown whole when the shrink then uses at most this share of the budget


def _tokens(value: Any, budget: int | None, count: Count) -> int | None:
    """Tokens of ``value``'s compact JSON when it is of budget size (counted, or extrapolated from its first
    ``_SAMPLE_CHARS`` characters: it steers the caps, the fit counts the final text); None when clearly larger."""
    if budget is None or not _smaller_than(value, budget * SURELY_OVER_CHARS_PER_TOKEN):
        return None
    text = dumps(value)
    if len(text) > budget * SURELY_OVER_CHARS_PER_TOKEN:
        return None
    if len(text) <= _SAMPLE_CHARS:
        return count(text)
    return int(len(text) * count(text[:_SAMPLE_CHARS]) / _SAMPLE_CHARS) + 1  # a decision, not the budget


_SAMPLE_CHARS = 6000  # tokens per character measured on this much of a shrunk value to decide whether to grow


def _smaller_than(value: Any, chars: int) -> bool:
    """Whether ``value``'s compact JSON is shorter than ``chars``, rendering its members one at a time and stopping
    as soon as it is not (a large document is not rendered whole to learn that it is large)."""
    parts = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
    total = 0
    for part in parts:
        if isinstance(part, list) and len(part) > 50:
            for item in part:
                total += len(dumps(item)) + 1
                if total >= chars:
                    return False
        else:
            total += len(dumps(part)) + 1
        if total >= chars:
            return False
    return True
