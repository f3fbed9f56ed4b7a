"""Zero-configuration shaping on structures built to defeat name lists: every decision must come from the data."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.records import locate
from hostshape.structure import identifier, record_keys
from hostshape.tokens import count_tokens

LONG = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. " * 12


def _shape(tmp_path, value: Any, budget: int = 4000) -> tuple[dict[str, Any], str]:  # type: ignore[no-untyped-def]
    raw = json.dumps(value)
    text = shape(raw, policy=Policy(budget=budget, spill_dir=tmp_path / "spill"), tool="t").text
    assert count_tokens(text) <= budget
    return json.loads(text), text


def _all_present(text: str, ids: list[Any]) -> bool:
    return all(json.dumps(i) in text for i in ids)


def test_graphql_connection_keeps_node_identifiers_and_drops_cursors(tmp_path) -> None:
    edges = [{"cursor": f"Y3Vyc29yOnYyOpHOAAB{i:05d}xQ==", "node": {
        "id": f"MDU6SXNzdWUx{i:08d}Aa", "number": 500 + i, "title": f"Fix widget {i} on save",
        "body": LONG, "author": {"login": f"dev{i % 7}"}}} for i in range(60)]
    doc = {"data": {"repository": {"issues": {"totalCount": 60, "edges": edges,
                                              "pageInfo": {"hasNextPage": False}}}}}
    shown, text = _shape(tmp_path, doc)
    env = shown["_hostshape"]
    assert env["truncated"] is True and env["total"] == 60
    assert env["list"] == "data.repository.issues.edges[].node"
    assert _all_present(text, [500 + i for i in range(60)])
    assert "Y3Vyc29y" not in text  # the opaque cursor is not the identifier: dropped and named
    assert "cursor" in env["omitted"]


def test_sql_rows_as_arrays_take_their_names_from_the_column_list(tmp_path) -> None:
    columns = [{"name": "order_ref", "type": "varchar"}, {"name": "customer", "type": "varchar"},
               {"name": "amount", "type": "decimal"}, {"name": "note", "type": "text"}]
    rows = [[f"ORD-{i:04d}", f"customer {i % 13}", i * 1.5, LONG[: 200 + i]] for i in range(150)]
    shown, text = _shape(tmp_path, {"columns": columns, "rows": rows, "rowCount": 150})
    env = shown["_hostshape"]
    assert env["list"] == "rows" and env["total"] == 150 and env["truncated"] is True
    assert shown["rows"][0]["order_ref"] == "ORD-0000"
    assert _all_present(text, [f"ORD-{i:04d}" for i in range(150)])
    assert shown["_index"]["fields"][0] == "order_ref"


def test_key_value_pair_lists_become_small_objects() -> None:
    records = [{"InstanceId": f"i-{i:017x}", "Tags": [{"Key": "env", "Value": "prod"},
                                                     {"Key": "team", "Value": f"t{i}"}]} for i in range(5)]
    from hostshape.project import shrink

    out = shrink({"Instances": records}).value
    assert out["Instances"][0]["Tags"] == {"env": "prod", "team": "t0"}


def test_a_human_key_beats_an_opaque_uuid_and_both_are_listed(tmp_path) -> None:
    records = [{"uuid": str(uuid.UUID(int=i * 7919 + 1)), "slug": f"project-{i}", "description": f"{i} {LONG}"}
               for i in range(80)]
    assert identifier(records) == "slug"
    assert record_keys(records) == ("slug", "uuid")
    shown, text = _shape(tmp_path, {"projects": records})
    assert shown["_index"]["fields"][0] == "slug"
    assert _all_present(text, [f"project-{i}" for i in range(80)])


def test_values_constant_in_every_record_are_stated_once(tmp_path) -> None:
    records = [{"name": f"pod-{i}", "kind": "Pod", "apiVersion": "v1", "log": f"{i} {LONG}"} for i in range(30)]
    shown, _ = _shape(tmp_path, {"items": records})
    env = shown["_hostshape"]
    assert env["same"] == {"kind": "Pod", "apiVersion": "v1"}
    shown_records = shown["items"]
    assert shown_records and all("kind" not in r for r in shown_records)


def test_a_map_keyed_by_identifier_is_a_record_list(tmp_path) -> None:
    nodes = {f"node-{i:03d}": {"status": "up" if i % 3 else "down", "load": i / 10, "detail": f"{i} {LONG}"}
             for i in range(70)}
    located = locate({"cluster": "c1", "nodes": nodes})
    assert located is not None and located.path == ("nodes",) and len(located.records) == 70
    shown, text = _shape(tmp_path, {"cluster": "c1", "nodes": nodes})
    assert _all_present(text, [f"node-{i:03d}" for i in range(70)])
    assert shown["_hostshape"]["truncated"] is True


def test_lists_nested_in_thin_parents_are_flattened_with_the_parents_identifier(tmp_path) -> None:
    groups = [{"name": f"group-{g}", "interval": 30, "rules": [
        {"name": f"Alert{g}x{r}", "query": f"rate(metric_{g}_{r}[5m]) > {r}", "help": LONG[:300]}
        for r in range(8)]} for g in range(20)]
    shown, text = _shape(tmp_path, {"groups": groups})
    env = shown["_hostshape"]
    assert env["list"] == "groups[].rules" and env["total"] == 160
    assert any("flattened" in note and "group-19" in note for note in env["notes"])
    assert _all_present(text, [f"Alert{g}x{r}" for g in range(20) for r in range(8)])


def test_ordered_scalar_lists_keep_head_and_tail_and_say_how_many_were_left_out(tmp_path) -> None:
    records = [{"package": f"pkg{i}", "versions": [f"{i}.{v}.0" for v in range(100)], "readme": f"{i} {LONG}"}
               for i in range(10)]
    shown, _ = _shape(tmp_path, {"packages": records}, budget=8000)
    versions = shown["packages"][0]["versions"]
    assert versions[0] == "0.0.0" and versions[-1] == "0.99.0"
    assert any(isinstance(v, str) and "more" in v for v in versions)
    assert any("versions" in note for note in shown["_hostshape"]["notes"])


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_link_maps_and_api_links_are_noise_but_records_keep_their_keys(tmp_path, budget: int) -> None:
    records = [{"key": f"PROJ-{i}", "id": str(10000 + i), "self": f"https://jira.example.com/rest/api/2/issue/{i}",
                "fields": {"summary": f"Summary of issue {i}", "status": {"name": "Open" if i % 2 else "Done",
                                                                         "id": str(i % 2)},
                           "avatarUrls": {"16x16": f"https://x.example.com/a/{i}?s=16",
                                          "48x48": f"https://x.example.com/a/{i}?s=48"},
                           "description": f"{i} {LONG}"}} for i in range(120)]
    shown, text = _shape(tmp_path, {"startAt": 0, "total": 120, "issues": records}, budget)
    env = shown["_hostshape"]
    assert env["truncated"] is True and env["notes"]
    assert "jira.example.com" not in text and "x.example.com" not in text
    assert {"self", "avatarUrls"} <= set(env["omitted"])
    if budget >= 4000:
        assert _all_present(text, [f"PROJ-{i}" for i in range(120)])


def test_an_under_budget_result_passes_through_untouched(tmp_path) -> None:
    raw = json.dumps({"items": [{"id": i, "name": f"n{i}"} for i in range(5)]}, indent=2)
    result = shape(raw, policy=Policy(budget=4000, spill_dir=tmp_path / "spill"))
    assert result.text == raw and not result.changed


def test_rows_whose_first_row_names_the_columns(tmp_path) -> None:
    values = [["Name", "Email", "Notes"]] + [[f"person{i}", f"p{i}@example.com", f"{i} {LONG}"] for i in range(100)]
    shown, text = _shape(tmp_path, {"range": "A1:C101", "values": values})
    assert shown["_hostshape"]["list"] == "values" and shown["_hostshape"]["total"] == 100
    assert shown["values"][0]["Name"] == "person0"
    assert _all_present(text, [f"person{i}" for i in range(100)])


def test_rows_of_cell_objects_take_their_names_from_a_schema(tmp_path) -> None:
    doc = {"schema": {"fields": [{"name": "sku", "type": "STRING"}, {"name": "info", "type": "STRING"}]},
           "rows": [{"f": [{"v": f"SKU{i}"}, {"v": f"{i} {LONG}"}]} for i in range(90)], "totalRows": "90"}
    shown, text = _shape(tmp_path, doc)
    assert shown["_hostshape"]["list"] == "rows" and shown["_hostshape"]["total"] == 90
    assert _all_present(text, [f"SKU{i}" for i in range(90)])


def test_search_hits_are_unwrapped_and_keep_their_opaque_ids(tmp_path) -> None:
    hits = [{"_index": "logs", "_id": f"Zx{i:04d}AbCdEfGhIjKlMn", "_score": 1.0,
             "_source": {"message": f"event {i} {LONG}", "host": f"h{i % 5}"}} for i in range(80)]
    shown, text = _shape(tmp_path, {"took": 3, "hits": {"total": {"value": 80}, "hits": hits}})
    assert shown["_hostshape"]["list"] == "hits.hits[]._source"
    assert _all_present(text, [h["_id"] for h in hits])


def test_a_release_map_of_file_lists_lists_every_version(tmp_path) -> None:
    releases = {f"1.{v}.0": ([{"filename": f"pkg-1.{v}.0.tar.gz", "size": 1000 + v, "digest": f"{v:064x}",
                               "comment": f"{v} {LONG}"}] if v % 10 else []) for v in range(120)}
    shown, text = _shape(tmp_path, {"info": {"name": "pkg"}, "releases": releases})
    assert shown["_hostshape"]["list"] == "releases" and shown["_hostshape"]["total"] == 120
    assert _all_present(text, [f"1.{v}.0" for v in range(120)])


def test_every_record_of_a_rewritten_list_can_be_paged_back(tmp_path) -> None:
    from hostshape.retrieve import read

    reservations = [{"ReservationId": f"r-{g:04d}", "OwnerId": "123", "Instances": [
        {"InstanceId": f"i-{g:04d}{k}", "State": {"Name": "running"}, "Log": f"{g}{k} {LONG}"} for k in range(3)]}
        for g in range(15)]
    policy = Policy(budget=1500, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    first = json.loads(shape(json.dumps({"Reservations": reservations}), policy=policy, tool="t").text)
    env = first["_hostshape"]
    assert env["list"] == "Reservations[].Instances" and env["total"] == 45
    seen = [r["InstanceId"] for r in first["Reservations[].Instances"]]
    cursor = env.get("next")
    for _ in range(60):
        if not cursor:
            break
        page = json.loads(read(env["handle"], cursor=cursor, policy=policy))
        seen += [r["InstanceId"] for r in page["Reservations[].Instances"]]
        cursor = page["_hostshape"].get("next")
    assert seen == [f"i-{g:04d}{k}" for g in range(15) for k in range(3)]


def test_search_results_with_only_urls_and_titles_are_indexed_by_url(tmp_path) -> None:
    results = [{"title": f"Result number {i} about widgets and more widgets", "url": f"https://site{i}.example.org/p/{i}",
                "description": f"{i} {LONG}", "age": "2 days"} for i in range(40)]
    shown, text = _shape(tmp_path, {"type": "search", "web": {"results": results}}, budget=2000)
    assert shown["_index"]["fields"][:2] == ["url", "title"]
    assert _all_present(text, [r["url"] for r in results])


def test_shared_entities_collapse_but_parts_of_a_record_do_not() -> None:
    from hostshape.project import shrink

    people = [{"login": f"user{i}", "id": 1000 + i, "type": "User", "site_admin": False,
               "profile": f"https://example.com/u/{i}"} for i in range(3)]
    records = [{"number": n, "author": dict(people[n % 3]), "spec": {"node": f"node-{n}", "restart": "Always",
                                                                       "grace": n, "dns": "ClusterFirst"}}
               for n in range(12)]
    projection = shrink({"items": records})
    shown = projection.value["items"]
    assert shown[0]["author"] == "user0"  # the same person recurs: a reference, named by its login
    assert isinstance(shown[0]["spec"], dict)  # one per record, never repeated: a part, shown
    assert projection.cuts is not None and any("author→login" in n for n in projection.cuts.summary())


def test_a_small_budget_compacts_the_envelope_instead_of_giving_up(tmp_path) -> None:
    records = [{"name": f"vm-{i}", "zone": f"z{i % 4}", **{f"setting{k}": f"value-{k}" for k in range(30)},
                "log": f"{i} {LONG}"} for i in range(20)]
    shown, text = _shape(tmp_path, {"vms": records}, budget=400)
    env = shown["_hostshape"]
    assert env["truncated"] is True and "same" not in env
    assert any(n.startswith("same in every record, not shown") for n in env["notes"])
    assert "vm-0" in text


def test_member_names_that_are_not_strings_do_not_break_the_shrink(tmp_path) -> None:
    doc = {"groups": [{"name": f"g{i}", "rules": [{5: "a", "n": f"{i} {LONG}"}, {"n": LONG}]} for i in range(5)],
           "nodes": {i: {"a": i, 1: 2, "b": LONG} for i in range(10)}}
    result = shape(doc, policy=Policy(budget=1000, spill_dir=tmp_path / "spill"))
    assert result.fault is None and result.strategy not in ("fault", "refused", "minimal")
    json.loads(result.text)
