"""Identifier choice checked against the content (issue 27): the API's own long or namespaced id first, with a readable
key beside it (and alone when the long id does not fit); link paths built from the key and dates given in parts are
no columns; a key unique in the sample checked over the rest; records inside a tree of wrappers found and listed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hostshape import Policy, shape
from hostshape.records import locate, structure
from hostshape.tokens import count_tokens


def _hex(i: int) -> str:
    return hashlib.md5(str(i).encode()).hexdigest()


def _moment(i: int) -> dict[str, Any]:
    """A date serialised in parts, as some SDK recorders write a datetime."""
    return {"__class__": "datetime", "year": 2024, "month": 5, "day": 1 + i % 28, "hour": i % 24, "minute": i % 60}


def _alerts(n: int = 12) -> list[dict[str, Any]]:
    """Findings each identified by a long ARN; a nested advisory id that happens to be unique, with its own link."""
    return [
        {
            "alertArn": f"arn:cloud:scanner:eu-west-3:123456789012:alert/{_hex(i)}",
            "advisory": {"advisoryId": f"ADV-{1000 + i}", "advisoryUrl": f"https://example.org/ADV-{1000 + i}"},
            "title": f"ADV-{1000 + i} in package {i}",
            "severity": ["LOW", "HIGH"][i % 2],
            "seenAt": _moment(i),
            "details": "x " * 400,
        }
        for i in range(n)
    ]


def test_the_apis_long_own_id_identifies_the_records_not_a_nested_unique_column() -> None:
    records = _alerts()
    assert structure.identifiers(records)[0] == "alertArn"


def test_a_date_given_in_parts_gives_no_index_columns(tmp_path: Path) -> None:
    records = _alerts()
    layouts = structure.index_columns(records, count_tokens)
    assert layouts and not any(c.startswith("seenAt.") for c in layouts[0])
    text = shape(json.dumps({"alerts": records}), policy=Policy(budget=1500, spill_dir=tmp_path)).text
    assert count_tokens(text) <= 1500
    assert all(r["alertArn"] in text for r in records)


def _jobs(n: int = 60) -> list[dict[str, Any]]:
    return [
        {
            "jobArn": f"arn:cloud:batch:us-east-1:123456789012:job/{_hex(i)[:12]}",
            "jobName": f"nightly-report-{i}",
            "status": ["Submitted", "Completed"][i % 2],
            "outputUri": f"s3://bucket-{i}/out/",
            "notes": f"run {i}: " + "y " * 120,
        }
        for i in range(n)
    ]


def test_a_namespaced_id_comes_first_with_the_readable_name_beside_it(tmp_path: Path) -> None:
    records = _jobs()
    key, alt = structure.record_keys(records, count_tokens)
    assert (key, alt) == ("jobArn", "jobName")
    text = shape(json.dumps({"jobs": records}), policy=Policy(budget=4000, spill_dir=tmp_path)).text
    index = json.loads(text)["_index"]
    assert index["fields"][:2] == ["jobArn", "jobName"]
    assert all(r["jobArn"] in text and r["jobName"] in text for r in records)


def test_without_room_for_the_long_id_every_record_is_still_named_by_its_readable_key(tmp_path: Path) -> None:
    records = _jobs()
    text = shape(json.dumps({"jobs": records}), policy=Policy(budget=1200, spill_dir=tmp_path)).text
    assert count_tokens(text) <= 1200
    assert all(json.dumps(r["jobName"]) in text for r in records)


def test_link_paths_built_from_the_key_are_not_identifiers() -> None:
    records = [
        {
            "num": f"1.{i}.0",
            "dl_path": f"/api/v1/things/widget/1.{i}.0/download",
            "readme_path": f"/api/v1/things/widget/1.{i}.0/readme",
            "links": {"authors": f"/api/v1/things/widget/1.{i}.0/authors"},
            "downloads": 1000 + i,
        }
        for i in range(30)
    ]
    key, alt = structure.record_keys(records, count_tokens)
    assert key == "num" and alt not in ("dl_path", "readme_path")
    assert "dl_path" not in structure.identifiers(records)


def _trace() -> dict[str, Any]:
    """OTLP-style batches, each a resource (named only by attributes) wrapping scopes wrapping spans."""

    def span(i: int) -> dict[str, Any]:
        return {
            "spanId": _hex(i)[:16],
            "parentSpanId": _hex(i - 1)[:16] if i else "",
            "name": f"op-{i % 7}",
            "attributes": [{"key": "http.url", "value": {"stringValue": f"/svc/{i % 3}/" + "p" * 60}}],
        }

    return {
        "batches": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": f"svc-{b}"}}] * 3},
                "scopeSpans": [{"scope": {"name": "tracer"}, "spans": [span(b * 4 + k) for k in range(4)]}],
            }
            for b in range(15)
        ]
    }


def test_records_inside_a_tree_of_wrappers_are_found_and_all_listed(tmp_path: Path) -> None:
    doc = _trace()
    found = locate.locate(doc)
    assert found is not None and found.path == ("batches[].scopeSpans[].spans",) and len(found.records) == 60
    assert any("gathered" in n and "not shown" in n for n in found.notes)  # the wrappers' fields: a named cut
    text = shape(json.dumps(doc), policy=Policy(budget=1500, spill_dir=tmp_path)).text
    assert count_tokens(text) <= 1500
    spans = [s for b in doc["batches"] for sc in b["scopeSpans"] for s in sc["spans"]]
    assert all(s["spanId"] in text for s in spans)


def test_a_cut_top_level_list_names_the_key_it_is_shown_under(tmp_path: Path) -> None:
    doc = [{"version": f"{i // 10}.{i % 10}.0", "chart": "repo/app", "description": "z " * 40} for i in range(400)]
    text = shape(json.dumps(doc), policy=Policy(budget=1500, spill_dir=tmp_path)).text
    shown = json.loads(text)
    env = shown["_hostshape"]
    assert env["truncated"] is True and env["list"] == "items" and isinstance(shown["items"], list)


def test_a_key_unique_in_the_sample_but_repeated_later_is_paired_with_what_tells_it_apart(tmp_path: Path) -> None:
    # two charts publish the same versions; the first 150 records are all one chart's
    # (the notes differ, so the records do not fit whole and are listed in the index)
    doc = [
        {"version": f"1.{i % 150}.0", "chart": f"repo/app{i // 150}", "notes": f"note {i} " * 30} for i in range(300)
    ]
    assert structure.record_keys(doc, count_tokens) == ("version", "chart")
    text = shape(json.dumps(doc), policy=Policy(budget=4000, spill_dir=tmp_path)).text
    index = json.loads(text)["_index"]
    assert index["fields"][:2] == ["version", "chart"]
    assert {(r[0], r[1]) for r in index["rows"]} <= {(d["version"], d["chart"]) for d in doc}


def test_an_id_inside_key_value_pairs_with_a_dotted_name_counts_as_one_level_down() -> None:
    records = [
        {
            "timeUnixNano": str(1_700_000_000_000_000_000 + i * 1000),
            "body": {"stringValue": f"request handled {i}"},
            "attributes": [
                {"key": "request.id", "value": {"stringValue": f"req-{_hex(i)[:10]}"}},
                {"key": "http.status", "value": {"intValue": str(200 + i % 3)}},
            ],
        }
        for i in range(50)
    ]
    assert structure.record_keys(records, count_tokens)[0] == "attributes.request.id"
