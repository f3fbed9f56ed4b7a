"""Answers from the first answer (issue 27): a list cut to a head and an index also shows, whole, the record midway
through it beside the last, so the start, the middle and the end of the list can be read without a fetch; every
record counted once, every output within its budget. Synthetic payloads, shaped with zero configuration."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens
from tests.answers import shaped_json as _shaped

_WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
]


def _findings(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """Records of a findings list: a hex id, a title of words, a status of a few values, a date, a long text."""
    rng = random.Random(seed)
    return [
        {
            "id": f"{rng.getrandbits(64):016x}",
            "title": " ".join(rng.choice(_WORDS) for _ in range(2)),
            "status": rng.choice(["open", "closed", "muted"]),
            "created": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
            "owner": rng.choice(["team-a", "team-b", "team-c", "team-d"]),
            "detail": " ".join(_WORDS[(i + j) % len(_WORDS)] for j in range(8)),  # of one size in every record
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
@pytest.mark.parametrize("n", [1001, 3000])
def test_the_record_midway_through_a_cut_list_is_shown_whole_beside_the_last(
    tmp_path: Path, budget: int, n: int
) -> None:
    records = _findings(n)
    doc = _shaped({"findings": records, "next_page": None}, budget, tmp_path)
    env = doc["_hostshape"]
    assert env["truncated"] is True and env["total"] == n
    middle, last = doc["_middle"], doc["_last"]
    at = (n - 1) // 2
    assert middle["#"] == at and last["#"] == n - 1
    for shown, original in ((middle, records[at]), (last, records[-1])):
        for name in ("id", "title", "status", "created", "owner"):
            assert shown[name] == original[name]
    assert f"the record midway through the list (#{at})" in " ".join(env["notes"])
    listed = doc.get("_index", {})
    position = listed.get("fields", [None])[0]
    rows = listed.get("rows", [])
    head = len(as_records(doc["findings"]))
    in_index = at in [r[0] for r in rows] if position == "#" else head + len(rows) > at
    # each record counted once: the middle, shown whole and not listed, among those returned
    assert env["returned"] == head + (not in_index) + (position != "#" and head + len(rows) < n)
    assert env["returned"] + env["listed"] + env.get("dropped", 0) == n


def test_a_list_whose_head_reaches_the_middle_shows_no_middle_record(tmp_path: Path) -> None:
    records = _findings(12)
    doc = _shaped({"findings": records}, 3000, tmp_path)
    assert "_middle" not in doc  # every record fits whole, or the whole ones reach it: nothing shown twice
    text = json.dumps(doc)
    assert text.count(json.dumps(records[5]["id"])) <= 1 + ("_index" in doc)


@pytest.mark.parametrize("budget", [2000, 4000])
def test_a_last_record_somewhat_larger_than_the_head_is_still_shown_whole(tmp_path: Path, budget: int) -> None:
    records = _findings(300)
    records[-1]["detail"] += " " + " ".join(_WORDS[:12])  # a little longer than any record of the head
    doc = _shaped({"findings": records}, budget, tmp_path)
    assert doc["_last"]["#"] == 299 and doc["_last"]["detail"] == records[-1]["detail"]


def test_a_middle_record_far_larger_than_the_head_is_left_to_the_index(tmp_path: Path) -> None:
    records = _findings(301)
    records[150]["notes"] = [" ".join(_WORDS)] * 30  # ten times a record of the head
    doc = _shaped({"findings": records}, 4000, tmp_path)
    assert "_middle" not in doc
    assert doc["_hostshape"]["returned"] + doc["_hostshape"]["listed"] + doc["_hostshape"].get("dropped", 0) == 301


def test_the_middle_record_is_shrunk_as_the_head_is(tmp_path: Path) -> None:
    records = _findings(3000)
    for i, record in enumerate(records):
        record["self"] = f"https://api.example.com/v1/findings/{i}"  # a machine link: noise in every record
    doc = _shaped({"findings": records}, 4000, tmp_path)
    assert doc["_middle"]["#"] == 1499 and doc["_middle"]["id"] == records[1499]["id"]
    assert "api.example.com" not in json.dumps(doc)


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_the_first_record_comes_whole_before_the_middle_and_the_last(tmp_path: Path, budget: int) -> None:
    records = _findings(2000)
    for record in records[1:]:
        record["detail"] = " ".join(_WORDS * 3)  # every record past the first as large as the room for whole ones
    doc = _shaped({"findings": records}, budget, tmp_path)
    head = as_records(doc["findings"])
    assert head and head[0]["id"] == records[0]["id"]
    assert doc["_hostshape"]["returned"] >= len(head) >= 1


_CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.mark.parametrize("budget", [2000, 4000])
def test_a_record_shown_whole_beside_the_index_never_displaces_the_first(tmp_path: Path, budget: int) -> None:
    """On every JSON list payload of the corpus: when the middle or last record is shown whole, so is the first."""
    for path in sorted(_CORPUS.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        shaped = shape(text, policy=Policy(budget=budget, spill_dir=tmp_path)).text
        assert count_tokens(shaped) <= budget
        doc = json.loads(shaped)
        if not isinstance(doc, dict) or not ({"_middle", "_last"} & set(doc)):
            continue
        env = doc["_hostshape"]
        whole = [n for n in env.get("notes", []) if "shown whole in '_" in n]
        unlisted = sum("listed" not in n for n in whole)  # counted among those returned
        assert env["returned"] - unlisted >= 1, (path.name, budget)  # the head's first record, whole
