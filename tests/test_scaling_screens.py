"""Time grows with the budget, not the input (issue 27): the C-speed screens of the steps that read the whole
input (long strings, lone surrogates, the cyclic collector during the parse), each sound: it never hides what the
full step finds."""

from __future__ import annotations

import gc
import json
import random

import pytest

from hostshape.fit.long_strings import _may_hold


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
