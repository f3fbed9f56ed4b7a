"""Records in shapes the corpus does not show (issue 27), in the form a user meets them (``shape``, then ``read``):
records known only by a key/value pair, pages of records, a chart's parallel arrays, a map of entries keyed by
name. Every record is listed when the identifiers fit, the budget is used, and the way back returns the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hostshape
from hostshape import Policy
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read
from tests.answers import read_policy as _policy


def _shaped(raw: Any, policy: Policy) -> dict[str, Any]:
    text = hostshape.shape(raw, policy=policy).text
    assert count_tokens(text) <= policy.budget
    shown: dict[str, Any] = json.loads(text)
    return shown


def _pages(first: dict[str, Any], policy: Policy) -> list[dict[str, Any]]:
    """The first answer and every page following ``next`` from it, each within the budget."""
    pages, handle = [first], first["_hostshape"]["handle"]
    while pages[-1]["_hostshape"].get("next"):
        text = read(handle, cursor=pages[-1]["_hostshape"]["next"], policy=policy)
        assert count_tokens(text) <= policy.budget
        pages.append(json.loads(text))
        assert len(pages) < 100
    return pages


def _tagged(names: tuple[str, str]) -> list[dict[str, Any]]:
    """200 resources known only by their tags, given as two-member pairs named ``names``."""
    name, value = names
    return [
        {
            "Tags": [
                {name: "instance-id", value: f"i-{(i * 2654435761) % 16**17:017x}"},
                {name: "env", value: "prod" if i % 3 else "dev"},
                {name: "owner", value: f"team-{i % 5}"},
            ]
        }
        for i in range(200)
    ]


@pytest.mark.parametrize("names", [("Key", "Value"), ("label", "content")], ids=["key-value", "any-two-names"])
def test_records_known_only_by_a_tag_are_the_records_each_listed(tmp_path: Path, names: tuple[str, str]) -> None:
    records = _tagged(names)
    shown = _shaped(records, _policy(tmp_path, 4000))
    assert shown["_hostshape"]["total"] == 200  # the resources, not their 600 tags
    text = json.dumps(shown)
    assert [r["Tags"][0][names[1]] for r in records if r["Tags"][0][names[1]] not in text] == []


def test_pairs_that_are_children_of_their_parents_are_still_flattened(tmp_path: Path) -> None:
    # Each parent's list holds names of its own (a release's assets): children, not the parent's fields.
    releases = [
        {
            "tag": f"v{i}",
            "assets": [{"name": f"pkg-{i}-{os}.tar.gz", "size": 1000 * i + k} for k, os in enumerate("ab")],
        }
        for i in range(60)
    ]
    shown = _shaped(releases, _policy(tmp_path, 500))
    assert shown["_hostshape"]["total"] == 120
    assert any("flattened" in n for n in shown["_hostshape"]["notes"])


def _paged_results() -> list[list[dict[str, Any]]]:
    return [
        [{"id": f"p{p}-{i}", "v": f"result {i} " + "lorem ipsum dolor " * 12} for i in range(20)] for p in range(10)
    ]


@pytest.mark.parametrize("wrapped", [False, True], ids=["list-of-pages", "pages-beside-a-query"])
def test_records_in_pages_are_each_listed_and_read_back_once(tmp_path: Path, wrapped: bool) -> None:
    pages = _paged_results()
    ids = [r["id"] for page in pages for r in page]
    policy = _policy(tmp_path, 2000)
    first = _shaped({"query": "lorem", "results": pages} if wrapped else pages, policy)
    envelope = first["_hostshape"]
    assert envelope["total"] == 200 and any("200 records from 10 lists" in n for n in envelope["notes"])
    assert [i for i in ids if json.dumps(i) not in json.dumps(first)] == []  # each listed, whole or in the index
    seen = []
    for page in _pages(first, policy):
        member = next(v for k, v in page.items() if k not in ("_hostshape", "_index", "query"))
        seen += [r["id"] for r in as_records(member)]
    assert seen == ids  # the way back: every record once, in order
    if wrapped:  # the list the envelope names is a query over the saved result that picks from every page
        picked = read(envelope["handle"], query=f"{envelope['list']} | [?id=='p7-19'].v", policy=policy)
        assert "result 19" in picked


def _chart(points: int = 200) -> dict[str, Any]:
    return {
        "chart": {
            "result": [
                {
                    "timestamp": [1764583200 + i * 60 for i in range(points)],
                    "indicators": {
                        "quote": [
                            {
                                "close": [round(100 + (i * 37 % 101) / 100, 2) for i in range(points)],
                                "volume": [i * 7919 % 10**6 for i in range(points)],
                            }
                        ]
                    },
                }
            ]
        }
    }


def test_parallel_arrays_are_each_shown_in_part_using_the_budget(tmp_path: Path) -> None:
    chart = _chart()
    text = hostshape.shape(chart, policy=_policy(tmp_path, 2000)).text
    assert 0.5 * 2000 <= count_tokens(text) <= 2000
    shown = json.loads(text)
    series = shown["chart"]["result"][0]
    quote = series["indicators"]["quote"][0]
    for shown_list in (series["timestamp"], quote["close"], quote["volume"]):
        assert isinstance(shown_list, list) and len(shown_list) > 40  # each list in part, none as a placeholder
    # the same points of each list: the head and the tail, the cut named with how many items it left out
    assert series["timestamp"][:3] == chart["chart"]["result"][0]["timestamp"][:3]
    assert quote["volume"][-1] == chart["chart"]["result"][0]["indicators"]["quote"][0]["volume"][-1]
    assert any("head and tail" in n and "timestamp" in n for n in shown["_hostshape"]["notes"])


def _lockfile(packages: int = 900) -> dict[str, Any]:
    entries = {
        f"node_modules/@scope-{i % 40}/package-{i}": {
            "version": f"{i % 7}.{i % 13}.{i % 29}",
            "resolved": f"https://registry.example.org/package-{i}/-/package-{i}-{i % 7}.{i % 13}.{i % 29}.tgz",
            "integrity": f"sha512-{(i * 2654435761) % 16**60:060x}",
            "dev": i % 2 == 0,
            "license": "MIT",
        }
        for i in range(packages)
    }
    return {"name": "app", "version": "1.0.0", "lockfileVersion": 3, "packages": entries}


def test_a_cut_map_of_entries_lists_each_name_with_its_version(tmp_path: Path) -> None:
    lock = _lockfile()
    shown = _shaped(lock, _policy(tmp_path, 4000))
    index = shown["_index"]
    first = 1 if index["fields"][0] == "#" else 0  # an index spread over the map leads each row with its position
    assert index["fields"][first] == "key" and "version" in index["fields"]  # not the flag, the field varying most
    at = index["fields"].index("version")
    assert len(index["rows"]) > 100
    for name, version in ((row[first], row[at]) for row in index["rows"]):
        assert lock["packages"][name]["version"] == version


def test_a_map_whose_every_name_fits_lists_every_name(tmp_path: Path) -> None:
    lock = _lockfile(300)  # the names alone take 3,300 tokens: no room for a version beside each
    shown = _shaped(lock, _policy(tmp_path, 4000))
    envelope = shown["_hostshape"]
    assert envelope["returned"] + envelope["listed"] == 300  # a listing of every name before a version beside some
