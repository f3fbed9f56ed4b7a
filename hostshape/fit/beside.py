"""What sits beside a record list (a base commit, other lists, a spec's metadata), made small enough that the
list keeps most of the budget: other record lists by their identifiers, large objects as a map of their member
names with sizes, long text previewed; every step named, so nothing beside the list is cut silently."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hostshape.output.previews import preview
from hostshape.output.render import dumps
from hostshape.records.structure import dotted, identifier, is_key_like

REST_SHARE = 0.25  # the members beside the record list may take this share of the budget before they are outlined
_SHORT = 40  # scalar members of an outlined object up to this many characters are shown as they are


def outlined(value: Any, path: tuple[str, ...], room: int, tokens: Callable[[str], int]) -> tuple[Any, list[str]]:
    """``value`` with the members beside the record list at ``path`` made smaller, largest first, until the
    document without its records costs at most ``room`` tokens (estimated by ``tokens``); and notes naming each
    step. Unchanged (no notes) when it already fits or there is nothing beside the list."""
    notes: list[str] = []
    for _ in range(12):  # each round shrinks the largest member one step
        skeleton = _with(value, path, [])
        if tokens(dumps(skeleton)) <= room:
            break
        members = _beside(value, path, ())
        if not members:
            break
        where, member = max(members, key=lambda m: len(dumps(m[1])))
        smaller, note = _smaller(member)
        if note is None:
            break
        value = _with(value, where, smaller)
        notes.append(f"{'.'.join(where)}: {note}")
    return value, notes


def _beside(value: Any, path: tuple[str, ...], at: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """The members of the objects along ``path``, other than the step towards the records."""
    if not isinstance(value, dict) or not path:
        return []
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, member in value.items():
        if key == path[0]:
            out += _beside(member, path[1:], (*at, key))
        elif len(dumps(member)) > 2 * _SHORT:
            out.append(((*at, key), member))
    return out


def _with(value: Any, path: tuple[str, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    copy = dict(value)
    copy[path[0]] = _with(value[path[0]], path[1:], replacement)
    return copy


def _smaller(member: Any) -> tuple[Any, str | None]:
    """One step smaller: a record list by its identifiers, an object as its member names with sizes, a list or an
    object already outlined as a count, long text as a preview; None as the note when nothing is left to cut."""
    if isinstance(member, list):
        if all(not isinstance(i, (dict, list)) for i in member):
            return f"[{len(member)} items]", f"{len(member)} items not shown"
        ids = _identifiers(member)
        if ids is not None:
            return ids, f"{len(member)} records shown by their identifier only"
        return f"[{len(member)} items]", f"{len(member)} items not shown"
    if isinstance(member, dict):
        if all(not isinstance(v, (dict, list)) and len(dumps(v)) <= _SHORT for v in member.values()):
            return list(member), f"an object of {len(member)} short members shown by their names only"
        return {k: _size(v) for k, v in member.items()}, "shown as its member names with their sizes"
    if isinstance(member, str) and len(member) > 200:
        return preview(member, 200), f"text cut at 200 of {len(member):,} chars"
    return member, None


def _identifiers(items: list[Any]) -> list[Any] | None:
    """The identifier of each record of a list of objects (each present and scalar), else None."""
    objects = [i for i in items if isinstance(i, dict)]
    if len(objects) < len(items) or len(objects) < 2:
        return None
    key = identifier(objects)
    if key is None:
        return None
    ids = [dotted(i, key) for i in objects]
    return ids if all(is_key_like(v) for v in ids) else None


def _size(value: Any) -> Any:
    """A member of an outlined object: a short scalar as itself, anything else as its size."""
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return f"{{{len(value)} members}}"
    if isinstance(value, str) and len(value) > _SHORT:
        return f"<{len(value):,} chars>"
    return value
