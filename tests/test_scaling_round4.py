"""Time grows with the budget, not the input (issue 27): the screens that let a step skip a walk of the whole value."""

from __future__ import annotations

import json
import random

import pytest

from hostshape.fit.long_strings import _may_hold


@pytest.mark.parametrize("seed", range(200))
def test_the_long_string_screen_never_misses_a_long_string(seed: int) -> None:
    """``_may_hold`` False is certain: whatever the escapes (quotes, backslash runs), no string is that long."""
    rng = random.Random(seed)
    longest = rng.choice([8, 100, 1000])
    pieces = []
    for _ in range(rng.randint(1, 30)):
        alphabet = rng.choice(["a", 'a"', "a\\", '"\\\\"x', 'ab"\\', "é\n"])
        size = rng.choice([1, longest // 2, longest - 1, longest, longest + 1, 3 * longest])
        pieces.append("".join(rng.choice(alphabet) for _ in range(size)))
    text = json.dumps(pieces, ensure_ascii=rng.random() < 0.5)
    if any(len(p) > longest for p in pieces):
        assert _may_hold(text, longest)


def test_the_long_string_screen_passes_many_short_strings() -> None:
    """A large list of short strings is told at C speed, without the walk."""
    text = json.dumps([{"id": f"r{i}", "name": "x" * 40, "note": 'say "hi"'} for i in range(50_000)])
    assert len(text) > 1_000_000
    assert not _may_hold(text, 1 << 18)
    assert _may_hold(json.dumps({"log": "y" * 300_000}), 1 << 18)
    assert _may_hold(json.dumps({"log": 'say "hi" ' * 40_000}), 1 << 18)  # escaped quotes all the way
