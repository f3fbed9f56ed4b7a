"""Fit one value that is not a record list: cut its largest members first, identifiers last."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from hostshape.fit._base import Fitted, last_resort
from hostshape.fit.beside import is_map, outline_size
from hostshape.fit.budget import Limit, TokenEstimate
from hostshape.fit.rebuild import with_members
from hostshape.output.envelope import (
    AS_JSON_START,
    Facts,
    WayBack,
    hidden_by_marker,
    hidden_in_middle,
    members_cut,
    middle_marker,
    more_marker,
    object_json,
    preview_json,
    query_of,
)
from hostshape.output.previews import full_length, own_chars
from hostshape.output.render import dumps
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

# Generic identifier words kept whole by member cutting (a tie-breaker here, not a rule of the records stage).
IDENTIFIERS: tuple[str, ...] = ("number", "id", "key", "name", "title", "path", "filename", "state", "status")


Place = tuple[str | int, ...]  # keys and list positions from the top of a value
Record = tuple[Place, str]  # where a record stands in a value, and the query reading it from the saved result


def fit_object(
    value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: str | None = None, record: Record | None = None
) -> Fitted:
    """See ``_fit_object``; sizes of members are measured once per call. ``record``: where in ``value`` a record
    stands and the query that reads it from the saved result (cuts inside it are named from there)."""
    with _remembered_sizes():
        return _fit_object(value, facts, limit, way, cursor, record)


def _fit_object(
    value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: str | None = None, record: Record | None = None
) -> Fitted:
    """Fit one value by cutting its largest members first, as little as the limit allows.

    The cut is a size in bytes searched for between "known to fit" and "known too large", steered by estimated
    tokens; candidates are counted exactly only when the estimate says they may fit. It stops once a fit uses
    over 85% of the limit.
    """

    def render(current: Any, cut: bool = False) -> str:
        named = (
            dataclasses.replace(facts, notes=[*facts.notes, members_cut(*cuts_in(current, record=record))])
            if cut
            else facts
        )
        return object_json(named, way, cursor, current)

    text = render(value)
    if limit.fits(text):
        return Fitted(text, facts, "object")
    facts = dataclasses.replace(facts, truncated=True)  # the caller's facts stay as they were
    best_value: Any = None
    ratio = TokenEstimate(limit)
    fits_at, too_big_at = 0, dumps_size(value)
    best: str | None = None
    target = int(too_big_at * min(0.9, limit.tokens / ratio.estimate(text)))
    for _ in range(12):
        if target <= fits_at or target >= too_big_at:
            target = (fits_at + too_big_at) // 2
        if target <= fits_at:
            break
        current = cut_to_bytes(value, target)
        text = render(current, cut=True)
        used = ratio.estimate(text)
        if used <= limit.tokens * 1.05:
            used = _tokens_or_bytes(text, limit)
            ratio.learn(text, used)
        if used <= limit.tokens and (limit.chars is None or len(text) <= limit.chars):
            best, fits_at, best_value = text, target, current
            if used >= limit.tokens * 0.85:
                break
        else:
            too_big_at = target
        target = int(target * limit.tokens / max(used, 1) * 0.97)
    if best is not None:
        return Fitted(
            best,
            dataclasses.replace(facts, notes=[*facts.notes, members_cut(*cuts_in(best_value, record=record))]),
            "object",
        )
    return _json_preview(value, facts, limit, way, cursor)


def _json_preview(value: Any, facts: Facts, limit: Limit, way: WayBack, cursor: str | None) -> Fitted:
    """The start of the value's compact JSON as one string: for structures whose members cannot be cut to fit."""
    plain = facts
    facts = dataclasses.replace(facts, notes=[*facts.notes, AS_JSON_START])
    source = dumps(value)[: limit.tokens * 8]
    low, high, best = 0, len(source), None
    for _ in range(14):
        if low > high:
            break
        middle = (low + high) // 2
        text = preview_json(facts, way, cursor, source[:middle] + "…")
        if limit.fits(text):
            best, low = text, middle + 1
        else:
            high = middle - 1
    if best is not None and low > 1:
        return Fitted(best, facts, "preview")
    return last_resort(True, way, limit, plain)


def narrow_wide(value: Any, text_chars: int, limit: Limit) -> tuple[Any, int]:
    """``value`` with every object too wide for any answer within ``limit`` cut to its first members (and its
    identifiers), the marker ``"…": "+N more members"`` saying how many more, and the number of members cut.

    A budget of T tokens shows at most T members, so an object is cut to ``WIDE_MEMBERS_PER_TOKEN * T`` members
    (room for members projection drops as empty or noise). This keeps projection and fitting of a million-member
    object in time proportional to the budget. Only the first items of each list and members of each object are
    walked into, with a bounded number of steps, and none whose JSON is too short to hold such an object; a value
    whose JSON text (``text_chars`` long) is that short is returned at once.
    """
    most = WIDE_MEMBERS_PER_TOKEN * limit.tokens + 64
    if text_chars < 4 * most:  # every member takes at least 4 characters (``"":0``)
        return value, 0
    walk = _WideWalk(most, WIDE_WALK_STEPS_PER_MEMBER * most, 2 * text_chars)
    narrowed = walk.walk(value, 0)
    return narrowed, walk.cut


@dataclasses.dataclass
class _WideWalk:
    """One ``narrow_wide`` walk: objects of more than ``most`` members are cut, within ``steps`` members visited;
    ``rendered`` bytes may be rendered to tell subtrees too small to hold such an object (then a deep chain
    is walked instead); ``cut`` counts the members cut."""

    most: int
    steps: int
    rendered: int
    cut: int = 0

    def walk(self, item: Any, depth: int) -> Any:
        if self.steps <= 0 or depth > _MAX_REDUCE_DEPTH or not isinstance(item, (dict, list)):
            return item
        item = self._narrow(item)
        members = iter(item.items() if isinstance(item, dict) else enumerate(item[: self.most]))
        changed: dict[Any, Any] = {}
        for key, member in itertools.islice(members, _DEEP_ITEMS):
            self.steps -= 1
            if self.steps <= 0:
                return with_members(item, changed)
            if isinstance(member, (dict, list)) and not self._too_small(member):
                new = self.walk(member, depth + 1)
                if new is not member:
                    changed[key] = new
        # Later list items and members: only their own width is checked, one step each as above (the member met
        # when no step is left costs one too and is not checked), the wide ones found by one comprehension.
        room = max(0, self.steps - 1)
        later = list(itertools.islice(members, room + 1))
        self.steps -= len(later)
        for key, member in [(k, m) for k, m in later[:room] if isinstance(m, dict) and len(m) > self.most]:
            changed[key] = self._narrow(member)
        return with_members(item, changed)

    def _narrow(self, item: Any) -> Any:
        """``item`` cut to ``most`` members when it is an object wider than that (counted in ``cut``)."""
        if not isinstance(item, dict) or len(item) <= self.most:
            return item
        narrowed = _narrowed(item, self.most)
        self.cut += _hidden_members(narrowed)
        return narrowed

    def _too_small(self, member: dict[Any, Any] | list[Any]) -> bool:
        """``member`` (of at most ``_DEEP_ITEMS`` members: a record, not the list of them) has a compact JSON too
        short to hold an object wider than ``most`` (4 bytes a member), rendered at C speed while ``rendered``
        lasts; False when it cannot be told so."""
        if len(member) > _DEEP_ITEMS or self.rendered <= 0:
            return False
        try:
            size = len(orjson.dumps(member))
        except (TypeError, orjson.JSONEncodeError):
            return False  # a value JSON cannot carry as it is: walked
        self.rendered -= size
        return size < 4 * self.most


WIDE_MEMBERS_PER_TOKEN = 4
WIDE_WALK_STEPS_PER_MEMBER = 8
_DEEP_ITEMS = 64  # items of a list (members of an object) walked into; the others (records, or a map's, no budget
# shows whole) are checked for width


def _tokens_or_bytes(text: str, limit: Limit) -> int:
    """Exact tokens of ``text`` when it is of budget size, else its byte length (an upper bound)."""
    return limit.count(text) if len(text) <= limit.tokens * SURELY_OVER_CHARS_PER_TOKEN else len(text.encode("utf-8"))


def dumps_size(value: Any) -> int:
    """UTF-8 size of ``value``'s compact JSON; remembered per container during one ``fit_object`` (``cut_to_bytes``
    asks again for every member at every level, which must not re-render the same subtree each time)."""
    memo: dict[int, tuple[Any, int]] | None = getattr(_sizes, "memo", None)
    if memo is None or not isinstance(value, (dict, list)):
        return len(dumps(value).encode("utf-8"))
    known = memo.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    size = len(dumps(value).encode("utf-8"))
    memo[id(value)] = (value, size)  # the value is kept alive, so its id cannot be reused meanwhile
    return size


_sizes = threading.local()


@contextmanager
def _remembered_sizes() -> Iterator[None]:
    """Within this block, ``dumps_size`` remembers the sizes of containers (per thread; nesting keeps the
    outer memo)."""
    if getattr(_sizes, "memo", None) is not None:
        yield
        return
    _sizes.memo = {}
    try:
        yield
    finally:
        _sizes.memo = None


def cut_to_bytes(value: Any, target: int, depth: int = 0) -> Any:
    """``value`` cut so that its compact JSON takes about ``target`` bytes: large members are shortened largest
    first, then members are dropped from the end (identifiers last), with a marker saying how many. Time grows
    with ``target``, not with ``value``: a container with more members than ``target`` bytes could hold is cut
    to that many before anything is measured."""
    most = _most_members(target)
    if isinstance(value, dict) and len(value) > most:
        value = _narrowed(value, most)
    size = target + 1 if isinstance(value, list) and len(value) > most else dumps_size(value)
    if size <= target:
        return value
    if isinstance(value, str) or depth >= _MAX_REDUCE_DEPTH:
        text = value if isinstance(value, str) else dumps(value)
        keep = max(0, min(own_chars(text), int(len(text) * (target - 24) / size)))
        return f"{text[:keep]}…[+{full_length(text) - keep:,} chars]"
    if isinstance(value, list):
        middle = next((i for i, item in enumerate(value) if hidden_in_middle(item) is not None), None)
        if middle is not None:
            both = _head_and_tail(value, middle, target)
            if both is not None:
                return both
        kept, used = [], 2
        for item in value:
            item_size = dumps_size(item) + 1
            if used + item_size > target - 16:
                break
            kept.append(item)
            used += item_size
        if not kept and value:
            kept = [cut_to_bytes(value[0], target - 24, depth + 1)]
        if len(kept) < len(value):
            kept.append(more_marker(len(value) - len(kept)))
        return kept
    if isinstance(value, dict):
        return _reduce_object(value, size, target, depth)
    return value


def _head_and_tail(value: list[Any], middle: int, target: int) -> list[Any] | None:
    """A list the shrink showed by its head and tail (``value[middle]`` the marker between them) cut to about
    ``target`` bytes the same way: as many items from each end as fit, taken in turn, and one marker for all the
    items between (a series keeps its latest values as well as its first); None when not one item of each end fits.
    """
    head, tail = value[:middle], value[middle + 1 :]
    hidden = hidden_in_middle(value[middle]) or 0
    kept_head: list[Any] = []
    kept_tail: list[Any] = []
    used = 2 + _MARKER
    full = False
    for i in range(max(len(head), len(tail))):
        for side, items in ((kept_head, head), (kept_tail, tail[::-1])):
            size = dumps_size(items[i]) + 1 if i < len(items) else 0
            full = full or used + size > target
            if size and not full:
                side.append(items[i])
                used += size
        if full:
            break
    if not kept_head or not kept_tail:
        return None
    kept_tail.reverse()
    between = hidden + len(head) - len(kept_head) + len(tail) - len(kept_tail)
    return [*kept_head, middle_marker(between), *kept_tail]


_MAX_REDUCE_DEPTH = 64
_SMALL = 64  # bytes: members this small are dropped whole rather than shortened
_MARKER = 32  # bytes a cut member's marker may take


def _most_members(target: int) -> int:
    """The most members a compact JSON text of ``target`` bytes can hold (``"":0,`` takes 5 bytes, ``0,`` 2),
    with room for the markers."""
    return max(8, target // 2 + 2)


def _narrowed(value: dict[str, Any], most: int) -> dict[str, Any]:
    """The first ``most`` members of an object (and its identifiers, wherever they are), with the marker
    ``cut_to_bytes`` uses saying how many more there were."""
    hidden = _hidden_members(value)  # members an earlier cut left out, named by its marker
    members = len(value) - (1 if hidden else 0)
    keys = [k for k in itertools.islice(value, most + 1) if k != "…" or not hidden][:most]
    kept = set(keys)
    keys += [k for k in IDENTIFIERS if k in value and k not in kept]
    out = {k: value[k] for k in keys}
    out["…"] = f"+{hidden + members - len(keys)} more members"
    return out


def _reduce_object(value: dict[str, Any], size: int, target: int, depth: int) -> dict[str, Any]:
    hidden = _hidden_members(value)
    if hidden:
        value = {k: v for k, v in value.items() if k != "…"}
    if is_map(value):
        return _by_keys(value, target, hidden, depth)
    sizes = {k: dumps_size(v) for k, v in value.items()}
    excess = size - target
    out = dict(value)
    cuttable = [k for k in sizes if sizes[k] >= _SMALL and k not in IDENTIFIERS]
    room = sum(sizes[k] for k in cuttable) - excess - _MARKER * len(cuttable)  # a cut member ends with a marker
    floors = {k: min(sizes[k], _keys_floor(value[k])) for k in cuttable}  # the keys of maps come first
    if sum(floors.values()) > room:
        floors = dict.fromkeys(cuttable, 0)
    level = _water_level([sizes[k] - floors[k] for k in cuttable], room - sum(floors.values()))
    # every large member is cut to the same size above its floor: one large member does not starve the others
    for key in sorted(cuttable, key=lambda k: floors[k] - sizes[k]):
        if excess <= 0 or sizes[key] - floors[key] <= level:
            break
        out[key] = cut_to_bytes(value[key], max(16, floors[key] + level), depth + 1)
        excess -= sizes[key] - dumps_size(out[key])
    if excess > 0:
        keys = list(out)
        order = [k for k in reversed(keys) if k not in IDENTIFIERS] + [k for k in reversed(keys) if k in IDENTIFIERS]
        dropped = 0
        for key in order[:-1]:  # keep at least one member
            if excess <= 0:
                break
            excess -= dumps_size(out.pop(key)) + len(dumps(key)) + 2
            dropped += 1
        if dropped or hidden:
            out["…"] = f"+{dropped + hidden} more members"
    elif hidden:
        out["…"] = f"+{hidden} more members"
    return out


def cuts_in(shown: Any, most: int = 4, record: Record | None = None) -> tuple[list[tuple[str, int, int, str]], int]:
    """Where ``cut_to_bytes`` cut members or items out of ``shown``, outermost first: the first ``most`` places, each
    as (place, how many shown, how many there were, the JMESPath query that reads them all), and how many places
    in all (each is marked where it is). ``record`` (its place in ``shown``, the query that reads it from the saved
    result): a place inside it is read from there (a page's first record is not the list's first)."""
    found: list[tuple[str, int, int, str]] = []
    places = 0
    level: list[tuple[tuple[str | int, ...], Any]] = [((), shown)]
    for _ in range(_MAX_CUT_DEPTH):
        deeper: list[tuple[tuple[str | int, ...], Any]] = []
        for where, item in level:
            kept, more, names = 0, None, False
            if isinstance(item, dict):
                kept, more, names = len(item) - 1, _hidden_members(item) or None, True
                deeper += [((*where, str(k)), v) for k, v in item.items() if isinstance(v, (dict, list))]
            elif isinstance(item, list) and item:
                kept, more = len(item) - 1, hidden_by_marker(item[-1])
                deeper += [((*where, i), v) for i, v in enumerate(item) if isinstance(v, (dict, list))]
            if more:
                places += 1
                if len(found) < most:
                    place = ".".join(map(str, where)) or "the value"
                    found.append((place, kept, kept + more, _query(where, names, record)))
        level = deeper[:_CUT_WALK]
    return found, places


def _query(where: Place, names: bool, record: Record | None) -> str:
    """``query_of(where)``, or the record's own query and the steps below it when ``where`` is inside ``record``."""
    if record is None or where[: len(record[0])] != record[0]:
        return query_of(where, names=names)
    below = query_of(where[len(record[0]) :])
    path = record[1] if below == "@" else f"{record[1]}{below}" if below.startswith("[") else f"{record[1]}.{below}"
    return f"keys({path})" if names else path


_MAX_CUT_DEPTH = 4
_CUT_WALK = 256  # containers looked into per level when naming cuts


def _by_keys(value: dict[str, Any], target: int, hidden: int, depth: int) -> dict[str, Any]:
    """A map cut to about ``target`` bytes by its keys first: every key with its value's size when they fit, the
    first values shown (cut to share what is left), else as many keys as fit with the marker saying how many more."""
    sized = {k: outline_size(v) for k, v in value.items()}
    cost = len(dumps(sized).encode("utf-8"))
    if cost + _MARKER > target:
        out: dict[str, Any] = {}
        used = 2 + _MARKER
        for key, small in sized.items():
            used += len(dumps(key).encode("utf-8")) + len(dumps(small).encode("utf-8")) + 2
            if used > target and out:
                break
            out[key] = small
        if len(out) < len(value) or hidden:
            out["…"] = f"+{len(value) - len(out) + hidden} more members"
        return out
    spare = target - cost - (_MARKER if hidden else 0)
    out = {}
    for key, member in value.items():
        if spare > _SMALL:
            member_size = dumps_size(member)
            share = max(_SMALL, spare // 3)
            shown = member if member_size <= share else cut_to_bytes(member, share, depth + 1)
            spare -= dumps_size(shown) - len(dumps(sized[key]).encode("utf-8"))
            out[key] = shown
        else:
            out[key] = sized[key]
    if hidden:
        out["…"] = f"+{hidden} more members"
    return out


def _keys_floor(value: Any, depth: int = 0) -> int:
    """Bytes the keys of the maps in ``value`` (itself, or its members two levels down) take with their values'
    sizes: what a cut keeps of ``value`` before any of the maps' values."""
    if not isinstance(value, dict) or depth > 2:
        return 0
    members = {k: v for k, v in value.items() if k != "…"}
    if is_map(members):
        return len(dumps({k: outline_size(v) for k, v in members.items()}).encode("utf-8")) + _MARKER
    inner = sum(_keys_floor(v, depth + 1) for v in itertools.islice(members.values(), _FLOOR_MEMBERS))
    return inner + (len(dumps(list(members)).encode("utf-8")) + _MARKER if inner else 0)


_FLOOR_MEMBERS = 64  # members of an object looked into for maps


def _water_level(sizes: list[int], room: int) -> int:
    """The size ``L`` at which members of ``sizes`` each cut to at most ``L`` take ``room`` bytes together."""
    left, ordered = room, sorted(sizes)
    for i, member in enumerate(ordered):
        if member * (len(ordered) - i) > left:
            return max(0, left // (len(ordered) - i))
        left -= member
    return ordered[-1] if ordered else 0


def _hidden_members(value: dict[str, Any]) -> int:
    """How many members ``_narrowed`` or an earlier cut left out, by the marker it put last; 0 without one."""
    marker = value.get("…")
    if isinstance(marker, str) and marker.startswith("+") and marker.endswith(" more members"):
        digits = marker[1 : -len(" more members")]
        if digits.isdigit():
            return int(digits)
    return 0
