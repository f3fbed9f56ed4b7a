"""Round 6 of the question checks: an index spread over the list passes through its middle record."""

from __future__ import annotations

from hostshape.fit.records import _positions


def test_a_spread_passes_through_the_middle_and_keeps_its_ends() -> None:
    for start, end, count in ((1, 100, 19), (0, 7, 4), (3, 1000, 50)):
        middle = (end - 1) // 2
        at = _positions(start, end, count, through=middle)
        assert middle in at and at[0] == start and at[-1] == end - 1
        assert at == sorted(set(at)) and len(at) == count
        even = _positions(start, end, count)
        assert sum(a != b for a, b in zip(at, even, strict=True)) <= 1  # only the nearest moved
