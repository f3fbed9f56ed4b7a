"""The shortcuts that keep shaping time growing with the budget, not the input, decide exactly as the long way.

``narrow_wide`` does not walk into a record whose JSON is too short to hold a wide object: every wide object
inside the records it walks is still cut. The loss screen looks at more candidate numbers in a longer text (one per
``_BYTES_PER_CANDIDATE`` bytes) before it parses again: it still names what the full parse names. The shrink
learns its schema from as much text as a short list holds (``_LEARN_CHARS``), and every answer still fits."""

from __future__ import annotations

import json
import random
from typing import Any

from hostshape import Policy, shape
from hostshape.fit.budget import Limit
from hostshape.fit.objects import _DEEP_ITEMS, WIDE_MEMBERS_PER_TOKEN, narrow_wide
from hostshape.input import lossless
from hostshape.input.lossless import losses
from hostshape.output.render import dumps
from hostshape.records import shrink
from hostshape.tokens import count_tokens


def _widest(value: Any) -> int:
    """Members of the widest object in ``value``."""
    if isinstance(value, dict):
        return max([len(value), *map(_widest, value.values())])
    if isinstance(value, list):
        return max([0, *map(_widest, value)])
    return 0


def _record(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([1, "text " * rng.randint(1, 40), None, 2.5, True])
    if roll < 0.7:
        return {f"k{i}": _record(rng, depth + 1) for i in range(rng.randint(0, 6))}
    return [_record(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def _place(record: Any, wide: dict[str, int], rng: random.Random) -> Any:
    """``record`` with ``wide`` somewhere inside it (at the top when there is no object to hold it)."""
    holders: list[dict[str, Any]] = []
    stack = [record]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            holders.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    if not holders:
        return {"wide": wide, "record": record}
    rng.choice(holders)["wide"] = wide
    return record


def test_a_wide_object_inside_any_walked_record_is_cut() -> None:
    rng = random.Random(27)
    limit = Limit(100, None, "o200k_base")
    most = WIDE_MEMBERS_PER_TOKEN * limit.tokens + 64
    for _ in range(300):
        records = [_record(rng) for _ in range(rng.randint(1, 2 * _DEEP_ITEMS))]
        at = rng.randrange(min(len(records), _DEEP_ITEMS))
        records[at] = _place(records[at], {f"m{i}": i for i in range(most + rng.randint(1, 500))}, rng)
        value: Any = records if rng.random() < 0.5 else {"meta": {"n": len(records)}, "items": records}
        text = dumps(value)
        narrowed, cut = narrow_wide(value, len(text), limit)
        assert cut > 0
        assert _widest(narrowed) <= most + 1  # its first members and the marker saying how many more


def test_records_without_a_wide_object_come_back_unchanged() -> None:
    rng = random.Random(28)
    limit = Limit(100, None, "o200k_base")
    for _ in range(300):
        value = [_record(rng) for _ in range(rng.randint(50, 200))]
        text = dumps(value)
        narrowed, cut = narrow_wide(value, len(text), limit)
        assert cut == 0 and narrowed is value


def test_one_rounded_number_among_many_exact_candidates_is_named() -> None:
    rng = random.Random(29)
    for _ in range(6):
        n = lossless._CANDIDATES + rng.randint(1, 3000)  # more candidates than the fixed floor
        values = [round(rng.random(), 8) + 0.000000001 for _ in range(n)]  # exact, 8+ digits after the point
        body = [{"v": v, "pad": "x" * 200} for v in values]
        text = json.dumps(body)
        at = text.index('"v": ', rng.randrange(len(text) // 2))
        end = text.index(",", at)
        rounded = text[: at + 5] + "0.12345678901234567891" + text[end:]
        assert losses(text, dumps(json.loads(text))) == []
        assert losses(rounded, dumps(json.loads(rounded))) == losses(rounded)
        assert losses(rounded) != []


def _big_record(rng: random.Random, n: int) -> dict[str, Any]:
    return {
        "id": f"r-{n}",
        "url": f"https://api.example.com/v1/things/{n}",
        "owner": {"login": rng.choice(["ann", "bo", "cy"]), "url": f"https://api.example.com/v1/users/{n % 3}"},
        "status": rng.choice(["open", "closed"]),
        "body": " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(rng.randint(500, 2000))),
    }


def test_the_schema_of_large_records_is_learnt_from_a_bounded_sample_that_still_drops_their_links() -> None:
    rng = random.Random(30)
    records = [_big_record(rng, n) for n in range(100)]
    sample = shrink._learnt_from(records)
    size = sum(len(dumps(r)) for r in sample)
    assert shrink._LEARN_LEAST <= len(sample) < len(records)
    assert size <= shrink._LEARN_CHARS < size + len(dumps(records[len(sample)]))
    schema = shrink._learn(sample, "id", None)
    assert "url" in schema.noise[""]  # every record's API link, learnt from the sample, dropped from all of them
    assert shrink._learnt_from(records[:5]) == records[:5]  # a few records are all learnt from, however long


def test_every_answer_fits_its_budget_on_random_lists() -> None:
    rng = random.Random(31)
    for i in range(3000):
        budget = rng.choice([200, 500, 1000, 2000])
        records = [_record(rng) for _ in range(rng.randint(1, 30))]
        value: Any = records if i % 2 else {"meta": {"page": i}, "items": records}
        result = shape(json.dumps(value), policy=Policy(budget=budget, spill=False))
        assert count_tokens(result.text) <= budget, (i, budget)
        json.loads(result.text)
