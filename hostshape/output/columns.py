"""Uniform records as a table: the member names once, each record a row of values, still one JSON value.

``{"fields": ["id", "status", "owner.login"], "rows": [[1, "open", "ana"], [2, "closed", null]]}``: a field is a
member's dotted path (nested objects are flattened; lists and empty objects stay whole in their cell), a row holds
one record's values in the fields' order, ``null`` where the record has no such member. The envelope says
``"form": "table"`` when the records shown take this form; the saved result keeps the records as they were, so a
query (``hostshape_read``) picks from the objects.

A table is used only when it is cheaper in tokens than the list of objects on a sample of the records, and its
fields are ordered short first: identifiers, statuses, dates, names and amounts before long text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hostshape.output.render import dumps

FIELDS, ROWS = "fields", "rows"
FORM = "table"  # the envelope's "form" when the records are shown as a table
SAMPLE = 20  # records whose rendering decides the form
SAMPLE_CHARS = 12_000  # compact JSON of the sample counted, at most: the decision costs no more for a long list
CHEAPER = 0.9  # a table must cost at most this share of the list's tokens
LONG_CHARS = 80  # fields this long on average (text, not names or states) go after the short ones
_MAX_FIELDS = 200  # records flattening to more fields than this are no table


@dataclass(frozen=True)
class Table:
    """The fields of a table of records, in the order shown, and its cost as a share of the list's (sampled)."""

    fields: tuple[str, ...]
    share: float = 1.0

    def row(self, record: Any) -> list[Any]:
        """``record``'s cells, in field order (null where absent)."""
        flat = flatten(record) or {}
        return [flat.get(f) for f in self.fields]

    def render(self, records: Sequence[Any]) -> dict[str, Any] | None:
        """``records`` as ``{"fields": [...], "rows": [[...]]}``: this table's fields that any of them has, then
        members the sample did not show, so that no value is lost; None when a record does not flatten."""
        flats = [flatten(r) for r in records]
        if any(f is None for f in flats):
            return None
        seen: dict[str, None] = {}
        for flat in flats:
            seen.update(dict.fromkeys(flat))  # type: ignore[arg-type]
        used = [f for f in self.fields if f in seen] + [f for f in seen if f not in self.fields]
        return {FIELDS: used, ROWS: [[flat.get(f) for f in used] for flat in flats]}  # type: ignore[union-attr]


def flatten(record: Any) -> dict[str, Any] | None:
    """A record's members by dotted path (nested objects flattened; a list or an empty object is one value); None
    when the record is no object, or a member's name is no string or holds a dot (the path would not name it)."""
    if not isinstance(record, dict):
        return None
    out: dict[str, Any] = {}
    stack: list[tuple[str, dict[Any, Any]]] = [("", record)]
    while stack:
        prefix, obj = stack.pop()
        for name, value in obj.items():
            if not isinstance(name, str) or "." in name or not name:
                return None
            path = prefix + name
            if isinstance(value, dict) and value:
                stack.append((path + ".", value))
            else:
                out[path] = value
    return out


def table_for(records: Sequence[Any], count: Callable[[str], int]) -> Table | None:
    """The table the records are cheaper as, from a sample: fields in first-seen order, fields of long text last
    (the same for every page of one result); None when the records are not all objects that flatten, or the table
    costs more than ``CHEAPER`` of the list."""
    sample = list(records[:SAMPLE])
    if len(sample) < 2:
        return None
    flats = [flatten(r) for r in sample]
    if any(f is None for f in flats):
        return None
    order: dict[str, list[int]] = {}
    for flat in flats:
        for path, value in flat.items():  # type: ignore[union-attr]
            order.setdefault(path, []).append(len(dumps(value)))
    if len(order) > _MAX_FIELDS:
        return None
    fields = sorted(order, key=lambda p: sum(order[p]) / len(order[p]) > LONG_CHARS)
    table = Table(tuple(fields))
    size, keep = 0, 0
    for record in sample:  # count a bounded prefix only (two records at least)
        size += len(dumps(record)) + 1
        if size > SAMPLE_CHARS and keep >= 2:
            break
        keep += 1
    sample = sample[:keep]
    rendered = table.render(sample)
    if rendered is None:
        return None
    share = count(dumps(rendered)) / max(1, count(dumps(sample)))
    return Table(table.fields, share) if share <= CHEAPER else None


def unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    """The record a table row stands for: dotted fields nested again, ``null`` cells (absent members) left out."""
    out: dict[str, Any] = {}
    for path, value in flat.items():
        if value is None:
            continue
        node = out
        *parents, name = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[name] = value
    return out


def as_records(member: Any) -> Any:
    """The records a shown member stands for: a table's rows as objects again, anything else as it is."""
    if isinstance(member, dict) and set(member) == {FIELDS, ROWS}:
        fields = member[FIELDS]
        return [unflatten(dict(zip(fields, row, strict=True))) for row in member[ROWS]]
    return member
