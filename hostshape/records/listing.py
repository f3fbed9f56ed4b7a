"""The record list as the fit receives it, decided once by the records stage: where the list is in the projected
value, which index layouts list the records it cannot show whole, each record's row in the widest layout, and the
identifiers of the other record lists beside it (which the fit shows by them when it must outline them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from hostshape.output.envelope import query_key
from hostshape.output.render import beside_path
from hostshape.records.locate import Path, find_records
from hostshape.records.structure import ANY_OF, SAMPLE, dotted, identifier, index_columns, is_key_like

if TYPE_CHECKING:
    from hostshape.tokens import Count


@dataclass(frozen=True)
class Listing:
    """A record list at ``path`` in the projected value (``()``: the value is the list), with its index: layouts
    to try, widest first, each a subset of the widest in its order (empty: no index), and ``rows``, the index row
    of each of the first records in the widest layout (records past them are never listed), each made when the
    fit first reads it. ``partial``, a subset of the widest too, lists some of the records when no layout lists
    them all (None: the narrowest does)."""

    path: Path
    records: list[Any]
    layouts: list[list[str]]
    rows: Sequence[list[Any]]
    beside_ids: dict[Path, list[Any]]  # the identifiers of the records of each other record list beside this one
    partial: list[str] | None = None
    query: str | None = None  # the JMESPath query that reads the list from the saved result (None: ``path`` joined)

    def row_at(self, at: int) -> list[Any]:
        """The index row of record ``at`` in the widest layout, wherever it is in the list (``rows`` holds the first
        records' rows; a listing spread over the whole list also reads rows past them)."""
        return self.rows[at] if at < len(self.rows) else rows_of(self.records[at], self.layouts[0])


def listing(
    value: Any,
    path: Path | None,
    count: Count,
    *,
    layouts: list[list[str]] | None = None,
    partial: list[str] | None = None,
    rows: int = 0,
) -> Listing | None:
    """The record list of ``value``: at ``path`` when the projection placed it there (and it is still a list),
    else the one ``find_records`` finds; None when there is none or it is empty. ``layouts`` are the index layouts
    the projection chose (the shrink, before shrinking), else they are chosen here from the records, and
    ``partial`` the layout it chose for a listing of some of them; index rows are made for the first ``rows``
    records (0: no index)."""
    found = _at(value, path) if path is not None else find_records(value)
    if found is None or not found[1]:
        return None
    at, records = found
    beside_ids = {where: ids for where, member in beside_path(value, at) if (ids := _identifiers(member)) is not None}
    if not rows:
        return Listing(at, records, [], [], beside_ids)
    first = records[0]
    chosen = (
        row_layouts(records)
        if isinstance(first, list)
        else []
        if not isinstance(first, dict)
        else layouts
        if layouts is not None
        else index_columns(records, count)
    )
    index_rows = Made(lambda i: rows_of(records[i], chosen[0]), min(rows, len(records)) if chosen else 0)
    some = partial if chosen and partial and layouts is chosen and all(c in chosen[0] for c in partial) else None
    return Listing(at, records, chosen, index_rows, beside_ids, some)


class Made(Sequence[Any]):
    """``make(0)``, ..., ``make(n - 1)``, each made once, when first read (in any order): a fit that lists a few
    hundred of a list's records, or rows spread over it, makes only their rows."""

    def __init__(self, make: Callable[[int], Any], n: int) -> None:
        self._make, self._n = make, n
        self._made: list[Any] = [None] * n  # None: not made yet (what is made is never None)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, at: int) -> Any: ...
    @overload
    def __getitem__(self, at: slice) -> list[Any]: ...
    def __getitem__(self, at: int | slice) -> Any:
        if isinstance(at, slice):
            start, stop, step = at.indices(self._n)
            if step != 1:
                return [self._get(i) for i in range(start, stop, step)]
            made = self._made[start:stop]
            if None in made:  # a run of rows is made at once, in one pass
                make = self._make
                made = [make(i) if m is None else m for i, m in enumerate(made, start)]
                self._made[start:stop] = made
            return made
        index = at + self._n if at < 0 else at
        if not 0 <= index < self._n:
            raise IndexError(at)
        return self._get(index)

    def _get(self, index: int) -> Any:
        made = self._made[index]
        if made is None:
            made = self._made[index] = self._make(index)
        return made


def _at(value: Any, path: Path) -> tuple[Path, list[Any]] | None:
    member = value
    for key in path:
        if not isinstance(member, dict) or key not in member:
            return find_records(value)
        member = member[key]
    return (path, member) if isinstance(member, list) else find_records(value)


def _identifiers(items: Any) -> list[Any] | None:
    """The identifier of each record of a list of objects (each present and scalar), else None."""
    if not isinstance(items, list):
        return None
    objects = [i for i in items if isinstance(i, dict)]
    if len(objects) < len(items) or len(objects) < 2:
        return None
    key = identifier(objects)
    if key is None:
        return None
    ids = [dotted(i, key) for i in objects]
    return ids if all(is_key_like(v) for v in ids) else None


def rows_of(record: Any, columns: list[str]) -> list[Any]:
    """One index row: the record's values at the (dotted) columns; a record that is not an object as itself."""
    if isinstance(record, list):
        return [_short(_cell(record, c)) for c in columns]
    if not isinstance(record, dict):
        return [record for _ in columns]
    return [
        _NESTED if isinstance(v := record[c] if c in record else _any_of(record, c), (dict, list)) else v
        for c in columns
    ]


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


_NESTED = "{…}"  # a nested object in an index row is not shown (index columns are scalar columns of most records)


def _short(value: Any) -> Any:
    """A nested object in an index row is not shown (index columns are scalar columns of most records)."""
    return _NESTED if isinstance(value, (dict, list)) else value


def list_query(value: Any, path: Path) -> str | None:
    """The JMESPath query that reads the record list at ``path`` (the records stage's path: keys joined by ``.``,
    ``[]`` where a list's or a map's members are gathered) from ``value``, the result as saved: each key as
    ``envelope.query_key`` writes it (quoted unless a bare identifier), a map's members as ``.*``, a list's as
    ``[]``. None when ``value`` does not have that shape (the caller then names ``path`` as it is)."""
    node, out = value, ""
    for step in path:
        if isinstance(node, dict) and step in node:  # a key that is the whole step ('', '.b', 'a[]'): no marks in it
            quoted = query_key(step)
            out, node = (f"{out}.{quoted}" if out else quoted), node[step]
            continue
        for i, frag in enumerate(step.split("[]")):
            if i:  # the members of what was reached so far, gathered
                if isinstance(node, list):
                    out, node = out + "[]", next((m for m in node if isinstance(m, (dict, list))), None)
                elif isinstance(node, dict):
                    out, node = out + ".*", next(iter(node.values()), None)
                else:
                    return None
            names = frag.removeprefix(".").split(".") if frag.removeprefix(".") else []
            j = 0
            while j < len(names):
                if not isinstance(node, dict):
                    return None
                k = next((k for k in range(len(names), j, -1) if ".".join(names[j:k]) in node), None)
                if k is None:
                    return None
                key = ".".join(names[j:k])
                quoted = query_key(key)
                out, node, j = (f"{out}.{quoted}" if out else quoted), node[key], k
    return out or None
