"""Record lists shaped like the services of issue 27's fifth round (corpus/PROVENANCE.md, fourth round: Okta, Tencent
Cloud CAM, Mastodon, YouTube), as the model receives them with zero configuration; the payloads are synthetic, each
named after the promise it checks: an opaque id the record's link map names it by is its identifier, not a token to
drop; where no listing by the key fits, a second identifier whose listing is much cheaper lists every record; a list
whose records point at another list's records is the result, the other what it includes; and the task reader reads a
column named by the end of the asked path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hostshape
from bench import tasks
from hostshape import Policy
from hostshape.records import locate, structure
from hostshape.tokens import count_tokens

LONG = "a description long enough that the records do not fit the budget whole, " * 6


def _shaped(tmp_path: Path, raw: Any, budget: int) -> dict[str, Any]:
    text = hostshape.shape(json.dumps(raw), policy=Policy(budget=budget, spill_dir=tmp_path)).text
    assert count_tokens(text) <= budget
    shown: dict[str, Any] = json.loads(text)
    return shown


def _opaque(i: int) -> str:
    """A 20-character mixed-case token, like an Okta object id."""
    return f"0oa{i:03d}Xq{(i * 7919) % 100000:05d}Zk{(i * 104729) % 1000000:06d}d7"[:20]


def _apps(n: int, links: bool = True) -> list[dict[str, Any]]:
    """Applications identified by an opaque id, a namespaced name built from it and a short name; the API's links to
    each sit one level inside a link map (HAL-style ``_links``), beside large settings."""
    out = []
    for i in range(n):
        ident = _opaque(i)
        app: dict[str, Any] = {
            "id": ident,
            "orn": f"orn:demo:idp:00org:apps:app{i}:{ident}",
            "name": f"app{i}",
            "label": f"Application number {i}",
            "created": f"2025-03-{1 + i % 28:02d}T08:01:45.000Z",
            "settings": {"notes": LONG, "app": {"url": f"https://portal.example.com/{i}"}},
        }
        if links:
            app["_links"] = {
                "users": {"href": f"https://demo.example.com/api/v1/apps/{ident}/users"},
                "groups": {"href": f"https://demo.example.com/api/v1/apps/{ident}/groups"},
                "logo": [{"name": "medium", "href": f"https://cdn.example.com/logos/{i:04x}.png"}],
            }
        out.append(app)
    return out


def test_links_one_level_inside_a_link_map_name_the_record() -> None:
    apps = _apps(12)
    assert structure.stats(apps, "id").linked
    assert not structure.stats(_apps(12, links=False), "id").linked


@pytest.mark.parametrize("budget", [2000, 4000])
def test_the_opaque_id_a_link_map_names_the_record_by_is_kept(tmp_path: Path, budget: int) -> None:
    apps = _apps(40)
    shown = _shaped(tmp_path, apps, budget)
    assert isinstance(shown, dict) and "id" not in shown["_hostshape"].get("omitted", [])
    text = json.dumps(shown)
    assert all(a["id"] in text for a in apps)


def _policies(n: int) -> dict[str, Any]:
    """Policies two levels down, each with a numeric id and a long unique name: the names cost twice the numbers."""
    return {
        "Response": {
            "List": [
                {
                    "PolicyId": 236806532 - 1000 * i,
                    "PolicyName": f"policygen-analyze-{i:04d}-e70b2cc7bbec3d9e7a-policy-{1741772021860 + i}",
                    "AddTime": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d} 17:27:58",
                    "Attachments": i % 3,
                    "Description": LONG[: 20 + i % 40],
                }
                for i in range(n)
            ],
            "TotalNum": n,
        }
    }


def test_a_cheaper_second_identifier_lists_every_record_where_the_key_cannot(tmp_path: Path) -> None:
    doc = _policies(200)
    records = doc["Response"]["List"]
    assert structure.record_keys(records, count_tokens)[0] == "PolicyName"
    shown = _shaped(tmp_path, doc, 2000)
    env = shown["_hostshape"]
    assert env.get("dropped", 0) == 0 and env["returned"] + env.get("listed", 0) == 200
    text = json.dumps(shown)
    assert all(str(r["PolicyId"]) in text for r in records)


def test_the_key_stays_first_where_its_listing_fits(tmp_path: Path) -> None:
    records = _policies(200)["Response"]["List"]
    layouts = structure.index_columns(records, count_tokens)
    assert layouts[-1] == ["PolicyId"] and all(c[0] == "PolicyName" for c in layouts[:-1])
    shown = _shaped(tmp_path, _policies(40), 4000)
    assert all(r["PolicyName"] in json.dumps(shown) for r in _policies(40)["Response"]["List"])


def test_no_cheaper_layout_when_the_second_identifier_costs_as_much() -> None:
    records = [{"name": f"svc-{i:04d}", "num": 236806532 - 1000 * i, "notes": LONG} for i in range(50)]
    assert not structure._cheaper_alone(records, records, "name", "num", count_tokens)


def _notifications(n: int) -> dict[str, Any]:
    """Grouped notifications beside the statuses and accounts they point at: the statuses are the heaviest list."""
    account = {"id": "117020565693913441", "acct": "admin", "note": LONG}
    statuses = [
        {
            "id": f"1170205799{i:08d}",
            "url": f"http://localhost:3000/@admin/1170205799{i:08d}",
            "content": f"<p>status {i}: {LONG * 2}</p>",
            "account": account,
        }
        for i in range(n)
    ]
    groups = [
        {
            "group_key": f"ungrouped-{40 + i}",
            "type": "mention" if i % 2 else "favourite",
            "most_recent_notification_id": 40 + i,
            "latest_page_notification_at": f"2026-08-01T13:52:{10 + i:02d}.771Z",
            "status_id": s["id"],
        }
        for i, s in enumerate(statuses)
    ]
    return {"accounts": [account], "statuses": statuses, "notification_groups": groups}


def test_a_list_pointing_at_anothers_records_is_the_result() -> None:
    found = locate.locate(_notifications(6))
    assert found is not None and found.path == ("notification_groups",)


def test_a_list_pointing_at_nothing_leaves_the_heaviest_the_result() -> None:
    doc = _notifications(6)
    for g in doc["notification_groups"]:
        g["status_id"] = "9" + g["status_id"]  # points at no status shown
    found = locate.locate(doc)
    assert found is not None and found.path == ("statuses",)


def test_small_numbers_are_not_pointers() -> None:
    doc = {
        "items": [{"id": i, "body": LONG} for i in range(1, 9)],
        "sections": [{"key": f"s{i}", "first": i} for i in range(1, 9)],  # positions, not references
    }
    found = locate.locate(doc)
    assert found is not None and found.path == ("items",)


@pytest.mark.parametrize("budget", [2000, 4000])
def test_the_referring_records_are_shown_with_what_they_point_at_named(tmp_path: Path, budget: int) -> None:
    doc = _notifications(16)
    assert count_tokens(json.dumps(doc)) > budget * 3 // 2
    shown = _shaped(tmp_path, doc, budget)
    assert shown["_hostshape"]["list"] == "notification_groups"
    text = json.dumps(shown)
    assert all(g["group_key"] in text and g["status_id"] in text for g in doc["notification_groups"])


def test_the_task_reader_reads_a_column_named_by_the_paths_end() -> None:
    record = {"id": "x1", "resourceId.videoId": "CvTApw9X8aA", "title": "a talk"}
    assert tasks._get(record, "snippet.resourceId.videoId") == "CvTApw9X8aA"
    assert tasks._get({"snippet": {"resourceId": {"videoId": "v"}}}, "snippet.resourceId.videoId") == "v"
