"""Every place the envelope names is a JMESPath query of the saved result that reads it, whatever its keys hold:
one quoting (``envelope.query_key``: bare identifiers bare, any other key quoted) for the record list, the cut
places of the shrink and the members cut from an object."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jmespath
import pytest

from hostshape import Policy, shape
from hostshape.output.envelope import query_key, query_of
from hostshape.records.listing import list_query
from hostshape.wayback.retrieve import read
from tests.answers import read_policy as _policy

ODD_KEYS = {
    "a dot": "a.b",
    "quotes": 'say "hi"',
    "spaces": "two words",
    "unicode": "név – 名前",
    "digits first": "2024q1",
    "a backslash": "back\\slash",
    "a star": "*",
    "brackets": "[0]",
}


def _read(handle: str | None, query: str, policy: Policy) -> Any:
    """What the model gets back for ``query``: the page's data besides its envelope."""
    page = json.loads(read(handle or "", query=query, policy=policy.replace(budget=20_000)))
    assert page["_hostshape"].get("matched", True), query
    (data,) = [v for k, v in page.items() if k != "_hostshape"]
    return data


def test_bare_identifiers_stay_bare_and_every_other_key_is_quoted() -> None:
    assert query_key("tags") == "tags"
    assert query_key("_id2") == "_id2"
    assert query_key("a.b") == '"a.b"'
    assert query_key("2024") == '"2024"'
    assert query_key("név") == '"név"'


@pytest.mark.parametrize("key", list(ODD_KEYS.values()), ids=list(ODD_KEYS))
def test_a_query_of_any_key_reads_that_key_and_no_other(key: str) -> None:
    value = {key: {"x": 1}, "a": {"b": {"x": 2}}, "two": 3, "say": 4}
    assert jmespath.search(query_of([key, "x"]), value) == 1
    assert jmespath.search(query_of([key], names=True), value) == ["x"]


@pytest.mark.parametrize("key", list(ODD_KEYS.values()), ids=list(ODD_KEYS))
def test_the_list_query_and_the_member_query_quote_alike(key: str) -> None:
    value = {key: {"inner": [{"id": 1}]}}
    assert list_query(value, (key, "inner")) == query_of([key, "inner"])


@pytest.mark.parametrize("key", list(ODD_KEYS.values()), ids=list(ODD_KEYS))
def test_the_record_list_under_any_key_is_named_by_a_query_that_reads_it(tmp_path: Path, key: str) -> None:
    doc = {"meta": {"total": 300}, key: [{"id": f"r{i}", "text": "lorem ipsum " * 10} for i in range(300)]}
    policy = _policy(tmp_path, 800)
    result = shape(json.dumps(doc), policy=policy)
    env = json.loads(result.text)["_hostshape"]
    assert env["list"] == query_key(key)
    back = _read(result.handle, env["list"], policy)
    assert [r["id"] for r in back][:3] == ["r0", "r1", "r2"]


@pytest.mark.parametrize("key", list(ODD_KEYS.values()), ids=list(ODD_KEYS))
def test_a_list_cut_under_any_key_is_named_by_a_query_that_reads_it(tmp_path: Path, key: str) -> None:
    doc = {
        "results": [{"id": f"r{i}", "text": "lorem ipsum " * 10} for i in range(50)],
        key: {"tags": [f"tag-{j}" for j in range(300)]},
    }
    policy = _policy(tmp_path, 800)
    result = shape(json.dumps(doc, indent=2), policy=policy)
    notes = json.loads(result.text)["_hostshape"]["notes"]
    named = [re.search(r"head and tail: (.+?) \(\d+ lists", note) for note in notes]
    place = next(found[1] for found in named if found)
    assert place == f"{query_key(key)}.tags", notes
    back = _read(result.handle, place, policy)
    assert back[-1] == "tag-299"


@pytest.mark.parametrize("key", list(ODD_KEYS.values()), ids=list(ODD_KEYS))
def test_a_big_map_under_any_key_is_named_by_a_query_of_its_member_names(tmp_path: Path, key: str) -> None:
    doc = {"name": "app", "version": "1.0.0", key: {f"package-{i}": f"^{i}.0.{i % 7}" for i in range(600)}}
    policy = _policy(tmp_path, 1_000)
    result = shape(json.dumps(doc), policy=policy)
    notes = " ".join(json.loads(result.text)["_hostshape"]["notes"])
    query = f"keys({query_key(key)})"
    assert query in notes, notes
    assert len(_read(result.handle, query, policy)) == 600
