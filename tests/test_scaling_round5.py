"""Issue 27, fifth round: a fit's budget-bound work on a long list stays bounded, and every answer still fits.

- index rows are made a block at a time: the rows read in runs (``each``, ``rows_in``) and one by one (``rows_at``)
  are the same rows, previewed alike, whatever the offset, the level and the records among the ``seen``;
- a partial listing costs its rows at the tokens per byte of an exact count of some of them, and an over-budget
  candidate cuts its rows by its excess over their exact tokens: a long list of short records at 8,000 is counted
  exactly at most twice as a whole answer, and the answer fits;
- on random long lists of services not in the corpus, at budgets from 500 to 8,000, every answer fits.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.fit import budget
from hostshape.fit.records import _BLOCK, _IndexSource
from hostshape.output.previews import cap_strings
from hostshape.records.listing import Made, rows_of
from hostshape.tokens import count_tokens


def _ticket(rng: random.Random, n: int) -> dict[str, Any]:
    """A record of a ticketing service: a numeric string id, a short key, a title, nested detail."""
    return {
        "id": str(40_000 + n * 7),
        "key": f"OPS-{n}",
        "title": rng.choice(["Disk full on", "Cannot reach", "Slow queries on", "Rotate keys for"])
        + f" host-{rng.randint(1, 900)}",
        "state": rng.choice(["new", "triaged", "closed"]),
        "detail": {"links": [f"https://tickets.example.org/t/{n}"], "votes": rng.randint(0, 9)},
    }


def _counted_whole(text: str, budget_tokens: int) -> list[int]:
    """Shape ``text`` at ``budget_tokens`` and return the lengths of the texts counted exactly that are at least
    half an answer long (candidates, not the samples and records the fit estimates from)."""
    lengths: list[int] = []
    original = budget.Limit.count

    def counting(self: budget.Limit, counted: str) -> int:
        if len(counted) >= budget_tokens and counted not in self._counted:
            lengths.append(len(counted))
        return original(self, counted)

    budget.Limit.count = counting  # type: ignore[method-assign]
    try:
        result = shape(text, policy=Policy(budget=budget_tokens, spill=False))
    finally:
        budget.Limit.count = original  # type: ignore[method-assign]
    assert count_tokens(result.text) <= budget_tokens
    json.loads(result.text)
    return lengths


def test_a_long_list_of_short_records_is_counted_whole_at_most_twice() -> None:
    """3,000 tickets at 8,000: the partial listing's first candidate, costed at its rows' own tokens per byte, and
    one grown by the room it left (three before: two candidates over, cut in proportion, then one within)."""
    rng = random.Random(50)
    text = json.dumps([_ticket(rng, n) for n in range(3000)])
    counted = _counted_whole(text, 8000)
    assert 1 <= len(counted) <= 2, counted


def test_a_cut_lands_just_under_the_limit() -> None:
    """An over-budget listing is cut by its excess over its last rows' exact tokens: the answer fills the budget
    (within 3 %), not a proportional cut's guess short of it."""
    rng = random.Random(52)
    records = [_ticket(rng, n) for n in range(2000)]
    for limit in (2000, 4000, 8000):
        result = shape(json.dumps(records), policy=Policy(budget=limit, spill=False))
        assert 0.97 * limit <= count_tokens(result.text) <= limit, limit


@pytest.mark.parametrize("size", [600, 2500])
def test_a_long_list_beside_a_cursor_is_counted_a_bounded_number_of_times(size: int) -> None:
    rng = random.Random(51 + size)
    text = json.dumps({"next": "c2Vjb25k", "items": [_ticket(rng, n) for n in range(size)]})
    for limit in (2000, 8000):
        assert len(_counted_whole(text, limit)) <= 4


def _records(rng: random.Random, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        long = rng.random() < 0.1
        out.append(
            {
                "id": f"u{i}",
                "name": ("x" * rng.randint(300, 900)) if long else rng.choice(["ann", 'say "hi"', "é" * 3]),
                "note": rng.choice(["a", "b" * 400, None]),
                "n": rng.randint(0, 10**6),
                "nested": {"a": 1},
            }
        )
    return out


@pytest.mark.parametrize("seed", range(12))
def test_rows_made_in_blocks_are_the_rows_made_one_by_one(seed: int) -> None:
    rng = random.Random(seed)
    records = _records(rng, rng.randint(1, 400))
    wide = ["id", "name", "note", "n", "nested"]
    layouts = [wide, ["id", "note"], ["id"]]
    offset = rng.randint(0, min(70, len(records) - 1))
    level = rng.choice([None, 280, 500])
    seen = rng.randint(0, len(records))
    made = Made(lambda i: rows_of(records[i], wide), len(records))
    source = _IndexSource(layouts, made, offset, level, seen, None, None, len(records))

    def one(i: int, columns: list[str]) -> list[Any]:
        row = rows_of(records[offset + i], wide)
        if level is not None and i < seen:
            row = cap_strings(row, level, [0])
        return [row[wide.index(c)] for c in columns]

    n = len(records) - offset
    for columns in layouts:
        start = rng.randint(0, n)
        assert list(source.each(columns, start)) == [one(i, columns) for i in range(start, n)]
        end = rng.randint(start, n + _BLOCK)
        assert source.rows_in(columns, start, end) == [one(i, columns) for i in range(start, min(end, n))]
        at = sorted(rng.sample(range(n), min(n, 9)))
        assert source.rows_at(columns, at) == [one(i, columns) for i in at]


def test_made_rows_are_made_once_in_any_order() -> None:
    calls: list[int] = []
    made = Made(lambda i: calls.append(i) or [i], 200)
    assert made[150] == [150]
    assert made[100:160] == [[i] for i in range(100, 160)]
    assert made[-1] == [199]
    assert made[::50] == [[0], [50], [100], [150]]
    assert sorted(calls) == sorted(set(calls))  # none made twice
    with pytest.raises(IndexError):
        made[200]


def _service(rng: random.Random, n: int, kind: int) -> dict[str, Any]:
    if kind == 0:  # a metrics host: long names, numbers
        return {"hostname": f"i-{rng.getrandbits(40):010x}.compute.internal", "cpu": rng.random(), "up": True}
    if kind == 1:  # a package index entry: a scoped name, a version, a hash
        return {"name": f"@scope/pkg-{n}", "version": f"{rng.randint(0, 9)}.{n % 30}.0", "sha": f"{n:064x}"}
    return {"uid": n, "label": rng.choice(["north", "south"]) * rng.randint(1, 12), "tags": ["a", "b"][: n % 3]}


@pytest.mark.parametrize("seed", range(40))
def test_every_answer_fits_on_long_random_lists(seed: int) -> None:
    rng = random.Random(seed)
    kind = seed % 3
    records = [_service(rng, n, kind) for n in range(rng.choice([300, 1200, 4000]))]
    value: Any = records if seed % 2 else {"total": len(records), "data": records}
    limit = rng.choice([500, 2000, 4000, 8000])
    result = shape(json.dumps(value), policy=Policy(budget=limit, spill=False))
    assert count_tokens(result.text) <= limit, (seed, limit)
    json.loads(result.text)
