"""Issue 27, third round: the shortcuts that keep the time with the budget change no answer.

- ``Limit.count`` counts a long text as the sum of its chunks, each remembered: the sum is the tokenizer's exact
  count, in both encodings, for JSON answers and for text built to break a chunk's edges (apostrophes, blanks,
  marks, single punctuation marks before words);
- the search for the record list reads a map of objects through its first entries: a lockfile of thousands of
  packages is still found as the record list, every package listed, and a wrapper's list beside a big map still
  wins when it holds more.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.fit.budget import CHUNKED_CHARS, Limit
from hostshape.records.locate import MAP_ENTRIES, locate
from hostshape.tokens import counter

ENCODINGS = ("o200k_base", "cl100k_base")


def _rows(n: int, rng: random.Random) -> str:
    rows = []
    for i in range(n):
        rows.append([f"id-{i}", rng.choice(["open", "closed", "Running"]), rng.randint(-5, 10**6), None, "{…}"])
    return json.dumps({"_index": {"fields": ["id", "status", "n", "x", "y"], "rows": rows}}, separators=(",", ":"))


_PIECES = ['"],["', '":[{"', ",", ":", '"', "[", "]", "{", "}", "'s", "'ll", " ", "  ", "\n", "\t", "é", "漢", "\u0301"]
_WORDS = ["abc", "Xyz", "12", "3456789", "don't", "/path/to", "-7", "1e300", "0.1234567890123"]


def _hostile(rng: random.Random, size: int) -> str:
    out: list[str] = []
    while sum(map(len, out)) < size:
        out.append(rng.choice(_PIECES) if rng.random() < 0.6 else rng.choice(_WORDS))
    return "".join(out)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_long_text_counts_as_the_tokenizer_counts_it(encoding: str) -> None:
    rng = random.Random(3)
    exact = counter(encoding)
    texts = [_rows(400, rng), _rows(900, rng)] + [
        _hostile(rng, CHUNKED_CHARS + rng.randint(1, 6000)) for _ in range(60)
    ]
    for text in texts:
        assert len(text) > CHUNKED_CHARS
        assert Limit(10**9, None, encoding).count(text) == exact.count(text)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_candidates_sharing_their_text_are_each_counted_exactly(encoding: str) -> None:
    """One limit counts many candidates that share most of their chunks (rows cut at the end, a count changed in
    the head): every count is still the tokenizer's."""
    rng = random.Random(5)
    limit, exact = Limit(10**9, None, encoding), counter(encoding)
    full = json.loads(_rows(1200, rng))
    for listed in (1200, 1040, 1031, 1029, 1028, 700):
        text = json.dumps(
            {"_hostshape": {"listed": listed}, "_index": {"rows": full["_index"]["rows"][:listed]}},
            separators=(",", ":"),
        )
        assert limit.count(text) == exact.count(text)


def _lockfile(packages: int, seed: int = 2) -> dict[str, Any]:
    rng = random.Random(seed)
    entries: dict[str, Any] = {"": {"name": "app", "version": "1.0.0", "dependencies": {"a": "^1"}}}
    for i in range(packages):
        entries[f"node_modules/pkg-{i}"] = {
            "version": f"{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            "resolved": f"https://registry.npmjs.org/pkg-{i}/-/pkg-{i}.tgz",
            "dependencies": {f"pkg-{rng.randint(0, packages)}": "^1.0.0"},
            "engines": {"node": ">=14"},
        }
    return {"name": "app", "lockfileVersion": 3, "packages": entries}


def test_a_big_map_of_packages_is_the_record_list_and_every_package_is_listed() -> None:
    doc = _lockfile(3000)
    located = locate(doc)
    assert located is not None and located.path == ("packages",)
    assert len(located.records) == 3001
    result = shape(json.dumps(doc), policy=Policy(budget=8000, spill=False), tool="lock")
    out = json.loads(result.text)
    assert out["_hostshape"]["total"] == 3001
    shown = len(out.get("items", [])) + out["_hostshape"].get("listed", 0)
    assert counter().count(result.text) <= 8000 and shown > 0


def test_a_list_beside_a_big_map_still_wins_when_it_holds_more() -> None:
    """The map's entries past MAP_ENTRIES are not searched, the members beside the map are: a long list of bigger
    records next to a map of small objects is the record list."""
    small = {f"k{i}": {"a": i, "b": "x"} for i in range(MAP_ENTRIES * 3)}
    events = [{"id": f"ev-{i}", "text": "word " * 20, "at": i} for i in range(500)]
    located = locate({"index": small, "meta": {"events": events}})
    assert located is not None and located.path == ("meta", "events")
    assert len(located.records) == 500
