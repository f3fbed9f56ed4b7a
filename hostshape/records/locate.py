"""Where the records are in a JSON document, found by what the lists hold, and the document rewritten so that
they sit in one plain list of objects: GraphQL ``edges[].node`` unwrapped, lists nested in thin parent records
flattened (each child names its parent's identifier), records nested in lists of wrappers that name nothing
gathered (a trace's ``batches[].scopeSpans[].spans[]``), pages (a list of lists of records) joined, records
whose one list holds their own fields as key/value pairs kept whole (``Tags[].{Key, Value}``), rows-as-arrays
turned into objects with the column names of a header list, and maps keyed by identifier turned into lists.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hostshape.output.render import dumps
from hostshape.records import structure

Path = tuple[str, ...]

SEARCH_DEPTH = 5  # levels of objects find_records searches for the record list
MAX_NODES = 5000  # objects searched for the zero-configuration record list, at any depth (locate)
_SIZE_SAMPLE = 8


@dataclass
class Located:
    """The document with its record list at ``path`` as a list of objects, and how it was rewritten."""

    value: Any
    path: Path
    records: list[Any]
    notes: list[str] = field(default_factory=list)  # how the document was rewritten; a note ending "not shown" is a cut
    parent_refs: list[str] = field(default_factory=list)  # members naming a flattened record's parent
    map_key: str | None = None  # the records are a map's entries: the member holding each one's map key


def find_records(value: Any, max_depth: int = SEARCH_DEPTH) -> tuple[Path, list[Any]] | None:
    """The record list as it stands: the value itself when it is a list, else the list of objects inside it that
    holds the most (sqrt of count times size, so neither a long list of tiny items nor one huge item wins alone)."""
    if isinstance(value, list):
        return (), value
    best: tuple[float, Path, list[Any]] | None = None
    for path, candidate in _lists(value, (), max_depth):
        if not _mostly_objects(candidate):
            continue
        score = _weight(candidate)
        if best is None or score > best[0]:
            best = (score, path, candidate)
    return (best[1], best[2]) if best else None


def longest_record_list(value: Any, max_depth: int = 3) -> tuple[Path, list[Any]] | None:
    """The list configured field rules apply to: the value itself when it is a list, else
    the longest list of mostly objects within ``max_depth`` levels of objects."""
    if isinstance(value, list):
        return (), value
    best: tuple[Path, list[Any]] | None = None
    for path, candidate in _lists(value, (), max_depth):
        if sum(isinstance(item, dict) for item in candidate[:50]) * 2 < min(len(candidate), 50):
            continue
        if best is None or len(candidate) > len(best[1]):
            best = (path, candidate)
    return best


def locate(value: Any) -> Located | None:
    """The record list, rewritten into a plain list of objects (see the module docstring); None when there is
    none. Deterministic: paging a saved result later finds the same list at the same path."""
    candidates: list[tuple[float, Path, list[Any], str | None, str | None]] = []
    if isinstance(value, list):
        rows = _rows_with_header(value, value, ()) or _pages(value, "")
        candidates.append((math.inf, (), rows[0] if rows else value, rows[1] if rows else None, None))
    else:
        whole = _keyed_map(value) if isinstance(value, dict) else None
        if whole is not None:
            candidates.append((_map_weight(whole[0]), (), *whole))
        for path, member in _members_bounded(value):
            if isinstance(member, list) and member:
                rows = _rows_with_header(member, value, path)
                pages = _pages(member, ".".join(path)) if rows is None else None
                if rows is not None:
                    candidates.append((_weight(rows[0]), path, *rows, None))
                elif pages is not None:
                    candidates.append((_weight(pages[0]), (*path[:-1], f"{path[-1]}[][]"), *pages, None))
                elif _mostly_objects(member):
                    candidates.append((_list_weight(member), path, member, None, None))
                elif _names(member):  # versions, tags, ids: each item names one thing
                    candidates.append((_weight(member) * _NAMES_WEIGHT, path, member, None, None))
            elif isinstance(member, dict):
                keyed = _keyed_map(member)
                if keyed is not None:
                    candidates.append((_map_weight(keyed[0]), path, *keyed))
    if not candidates:
        return None
    best = max(candidates, key=lambda c: c[0])
    _, path, records, how, map_key = _referring(best, candidates) or best
    notes = [how] if how else []
    path, records = _unwrapped(path, records, notes)
    refs: list[str] = []
    for _ in range(3):
        flat = _flattened(path, records, notes) or _descended(path, records, notes)
        if flat is None:
            break
        path, records, ref = flat
        refs += [ref] if ref else []
        path, records = _unwrapped(path, records, notes)
        map_key = None  # the records are the entries' children now
    return Located(_rebuilt(value, path, records), path, records, notes, refs, map_key)


_REFER_SHARE = 2 / 3  # records of a list that point at another list's records, at least, to be the result
_REFER_LISTS = 16  # other lists looked at for records pointing at the heaviest one, at most
_REFER_CHARS = 6  # a pointer is at least this long (a small number is anyone's position, not a reference)

Candidate = tuple[float, Path, list[Any], str | None, str | None]


def _referring(best: Candidate, candidates: list[Candidate]) -> Candidate | None:
    """The heaviest other list of objects whose records point at ``best``'s records: a member other than their own
    identifier holding, in two records in three, the identifier of one of ``best``'s (a notification's status id
    beside the statuses it expands). ``best`` is then what the result includes beside its records, not the
    result. None when no list points at it; lists inside one another are not compared."""
    path, records = best[1], best[2]
    others = [
        c
        for c in sorted((c for c in candidates if c is not best), key=lambda c: -c[0])[:_REFER_LISTS]
        if c[1][: len(path)] != path and path[: len(c[1])] != c[1] and _mostly_objects(c[2])
    ]
    head = [r for r in records[: structure.SAMPLE] if isinstance(r, dict)]
    if not others or len(head) < 2:
        return None
    keys = [k for k in dict.fromkeys(k for r in head for k in r) if _unique_scalar(head, k)]
    objects = [r for r in records[: structure.CHECK] if isinstance(r, dict)]
    ids = {str(r[k]) for k in keys for r in objects if isinstance(r.get(k), (str, int))}
    for other in others:
        items = other[2]
        sample = [r for r in items[: structure.SAMPLE] if isinstance(r, dict)]
        own = structure.identifier(sample) if len(sample) >= 2 else None
        if own is None:
            continue
        names = dict.fromkeys(k for r in sample for k in r if k != own)
        for name in names:
            hits = sum(
                isinstance(r.get(name), (str, int))
                and not isinstance(r.get(name), bool)
                and len(str(r[name])) >= _REFER_CHARS
                and str(r[name]) in ids
                for r in sample
            )
            if hits >= _REFER_SHARE * len(sample):
                return other
    return None


def _unique_scalar(records: list[dict[str, Any]], name: str) -> bool:
    """``name`` holds a text or a whole number in every one of ``records``, no two the same."""
    values = [r.get(name) for r in records]
    if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
        return False
    return len(set(map(str, values))) == len(values)


def _members(value: Any, path: Path, depth: int) -> Iterator[tuple[Path, Any]]:
    if not isinstance(value, dict) or depth == 0:
        return
    for key, member in value.items():
        if not isinstance(key, str):
            continue
        yield (*path, key), member
        if isinstance(member, dict):
            yield from _members(member, (*path, key), depth - 1)


def _members_bounded(value: Any, nodes: int = MAX_NODES) -> Iterator[tuple[Path, Any]]:
    """Like ``_members`` (depth first, in document order) at any depth, over at most ``nodes`` objects: a record
    list six wrappers down is found, and a huge or deeply nested document costs a bounded walk. A map of objects
    (more than MAP_ENTRIES members, the first MAP_ENTRIES all objects: entries of one kind, a lockfile's packages)
    is read through its first MAP_ENTRIES entries only (the others are neither candidates nor walked into): what
    they hold stands for what the others hold, and the walk's objects go to the rest of the document."""
    left = [nodes]

    def walk(obj: dict[str, Any], path: Path) -> Iterator[tuple[Path, Any]]:
        left[0] -= 1
        entries = len(obj) if not _is_object_map(obj) else MAP_ENTRIES
        for at, (key, member) in enumerate(obj.items()):
            if not isinstance(key, str) or (at >= entries and isinstance(member, dict)):
                continue
            yield (*path, key), member
            if isinstance(member, dict) and left[0] > 0 and len(path) < 100:
                yield from walk(member, (*path, key))

    if isinstance(value, dict):
        yield from walk(value, ())


MAP_ENTRIES = 64  # entries of a map of objects the search walks into


def _is_object_map(obj: dict[str, Any]) -> bool:
    """More than MAP_ENTRIES members, the first MAP_ENTRIES of them objects (a map's entries, not a wrapper's)."""
    return len(obj) > MAP_ENTRIES and all(isinstance(v, dict) for v in itertools.islice(obj.values(), MAP_ENTRIES))


def _lists(value: Any, path: Path, depth: int) -> Iterator[tuple[Path, list[Any]]]:
    for member_path, member in _members(value, path, depth):
        if isinstance(member, list) and member:
            yield member_path, member


_NAMES_WEIGHT = 0.5  # a list of names counts for less than a list of objects holding as much
_MIN_NAMES = 10


def _names(items: list[Any]) -> bool:
    """A list of distinct short scalars that each name something (a package's versions, a registry's tags)."""
    if len(items) < _MIN_NAMES:
        return False
    head = items[:200]
    if not all(structure.is_key_like(i) and not isinstance(i, bool) for i in head):
        return False
    return len(set(head)) == len(head)


def _mostly_objects(items: list[Any]) -> bool:
    head = items[:50]
    return sum(isinstance(item, dict) for item in head) * 2 >= len(head) and any(isinstance(i, dict) for i in head)


def _weight(items: list[Any]) -> float:
    """sqrt(count x estimated size): what a list holds."""
    step = max(1, len(items) // _SIZE_SAMPLE)
    sample = items[::step][:_SIZE_SAMPLE]
    size = sum(len(dumps(item)) for item in sample) * len(items) / max(1, len(sample))
    return math.sqrt(len(items) * size)


def _map_weight(records: list[Any]) -> float:
    """What a map rewritten as a list holds: when each entry holds a list of objects (a group), the weight of
    all their items together (they will be flattened), else of the entries; a little below a plain list."""
    kids = _group_children(records)
    return _weight(kids) * 0.95 if kids else _weight(records) * 0.9


_GROUP_SHARE = 2  # children per group, at least, for a list of groups to weigh what its children hold


def _list_weight(records: list[Any]) -> float:
    """What a list of objects holds; a list of a few groups (each record's bulk one list of objects, at least
    _GROUP_SHARE children a group on average: a scan's ``Results[].Vulnerabilities``) weighs what its children
    hold together, a little below a plain list of them, as the groups of a map do: ``sqrt(count x size)`` of two
    groups of ten heavy children is otherwise below a sibling list of twenty light items."""
    own = _weight(records)
    kids = _group_children(records)
    if kids is None or len(kids) < len(records) * _GROUP_SHARE:
        return own
    return max(own, _weight(kids) * 0.95)


def _group_children(records: list[Any]) -> list[Any] | None:
    """The children of records whose bulk is one list of objects (``_dominant_member``), all of them; None when
    the records are not such groups."""
    dicts = [r for r in records if isinstance(r, dict)]
    child = _dominant_member(dicts, list) if dicts else None
    if child is None:
        return None
    kids = [k for r in dicts if isinstance(r.get(child), list) for k in r[child]]
    return kids if kids and all(isinstance(k, dict) for k in kids[:50]) else None


def _rows_with_header(rows: list[Any], document: Any, path: Path) -> tuple[list[Any], str] | None:
    """Rows given as arrays of scalars, as objects named by a header list of the same length found in the
    document (strings, or objects whose one string column is unique); None when they are not such rows."""
    if not rows or _cells(rows[0]) is None:
        return None  # no rows, or the first row is no row of cells: not worth reading every row
    cells = [_cells(r) for r in rows]
    head = cells[:50]
    if not head or any(r is None for r in head):
        return None
    width = len(head[0])  # type: ignore[arg-type]
    if width < 2 or any(len(r) != width for r in head):  # type: ignore[arg-type]
        return None
    for header_path, names in _headers(document, width):
        if header_path != path:
            records = [
                dict(zip(names, row, strict=False)) if row is not None else raw
                for row, raw in zip(cells, rows, strict=True)
            ]
            where = ".".join(header_path) or "the header"
            return records, f"rows given as arrays: shown as objects named by {where}"
    first: list[Any] = head[0]  # type: ignore[assignment]
    if len(rows) >= 3 and _header_row(first, head[1:]):  # type: ignore[arg-type]
        records = [
            dict(zip(first, row, strict=False)) if row is not None else raw
            for row, raw in zip(cells[1:], rows[1:], strict=True)
        ]
        return records, "rows given as arrays: shown as objects named by the first row"
    return None


MAX_PAGES = 10_000  # lists of records read as pages of one list, at most


def _pages(items: list[Any], where: str) -> tuple[list[Any], str] | None:
    """A list of lists of objects (pages, batches, one list per query) as one list of their objects, in order, with
    a note naming the pages; None when it is not one (rows of scalars, a mix of lists and other values)."""
    if len(items) > MAX_PAGES or not all(isinstance(i, list) for i in items):
        return None
    head = [r for page in items[:50] for r in page[:50]]
    if not head or not all(isinstance(r, dict) for r in head):
        return None
    records = [r for page in items for r in page]
    if not all(isinstance(r, dict) for r in records):
        return None
    sizes = [len(page) for page in items]
    each = f"{sizes[0]} each" if len(set(sizes)) == 1 else "of " + ", ".join(map(str, sizes[:40]))
    more = f" +{len(sizes) - 40} more" if len(set(sizes)) > 1 and len(sizes) > 40 else ""
    return records, f"{where}[][] gathered: {len(records)} records from {len(items)} lists ({each}{more}), in order"


def _header_row(first: list[Any], rest: list[list[Any]]) -> bool:
    """The first row names the columns: distinct non-empty strings, none of them found in its column below."""
    if not all(isinstance(n, str) and n for n in first) or len(set(first)) != len(first):
        return False
    return not any(row[i] == name for row in rest for i, name in enumerate(first))


def _cells(row: Any) -> list[Any] | None:
    """A row's scalar cells: the row itself when it is a list of scalars, or the values of a row object whose one
    member is a list of one-member cell objects (``{"f": [{"v": 1}, ...]}``); else None."""
    if isinstance(row, dict) and len(row) == 1:
        (inner,) = row.values()
        if isinstance(inner, list) and all(isinstance(c, dict) and len(c) == 1 for c in inner):
            row = [next(iter(c.values())) for c in inner]
    if isinstance(row, list) and not any(isinstance(c, (dict, list)) for c in row):
        return row
    return None


def _headers(document: Any, width: int) -> Iterator[tuple[Path, list[str]]]:
    for path, member in _members_bounded(document):
        if not isinstance(member, list) or len(member) != width:
            continue
        if all(isinstance(n, str) for n in member) and len(set(member)) == width:
            yield path, member
        elif all(isinstance(n, dict) for n in member):
            for column in structure.columns(member, depth=1):
                names = [n.get(column) for n in member]
                if all(isinstance(n, str) and n for n in names) and len(set(names)) == width:
                    yield path, names
                    break


def _keyed_map(obj: dict[str, Any]) -> tuple[list[Any], str, str] | None:
    """A map whose members are like records of one kind (objects sharing most of their keys), as a list of
    objects that each carry their map key, a note saying so, and the member holding the key."""
    if len(obj) >= 2 and all(isinstance(v, list) for v in obj.values()) and _same_kind(list(obj.values())):
        items = [i for v in list(obj.values())[:50] for i in v[:5]]
        if not items or not all(isinstance(i, dict) for i in items):
            return None
        records = [{"key": k, "items": v} for k, v in obj.items()]
        return records, "map keyed by identifier: shown as a list of {key, items}", "key"
    if not all(isinstance(v, dict) and v for v in obj.values()):
        return None
    if len(obj) < 3 and (len(obj) < 2 or _group_list(list(obj.values())) is None):
        return None  # two objects are a map of groups only when each holds the same kind of list
    values = list(obj.values())
    step = max(1, len(values) // _KIND_SAMPLE)  # objects of one kind: told from a sample spread over the map
    key_sets = [set(v) for v in values[::step]]
    if not _share_keys(key_sets):
        return None
    own = _own_key(obj)
    if own is not None:  # each entry already holds its map key: that member is the identifier, under its own name
        return list(obj.values()), f"map keyed by identifier: shown as a list (each map key is the record's {own})", own
    name = next(n for n in ("key", "_key", "__key") if not any(n in v for v in obj.values()))
    records = [{name: k} | v for k, v in obj.items()]  # (not **v: members may have non-string names)
    return records, f"map keyed by identifier: shown as a list, each record's map key as {name!r}", name


_KIND_SAMPLE = 1000  # entries of a map whose member names tell whether they are of one kind, at most about


def _own_key(obj: dict[str, dict[str, Any]]) -> str | None:
    """The top-level member whose value is, in every entry, the entry's own map key (gridscale's ``object_uuid``
    under its UUID); None when there is none."""
    first_key, first = next(iter(obj.items()))
    for name, value in first.items():
        if value == first_key and all(isinstance(v, dict) and v.get(name) == k for k, v in obj.items()):
            return name
    return None


def _share_keys(key_sets: list[set[Any]]) -> bool:
    """Objects of one kind: the member names nine in ten of them carry (all of them, when fewer than ten) make
    up at least half of a typical one; a few outliers (a lockfile's root package) do not change the kind."""
    counts: dict[Any, int] = {}
    for keys in key_sets:
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
    need = len(key_sets) if len(key_sets) < 10 else len(key_sets) * 9 / 10
    core = sum(1 for n in counts.values() if n >= need)
    typical = sorted(len(k) for k in key_sets)[len(key_sets) // 2]
    return core > 0 and core * 2 >= typical


def _same_kind(lists: list[list[Any]]) -> bool:
    """Lists (two or more) each holding objects of one kind: their items share most of their member names."""
    firsts = [next((i for i in v[:5] if isinstance(i, dict)), None) for v in lists if v]
    if len(firsts) < 2 or any(f is None for f in firsts):
        return len(firsts) >= 2 and all(f is not None for f in firsts)
    keys = [set(f) for f in firsts]  # type: ignore[arg-type]
    return len(set.intersection(*keys)) * 2 >= max(map(len, keys))


def _group_list(groups: list[dict[str, Any]]) -> str | None:
    """The one member, of the same name in every group that has lists, holding a list of objects of one kind
    (GCE aggregated lists: ``{"zones/a": {"machineTypes": [...]}, "zones/b": {...}}``); None when there is none."""
    name: str | None = None
    lists = []
    for group in groups:
        held = [k for k, v in group.items() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v[:20])]
        if len(held) > 1 or (held and name is not None and held[0] != name):
            return None
        if held:
            name = held[0]
            lists.append(group[name])
    return name if len(lists) >= 2 and _same_kind(lists) else None


def _unwrapped(path: Path, records: list[Any], notes: list[str]) -> tuple[Path, list[Any]]:
    """Records that each wrap one object under the same key (GraphQL ``edges[].node``, search ``hits[]._source``)
    unwrapped; the wrapper's scalars stay beside the object's own fields, under their own names (often the
    record's identifiers); an object's member of the same name is shown under its path (``config.name``)."""
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) < len(records) or not dicts:
        return path, records
    inner = _dominant_member(dicts, dict)
    if inner is None or not all(_scalars_besides(r, inner) for r in dicts):
        return path, records
    if all(_link_map(r.get(inner)) for r in dicts[:50]):
        return path, records  # a map of links (``Links: {Self, Web}``) is each record's links, never the record
    out = []
    renamed: dict[str, str] = {}  # an object's member the wrapper also has -> the name it is shown under
    for r in dicts:
        own = r[inner] if isinstance(r.get(inner), dict) else {}
        merged = {key: member for key, member in r.items() if key != inner}  # the wrapper's first
        for key, member in own.items():
            name = key
            if name in merged:
                name = f"{inner}.{key}"
                while name in merged or name in own:  # never over another member
                    name = f"_{name}"
                renamed.setdefault(key, name)
            merged[name] = member
        out.append(merged)
    shown_as = f"; the {inner}'s " + ", ".join(f"{k} shown as {v}" for k, v in list(renamed.items())[:6])
    notes.append(f"records unwrapped from {'.'.join(path) or ''}[].{inner}" + (shown_as if renamed else ""))
    return _stepped(path, inner), out


def _flattened(path: Path, records: list[Any], notes: list[str]) -> tuple[Path, list[Any], str | None] | None:
    """Thin parent records whose bulk is one list of child objects, as the children, each naming its parent's
    identifier: ``Reservations[].Instances[]``, ``groups[].rules[]``."""
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) < len(records) or not dicts:
        return None
    child = _dominant_member(dicts, list)
    if child is None:
        return None
    if not all(isinstance(r.get(child), list) and r[child] for r in dicts):
        return None  # a parent without children would vanish
    kids = [k for r in dicts for k in r[child]]
    if not kids or not all(isinstance(k, dict) for k in kids) or len(kids) < len(dicts):
        return None
    if not all(len(k) > 1 for k in kids[:50]):
        return None  # one-value cells are not records
    if _pair_lists(dicts, child):
        return None  # each parent's list is its own fields as key/value pairs: the parents are the records
    if len(dicts) == 1:  # one wrapper (an export's resource and scope): its children are the records
        only = dicts[0]
        rest = sorted(k for k in only if k != child and not _empty(only[k]))
        note = f"{'.'.join(path) or '[]'}[].{child}[] flattened (one parent)"
        if rest:
            note += f"; parent fields {', '.join(rest[:8])}{' …' if len(rest) > 8 else ''} not shown"
        notes.append(note)
        return _stepped(path, child), list(only[child]), None
    parent_id = structure.identifier(dicts)
    if parent_id is None:
        return None  # children of parents nobody can name are not records
    if len(kids) * 2 < len(dicts) * 3 and not structure.identifiers(kids[: structure.SAMPLE]):
        return None  # about one child each, named only within its parent: the parents are the records
    if _same_parts(dicts, child):
        return None  # the same few parts in every parent (each version's submodules): the parents are the records
    label = path[-1] if path else "parent"
    label = label.rsplit(".", 1)[-1].removesuffix("[]")
    ref = f"{label}:{parent_id}"
    out: list[Any] = []
    for r in dicts:
        for kid in r[child] if isinstance(r.get(child), list) else []:
            out.append({ref: structure.dotted(r, parent_id)} | kid)
    other = sorted(k for r in dicts[:50] for k in r if k not in (child, parent_id))
    dropped = sorted(set(other))
    note = f"{'.'.join(path) or '[]'}[].{child}[] flattened"
    ids = [str(structure.dotted(r, parent_id)) for r in dicts]
    shown = ", ".join(ids[:40]) + (f" +{len(ids) - 40} more" if len(ids) > 40 else "")
    note += f"; each names its parent's {ref} ({len(ids)} parents: {shown})"
    if dropped:
        note += f"; parent fields {', '.join(dropped[:8])}{' …' if len(dropped) > 8 else ''} not shown"
    notes.append(note)
    return _stepped(path, child), out, ref


def _same_parts(parents: list[dict[str, Any]], child: str) -> bool:
    """The parents outnumber the children any one of them holds, and no member of the children takes more values
    than that: every parent holds (some of) the same parts, which name nothing outside it."""
    most = max(len(p[child]) for p in parents)
    if len(parents) <= most:
        return False
    values: dict[str, set[Any]] = {}
    for kid in itertools.islice((k for p in parents for k in p[child]), _PARTS_LOOKED_AT):
        for key, member in kid.items():
            if isinstance(member, (str, int, float)) and not isinstance(member, bool):
                values.setdefault(key, set()).add(member)
    return bool(values) and max(len(v) for v in values.values()) <= most


_PARTS_LOOKED_AT = 2000  # children looked at for their distinct values (a bounded pass over a huge list)


def _pair_lists(records: list[dict[str, Any]], child: str) -> bool:
    """Every sampled record's ``child`` list stands for an object (``structure.pairs_of``: two-member items, one
    a name unique in its list), and the names recur across records (``instance-id``, ``env`` in each): fields given
    as key/value pairs, not child records."""
    sample = records[: structure.SAMPLE]
    names: set[str] = set()
    total = 0
    for record in sample:
        pairs = structure.pairs_of(record[child])
        if pairs is None:
            return False
        names.update(pairs)
        total += len(pairs)
    return len(sample) >= 2 and len(names) * 2 <= total


MAX_DESCENT = 3  # levels of lists searched below records that name nothing, for the records they wrap
_DESCENT_MEMBERS = 2  # levels of objects searched for the next list, at each level
_DESCENT_WAYS = 32  # ways down tried at most (a record with thousands of list members costs a bounded search)


def _descended(path: Path, records: list[Any], notes: list[str]) -> tuple[Path, list[Any], None] | None:
    """Records without an identifier that wrap, through one to MAX_DESCENT levels of lists of objects, objects
    that have one (a trace's ``batches[].scopeSpans[].spans[]``): those objects, gathered in one list; the
    heaviest such list when there are several. None when the records name themselves or wrap no such list."""
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) < len(records) or not dicts or structure.identifier(dicts) is not None:
        return None
    best: tuple[float, list[Path], list[Any]] | None = None
    for steps in itertools.islice(_list_steps(dicts[0], MAX_DESCENT), _DESCENT_WAYS):
        leaves = _leaves(dicts, steps)
        if leaves is None or len(leaves) < len(dicts) or not all(len(k) > 1 for k in leaves[:50]):
            continue
        if not structure.identifiers(leaves[: structure.SAMPLE]):
            continue
        weight = _weight(leaves)
        if best is None or weight > best[0]:
            best = (weight, steps, leaves)
    if best is None:
        return None
    _, steps, leaves = best
    inner = "[].".join(".".join(step) for step in steps)
    left = sorted({k for r in dicts[:50] for k in r if k != steps[0][0]})
    left += [f"{'[].'.join('.'.join(s) for s in steps[: i + 1])}[].{k}" for i, k in _beside(dicts[0], steps)]
    note = f"{'.'.join(path) or '[]'}[].{inner}[] gathered ({len(leaves)} records in {len(dicts)} parents)"
    if left:
        note += f"; parent fields {', '.join(left[:8])}{' …' if len(left) > 8 else ''} not shown"
    notes.append(note)
    return _stepped(path, inner), leaves, None


def _list_steps(record: dict[str, Any], depth: int, members: int = _DESCENT_MEMBERS) -> Iterator[list[Path]]:
    """Ways down from ``record`` to a list of objects, as member paths each ending at a list (the next step
    starts from that list's first object), up to ``depth`` lists deep."""
    if depth == 0:
        return
    for key, member in record.items():
        if not isinstance(key, str):
            continue
        if isinstance(member, list) and member and isinstance(member[0], dict):
            yield [(key,)]
            for rest in _list_steps(member[0], depth - 1):
                yield [(key,), *rest]
        elif isinstance(member, dict) and members > 1:
            for first, *rest in _list_steps(member, depth, members - 1):
                yield [(key, *first), *rest]


def _leaves(records: list[dict[str, Any]], steps: list[Path]) -> list[Any] | None:
    """The objects at the end of ``steps`` below every record, in order; None when a record or a wrapper on the
    way holds no such non-empty list (it would vanish) or the end holds anything but objects."""
    level: list[Any] = records
    for step in steps:
        nxt: list[Any] = []
        for item in level:
            node: Any = item
            for key in step:
                node = node.get(key) if isinstance(node, dict) else None
            if not isinstance(node, list) or not node:
                return None
            nxt.extend(node)
        level = nxt
        if len(level) > 1_000_000:
            return None
    return level if all(isinstance(k, dict) for k in level) else None


def _beside(record: dict[str, Any], steps: list[Path]) -> list[tuple[int, str]]:
    """(step, member) of the wrappers' own members on the way down (not shown once the records are gathered)."""
    out = []
    node: Any = record
    for i, step in enumerate(steps[:-1]):
        for key in step:
            node = node.get(key) if isinstance(node, dict) else None
        node = node[0] if isinstance(node, list) and node else None
        if not isinstance(node, dict):
            break
        out += [(i, k) for k in node if k != steps[i + 1][0]]
    return out


def _empty(value: Any) -> bool:
    return value is None or (not value and isinstance(value, (str, list, dict)))


def _link_map(value: Any) -> bool:
    """An object of two or more members, every one a URL or a server path: a record's links, not a record."""
    return isinstance(value, dict) and len(value) >= 2 and all(structure.is_link_path(v) for v in value.values())


def _stepped(path: Path, inner: str) -> Path:
    """The path of a list rewritten from ``path[-1][].inner``; a top-level list stays at the top."""
    return (*path[:-1], f"{path[-1]}[].{inner}") if path else ()


def _scalars_besides(record: dict[str, Any], inner: str) -> bool:
    return all(k == inner or not isinstance(v, (dict, list)) for k, v in record.items())


def _dominant_member(records: list[dict[str, Any]], kind: type) -> str | None:
    """The member key, of type ``kind`` in (nearly) every record, that holds most of each record's size."""
    sample = records[:50]
    first = sample[0]
    whole: int | None = None  # measured once, when a member is a candidate: a record of many lists costs one pass
    for key, member in first.items():
        if not isinstance(member, kind):
            continue
        if sum(isinstance(r.get(key), kind) for r in sample) * 10 < len(sample) * 9:
            continue
        if whole is None:
            whole = sum(len(dumps(r)) for r in sample[:_SIZE_SAMPLE])
        inner = sum(len(dumps(r.get(key))) for r in sample[:_SIZE_SAMPLE])
        if inner * 10 >= whole * 7:
            return key
    return None


def _rebuilt(value: Any, path: Path, records: list[Any]) -> Any:
    """``value`` with ``records`` put at ``path``; a rewritten last step (``edges[].node``) replaces the list or
    map it came from."""
    if not path:
        return records
    copy = dict(value)
    head = path[0]
    if len(path) == 1:
        source = head.split("[]", 1)[0]
        if source != head:
            out = {}
            for key, member in copy.items():
                out[head if key == source else key] = records if key == source else member
            return out
        copy[head] = records
        return copy
    copy[head] = _rebuilt(value[head], path[1:], records)
    return copy


MAX_TEXT_RECORDS = 200_000  # lines parsed as records from a text result, at most


class TextRecords(NamedTuple):
    """Records read from a text: the records, the note saying how they were read, and how many lines were left out
    (named in the note)."""

    records: list[dict[str, Any]]
    note: str
    left_out: int = 0


def records_from_text(text: str) -> TextRecords | None:
    """Records held in a text result: JSON lines (one object per line), or CSV/TSV whose first row names the
    columns; with a note saying how they were read. None when the text is neither (then it is prose). A byte order
    mark opening the text is not part of its first column's name."""
    text = text.removeprefix("\ufeff")
    head = _head(text)
    if head.count("\n") < 2:
        return None
    sample = [line for line in _lines(head)[:-1] if line.strip()][:50]
    if len(sample) < 2:
        return None
    try:  # the first lines decide, cheaply, before a long text is split whole
        if sample[0].lstrip().startswith("{"):
            found = _json_lines(sample)
        else:
            found = _delimited(sample, cut=True) or _aligned(sample)
        if found is None:
            return None
    except (csv.Error, ValueError, RecursionError):
        return None
    every = _lines(text)
    numbered = [(number, line) for number, line in enumerate(every, 1) if line.strip()]
    lines = [line for _, line in numbered]
    if len(lines) < 3 or len(lines) > MAX_TEXT_RECORDS:
        return None
    try:
        if lines[0].lstrip().startswith("{"):
            return _json_lines(lines, [number for number, _ in numbered])
        # CSV rows as csv reads a file: a quoted field keeps its line breaks, blank lines inside it too
        return _delimited(every[next(i for i, line in enumerate(every) if line.strip()) :]) or _aligned(lines)
    except (csv.Error, ValueError, RecursionError):  # a field past csv's limit, nesting too deep: prose after all
        return None


SAMPLE_CHARS = 100_000  # the start of a text whose lines decide whether it holds records


def _head(text: str) -> str:
    """The start of ``text`` that decides: its first ``SAMPLE_CHARS`` characters, or its first three lines when
    they are longer (a first record longer than the sample is still a record)."""
    head = text[:SAMPLE_CHARS]
    if head.count("\n") >= 3 or len(head) == len(text):
        return head
    end = -1
    for _ in range(3):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[: end + 1]


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their line breaks (``\n``, ``\r\n``, ``\r``), as csv reads a file opened with
    ``newline=""``."""
    return list(io.StringIO(text, newline=""))


def _json_lines(lines: list[str], numbers: list[int] | None = None) -> TextRecords | None:
    """JSON lines: each line one JSON object. A few lines that are not one (a tool's stray warning among its
    records; at most one in ``_BAD_LINE_EVERY`` lines, never the first) are left out, and the note names them by
    their line numbers (``numbers``, else their place among ``lines``) for a read by lines; more make it no JSON
    lines (None)."""
    records: list[dict[str, Any]] = []
    left_out: list[int] = []
    allowed = max(len(lines) // _BAD_LINE_EVERY, 1 if len(lines) >= _BAD_LINE_SAMPLE else 0)
    for at, line in enumerate(lines):
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if isinstance(value, dict):
            records.append(value)
            continue
        if at == 0 or len(left_out) >= allowed:
            return None
        left_out.append(numbers[at] if numbers is not None else at + 1)
    note = f"JSON lines: {len(records)} lines read as records (shown as a JSON list)"
    if left_out:
        where = ", ".join(f"{n:,}" for n in left_out[:10]) + (
            f" +{len(left_out) - 10} more" if len(left_out) > 10 else ""
        )
        note += (
            f"; {len(left_out)} line{'s' if len(left_out) > 1 else ''} that {'are' if len(left_out) > 1 else 'is'} "
            f"not a JSON object left out (line {where}): read {'them' if len(left_out) > 1 else 'it'} with lines"
        )
    return TextRecords(records, note, len(left_out))


_BAD_LINE_EVERY = 100  # JSON lines may hold one line that is not a JSON object in this many (left out, named)
_BAD_LINE_SAMPLE = 20  # ... and one among the first lines that decide (when they are at least this many)


_ALIGNED_HEADER = re.compile(r"[^\s](?:\S| (?! ))*")  # a header's names: single spaces inside, two or more between
_MIN_ALIGNED_COLUMNS = 3
_MAX_ALIGNED_COLUMNS = 256  # a tool's table is narrow; a wider run of spaced words is not one


def _aligned(lines: list[str]) -> TextRecords | None:
    """A table whose columns line up under a header row (``kubectl get``, ``docker ps``, ``df``): the header's
    names, two spaces or more apart, start the columns; every row has a blank just before each column's start and
    a value in the first (a cell may be empty: ``docker ps``'s PORTS; the last column runs to the line's end).
    3 to 256 columns and at least 2 rows, distinct names that are not numbers; None otherwise."""
    rows = [line.rstrip("\r\n") for line in lines if line.strip()]
    if len(rows) < 3 or "\t" in rows[0]:
        return None
    names = list(_ALIGNED_HEADER.finditer(rows[0]))
    starts = [m.start() for m in names]
    header = [m.group(0) for m in names]
    if not _MIN_ALIGNED_COLUMNS <= len(header) <= _MAX_ALIGNED_COLUMNS or starts[0] != 0:
        return None
    if len(set(header)) < len(header):
        return None
    if any(h.replace(".", "").isdigit() for h in header):
        return None
    records: list[dict[str, Any]] = []
    for row in rows[1:]:
        if len(row) <= starts[-1] or any(row[c - 1] != " " for c in starts[1:]):
            return None
        cells = [row[a:b].strip() for a, b in itertools.pairwise([*starts, len(row)])]
        if not cells[0]:
            return None
        records.append(dict(zip(header, cells, strict=True)))
    return TextRecords(
        records, f"a table of aligned columns under a header row: {len(records)} rows read as records (a JSON list)"
    )


def _delimited(lines: list[str], *, cut: bool = False) -> TextRecords | None:
    """CSV/TSV/semicolon/pipe-separated rows whose first row is a header: every sampled row has the header's
    width, the header's cells are distinct names that do not recur in their columns below. The sample's last row
    is left out when the sample is cut (``cut``, or more lines follow): a quoted field may go on past it."""
    head = lines[:50]
    for delimiter in (",", "\t", ";", "|"):
        if delimiter not in head[0]:
            continue
        sample = [row for row in csv.reader(head, delimiter=delimiter) if row]
        if (cut or len(head) < len(lines)) and len(sample) > 2:
            sample.pop()
        width = len(sample[0])
        if width < 2 or any(len(row) != width for row in sample):
            continue
        header = [h.strip() for h in sample[0]]
        if not all(header) or len(set(header)) < width or any(h.replace(".", "").isdigit() for h in header):
            continue
        if any(row[i].strip() == header[i] for row in sample[1:] for i in range(width)):
            continue
        rows = [row for row in csv.reader(lines[1:], delimiter=delimiter) if row]
        if cut and rows and len(rows[-1]) != width:
            rows.pop()
        if any(len(row) != width for row in rows):
            return None
        records = [dict(zip(header, row, strict=True)) for row in rows]
        name = {",": "CSV", "\t": "TSV"}.get(delimiter, f"{delimiter!r}-separated text")
        return TextRecords(
            records, f"{name} with a header row: {len(records)} rows read as records (shown as a JSON list)"
        )
    return None
