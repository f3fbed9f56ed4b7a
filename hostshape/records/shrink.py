"""The zero-configuration shrink: the record list found and made plain (locate.locate), then each record
stripped of what its data shows to be noise, with every cut counted so the envelope can name it.

Decisions come from the values across records, the same for every API: machine links (API URLs, URL templates,
maps of links), opaque tokens that identify nothing, empty values, values constant in every record (stated once),
members rebuilt from the record's own values (stated once as a template: records/derived.py). A nested object
collapses to one value only when that value identifies it among its kind; a list of key/value pairs becomes an
object; long nested lists keep their head and tail.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hostshape.output.envelope import KEY, derived_checked_on, middle_marker, query_key
from hostshape.output.previews import Clipped, preview, text_placeholder
from hostshape.output.render import dumps
from hostshape.records import derived, structure
from hostshape.records.locate import Located, locate

if TYPE_CHECKING:
    from hostshape.tokens import Count

NESTED_PREVIEW_CHARS = 80
MAX_NESTED_ITEMS = 20
SHOWN_DEPTH = 4  # levels of nesting shown below a record before the shrink collapses them (grown by the budget)
_MIN_COLLAPSE_MEMBERS = 4  # smaller objects are shown, not collapsed
_WORD = re.compile(r"\w+")
_RENDERING_CHARS = 2000  # of the shorter text compared (4 times that of the longer) to tell another rendering
_RENDERING_SHARE = 0.8  # of the words of the text with fewer, found in the other
_LEARN = 100  # records whose nested objects teach the schema
_LEARN_CHARS = 256_000  # ... at most this much of their compact JSON
_LEARN_LEAST = 10  # ... but at least this many
_TINY_OBJECT_CHARS = 32  # compact JSON of an object of scalars shown past the depth cap: no shorter once cut
_SAME_CHARS = 600  # compact JSON stated once in the envelope's "same", at most


@dataclass
class Cuts:
    """What the shrink removed, by path, for the envelope."""

    omitted: set[str] = field(default_factory=set)
    collapsed: dict[str, str] = field(default_factory=dict)
    collapsed_count: Counter[str] = field(default_factory=Counter)
    lists: Counter[str] = field(default_factory=Counter)
    list_items: Counter[str] = field(default_factory=Counter)
    texts: Counter[str] = field(default_factory=Counter)
    by_id: Counter[str] = field(default_factory=Counter)  # records of a sibling list shown by identifier only
    deviating: dict[str, list[str]] = field(default_factory=dict)  # links kept: they break the dropped ones' pattern
    deep: Counter[str] = field(default_factory=Counter)
    empty: Counter[str] = field(default_factory=Counter)  # members left out as null, "", [] or {}
    same: dict[str, Any] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)  # member -> the template rebuilding it (records/derived.py)
    beside_links: set[str] = field(default_factory=set)  # links beside the records named as a derived member, by place
    notes: list[str] = field(default_factory=list)
    index: list[list[str]] | None = None  # index layouts for the shrunk records, keys chosen before shrinking
    partial: list[str] | None = None  # the layout of a listing of some of them, when not the narrowest
    items: int = MAX_NESTED_ITEMS  # nested lists longer than this keep their head and tail (grown by the budget)
    depth: int = SHOWN_DEPTH  # nesting shown below a record (grown by the budget)
    collapse: bool = True  # nested objects that repeat collapse to their identifier (not when the budget has room)
    keep_empty: bool = False  # empty values of members that other objects fill are shown (when the budget has room)

    blobs: int = 0

    @property
    def capped(self) -> bool:
        """A cap that a larger budget could lift cut something (nested lists, nesting)."""
        return bool(self.lists or self.deep or self.by_id)

    @property
    def cut(self) -> bool:
        """Anything was removed (rewriting the document without loss, or stating constants once, is no cut)."""
        lost_in_rewrite = any(n.endswith("not shown") for n in self.notes)
        return bool(
            self.omitted
            or self.beside_links
            or self.collapsed_count
            or self.lists
            or self.texts
            or self.deep
            or self.blobs
            or self.by_id
            or lost_in_rewrite
        )

    def summary(self) -> list[str]:
        """Short notes naming every cut with its path and counts; paths that differ only in map keys are named
        once as a pattern (``schemas.*.properties.*.description (150)``), and each note names a few patterns, then
        how many more (the spilled copy holds everything)."""
        out = list(self.notes)
        if self.collapsed_count:
            parts = [f"{p}→{self.collapsed[p]} ({n})" for p, n in sorted(self.collapsed_count.items())]
            out.append("objects collapsed to their identifier: " + _few(parts))
        if self.lists:
            lists = _patterns(self.lists)
            items = _patterns(self.list_items)
            parts = [f"{p} ({n} lists, {items.get(p, 0)} items)" for p, n in lists.items()]
            out.append("nested lists cut to head and tail: " + _few(parts))
        if self.by_id:
            parts = [f"{p} ({n})" for p, n in _patterns(self.by_id).items()]
            out.append("records of other lists shown by their identifier only, after the first few: " + _few(parts))
        if self.texts:
            parts = [f"{p} ({n})" for p, n in _patterns(self.texts).items()]
            out.append(f"nested text cut at {NESTED_PREVIEW_CHARS} chars: " + _few(parts))
        if self.blobs:
            out.append(f"base64 blobs replaced by a placeholder: {self.blobs}")
        if self.deep:
            parts = [f"{p} ({n})" for p, n in _patterns(self.deep).items()]
            out.append(f"nesting below {self.depth} levels not shown: " + _few(parts))
        if self.empty:
            names = sorted(self.empty, key=lambda p: (-self.empty[p], p))
            out.append('members left out where empty (null, "", [], {}): ' + _few(names))
        if self.omitted:
            out.append("fields dropped as links, opaque tokens or constants: see omitted")
        if self.beside_links:
            out.append("links beside the records dropped: " + _few(sorted(self.beside_links)))
        for where, links in sorted(self.deviating.items()):
            out.append(f"links kept where they break the pattern, {where}: " + _few(links))
        return out


_NOTE_PATTERNS = 6  # patterns named per note before "+N more"
_PATTERN_MIN = 3  # paths differing in one step only are named as one pattern when there are this many


def _few(parts: list[str]) -> str:
    more = f" +{len(parts) - _NOTE_PATTERNS} more" if len(parts) > _NOTE_PATTERNS else ""
    return ", ".join(parts[:_NOTE_PATTERNS]) + more


def _patterns(counts: Counter[str]) -> dict[str, int]:
    """Paths with their counts, those that differ in one step only (map keys: ``properties.a.description``,
    ``properties.b.description``, ...) merged into one pattern with ``*`` there and their counts summed; most
    frequent first."""
    merged: dict[tuple[str, ...], int] = {}
    for path, n in counts.items():
        steps = tuple(_steps(path))
        merged[steps] = merged.get(steps, 0) + n
    for _ in range(2):
        longest = max((len(s) for s in merged), default=0)
        for i in range(longest):
            groups: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
            for steps in merged:
                if len(steps) > i and steps[i] != "*":
                    groups.setdefault((*steps[:i], "*", *steps[i + 1 :]), []).append(steps)
            for pattern, members in groups.items():
                if len(members) >= _PATTERN_MIN:
                    total = sum(merged.pop(m) for m in members)
                    merged[pattern] = merged.get(pattern, 0) + total
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))
    return {".".join(steps) or ".": n for steps, n in ranked}  # "." is the top level (``_label``)


_STEP = re.compile(r'(?:"(?:[^"\\]|\\.)*"|[^."])+')  # one step of a path: quoted keys hold dots


def _steps(path: str) -> list[str]:
    """The steps of a path as ``_child`` builds it (``"a.b".tags[]`` is ``"a.b"``, ``tags[]``)."""
    return _STEP.findall(path)


def _child(path: str, key: Any) -> str:
    """The path of member ``key`` below ``path``: a JMESPath of the record (or document) it is in, each key as
    ``envelope.query_key`` writes it, ``[]`` after a list, so that a key holding dots is not read as a path.
    Paths of string keys are remembered (``_CHILDREN``): every record asks for the same few, once per member."""
    if key.__class__ is not str:
        step = query_key(str(key))
        return f"{path}.{step}" if path else step
    known = _CHILDREN.get((path, key))
    if known is None:
        if len(_CHILDREN) >= _MOST_CHILDREN:
            _CHILDREN.clear()  # a document of many distinct keys (a map's) costs what it did before, no more memory
        step = query_key(key)
        known = _CHILDREN[(path, key)] = f"{path}.{step}" if path else step
    return known


_CHILDREN: dict[tuple[str, str], str] = {}  # (path, key) -> _child(path, key), for string keys
_MOST_CHILDREN = 4096


def _unquoted(path: str) -> str:
    """``path`` with its keys as the records stage names columns: joined by ``.``, unquoted (``a.b.tags``)."""
    out = []
    for step in _steps(path):
        name = step.rstrip("[]")  # a bare key holds no brackets, a quoted one ends with its quote
        out.append((json.loads(name) if name.startswith('"') else name) + step[len(name) :])
    return ".".join(out)


@dataclass
class _Schema:
    """Per path inside a record (``user``, ``labels[]``, ``head.repo``): the member that identifies the objects
    found there (to collapse them) and the members that are noise."""

    collapse: dict[str, str] = field(default_factory=dict)
    noise: dict[str, set[str]] = field(default_factory=dict)
    keep: set[str] = field(default_factory=set)
    usual: dict[str, str] = field(default_factory=dict)  # dotted member -> the prefix its dropped links share
    derived: frozenset[str] = frozenset()  # a record's own members rebuilt from its other values (not shown)
    filled: dict[str, set[str]] = field(default_factory=dict)  # per path, the scalar members some object fills


def shrink_located(
    located: Located,
    max_records: int | None,
    cuts: Cuts,
    count: Count,
    *,
    first: int = 0,
    max_chars: int | None = None,
) -> Any:
    """The document with its records up to ``max_records`` shrunk, and the rest of the document shrunk as a
    container. Records after ``max_records`` are kept as they are, and so are those after the shrunk ones from
    ``first`` (a later page) reach ``max_chars`` characters of compact JSON (no budget shows them whole), and those
    more than a sample before ``first``: the time spent grows with the budget, not with the input. The schema is
    learnt from the first records, as on the first page."""
    cuts.notes.extend(located.notes)
    records = located.records
    end = len(records) if max_records is None else min(len(records), max_records)
    objects = [r for r in records[: structure.SAMPLE] if isinstance(r, dict)]
    key, alt = structure.record_keys(records, count, exclude=located.parent_refs)
    schema = _learn(objects, key, alt, cuts.depth)
    start = max(0, first - structure.SAMPLE)  # a sample before the page: constants are stated once as on page one
    templates = _derived(records, objects, schema, (key, alt, *located.parent_refs), cuts)
    shrunk, size = [], 0
    for at in range(start, end):
        shrunk.append(_value(records[at], "", 0, schema, cuts, root=True))
        if max_chars is not None and at >= first:
            size += len(dumps(shrunk[-1])) + 1
            if size > max_chars:
                break
    end = start + len(shrunk)
    shrunk = _state_once(shrunk, key, cuts, records[start] if start < end else None, records[:start] + records[end:])
    if templates:  # a filling the shrink changed would rebuild a wrong value: that member is named as omitted
        held = derived.shown_hold(templates, records[start:end], shrunk, cuts.same)
        cuts.omitted.update(name for name in templates if name not in held)
        cuts.derived = {name: template.text for name, template in held.items()}
    cuts.index = structure.index_columns(shrunk, count, (key, alt), spread=records)
    if located.map_key is not None and cuts.index:
        cuts.partial = structure.entry_layout(shrunk, cuts.index[0], located.map_key, count)
    after = records[end:]
    # the records midway from the page's first to the last (fit.records._middle_of) and the last are shrunk too: a
    # fit may show them whole beside an index
    for at in dict.fromkeys((first + (len(records) - first - 1) // 2, len(records) - 1)):
        if at >= end:
            after[at - end] = _value(records[at], "", 0, schema, cuts, root=True)
    return _around(located.value, located.path, records[:start] + shrunk + after, cuts)


def _derived(
    records: list[Any], objects: list[dict[str, Any]], schema: _Schema, keys: tuple[str | None, ...], cuts: Cuts
) -> dict[str, derived.Template]:
    """The records' members rebuilt from their own shown values (records/derived.py), learnt on ``objects`` (a
    sample) and checked on ``records``; marked in ``schema`` so that the shrink leaves them out of each record,
    and a note says so when a long list was checked on a spread of its records only."""
    names = [k for k in keys if k]
    named = bool(keys[0]) and structure.unique_over(objects, str(keys[0]))  # a shown identifier names each record
    first = records[0] if records and isinstance(records[0], dict) else {}

    def shown(path: derived.Path, value: Any) -> bool:  # another rendering of a sibling's text is left out
        return _shown(schema, path, value) and not (len(path) == 1 and _is_rendering_of_sibling(path[0], first))

    learnt = derived.learn(records, shown, exclude=frozenset((*names, KEY)), prefer=names, named=named)
    templates = derived.checked(learnt, records)
    schema.derived = frozenset(templates)
    left = derived.unchecked(len(records))
    if templates and left:
        cuts.notes.append(derived_checked_on(len(records) - left, len(records)))
    return templates


def _shown(schema: _Schema, path: derived.Path, value: Any) -> bool:
    """Whether the shrink keeps the member at ``path`` of a record (one member, or one of its object's) as it is:
    not dropped as noise or a link, its object not collapsed."""
    if _is_link(value) or _is_empty(value) or _child("", path[0]) in schema.collapse:
        return False
    parent = ""
    for step in path:
        if step in schema.noise.get(parent, ()):
            return False
        parent = _child(parent, step)
    return True


def shrink_document(
    value: Any, max_records: int | None, cuts: Cuts, count: Count, *, first: int = 0, max_chars: int | None = None
) -> tuple[Any, tuple[str, ...] | None]:
    """Shrink ``value``; returns it and the path of its record list (None when it has none)."""
    located = locate(value)
    if located is None:
        return _value(value, "", 0, _Schema(), cuts, root=False), None
    return shrink_located(located, max_records, cuts, count, first=first, max_chars=max_chars), located.path


def _around(value: Any, path: tuple[str, ...], records: list[Any], cuts: Cuts, place: str = "") -> Any:
    """The document around its records (``place``: the path of ``value``), the members beside them shrunk as a
    container. A link dropped beside the records under a name their ``derived`` members use is named by its place
    in a note, not in ``omitted``, which would read as the records' own member (stated as derived)."""
    if not path:
        return records
    out: dict[str, Any] = {}
    for key, member in value.items():
        if key == path[0]:
            out[key] = _around(member, path[1:], records, cuts, _child(place, key))
        elif _is_link(member) and key in cuts.derived:
            cuts.beside_links.add(_child(place, key))
        elif _is_link(member):
            cuts.omitted.add(key)
        elif _is_empty(member):
            cuts.empty[_child("", key)] += 1
        else:
            out[key] = _value(member, _child("", key), 1, _Schema(), cuts, root=False)
    return out


# ---- learning the schema from the records -------------------------------------------------------------------


def _learn(records: list[dict[str, Any]], key: str | None, alt: str | None, max_depth: int = SHOWN_DEPTH) -> _Schema:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in _learnt_from(records):
        _gather(record, "", groups, 0, max_depth)
    schema = _Schema()
    protected = {p for p in (key, alt) if p}
    schema.keep = protected
    ancestors = {".".join(k.split(".")[:i]) for k in protected for i in range(1, k.count(".") + 1)}
    kinds: dict[frozenset[str], list[dict[str, Any]]] = {}
    for objects in groups.values():  # objects of one shape are one kind, wherever they sit (head.repo, base.repo)
        for o in objects:
            kinds.setdefault(frozenset(o), []).append(o)
    decided: dict[frozenset[str], str | None] = {}
    for path, objects in groups.items():
        schema.filled[path] = {
            k for o in objects for k, v in o.items() if not isinstance(v, (dict, list)) and not _is_empty(v)
        }
        if not path or _unquoted(path) in ancestors:
            schema.noise[path] = _noise(objects, path, None, protected, schema.usual)
            continue
        shape = max(Counter(frozenset(o) for o in objects).items(), key=lambda kv: (kv[1], sorted(map(repr, kv[0]))))[0]
        if shape not in decided:
            decided[shape] = _collapse_key(kinds[shape])
        ident = decided[shape]
        if ident is not None:
            schema.collapse[path] = ident
        schema.noise[path] = _noise(objects, path, ident, protected, schema.usual)
    return schema


def _learnt_from(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records the schema is learnt from: the first ``_LEARN``, or fewer (``_LEARN_LEAST`` at least) when their
    compact JSON passes ``_LEARN_CHARS``: a list of large records is learnt from as much text as a short one."""
    out: list[dict[str, Any]] = []
    size = 0
    for record in records[:_LEARN]:
        size += len(dumps(record))
        if size > _LEARN_CHARS and len(out) >= _LEARN_LEAST:
            break
        out.append(record)
    return out


def _gather(value: Any, path: str, groups: dict[str, list[dict[str, Any]]], depth: int, max_depth: int) -> None:
    if depth > max_depth:
        return
    if isinstance(value, dict):
        groups.setdefault(path, []).append(value)
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                _gather(v, _child(path, k), groups, depth + 1, max_depth)
    elif isinstance(value, list):
        for item in value[:MAX_NESTED_ITEMS]:
            if isinstance(item, dict):
                _gather(item, f"{path}[]", groups, depth + 1, max_depth)


def _collapse_key(objects: list[dict[str, Any]]) -> str | None:
    """The member that identifies these objects among their (two or more) distinct values, when they are big
    enough to be worth collapsing: readable before opaque, never a string without letters (an address, a date).
    An opaque one only when little else readable would remain (a parent commit's hash beside its links)."""
    sample = objects[: structure.SAMPLE]
    distinct = list({dumps(o): o for o in sample}.values())
    if len(distinct) == len(sample):
        return None  # no object of this kind occurs twice: parts of their records, not references to share
    if len(distinct) < 2 or sum(len(o) for o in distinct) < _MIN_COLLAPSE_MEMBERS * len(distinct):
        return None
    for column in structure.identifiers(distinct):
        if "." in column:
            continue
        stats = structure.stats(distinct, column)
        if stats.numeric:
            continue  # a number (a port, a count) or an address stands for nothing on its own
        if len(distinct) < 5 and not structure.ID_WORD.search(column):
            return None  # among a few objects any member is unique: only an identifier-named one says it is one
        if stats.opaque and _readable_members(distinct[0], column) > 1:
            return None
        return column
    return None


def _readable_members(obj: dict[str, Any], besides: str) -> int:
    return sum(
        1
        for k, v in obj.items()
        if k != besides
        and not _is_empty(v)
        and not _is_link(v)
        and not structure.is_url(v)
        and not structure.is_opaque(v)
    )


_POINTER_CHARS = 40  # a shared opaque value at most this long points at something (an id up to a SHA-1's length)


def _shared(values: list[Any]) -> bool:
    """Opaque values that several records share, each at most _POINTER_CHARS long (a role's container, a server
    listed twice): a reference that groups the records, not a token each record carries for itself. A longer one
    (a SHA-256 digest that versions built from one file share) names content, not a record, and costs a record's
    worth of tokens in each row."""
    distinct = len({str(v) for v in values})
    short = all(len(str(v)) <= _POINTER_CHARS for v in values)
    return short and distinct >= 2 and distinct * 2 <= len(values)


def _constant(values: list[Any]) -> bool:
    """Two or more values, all the same."""
    return len(values) > 1 and all(v == values[0] for v in values)


def _noise(
    objects: list[dict[str, Any]],
    path: str,
    ident: str | None,
    protected: set[str],
    _usual: dict[str, str] | None = None,
) -> set[str]:
    """Members that are noise here: mostly API links (the prefix they share is remembered in ``_usual``, so a
    link that breaks the pattern is kept), or opaque tokens in every object."""
    names: dict[str, None] = {}
    for o in objects[:50]:
        names.update(dict.fromkeys(k for k in o if isinstance(k, str)))
    noise = set()
    usual = _usual if _usual is not None else {}
    for name in names:
        dotted = _child(path, name)
        if name == ident or _unquoted(dotted) in protected:
            continue
        values = [o[name] for o in objects[:50] if name in o and not _is_empty(o[name])]
        if not values:
            continue
        if sum(_is_link(v) for v in values) * 2 > len(values):
            noise.add(name)
            prefixes = Counter(_link_prefix(v) for v in values if isinstance(v, str))
            common = prefixes.most_common(1)
            if common and common[0][1] * 10 >= sum(prefixes.values()) * 9:  # one pattern: deviations are rare
                usual[dotted] = common[0][0]
        elif (
            all(structure.is_opaque(v) for v in values)
            and not structure.moments(values)
            and not _constant(values)
            and not _shared(values)
        ):
            noise.add(name)  # a constant one (the commit a listing is at) is one fact, stated once
    return noise


# ---- shrinking ----------------------------------------------------------------------------------------------


def _value(value: Any, path: str, depth: int, schema: _Schema, cuts: Cuts, *, root: bool) -> Any:
    if isinstance(value, dict):
        return _object(value, path, depth, schema, cuts, root=root)
    if isinstance(value, list):
        return _list(value, path, depth, schema, cuts)
    if isinstance(value, str):
        if depth > 2:  # text in a record's own members and their objects is fit's to cut, as far as needed
            short = preview(value, NESTED_PREVIEW_CHARS)
            if short is not value:
                cuts.texts[_label(path)] += 1
            return short
        label = text_placeholder(value)
        if label is not value:
            cuts.blobs += 1
        return label
    return value


def _object(obj: dict[str, Any], path: str, depth: int, schema: _Schema, cuts: Cuts, *, root: bool) -> Any:
    obj = _decoded_base64(obj)
    ident = schema.collapse.get(path)
    if ident is not None and cuts.collapse and not root and structure.is_key_like(obj.get(ident)):
        cuts.collapsed[_label(path)] = ident
        cuts.collapsed_count[_label(path)] += 1
        return obj[ident]
    if depth >= cuts.depth and not _tiny(obj):
        cuts.deep[_label(path)] += 1
        return "{…}"
    noise = schema.noise.get(path, _NONE)
    links_by_value = not schema.noise  # no schema learnt: a link is told by its value
    derived_members = schema.derived if root else _NONE
    out: dict[str, Any] = {}
    for key, member in obj.items():
        if key in derived_members:
            continue  # rebuilt from the record's other members: stated once, in the envelope's "derived"
        if key in noise or (links_by_value and _is_link(member)):
            child = _child(path, key)
            usual = schema.usual.get(child)
            if not (usual is not None and isinstance(member, str) and _link_prefix(member) != usual):
                cuts.omitted.add(key)
                continue  # a link like all the others; one that breaks their pattern is information, kept
            cuts.deviating.setdefault(f"{_label(child)} (others under {usual}/)", []).append(member)
        if isinstance(key, str) and key.endswith(_RENDERINGS) and _is_rendering_of_sibling(key, obj):
            continue
        kind = member.__class__
        if kind is int or kind is float or kind is bool or (kind is str and 0 < len(member) <= NESTED_PREVIEW_CHARS):
            out[key] = member  # what ``_value`` returns for it at any depth (never empty, never cut): told at once
            continue
        child = _child(path, key)
        kept_empty = cuts.keep_empty and not isinstance(member, (dict, list)) and key in schema.filled.get(path, ())
        if _is_empty(member) and not kept_empty:
            cuts.empty[_label(child)] += 1
            continue
        shrunk = _value(member, child, depth + 1, schema, cuts, root=False)
        if _is_empty(shrunk) and not kept_empty:
            cuts.empty[_label(child)] += 1
        else:
            out[key] = shrunk
    return out


_NONE: frozenset[Any] = frozenset()  # no member names


def _tiny(obj: dict[str, Any]) -> bool:
    """An object of scalars about as short as the placeholder that would stand for it (a label's ``{"name":
    "bug"}`` at the end of a nested connection): cutting it saves nothing, so it is shown."""
    if len(obj) > _TINY_OBJECT_CHARS // 5:  # each member writes 5 characters at least (`"":0,`): never tiny
        return False
    return all(not isinstance(v, (dict, list)) for v in obj.values()) and len(dumps(obj)) <= _TINY_OBJECT_CHARS


def _list(items: list[Any], path: str, depth: int, schema: _Schema, cuts: Cuts) -> Any:
    if depth >= cuts.depth or (depth + 1 >= cuts.depth and any(isinstance(v, (dict, list)) for v in items)):
        cuts.deep[_label(path)] += 1
        return f"[{len(items)} items not shown]"
    pairs = _pairs(items)
    if pairs is not None:
        return {k: _value(v, f"{path}[]", depth + 1, schema, cuts, root=False) for k, v in pairs}
    child = f"{path}[]"
    if len(items) <= cuts.items:
        return [_value(v, child, depth + 1, schema, cuts, root=False) for v in items]
    if depth <= 1:
        listed = _by_identifier(items, path, depth, schema, cuts)
        if listed is not None:
            return listed
    head, tail = items[: cuts.items // 2], items[-(cuts.items // 2 - 1) :]
    cuts.lists[_label(path)] += 1
    cuts.list_items[_label(path)] += len(items) - len(head) - len(tail)
    middle = middle_marker(len(items) - len(head) - len(tail))
    return (
        [_value(v, child, depth + 1, schema, cuts, root=False) for v in head]
        + [middle]
        + [_value(v, child, depth + 1, schema, cuts, root=False) for v in tail]
    )


def _by_identifier(items: list[Any], path: str, depth: int, schema: _Schema, cuts: Cuts) -> list[Any] | None:
    """A record list beside the main one (a document member, not inside a record): its head whole and every
    other record by its identifier alone, so that none disappears; None when its items have no identifier."""
    objects = [i for i in items[: structure.SAMPLE] if isinstance(i, dict)]
    if len(objects) < len(items[: structure.SAMPLE]) or len(items) > _SIBLING_MAX:
        return None
    key = structure.identifier(objects)
    if key is None or not all(isinstance(i, dict) and structure.dotted(i, key) is not None for i in items):
        return None
    keep = max(1, cuts.items // 2)
    child = f"{path}[]"
    head = [_value(v, child, depth + 1, schema, cuts, root=False) for v in items[:keep]]
    cuts.by_id[_label(path)] += len(items) - keep
    return head + [{key: structure.dotted(v, key)} for v in items[keep:]]


_SIBLING_MAX = 2000  # longer lists beside the main one keep head and tail only


def _pairs(items: list[Any]) -> list[tuple[str, Any]] | None:
    """A list of key/value pairs (see ``structure.pairs_of``) as (name, value) pairs."""
    pairs = structure.pairs_of(items)
    return list(pairs.items()) if pairs is not None else None


def _state_once(
    records: list[Any], key: str | None, cuts: Cuts, raw: Any = None, others: Sequence[Any] = ()
) -> list[Any]:
    """Members identical in every record (3 or more), removed from the records and stated once in ``cuts.same``.
    ``others`` are the list's records left unshrunk, ``raw`` the first record before shrinking: a member is stated
    once only when it is so in those too (equal as they are, so equal once shrunk), true of the whole list. A
    member named as hostshape's envelope (``_hostshape``) stays in the records: a tool's data never writes into
    the envelope the model reads."""
    objects = [r for r in records if isinstance(r, dict)]
    if len(objects) < 3 or len(objects) < len(records):
        return records
    if others and not (isinstance(raw, dict) and all(isinstance(r, dict) for r in others)):
        return records
    first = objects[0]
    drop: list[str] = []
    room = _SAME_CHARS  # the envelope is never cut: large constants stay in the records, where fit can preview them
    for name, value in first.items():
        if name in (key, KEY):
            continue
        size = len(dumps(value)) + len(str(name))
        if size <= room and _holds(objects[1:], name, value) and _same_in(others, name, raw):
            cuts.same[name] = value
            drop.append(name)
            room -= size
    inner = _inner_constants(objects, key, drop, room, raw, others)
    cuts.same.update({f"{parent}.{name}": value for parent, members in inner.items() for name, value in members})
    if not drop and not inner:
        return records
    return [_without(r, drop, inner) for r in objects]


def _same_in(others: Sequence[dict[str, Any]], name: str, raw: Any) -> bool:
    """Whether every record of ``others`` holds ``raw``'s member ``name``, equal (true when there are none)."""
    return not others or (name in raw and _holds(others, name, raw[name]))


def _holds(records: Sequence[dict[str, Any]], name: str, value: Any) -> bool:
    """Whether every one of ``records`` has the member ``name``, equal to ``value``."""
    return all(name in r and r[name] == value for r in records)


def _inner_constants(
    objects: list[dict[str, Any]],
    key: str | None,
    dropped: list[str],
    room: int,
    raw: Any = None,
    others: Sequence[Any] = (),
) -> dict[str, list[tuple[str, Any]]]:
    """Scalar members of a record's own objects identical in every record (``status.phase`` Running in each
    pod), by parent member: stated once under their dotted path, within ``room`` characters. Names holding a dot
    are left alone (the dotted path would not name them), and so is a dotted path that is also a record's own
    member name (``"a.b"`` beside ``a.b``: one key in ``same`` would state one and drop the other)."""
    first = objects[0]
    own = set().union(*objects)
    out: dict[str, list[tuple[str, Any]]] = {}
    for parent, obj in first.items():
        if (
            parent in (KEY, *dropped)
            or not isinstance(obj, dict)
            or "." in parent
            or (key or "").startswith(parent + ".")
        ):
            continue
        if not all(isinstance(r.get(parent), dict) for r in objects[1:]):
            continue
        theirs = [r[parent] for r in objects[1:]]
        raw_parent = raw.get(parent) if others else None  # the unshrunk records' objects of this name, if any
        if others and not (isinstance(raw_parent, dict) and all(isinstance(r.get(parent), dict) for r in others)):
            continue
        others_parent = [r[parent] for r in others]
        for name, value in obj.items():
            if isinstance(value, (dict, list)) or "." in name or name == KEY or f"{parent}.{name}" in own:
                continue
            if _is_empty(value):
                continue
            size = len(dumps(value)) + len(parent) + len(name) + 1
            if size <= room and _holds(theirs, name, value) and _same_in(others_parent, name, raw_parent):
                out.setdefault(parent, []).append((name, value))
                room -= size
    return out


def _without(record: dict[str, Any], drop: list[str], inner: dict[str, list[tuple[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in record.items():
        if name in drop:
            continue
        if name in inner and isinstance(value, dict):
            gone = {n for n, _ in inner[name]}
            value = {k: v for k, v in value.items() if k not in gone}
            if not value:
                continue
        out[name] = value
    return out


def _link_prefix(url: str) -> str:
    """A link without its last path segment (and query): what links built from one template share."""
    return url.split("?", 1)[0].rsplit("/", 1)[0]


def _label(path: str) -> str:
    return path or "."


def _is_link(value: Any) -> bool:
    """An API link, or an object whose every leaf is a URL (``_links``, ``avatarUrls``, ``external_urls``)."""
    if isinstance(value, str):
        return structure.is_api_link(value)
    return isinstance(value, dict) and bool(value) and _url_leaves(value, 0) is True


def _url_leaves(value: Any, depth: int) -> bool | None:
    """None as soon as a leaf of ``value`` (below three levels, the value there; of a list, its first 20 items) is
    neither a URL nor None; else whether any leaf is a URL."""
    if depth > 3 or not isinstance(value, (dict, list)):
        if value is None:
            return False
        return True if structure.is_url(value) else None
    found = False
    for member in value.values() if isinstance(value, dict) else value[:20]:
        leaf = _url_leaves(member, depth + 1)
        if leaf is None:
            return None
        found = found or leaf
    return found


def _decoded_base64(obj: dict[str, Any]) -> dict[str, Any]:
    """``{"encoding": "base64", "content": ...}`` with the content decoded, when it is UTF-8 text (and whole: a
    ``Clipped`` content is not)."""
    content = obj.get("content")
    if obj.get("encoding") != "base64" or not isinstance(content, str) or isinstance(content, Clipped):
        return obj
    try:
        text = base64.b64decode(content, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):
        return obj
    return {**obj, "content": text, "encoding": "utf-8 (decoded from base64 by hostshape)"}


_RENDERINGS = ("_html", "_text")  # the endings of a member that may be another rendering of a sibling


def _is_rendering_of_sibling(key: str, record: dict[str, Any]) -> bool:
    """``body_html`` / ``body_text`` beside ``body``: another rendering of the same text (both are text, and most
    words of the one with fewer are in the other). ``status_text`` beside a numeric ``status``, or a label beside a
    code, says something else: it is kept."""
    if not (isinstance(key, str) and key.endswith(_RENDERINGS)):
        return False
    base, rendering = record.get(key[:-5]), record[key]
    if not (isinstance(base, str) and isinstance(rendering, str)):
        return False
    short, long = sorted((base, rendering), key=len)  # the start of the shorter is within the longer's start
    fewer = set(_WORD.findall(short[:_RENDERING_CHARS].lower()))
    more = set(_WORD.findall(long[: 4 * _RENDERING_CHARS].lower()))
    return bool(fewer) and len(fewer & more) >= _RENDERING_SHARE * len(fewer)


def _is_empty(value: Any) -> bool:
    return value is None or (not value and isinstance(value, (str, list, dict)))
