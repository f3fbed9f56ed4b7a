"""Derived members: string members rebuilt exactly from other members of the same record, stated once as a
template (the envelope's ``derived``) instead of in every record, and so neither repeated nor dropped.

A member is derived when, in every record checked, its value is one template filled with that record's own
values: a link, path or URI (no whitespace: text a model reads stays in the records) built from the record's name
and group (``https://host/v1/{items:key}/machineTypes/{name}``), or from another derived member
(``{url}/comments``). It is decided from the values alone: learnt on a bounded sample (the varying short values
of a record found inside the candidate, the rest constant text), then checked on every record up to ``CHECKED``
(beyond, on ``CHECKED`` spread over the list) and on every record shown.

Template syntax (``template_text``; ``parse`` reads it back):

- ``{path}`` is the value of the record's member at ``path``: a string as it is, an integer in decimal;
- ``path`` is one member name, or a member and its member (one level down) joined by ``.``; a name that is empty
  or holds ``.``, ``{``, ``}``, ``"`` or ``\\`` is written as a JSON string (``{"a.b"}``, ``{meta."x.y"}``);
- ``{{`` and ``}}`` are literal braces;
- a template may name a member derived before it, in the envelope's order (rebuild them in that order).

A path of two steps reads the nested member, or, in a flattened row (a table, an index), the column named by both
steps joined by ``.``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Path = tuple[str, ...]
Piece = str | Path  # constant text, or the path of a member whose value fills it

LEARN = 20  # records a template is learnt from, spread over the list
CHECKED = 5_000  # records a template is checked on, at most (spread over a longer list), as the index its key
MIN_CHARS = 16  # shorter strings are not worth a template
MAX_CHARS = 2048  # longer strings are text, not something built from a record's values
MAX_SOURCE_CHARS = 120  # values longer than this do not fill a template
MAX_MEMBERS = 512  # members of a record looked at (a record of thousands of members costs a bounded look)
MAX_CANDIDATES = 48  # members tried as derived, at most
MAX_SOURCES = 256  # values tried as a template's fillings, at most
ROOM = 600  # characters of names and templates stated in the envelope, at most (a bounded envelope)
_BASES = 3  # records a template is learnt from in turn (a short value may sit inside another one's text)
_RETRIES = 3  # fillings left out, shortest first, when a template learnt from the first record fails on another
_NEEDS = 3  # records, at least: fewer tell nothing about a pattern


@dataclass(frozen=True)
class Template:
    """A derived member's template: constant text and member paths, in order."""

    pieces: tuple[Piece, ...]

    @property
    def paths(self) -> list[Path]:
        return [p for p in self.pieces if isinstance(p, tuple)]

    def render(self, record: Mapping[str, Any]) -> str | None:
        """The value this template gives for ``record``; None when a path is missing or not a string or integer."""
        out: list[str] = []
        for piece in self.pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            value = _filling(resolve(record, piece))
            if value is None:
                return None
            out.append(value)
        return "".join(out)

    @property
    def text(self) -> str:
        return template_text(self.pieces)


def resolve(record: Mapping[str, Any], path: Path) -> Any:
    """The value at ``path`` in ``record``: the nested member, else (a flattened row) the member named by the
    steps joined by ``.``; None when absent."""
    node: Any = record
    for step in path:
        if not isinstance(node, dict) or step not in node:
            break
        node = node[step]
    else:
        return node
    return record.get(".".join(path)) if len(path) > 1 else None


def _filling(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) else None


def template_text(pieces: Sequence[Piece]) -> str:
    """The template as the envelope states it (see the module docstring)."""
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece.replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{" + ".".join(_step(s) for s in piece) + "}")
    return "".join(out)


def _step(name: str) -> str:
    return json.dumps(name, ensure_ascii=False) if not name or any(c in name for c in '.{}"\\') else name


def parse(text: str) -> Template | None:
    """The template ``text`` states (``template_text``'s inverse); None when it is not one."""
    pieces: list[Piece] = []
    const: list[str] = []
    at, n = 0, len(text)
    while at < n:
        c = text[at]
        if c in "{}" and text.startswith(c * 2, at):
            const.append(c)
            at += 2
            continue
        if c == "}":
            return None
        if c != "{":
            const.append(c)
            at += 1
            continue
        steps, at = _path(text, at + 1)
        if steps is None:
            return None
        if const:
            pieces.append("".join(const))
            const = []
        pieces.append(steps)
    if const:
        pieces.append("".join(const))
    return Template(tuple(pieces))


def _path(text: str, at: int) -> tuple[Path | None, int]:
    """The path of a placeholder starting at ``at`` (after its ``{``), and where its ``}`` ends."""
    steps: list[str] = []
    decoder = json.JSONDecoder()
    while True:
        if text.startswith('"', at):
            try:
                name, at = decoder.raw_decode(text, at)
            except ValueError:
                return None, at
        else:
            end = at
            while end < len(text) and text[end] not in '.{}"\\':
                end += 1
            name, at = text[at:end], end
            if not name:
                return None, at
        steps.append(name)
        if text.startswith("}", at):
            return tuple(steps), at + 1
        if not text.startswith(".", at):
            return None, at
        at += 1


def rebuilt(record: Mapping[str, Any], templates: Mapping[str, str]) -> dict[str, Any]:
    """``record`` with each derived member it lacks rebuilt, in order, from the envelope's ``derived``
    (``templates``: member -> template text); a template whose members the record lacks is left out."""
    out = dict(record)
    for name, text in templates.items():
        template = parse(text) if name not in out else None
        value = template.render(out) if template is not None else None
        if value is not None:
            out[name] = value
    return out


# ---- learning and checking ------------------------------------------------------------------------------------


def learn(
    records: Sequence[Any],
    kept: Callable[[Path, Any], bool],
    *,
    exclude: frozenset[str] = frozenset(),
    prefer: Sequence[str] = (),
    named: bool = True,
) -> dict[str, Template]:
    """The members of ``records`` (objects) each rebuilt by one template in ``LEARN`` of them spread over the
    list (a list of groups flattened varies from group to group), in dependency order. A template is filled only
    by values the answer shows: ``kept(path, value)`` says whether the member at ``path`` stays in the shown
    record (it is not dropped as a link or a token, its object not collapsed), or by members derived before it.
    Members in ``exclude`` (the identifier) are never derived; values of ``prefer`` (the index's columns) fill a
    template first. The templates take ``ROOM`` characters at most, shorter members first.

    A template costs about one value, so it replaces a shown member's values at a saving; a member the answer
    would drop (a link) costs only its name in ``omitted``, so it is derived only when it names the records and
    nothing shown does (``named`` False: no shown identifier is unique): it is unique in the sample."""
    sample = [r for at in _positions(len(records), LEARN) if isinstance(r := records[at], dict)]
    if len(sample) < _NEEDS or len(sample) < len(_positions(len(records), LEARN)):
        return {}
    first = sample[0]
    plain = _sources(sample, kept)
    rank = {name: i for i, name in enumerate(prefer)}
    candidates = [
        name
        for name in _candidates(sample, exclude)
        if kept((name,), first[name]) or (not named and len({r[name] for r in sample}) == len(sample))
    ]
    candidates.sort(key=lambda name: len(first[name]))
    derived: dict[str, Template] = {}
    used: set[str] = set()
    room = ROOM
    for name in candidates:
        if name in used:
            continue  # shown, and filling a template already
        sources = {p: v for p, v in plain.items() if p[0] != name} | {(d,): [r[d] for r in sample] for d in derived}
        template = _learnt(sample, name, sources, rank)
        size = len(json.dumps({name: template.text}, ensure_ascii=False)) if template is not None else room + 1
        if template is None or size > room:
            continue
        room -= size
        derived[name] = template
        used.update(p[0] for p in template.paths if p[0] not in derived)
    return derived


def _candidates(sample: list[dict[str, Any]], exclude: frozenset[str]) -> list[str]:
    """Members that are machine strings of template size in every sampled record (links, paths, URIs, resource
    names: no whitespace; text a model reads, a title or a message, stays in the records), not all one value
    (``same`` states those)."""
    first = sample[0]
    out: list[str] = []
    for name, value in list(first.items())[:MAX_MEMBERS]:
        if len(out) >= MAX_CANDIDATES:
            break
        if name in exclude or not _machine(value):
            continue
        values = [r.get(name) for r in sample]
        if all(_machine(v) for v in values) and len(set(values)) > 1:
            out.append(name)
    return out


def _machine(value: Any) -> bool:
    return isinstance(value, str) and MIN_CHARS <= len(value) <= MAX_CHARS and not any(c.isspace() for c in value)


def _sources(sample: list[dict[str, Any]], kept: Callable[[Path, Any], bool]) -> dict[Path, list[str]]:
    """The values that may fill a template, by path, one per sampled record: the first record's short strings and
    integers, and those of its objects one level down, that the answer shows and that are short in every sampled
    record and not all one value (a constant is part of the constant text)."""
    first = sample[0]
    paths: list[Path] = []
    for name, value in list(first.items())[:MAX_MEMBERS]:
        if len(paths) >= MAX_SOURCES:
            break
        if isinstance(value, dict):
            if kept((name,), value):
                inner = [(name, k) for k, v in list(value.items())[:MAX_MEMBERS] if _short(v) and kept((name, k), v)]
                paths.extend(inner[: MAX_SOURCES - len(paths)])
        elif _short(value) is not None and kept((name,), value):
            paths.append((name,))
    out: dict[Path, list[str]] = {}
    for path in paths:
        values = [v for r in sample if (v := _short(resolve(r, path))) is not None]
        if len(values) == len(sample) and len(set(values)) > 1:
            out[path] = values
    return out


def _short(value: Any) -> str | None:
    filling = _filling(value)
    return filling if filling and len(filling) <= MAX_SOURCE_CHARS else None


def _learnt(
    sample: list[dict[str, Any]], name: str, sources: Mapping[Path, list[str]], rank: Mapping[str, int]
) -> Template | None:
    """The template of member ``name`` that every sampled record satisfies, learnt from one of the first few:
    the values found in it (longest first, those of ``rank`` first among equals; first where they stand between
    word boundaries, then anywhere) become paths, the rest constant text; failing that, the same with the
    shortest filling left out, a few times. None when none holds, or it has no constant text (a copy)."""
    for at in range(min(_BASES, len(sample))):
        value = sample[at][name]
        found = [
            (p, v[at])
            for p, v in sources.items()
            if v[at] in value and all(x in r[name] for x, r in zip(v, sample, strict=True))
        ]
        found.sort(key=lambda pv: (-len(pv[1]), rank.get(".".join(pv[0]), len(rank)), pv[0]))
        for bounded in (True, False):
            tried = found
            for _ in range(_RETRIES + 1):
                template, used = _tiled(value, tried, bounded)
                if template is None:
                    break
                if any(isinstance(p, str) for p in template.pieces) and all(
                    template.render(r) == r[name] for r in sample
                ):
                    return template
                shortest = min(used, key=lambda p: (len(dict(tried)[p]), p))
                tried = [(p, v) for p, v in tried if p != shortest]
    return None


def _tiled(value: str, found: list[tuple[Path, str]], bounded: bool) -> tuple[Template | None, list[Path]]:
    """``value`` as constant text and the paths of ``found`` values it holds (each occurrence not overlapping
    one taken before; ``bounded``: only where it does not cut a word or number, a letter or digit on both sides
    of its edge), and the paths used; None when no value is used."""
    spans: list[tuple[int, int, Path]] = []
    for path, filling in found:
        start = value.find(filling)
        while start >= 0:
            end = start + len(filling)
            free = all(end <= a or start >= b for a, b, _ in spans)
            if free and (not bounded or _bounded(value, start, end)):
                spans.append((start, end, path))
            start = value.find(filling, end if free else start + 1)
    if not spans:
        return None, []
    spans.sort()
    pieces: list[Piece] = []
    at = 0
    for start, end, path in spans:
        if start > at:
            pieces.append(value[at:start])
        pieces.append(path)
        at = end
    if at < len(value):
        pieces.append(value[at:])
    return Template(tuple(pieces)), sorted({p for _, _, p in spans})


def _bounded(value: str, start: int, end: int) -> bool:
    """Whether ``value[start:end]`` cuts no run of letters or digits at either edge."""
    before = start == 0 or not (value[start - 1].isalnum() and value[start].isalnum())
    after = end == len(value) or not (value[end - 1].isalnum() and value[end].isalnum())
    return before and after


def checked(templates: Mapping[str, Template], records: Sequence[Any]) -> dict[str, Template]:
    """The ``templates`` that hold on every record checked: each of ``records`` up to ``CHECKED`` (of a longer
    list, ``CHECKED`` spread over it, its last included). A template that names a member derived before it holds
    only while that one does."""
    positions = _positions(len(records), CHECKED)
    out: dict[str, Template] = {}
    for name, template in templates.items():
        if any(p[0] in templates and p[0] not in out for p in template.paths):
            continue
        if all(isinstance(r := records[at], dict) and template.render(r) == r.get(name) for at in positions):
            out[name] = template
    return out


def _positions(n: int, most: int) -> Sequence[int]:
    """``most`` positions spread evenly over ``n`` records, the first and the last included (all, when fewer)."""
    if n <= most:
        return range(n)
    step = (n - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def unchecked(total: int) -> int:
    """How many of ``total`` records ``checked`` leaves unchecked."""
    return total - len(_positions(total, CHECKED))


def shown_hold(
    templates: Mapping[str, Template], originals: Sequence[Any], shown: Sequence[Any], same: Mapping[str, Any]
) -> dict[str, Template]:
    """The ``templates`` that rebuild each original value from the record as shown (``shown[i]`` of
    ``originals[i]``, with the members ``same`` states for every record), rebuilding in order: a filling the
    shrink changed or dropped would make a derived value wrong."""
    held = dict(templates)
    pairs = [
        (original, {**same, **record})
        for original, record in zip(originals, shown, strict=False)
        if isinstance(original, dict) and isinstance(record, dict)
    ]
    for name, template in templates.items():
        if any(p[0] in templates and p[0] not in held for p in template.paths):
            del held[name]
            continue
        for original, view in pairs:
            value = template.render(view)
            if value != original.get(name):
                del held[name]
                break
            view[name] = value
    return held
