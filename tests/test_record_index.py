"""An index that never vanishes (issue 27): whenever records are cut and their identifiers fit, every record is
listed, whatever else the document holds beside the list."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from hostshape import Policy, shape
from hostshape.tokens import count_tokens


def _sha(i: int, salt: str = "") -> str:
    return hashlib.sha1(f"{salt}{i}".encode()).hexdigest()


def _commit(i: int, rng: random.Random) -> dict[str, Any]:
    words = " ".join(rng.choice(["parser", "cache", "docs", "tests", "api"]) for _ in range(rng.randint(3, 30)))
    return {
        "sha": _sha(i),
        "node_id": "C_" + _sha(i, "n")[:20],
        "commit": {"message": f"Fix issue {i}: {words}", "author": {"name": f"Dev {i % 9}", "date": "2024-05-01"}},
        "url": f"https://api.example.com/commits/{_sha(i)}",
        "author": {"login": f"dev{i % 9}", "id": 1000 + i % 9, "url": f"https://api.example.com/users/dev{i % 9}"},
    }


def _file(i: int, rng: random.Random) -> dict[str, Any]:
    name = f"src/{rng.choice(['core', 'util', 'api'])}/module_{i:03d}.py"
    lines = "\n".join(f"+    line {k} {'x' * rng.randint(10, 80)}" for k in range(rng.randint(5, 60)))
    return {
        "sha": _sha(i, "f"),
        "filename": name,
        "status": rng.choice(["modified", "added", "removed"]),
        "additions": rng.randint(0, 300),
        "raw_url": f"https://example.com/raw/{_sha(i)}/{name}",
        "patch": "@@ -1,5 +1,9 @@\n" + lines,
    }


def compare_result() -> dict[str, Any]:
    """A compare of two refs: a big base commit beside 250 commits and 300 changed files."""
    rng = random.Random(3)
    base = _commit(9999, rng) | {"files": [_file(5000 + k, rng) for k in range(3)], "stats": {"total": 10}}
    return {
        "url": "https://api.example.com/compare/a...b",
        "base_commit": base,
        "merge_base_commit": _commit(9998, rng),
        "status": "ahead",
        "total_commits": 250,
        "commits": [_commit(i, rng) for i in range(250)],
        "files": [_file(i, rng) for i in range(300)],
    }


def test_a_big_object_and_another_list_beside_the_records_leave_every_record_listed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = compare_result()
    text = shape(json.dumps(doc), policy=Policy(budget=4000, spill_dir=tmp_path), tool="compare").text
    assert count_tokens(text) <= 4000
    shaped = json.loads(text)
    env = shaped["_hostshape"]
    assert env["list"] == "files" and env["returned"] + env["listed"] == 300
    assert all(json.dumps(f["filename"]) in text for f in doc["files"])
    assert any("beside the records, shown in outline" in n for n in env["notes"])  # the cut is named


def _contacts() -> dict[str, Any]:
    records = [
        {
            "attributes": {"type": "Contact", "url": f"/services/data/v58.0/sobjects/Contact/003{i:012d}AAA"},
            "Id": f"003{i:012d}AAA",
            "Name": f"Person {i}",
            "Account": {"attributes": {"type": "Account"}, "Name": f"Acme {i % 5}"},
            "Description": "lorem ipsum " * 30,
        }
        for i in range(200)
    ]
    return {"totalSize": 200, "done": True, "records": records}


def _records_and_index(text: str) -> tuple[Any, Any]:
    shaped = json.loads(text)
    return shaped["records"], shaped["_index"]


def test_every_wrapper_gives_the_same_records_and_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    value = _contacts()
    text = json.dumps(value)
    forms = {
        "dict": value,
        "FastMCP result dict": {"result": value},
        "FastMCP result as a JSON string": json.dumps({"result": value}),
        "FastMCP result holding the text": {"result": text},
        "text blocks and a structured copy": {
            "content": [{"type": "text", "text": json.dumps(value, indent=2)}],
            "structuredContent": {"result": value},
            "isError": False,
        },
        "a text block and the structured copy of a string": {
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"result": text},
            "isError": False,
        },
        "OpenAI input_text parts": [{"type": "input_text", "text": text}],
    }
    policy = Policy(budget=4000, spill_dir=tmp_path)
    expected = _records_and_index(shape(text, policy=policy, tool="t").text)
    for name, raw in forms.items():
        assert _records_and_index(shape(raw, policy=policy, tool="t").text) == expected, name


def test_a_list_of_names_is_the_record_list_beside_a_big_readme(tmp_path) -> None:  # type: ignore[no-untyped-def]
    versions = [f"{a}.{b}.{c}" for a in range(6) for b in range(10) for c in range(5)][:262]
    doc = {
        "name": "widget",
        "dist-tags": {"latest": versions[-1]},
        "versions": versions,
        "time": {v: f"2020-01-{i % 28 + 1:02d}T00:00:00Z" for i, v in enumerate(versions)},
        "readme": "# Widget\n" + "Lorem ipsum dolor sit amet. " * 2000,
    }
    for budget in (2000, 4000):
        text = shape(json.dumps(doc), policy=Policy(budget=budget, spill_dir=tmp_path), tool="pkg").text
        assert count_tokens(text) <= budget
        env = json.loads(text)["_hostshape"]
        assert env["list"] == "versions" and env["truncated"] is True
        assert all(json.dumps(v) in text for v in versions), budget
