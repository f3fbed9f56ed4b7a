"""Time grows with the budget, not the input (issue 27): the C-speed screens of the steps that read the whole
input (long strings, lone surrogates, the cyclic collector during the parse), each sound: it never hides what the
full step finds."""

from __future__ import annotations

import gc
import json
import random
from typing import Any

import pytest

from hostshape.fit.long_strings import _may_hold
from hostshape.fit.objects import _DEEP_ITEMS, _MAX_REDUCE_DEPTH, _WideWalk
from hostshape.fit.rebuild import with_members


def _embedded(rng: random.Random, n: int) -> dict[str, object]:
    """A record holding a JSON document as a string (escaped quotes all the way through it)."""
    inner = {f"k{i}": rng.choice(["v", 'q"t', "b\\s", "\\", 'x\\"y']) for i in range(rng.randint(20, 60))}
    return {"id": n, "meta": json.dumps(inner), "name": rng.choice(["a", "b\\\\", 'c"'])}


def test_the_long_string_screen_passes_records_of_escaped_json() -> None:
    """Strings full of escaped quotes (JSON inside JSON) but none long: told without the walk."""
    rng = random.Random(3)
    text = json.dumps([_embedded(rng, n) for n in range(2500)])
    assert len(text) > 1_000_000 and text.count('\\"') > 50_000
    assert not _may_hold(text, 1 << 18)


@pytest.mark.parametrize("seed", range(40))
def test_the_long_string_screen_finds_a_long_string_hidden_among_escaped_json(seed: int) -> None:
    rng = random.Random(seed)
    longest = rng.choice([5000, 1 << 14])  # blocks longer than any record's string
    records: list[object] = [_embedded(rng, n) for n in range(rng.randint(50, 400))]
    alphabet = rng.choice(["a", 'a"', "a\\", '\\"', '"\\\\"x', "é\n", "\u2028"])
    size = rng.choice([longest + 1, longest + 7, 2 * longest, 3 * longest])
    hidden = "".join(rng.choice(alphabet) for _ in range(size))
    records.insert(rng.randrange(len(records) + 1), {"id": -1, "log": hidden})
    style = rng.choice([{}, {"indent": 2}, {"separators": (",", ":"), "ensure_ascii": False}])
    text = json.dumps(records, **style)  # type: ignore[arg-type]
    assert _may_hold(text, longest)
    records.remove({"id": -1, "log": hidden})
    records.append({"id": -1, "log": "z" * (longest // 4)})  # a string shorter than a block: told
    assert not _may_hold(json.dumps(records, **style), longest)  # type: ignore[arg-type]


# -- lone surrogates -------------------------------------------------------------------------------------------------


def _scanned(text: str) -> str | None:
    """``surrogate_note`` as it was before its screen: the scan of every surrogate escape."""
    from hostshape.records.project import _SURROGATE_ESCAPE, surrogates_replaced

    count, pending = 0, -1
    for match in _SURROGATE_ESCAPE.finditer(text):
        high = match.group()[3] in "89abAB"
        if pending >= 0:
            paired = not high and match.start() == pending
            pending = -1
            if paired:
                continue
            count += 1
        if high:
            pending = match.end()
        else:
            count += 1
    count += pending >= 0
    return surrogates_replaced(count) if count else None


@pytest.mark.parametrize("seed", range(30))
def test_the_surrogate_note_is_what_the_scan_tells(seed: int) -> None:
    from hostshape.records.project import surrogate_note

    rng = random.Random(seed)
    pieces = ["x" * rng.randint(0, 200_000)]
    for _ in range(rng.randint(0, 4)):
        pieces.insert(
            rng.randrange(len(pieces) + 1),
            rng.choice(["\\ud800", "\\udc00", "\\ud83d\\ude00", "\\\\ud800", "\\n", "\\u00e9", "\\\\"]),
        )
    text = '["' + "".join(pieces) + '"]'
    assert surrogate_note(text) == _scanned(text)
    assert surrogate_note(text.replace("\\", "/")) is None


# -- the cyclic collector during the parse ---------------------------------------------------------------------------


def test_the_parse_runs_no_collection_and_sets_the_collector_back() -> None:
    from hostshape.input.parse import parse_json

    text = json.dumps([{"id": i, "tags": [{"k": i}]} for i in range(20_000)])
    runs: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        runs.append(phase)

    threshold = gc.get_threshold()
    was = gc.isenabled()
    gc.callbacks.append(count)
    gc.set_threshold(10)
    try:
        gc.enable()
        assert parse_json(text).ok and gc.isenabled()
        # 40,000 containers: 4,000 collections at this threshold if the parse ran with the collector on; a few
        # once it is back (what was allocated meanwhile still counts)
        assert len(runs) <= 20, len(runs)
        assert not parse_json('{"a": [1, 2').ok  # the parse raised inside: still on
        assert gc.isenabled()
        gc.disable()
        assert parse_json(text).ok and not gc.isenabled()  # off stays off
        assert not parse_json("[1,").ok and not gc.isenabled()
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*threshold)
        if was:
            gc.enable()
        else:
            gc.disable()


# -- narrow_wide's later members --------------------------------------------------------------------------------------


class _OldWalk(_WideWalk):
    """The walk as it was, one member a step through the later members: what the comprehension must match."""

    def walk(self, item: Any, depth: int) -> Any:
        if self.steps <= 0 or depth > _MAX_REDUCE_DEPTH or not isinstance(item, (dict, list)):
            return item
        item = self._narrow(item)
        members = item.items() if isinstance(item, dict) else enumerate(item[: self.most])
        changed: dict[Any, Any] = {}
        for at, (key, member) in enumerate(members):
            self.steps -= 1
            if self.steps <= 0:
                break
            if at >= _DEEP_ITEMS:
                if (narrowed := self._narrow(member)) is not member:
                    changed[key] = narrowed
            elif isinstance(member, (dict, list)) and not self._too_small(member):
                new = self.walk(member, depth + 1)
                if new is not member:
                    changed[key] = new
        return with_members(item, changed)


@pytest.mark.parametrize("seed", range(60))
def test_the_wide_walk_cuts_what_the_member_by_member_walk_cut(seed: int) -> None:
    """Wide objects hidden among many items of lists and maps, under step budgets that run out anywhere."""
    rng = random.Random(seed)
    most = rng.choice([3, 8, 20])

    def value(depth: int) -> Any:
        roll = rng.random()
        if depth > 2 or roll < 0.4:
            return rng.choice([1, "s", None, {"a": 1}])
        width = rng.choice([2, most, most + 1, 3 * most, 70, 150]) if depth < 2 else rng.choice([2, most + 1])
        if roll < 0.65:
            return [value(depth + 1) for _ in range(width)]
        return {f"k{i}": value(depth + 1) for i in range(width)}

    tree = value(0)
    for steps in (1, 2, 5, 64, 65, 66, 100, 300, 10**6):
        new, old = _WideWalk(most, steps, rng.choice([0, 10**6])), None
        old = _OldWalk(new.most, new.steps, new.rendered)
        assert new.walk(tree, 0) == old.walk(tree, 0)
        assert (new.cut, new.steps, new.rendered) == (old.cut, old.steps, old.rendered)
