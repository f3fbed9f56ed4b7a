"""Big objects and maps (many keys whose values have one shape: paths, packages, versions, ids): the first answer
names their keys, the budget holds, the JSON stays valid, and every cut is named with a query that reads it back.

The inputs are small synthetic generators of public formats (an OpenAPI 3 spec, a package.json-like manifest, an
npm lockfile v3, a map of ids to records), not copies of corpus files."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jmespath
import pytest

from hostshape import Policy, shape
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

BUDGETS = (2000, 4000, 8000)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))


def _version(rng: random.Random) -> str:
    return f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"


def openapi(paths: int = 300, schemas: int = 40, seed: int = 1) -> dict[str, Any]:
    """An OpenAPI 3 spec: a big ``paths`` map of operations beside a few component schemas."""
    rng = random.Random(seed)

    def operation() -> dict[str, Any]:
        return {
            "operationId": _word(rng) + _word(rng).title(),
            "summary": " ".join(_word(rng) for _ in range(6)),
            "parameters": [
                {"name": _word(rng), "in": "query", "schema": {"type": "string"}, "description": _word(rng) * 4}
                for _ in range(rng.randint(1, 4))
            ],
            "responses": {
                "200": {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}
            },
        }

    spec_paths: dict[str, Any] = {}
    while len(spec_paths) < paths:
        path = f"/v3/{_word(rng)}" + ("/{id}" if rng.random() < 0.5 else "")
        spec_paths[path] = {m: operation() for m in rng.sample(["get", "post", "put", "delete"], rng.randint(1, 3))}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Example API", "version": "2.1.0"},
        "paths": spec_paths,
        "components": {
            "schemas": {
                _word(rng).title() + str(i): {"type": "object", "properties": {_word(rng): {"type": "string"}}}
                for i in range(schemas)
            }
        },
    }


def manifest(seed: int = 2) -> dict[str, Any]:
    """A package manifest: maps of package name to pinned version (many short members)."""
    rng = random.Random(seed)
    names = sorted({f"{_word(rng)}-{i}" for i in range(1200)})
    return {
        "name": "app",
        "version": "2.0.0",
        "scripts": {"build": "tsc -p .", "test": "jest"},
        "dependencies": {n: _version(rng) for n in names[:800]},
        "devDependencies": {n: "^" + _version(rng) for n in names[800:]},
    }


def shaped(value: Any, budget: int, tmp_path: Any) -> tuple[str, dict[str, Any], Policy]:
    policy = Policy(budget=budget, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    text = shape(json.dumps(value), policy=policy, tool="t").text
    return text, json.loads(text), policy


def _queries(notes: list[str]) -> list[str]:
    """The JMESPath queries the notes name (in parentheses, or after 'all of them: ')."""
    found = re.findall(r"\((keys\([^)]*\))\)", " ".join(notes))
    found += re.findall(r"all of them: (\S.*?)(?:'|$)", " ".join(notes))
    return found


@pytest.mark.parametrize("budget", BUDGETS)
def test_a_big_map_beside_the_records_is_shown_by_as_many_keys_as_fit(budget: int, tmp_path: Any) -> None:
    spec = openapi()
    text, answer, policy = shaped(spec, budget, tmp_path)
    assert count_tokens(text) <= budget
    env = answer["_hostshape"]
    paths = set(spec["paths"])
    shown = [p for p in paths if json.dumps(p) in text]
    assert len(shown) >= min(len(paths), budget // 100), (budget, len(shown))
    if len(shown) < len(paths):  # the cut is named, with the query that reads every path
        queries = _queries(env["notes"])
        assert "keys(paths)" in queries, env["notes"]
        back = json.loads(read(env["handle"], query="keys(paths)", policy=policy.replace(budget=20000)))
        assert set(back["items"]) == paths


@pytest.mark.parametrize("budget", BUDGETS)
def test_a_manifest_keeps_every_top_level_key_and_shares_the_budget_among_its_maps(budget: int, tmp_path: Any) -> None:
    value = manifest()
    text, answer, policy = shaped(value, budget, tmp_path)
    assert count_tokens(text) <= budget
    assert set(value) <= set(answer)  # no top-level member dropped for one large one
    assert count_tokens(text) >= budget * 0.7  # the budget is used, not left empty
    deps, dev = answer["dependencies"], answer["devDependencies"]
    for shown, original in ((deps, value["dependencies"]), (dev, value["devDependencies"])):
        pinned = {k: v for k, v in shown.items() if k != "…"}
        assert len(pinned) >= budget // 60, len(pinned)
        assert all(original[k] == v for k, v in pinned.items())  # which version is pinned: answered right
    notes = " ".join(answer["_hostshape"]["notes"])
    assert "dependencies" in notes and "devDependencies" in notes
    for query in _queries(answer["_hostshape"]["notes"]):
        back = json.loads(read(answer["_hostshape"]["handle"], query=query, policy=policy.replace(budget=20000)))
        assert back["items"] == jmespath.search(query, value)


def test_an_object_holding_a_big_map_lists_all_its_keys_with_sizes_when_they_fit(tmp_path: Any) -> None:
    """A map of ids to records inside an object: through the object fit, every key is named."""
    from hostshape.fit.objects import cut_to_bytes, cuts_in
    from hostshape.output.render import dumps

    rng = random.Random(5)
    records = {
        str(rng.randint(10**8, 10**9)): {
            "name": _word(rng),
            "tags": [_word(rng) for _ in range(8)],
            "note": _word(rng) * 9,
        }
        for _ in range(200)
    }
    value = {"kind": "Inventory", "items": records, "settings": {"a": "x" * 3000}}
    cut = cut_to_bytes(value, 8000)
    assert len(dumps(cut).encode()) <= 8000
    assert set(cut) == set(value)
    assert set(cut["items"]) == set(records)  # every id, each with its value or its size
    places, total = cuts_in(cut)
    assert total >= 1 and places


def test_a_map_with_more_keys_than_fit_shows_the_first_and_says_how_many_more() -> None:
    from hostshape.fit.objects import cut_to_bytes, cuts_in

    value = {"paths": openapi(paths=600)["paths"]}
    cut = cut_to_bytes(value, 3000)
    shown = [k for k in cut["paths"] if k != "…"]
    assert 20 <= len(shown) < 600
    assert cut["paths"]["…"] == f"+{600 - len(shown)} more members"
    places, _ = cuts_in(cut)
    assert places[0] == ("paths", len(shown), 600, "keys(paths)")
