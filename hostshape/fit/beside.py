"""What sits beside a record list (a base commit, other lists, a spec's metadata), made small enough that the
list keeps most of the budget: other record lists by their identifiers, large objects as a map of their member
names with sizes, long text previewed; every step named, so nothing beside the list is cut silently."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hostshape.output.envelope import OUTLINE_STEPS
from hostshape.output.previews import preview
from hostshape.output.render import beside_path, dumps, with_path

REST_SHARE = 0.25  # the members beside the record list may take this share of the budget before they are outlined
_TEXT_CHARS = 200  # long text beside the record list is previewed at this many characters
_SHORT = 40  # scalar members of an outlined object up to this many characters are shown as they are


def outlined(
    value: Any,
    path: tuple[str, ...],
    room: int,
    tokens: Callable[[str], int],
    ids: Mapping[tuple[str, ...], list[Any]],
) -> tuple[Any, list[str]]:
    """``value`` with the members beside the record list at ``path`` made smaller, largest first, until the
    document without its records costs at most ``room`` tokens (estimated by ``tokens``); and notes naming each
    step. ``ids`` are the identifiers of the records of each other record list beside it, by where it is (the
    records stage found them): such a list is shown by them. Unchanged (no notes) when it already fits or there is
    nothing beside the list."""
    notes: list[str] = []
    for _ in range(12):  # each round shrinks the largest member one step
        skeleton = with_path(value, path, [])
        if tokens(dumps(skeleton)) <= room:
            break
        members = [(where, m) for where, m in beside_path(value, path) if len(dumps(m)) > 2 * _SHORT]
        if not members:
            break
        where, member = max(members, key=lambda m: len(dumps(m[1])))
        smaller, note = _smaller(member, ids.get(where))
        if note is None:
            break
        value = with_path(value, where, smaller)
        notes.append(f"{'.'.join(where)}: {note}")
    return value, notes


def _smaller(member: Any, ids: list[Any] | None) -> tuple[Any, str | None]:
    """One step smaller: a record list by its identifiers, an object as its member names with sizes, a list or an
    object already outlined as a count, long text as a preview; None as the note when nothing is left to cut."""
    if isinstance(member, list):
        if all(not isinstance(i, (dict, list)) for i in member):
            return f"[{len(member)} items]", OUTLINE_STEPS["items"].format(n=len(member))
        if ids is not None:
            return ids, OUTLINE_STEPS["ids"].format(n=len(member))
        return f"[{len(member)} items]", OUTLINE_STEPS["items"].format(n=len(member))
    if isinstance(member, dict):
        if all(not isinstance(v, (dict, list)) and len(dumps(v)) <= _SHORT for v in member.values()):
            return list(member), OUTLINE_STEPS["names"].format(n=len(member))
        return {k: _size(v) for k, v in member.items()}, OUTLINE_STEPS["sizes"]
    if isinstance(member, str) and len(member) > _TEXT_CHARS:
        return preview(member, _TEXT_CHARS), OUTLINE_STEPS["text"].format(cut=_TEXT_CHARS, n=len(member))
    return member, None


def _size(value: Any) -> Any:
    """A member of an outlined object: a short scalar as itself, anything else as its size."""
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return f"{{{len(value)} members}}"
    if isinstance(value, str) and len(value) > _SHORT:
        return f"<{len(value):,} chars>"
    return value
