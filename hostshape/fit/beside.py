"""What sits beside a record list (a base commit, other lists, a spec's metadata), made small enough that the
list keeps most of the budget: other record lists by their identifiers, large objects as a map of their member
names with sizes, long text previewed; every step named, so nothing beside the list is cut silently."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hostshape.output.envelope import OUTLINE_STEPS, hidden_by_marker, more_marker, query_of
from hostshape.output.previews import full_length, preview
from hostshape.output.render import beside_path, dumps, with_path

REST_SHARE = 0.25  # the members beside the record list may take this share of the budget before they are outlined
RUN_SHARE = 0.4  # a list shown in part beside the records takes at most this share of their room
_ENVELOPE_SHARE = 0.12  # of the budget, kept for the envelope when sizing a list shown in part beside the records
_SAMPLE = 100  # records sampled to estimate what listing every record by one short value costs
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
        halved = _halved(member)
        smaller, note = halved if halved is not None else _smaller(member, ids.get(where))
        if note is None:
            break
        if halved is None and _is_run(member):
            smaller = member  # short items: shown in part rather than counted
        if halved is None and _is_run(smaller):  # names, ids or short items: as many as the room left for them holds
            rest = tokens(dumps(with_path(skeleton, where, "")))
            if smaller is member or tokens(dumps(smaller)) > room - rest:  # whole, it leaves no room: in part
                left = min(room - rest, int(room * RUN_SHARE), _left_by_records(value, path, room, rest, tokens))
                smaller, note = _first_that_fit(smaller, member, where, left, tokens, note)
        value = with_path(value, where, smaller)
        notes.append(f"{'.'.join(where)}: {note}")
    return value, notes


def _left_by_records(value: Any, path: tuple[str, ...], room: int, rest: int, tokens: Callable[[str], int]) -> int:
    """Tokens a list shown in part beside the records may take once the records at ``path`` are listed (each by one
    short value, the least the records stage shows of them), the rest of the document (``rest``) and the envelope
    are counted: the record list's index comes first."""
    budget = room / REST_SHARE
    listed = _at(value, path)
    if isinstance(listed, dict):
        listed = list(listed)
    if not isinstance(listed, list) or not listed:
        return room
    sample = [_short_value(item) for item in listed[:_SAMPLE]]
    need = tokens(dumps(sample)) * len(listed) / len(sample) * 1.15
    return int(budget * (1 - _ENVELOPE_SHARE) - need - rest)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        if not isinstance(value, dict) or step not in value:
            return None
        value = value[step]
    return value


def _short_value(item: Any) -> Any:
    """A record's first short scalar (the item itself when it is a scalar): what a listing of it shows at least."""
    if isinstance(item, dict):
        return next((v for v in item.values() if not isinstance(v, (dict, list)) and len(dumps(v)) <= _SHORT), None)
    return item if not isinstance(item, list) else None


def _is_run(value: Any) -> bool:
    """A list of scalars (member names, identifiers, short items) that may be shown in part."""
    return isinstance(value, list) and len(value) > 1 and all(not isinstance(v, (dict, list)) for v in value)


def _first_that_fit(
    run: list[Any], member: Any, where: tuple[str, ...], room: int, tokens: Callable[[str], int], note: str
) -> tuple[Any, str]:
    """``run`` (the names, identifiers or items of ``member``) whole when it costs at most ``room`` tokens, else its
    first items that do, with a last item saying how many more and a note naming the query that reads them all;
    the count form (``[N items]``) when not even one fits."""
    total = len(run)
    if run is not member and total <= room and tokens(dumps(run)) <= room:
        return run, note
    run = run[: max(0, room)]  # every item takes a token at least: time grows with the room, not the list
    low, high = 0, min(total - 1, len(run))
    while low < high:  # the most items whose list, with the marker, costs at most ``room``
        middle = (low + high + 1) // 2
        if tokens(dumps([*run[:middle], more_marker(total - middle)])) <= room:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return f"[{total} items]", OUTLINE_STEPS["items"].format(n=total)
    names = isinstance(member, dict)
    what = "names" if names else "items" if _is_run(member) else "records' identifiers"
    shown = [*run[:low], more_marker(total - low)]
    return shown, OUTLINE_STEPS["some"].format(shown=low, n=total, what=what, query=query_of(where, names=names))


def _halved(run: list[Any]) -> tuple[list[Any], str] | None:
    """A run already shown in part (its last item the marker), with half as many items; None for any other value."""
    hidden = hidden_by_marker(run[-1]) if isinstance(run, list) and run else None
    if hidden is None or len(run) < 3:
        return None
    keep = (len(run) - 1) // 2
    total = len(run) - 1 + hidden
    return [*run[:keep], more_marker(total - keep)], OUTLINE_STEPS["fewer"].format(shown=keep, n=total)


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
        # a map inside it by its names (the next step, if one is needed, counts them)
        sized = {k: list(v) if isinstance(v, dict) and is_map(v) else outline_size(v) for k, v in member.items()}
        return sized, OUTLINE_STEPS["sizes"]
    if isinstance(member, str) and len(member) > _TEXT_CHARS:
        return preview(member, _TEXT_CHARS), OUTLINE_STEPS["text"].format(cut=_TEXT_CHARS, n=full_length(member))
    return member, None


def is_map(value: dict[str, Any]) -> bool:
    """A map: many members whose values have one shape (all objects, or all lists), so its keys name what it holds
    (paths, versions, packages, ids), whatever the keys are called."""
    if len(value) < MAP_MEMBERS:
        return False
    objects = sum(isinstance(v, dict) for v in value.values())
    lists = sum(isinstance(v, list) for v in value.values())
    return max(objects, lists) >= len(value) * 0.9


MAP_MEMBERS = 16


def outline_size(value: Any) -> Any:
    """A member of an outlined object: a short scalar as itself, anything else as its size."""
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return f"{{{len(value)} members}}"
    if isinstance(value, str) and len(value) > _SHORT:
        return f"<{full_length(value):,} chars>"
    return value
