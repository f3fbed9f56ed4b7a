"""Projection: keep the fields that matter, by a per-tool rule or by a zero-configuration structural shrink."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from hostshape.envelope import Facts
from hostshape.policy import Rule
from hostshape.previews import cap_strings, decode_base64_content, preview
from hostshape.records import longest_record_list, with_path
from hostshape.shrink import Cuts, shrink_document

__all__ = ["Projection", "cap_strings", "decode_base64_content", "preview", "project", "shrink"]


@dataclass
class Projection:
    """The projected value, what projection removed (field names, for the envelope) and any note about it."""

    value: Any
    omitted: set[str] = field(default_factory=set)
    matched: bool = True
    by: str = "none"
    note: str | None = None
    path: tuple[str, ...] | None = None
    cuts: Cuts | None = None

    def report(self, facts: Facts) -> None:
        """Put what projection did into ``facts``: omitted fields, whether anything matched, every cut named."""
        facts.omitted = sorted(self.omitted)
        facts.matched = self.matched
        if self.note:
            facts.notes.append(self.note)
        if self.cuts is not None:
            facts.shrunk = self.cuts.cut
            facts.notes.extend(self.cuts.summary())
            facts.same = dict(self.cuts.same)
            facts.index = self.cuts.index


def project(value: Any, rule: Rule | None, *, generic: bool, max_records: int | None = None) -> Projection:
    """Apply ``rule`` (JMESPath or fields) to ``value``; else, when ``generic``, the structural shrink.

    Only the first ``max_records`` records are projected; later ones are kept as they are (a budget can show no
    more records than it has tokens, so they are counted, never shown). A JMESPath rule that fails on this value
    (a type error at run time) falls back to the structural shrink, and the projection's note says so."""
    if rule is not None and rule.jmespath is not None:
        try:
            result = jmespath.search(rule.jmespath, value)
        except JMESPathError as exc:
            fallback = shrink(value, max_records)
            fallback.note = f"the rule's JMESPath failed ({type(exc).__name__}); shrunk generically instead"
            return fallback
        return Projection(result, matched=result not in (None, [], {}), by="jmespath")
    if rule is not None and rule.fields is not None:
        return _project_fields(value, rule.fields, dict(rule.rename), max_records)
    if generic:
        return shrink(value, max_records)
    return Projection(value)


def _project_fields(value: Any, fields: tuple[str, ...], rename: dict[str, str],
                    max_records: int | None) -> Projection:
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
        return Projection(projected, omitted, matched=bool(projected), by="fields")
    path, records = found
    picked = [pick(r) for r in records[:max_records]]
    matched = any(picked)
    return Projection(with_path(value, path, picked + records[len(picked):]), omitted, matched=matched, by="fields")


_ABSENT = object()


def _dotted(record: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(record, dict) or part not in record:
            return _ABSENT
        record = record[part]
    return record


def shrink(value: Any, max_records: int | None = None) -> Projection:
    """Zero-configuration shrink (hostshape.shrink): the record list found wherever it is and made plain, noise
    decided from the data dropped, every cut named. Records past ``max_records`` are kept as they are."""
    cuts = Cuts()
    shrunk, path = shrink_document(value, max_records, cuts)
    return Projection(shrunk, cuts.omitted, by="generic", path=path, cuts=cuts)
