"""An index that answers the next question (issue 27): which columns a listing of every record carries when it
cannot carry them all, and how the room a listing leaves is used. Records are generated; budgets are o200k tokens
of the exact text the model receives."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hostshape import Policy, shape
from hostshape.output.columns import as_records
from hostshape.records import structure
from hostshape.tokens import count_tokens

_WORDS = ["parser", "cache", "docs", "tests", "api", "index", "budget", "store", "query", "page"]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _shaped(doc: Any, budget: int, tmp_path: Path) -> dict[str, Any]:
    text = shape(json.dumps(doc), policy=Policy(budget=budget, spill_dir=tmp_path), tool="t").text
    assert count_tokens(text) <= budget
    shaped: dict[str, Any] = json.loads(text)
    return shaped


def _listed(shaped: dict[str, Any]) -> int:
    env = shaped["_hostshape"]
    return env["returned"] + (env.get("listed") or 0)


def test_a_listing_gives_up_a_date_before_an_amount(tmp_path: Path) -> None:
    rng = random.Random(1)
    releases = [
        {
            "number": f"{i // 100}.{i // 10 % 10}.{i % 10}",
            "created_at": f"20{10 + i // 40:02d}-{i % 12 + 1:02d}-{i % 28 + 1:02d}T0{i % 10}:1{i % 6}:00.{i:03d}Z",
            "downloads_count": rng.randint(1000, 900000),
            "summary": _text(rng, 40),
        }
        for i in range(300)
    ]
    shaped = _shaped(releases, 4000, tmp_path)
    assert _listed(shaped) == 300  # every release listed
    fields = shaped["_index"]["fields"]
    assert "downloads_count" in fields and "created_at" not in fields  # the amount costs a fraction of the date


def test_a_status_in_a_quarter_of_the_records_is_an_index_column(tmp_path: Path) -> None:
    rng = random.Random(2)
    rules = []
    for i in range(120):
        rule: dict[str, Any] = {"name": f"Rule{i:03d}", "query": _text(rng, 30)}
        if i % 3 == 0:  # alerting rules carry a state; recording rules do not
            rule["state"] = ["inactive", "firing", "pending"][i % 9 // 3]
        rules.append(rule)
    shaped = _shaped({"rules": rules}, 2000, tmp_path)
    assert _listed(shaped) == 120
    index = shaped["_index"]
    assert "state" in index["fields"]
    at = index["fields"].index("state")
    assert any(row[at] is None for row in index["rows"])  # a record without a state shows a null cell


def test_a_nearly_constant_flag_is_an_index_column(tmp_path: Path) -> None:
    rng = random.Random(3)
    versions = [
        {"num": f"1.{i}.0", "yanked": i in (17, 61), "downloads": rng.randint(10, 99999), "readme": _text(rng, 50)}
        for i in range(90)
    ]
    shaped = _shaped({"versions": versions}, 2000, tmp_path)
    assert _listed(shaped) == 90
    assert "yanked" in shaped["_index"]["fields"]  # the two yanked releases are what a reader asks about


def test_a_status_is_words_not_codes() -> None:
    records = [
        {"id": f"ev{i}", "sources": f",{['ak', 'us', 'nc', 'hv'][i % 4]},", "status": ["reviewed", "automatic"][i % 2]}
        for i in range(40)
    ]
    assert structure.status_field(records, skip=["id"]) == "status"


def _pod(i: int, rng: random.Random) -> dict[str, Any]:
    return {
        "name": f"pod-{i:02d}-{rng.randrange(16**6):06x}",
        "startTime": f"2020-06-{i + 1:02d}T02:50:49Z",
        "cpu": {"usageNanoCores": rng.randint(10**6, 10**9)},
        "memory": {"workingSetBytes": rng.randint(10**7, 10**10)},
        "stats": {f"counter{k}": rng.randint(0, 10**9) for k in range(150)},
    }


def test_room_a_listing_leaves_shows_the_next_record_shrunk(tmp_path: Path) -> None:
    rng = random.Random(4)
    pods = [_pod(i, rng) for i in range(11)]
    for budget in range(6000, 8001, 100):
        shaped = _shaped({"pods": pods}, budget, tmp_path)
        env = shaped.get("_hostshape", {"notes": []})
        if any(n.startswith("last record shown shrunk to fit") for n in env.get("notes", [])):
            break
    else:
        raise AssertionError("no budget showed a record shrunk after the whole ones")
    assert env["truncated"] is True
    shown = as_records(shaped["pods"])  # a table's rows as records again
    last = shown[-1]  # the last of the head (the list's own last may be shown whole beside the index, as _last)
    assert last["name"] == pods[len(shown) - 1]["name"]  # its identifier kept
    assert env["returned"] + (env.get("listed") or 0) == 11  # every pod shown or listed


def test_members_beside_a_list_give_way_to_a_listing_of_every_record(tmp_path: Path) -> None:
    rng = random.Random(5)
    config = {f"option-{k}": _text(rng, 5)[:38] for k in range(100)}  # short values: shown as they are
    servers = [
        {"hostname": f"host-{i}.example.com", "locations": [{"path": "/", "body": _text(rng, 30)}]} for i in range(1000)
    ]
    shaped = _shaped({"cfg": config, "servers": servers}, 8000, tmp_path)
    env = shaped["_hostshape"]
    assert _listed(shaped) == 1000 and "dropped" not in env  # every server named
    assert any("cfg" in n for n in env["notes"])  # the config's cut is named


def test_records_whose_table_rows_render_empty_still_fit(tmp_path: Path) -> None:
    """A table whose first rows render to nothing (members a rule projects away) costs its rows without dividing
    by their count (ZeroDivisionError at 48 tokens, found by tests/test_robustness.py)."""
    from hostshape import Rule

    def record(i: int) -> dict[str, Any]:
        return {
            "id": i,
            "number": i + 1,
            "title": f"record {i}",
            "state": "open",
            "body": "x" * 50,
            "user": {"login": "0", "id": i, "avatar_url": "https://avatars.example/u", "url": "https://api.x/u"},
            "html_url": f"https://github.example/r/{i}",
            "node_id": "N_" + "x" * 20,
            "extra": {"": {"00000000000\x1f": "x" * 932}},
        }

    rules = (Rule(tool="jp", jmespath="[*].{id: id, title: title}"), Rule(tool="small", budget=64))
    policy = Policy(budget=48, safety_factor=1.0, rules=rules, on_fault="pass", spill_dir=tmp_path)
    result = shape([record(i) for i in range(4)], policy=policy)
    assert result.fault is None and count_tokens(result.text) <= 48
