"""Record lists shaped like the services of issue 27's seventh round, as the model receives them with zero
configuration; the payloads are synthetic, each named after the promise it checks: a record whose heaviest member is
its map of links is still the record (never a wrapper around the links), and the shapes the corpus lacks (time
series, nested GraphQL connections, search hits beside facets, batch and composite responses, per-item error
batches) keep every record findable by its identifier within the budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hostshape.records.locate import locate
from tests.answers import shaped_json_text as _shaped


def _environments(n: int) -> dict[str, Any]:
    """Thin records (an identifier and a name) beside a map of links, each a server path: the map is their heaviest
    member."""
    verbs = ("Self", "Machines", "Variables", "Metadata", "Permissions")
    items = [
        {
            "Id": f"Environments-{i}",
            "Name": f"Env {i}",
            "Links": {v: f"/api/Spaces-1/environments/Environments-{i}/{v.lower()}" for v in verbs}
            | {"Web": f"/app#/Spaces-1/infrastructure/environments/Environments-{i}"},
        }
        for i in range(n)
    ]
    return {"ItemType": "Environment", "TotalResults": n, "Items": items}


def test_a_map_of_links_is_the_records_links_not_the_records() -> None:
    located = locate(_environments(12))
    assert located is not None
    assert located.path == ("Items",)
    assert not located.notes
    assert located.records[0]["Id"] == "Environments-0"


def test_a_map_of_full_urls_is_the_records_links_too(tmp_path: Path) -> None:
    raw = _environments(12)
    for item in raw["Items"]:
        item["Links"] = {k: "https://deploy.example.com" + v for k, v in item["Links"].items()}
    _, shown = _shaped(tmp_path, raw, 800)
    assert shown["_hostshape"]["list"] == "Items"
    assert [r["Id"] for r in shown["Items"]][:3] == ["Environments-0", "Environments-1", "Environments-2"]


def test_a_wrapper_whose_object_holds_more_than_links_is_still_unwrapped() -> None:
    raw = {
        "edges": [
            {"cursor": f"c{i}", "node": {"id": f"n{i}", "url": f"https://example.com/n/{i}", "title": f"Title {i}"}}
            for i in range(10)
        ]
    }
    located = locate(raw)
    assert located is not None
    assert located.path == ("edges[].node",)


def test_a_time_series_matrix_keeps_each_series_labels(tmp_path: Path) -> None:
    result = [
        {
            "metric": {"__name__": "node_load1", "job": "node", "instance": f"10.0.0.{i}:9100"},
            "values": [[1700000000 + 60 * k, f"{(i * 7 + k) % 10 / 10:.1f}"] for k in range(60)],
        }
        for i in range(8)
    ]
    raw = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    text, shown = _shaped(tmp_path, raw, 1500)
    assert shown["_hostshape"]["list"] == "data.result"
    for i in range(8):
        assert f"10.0.0.{i}:9100" in text  # every series named by its labels
    assert "values" in " ".join(shown["_hostshape"]["notes"])  # the cut samples are named


def test_parallel_arrays_of_a_metric_result_are_cut_alike(tmp_path: Path) -> None:
    results = [
        {
            "Id": f"m{i}",
            "Label": f"CPUUtilization i-{i:04x}",
            "Timestamps": [f"2025-01-01T{k // 60:02d}:{k % 60:02d}:00Z" for k in range(120)],
            "Values": [round(i + k * 0.25, 2) for k in range(120)],
            "StatusCode": "Complete",
        }
        for i in range(5)
    ]
    raw = {"MetricDataResults": results, "Messages": []}
    _, shown = _shaped(tmp_path, raw, 1500)
    assert shown["_hostshape"]["list"] == "MetricDataResults"
    rows = shown["MetricDataResults"]
    assert [r["Id"] for r in rows] == [f"m{i}" for i in range(5)]
    notes = " ".join(shown["_hostshape"]["notes"])
    assert "Timestamps" in notes and "Values" in notes  # both cut alike, and the clock every query shares named
    for r in rows:
        assert len(r["Values"]) < 120


def test_nested_connections_unwrap_the_outer_nodes(tmp_path: Path) -> None:
    edges = [
        {
            "cursor": f"Y3Vyc29yOn{i}",
            "node": {
                "number": 100 + i,
                "title": f"Parser fails on input {i}",
                "state": "OPEN" if i % 3 else "CLOSED",
                "labels": {"edges": [{"node": {"name": n}} for n in ("bug", "help wanted", "parser")[: 1 + i % 3]]},
            },
        }
        for i in range(30)
    ]
    raw = {"data": {"repository": {"issues": {"totalCount": 30, "pageInfo": {"hasNextPage": False}, "edges": edges}}}}
    text, shown = _shaped(tmp_path, raw, 1500)
    assert shown["_hostshape"]["list"] == "data.repository.issues.edges[].node"
    assert all(f'"Parser fails on input {i}"' in text for i in range(30))
    assert text.count('{"name":"help wanted"}') == 20  # the inner nodes, no longer than the cut that would hide them


def test_an_object_past_the_depth_cap_is_cut_when_cutting_saves_room(tmp_path: Path) -> None:
    deep = {"a": {"b": {"c": {"d": {"note": "a long enough sentence that a placeholder is shorter than it"}}}}}
    raw = {"items": [{"id": f"r{i}", "name": f"Record {i}", **deep} for i in range(30)]}
    for r in raw["items"]:
        r["body"] = f"text of record {r['id']} " * 30
    _, shown = _shaped(tmp_path, raw, 1200)
    notes = " ".join(shown["_hostshape"]["notes"])
    assert "nesting below" in notes and "a.b.c.d" in notes


def test_search_hits_beside_highlights_and_facets(tmp_path: Path) -> None:
    hits = [
        {
            "_index": "articles",
            "_id": f"doc-{i}",
            "_score": round(2.0 - i * 0.05, 2),
            "_source": {"title": f"Article {i} on inverted indexes", "author": f"writer{i % 4}", "body": "words " * 40},
            "highlight": {"body": [f"the <em>inverted</em> index, part {i}"]},
        }
        for i in range(20)
    ]
    buckets = [{"key": f"writer{k}", "doc_count": 5} for k in range(4)]
    raw = {
        "took": 4,
        "timed_out": False,
        "hits": {"total": {"value": 20, "relation": "eq"}, "max_score": 2.0, "hits": hits},
        "aggregations": {"authors": {"buckets": buckets}},
    }
    text, shown = _shaped(tmp_path, raw, 1500)
    assert shown["_hostshape"]["list"] == "hits.hits"
    assert all(f'"doc-{i}"' in text for i in range(20))
    assert "aggregations" in text  # the facets are shown or named, never silently gone


def test_a_batch_of_responses_each_holding_a_page(tmp_path: Path) -> None:
    responses = [
        {
            "id": str(i),
            "status": 200,
            "headers": {"Content-Type": "application/json"},
            "body": {
                "value": [
                    {"id": f"u{i}{j}", "displayName": f"User {i}{j}", "jobTitle": f"Engineer level {j}"}
                    for j in range(10)
                ]
            },
        }
        for i in range(4)
    ]
    text, shown = _shaped(tmp_path, {"responses": responses}, 600)
    assert shown["_hostshape"]["list"] == "responses"
    assert shown["_hostshape"]["total"] == 4
    assert '"u00"' in text


def test_composite_sub_responses_are_listed_by_their_reference(tmp_path: Path) -> None:
    subs = [
        {
            "body": {"id": f"001R0000003{i:04d}AAA", "success": True, "errors": []},
            "httpHeaders": {"Location": f"/services/data/v58.0/sobjects/Account/001R0000003{i:04d}AAA"},
            "httpStatusCode": 201,
            "referenceId": f"ref{i}",
        }
        for i in range(30)
    ]
    text, shown = _shaped(tmp_path, {"compositeResponse": subs}, 500)
    assert shown["_hostshape"]["total"] == 30
    assert all(f'"001R0000003{i:04d}AAA"' in text for i in range(30))  # each shown or indexed by its identifier


def test_per_item_errors_stay_beside_their_item(tmp_path: Path) -> None:
    results = [
        {"index": i, "status": "ok", "data": {"id": f"item-{i}", "name": f"Item {i}", "price": i * 3}}
        if i % 4
        else {"index": i, "status": "error", "error": {"code": "NOT_FOUND", "message": f"item-{i} does not exist"}}
        for i in range(40)
    ]
    text, shown = _shaped(tmp_path, {"results": results}, 500)
    assert shown["_hostshape"]["total"] == 40
    assert "NOT_FOUND" in text
    assert '"error"' in text
