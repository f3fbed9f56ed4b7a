"""Zero-configuration shaping on structures built to defeat name lists: every decision must come from the data."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.output.columns import as_records
from hostshape.output.envelope import Facts
from hostshape.records.locate import locate
from hostshape.records.structure import identifier, record_keys
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
    edges = [
        {
            "cursor": f"Y3Vyc29yOnYyOpHOAAB{i:05d}xQ==",
            "node": {
                "id": f"MDU6SXNzdWUx{i:08d}Aa",
                "number": 500 + i,
                "title": f"Fix widget {i} on save",
                "body": LONG,
                "author": {"login": f"dev{i % 7}"},
            },
        }
        for i in range(60)
    ]
    doc = {"data": {"repository": {"issues": {"totalCount": 60, "edges": edges, "pageInfo": {"hasNextPage": False}}}}}
    shown, text = _shape(tmp_path, doc)
    env = shown["_hostshape"]
    assert env["truncated"] is True and env["total"] == 60
    assert env["list"] == "data.repository.issues.edges[].node"
    assert _all_present(text, [500 + i for i in range(60)])
    assert "Y3Vyc29y" not in text  # the opaque cursor is not the identifier: dropped and named
    assert "cursor" in env["omitted"]


def test_sql_rows_as_arrays_take_their_names_from_the_column_list(tmp_path) -> None:
    columns = [
        {"name": "order_ref", "type": "varchar"},
        {"name": "customer", "type": "varchar"},
        {"name": "amount", "type": "decimal"},
        {"name": "note", "type": "text"},
    ]
    rows = [[f"ORD-{i:04d}", f"customer {i % 13}", i * 1.5, LONG[: 200 + i]] for i in range(150)]
    shown, text = _shape(tmp_path, {"columns": columns, "rows": rows, "rowCount": 150})
    env = shown["_hostshape"]
    assert env["list"] == "rows" and env["total"] == 150 and env["truncated"] is True
    assert as_records(shown["rows"])[0]["order_ref"] == "ORD-0000"
    assert _all_present(text, [f"ORD-{i:04d}" for i in range(150)])
    assert shown["_index"]["fields"][0] == "order_ref"


def test_key_value_pair_lists_become_small_objects() -> None:
    records = [
        {"InstanceId": f"i-{i:017x}", "Tags": [{"Key": "env", "Value": "prod"}, {"Key": "team", "Value": f"t{i}"}]}
        for i in range(5)
    ]
    from hostshape.records.project import zero_config

    projection = zero_config({"Instances": records}, count_tokens)
    assert projection.value["Instances"][0]["Tags"] == {"team": "t0"}
    assert projection.reported(Facts()).same == {"Tags.env": "prod"}  # the same in every record: stated once


def test_a_human_key_beats_an_opaque_uuid_and_both_are_listed(tmp_path) -> None:
    records = [
        {"uuid": str(uuid.UUID(int=i * 7919 + 1)), "slug": f"project-{i}", "description": f"{i} {LONG}"}
        for i in range(80)
    ]
    assert identifier(records) == "slug"
    assert record_keys(records, count_tokens) == ("slug", "uuid")
    shown, text = _shape(tmp_path, {"projects": records})
    assert shown["_index"]["fields"][0] == "slug"
    assert _all_present(text, [f"project-{i}" for i in range(80)])


def test_values_constant_in_every_record_are_stated_once(tmp_path) -> None:
    records = [{"name": f"pod-{i}", "kind": "Pod", "apiVersion": "v1", "log": f"{i} {LONG}"} for i in range(30)]
    shown, _ = _shape(tmp_path, {"items": records})
    env = shown["_hostshape"]
    assert env["same"] == {"kind": "Pod", "apiVersion": "v1"}
    shown_records = as_records(shown["items"])
    assert shown_records and all("kind" not in r for r in shown_records)


def test_a_map_keyed_by_identifier_is_a_record_list(tmp_path) -> None:
    nodes = {
        f"node-{i:03d}": {"status": "up" if i % 3 else "down", "load": i / 10, "detail": f"{i} {LONG}"}
        for i in range(70)
    }
    located = locate({"cluster": "c1", "nodes": nodes})
    assert located is not None and located.path == ("nodes",) and len(located.records) == 70
    shown, text = _shape(tmp_path, {"cluster": "c1", "nodes": nodes})
    assert _all_present(text, [f"node-{i:03d}" for i in range(70)])
    assert shown["_hostshape"]["truncated"] is True


def test_lists_nested_in_thin_parents_are_flattened_with_the_parents_identifier(tmp_path) -> None:
    groups = [
        {
            "name": f"group-{g}",
            "interval": 30,
            "rules": [
                {"name": f"Alert{g}x{r}", "query": f"rate(metric_{g}_{r}[5m]) > {r}", "help": LONG[:300]}
                for r in range(8)
            ],
        }
        for g in range(20)
    ]
    shown, text = _shape(tmp_path, {"groups": groups})
    env = shown["_hostshape"]
    assert env["list"] == "groups[].rules" and env["total"] == 160
    assert any("flattened" in note and "group-19" in note for note in env["notes"])
    assert _all_present(text, [f"Alert{g}x{r}" for g in range(20) for r in range(8)])


def test_ordered_scalar_lists_keep_head_and_tail_and_say_how_many_were_left_out(tmp_path) -> None:
    records = [
        {"package": f"pkg{i}", "versions": [f"{i}.{v}.0" for v in range(100)], "readme": f"{i} {LONG}"}
        for i in range(10)
    ]
    shown, _ = _shape(tmp_path, {"packages": records}, budget=8000)
    versions = shown["packages"][0]["versions"]
    assert versions[0] == "0.0.0" and versions[-1] == "0.99.0"
    assert any(isinstance(v, str) and "more" in v for v in versions)
    assert any("versions" in note for note in shown["_hostshape"]["notes"])


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_link_maps_and_api_links_are_noise_but_records_keep_their_keys(tmp_path, budget: int) -> None:
    records = [
        {
            "key": f"PROJ-{i}",
            "id": str(10000 + i),
            "self": f"https://jira.example.com/rest/api/2/issue/{i}",
            "fields": {
                "summary": f"Summary of issue {i}",
                "status": {"name": "Open" if i % 2 else "Done", "id": str(i % 2)},
                "avatarUrls": {
                    "16x16": f"https://x.example.com/a/{i}?s=16",
                    "48x48": f"https://x.example.com/a/{i}?s=48",
                },
                "description": f"{i} {LONG}",
            },
        }
        for i in range(120)
    ]
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
    doc = {
        "schema": {"fields": [{"name": "sku", "type": "STRING"}, {"name": "info", "type": "STRING"}]},
        "rows": [{"f": [{"v": f"SKU{i}"}, {"v": f"{i} {LONG}"}]} for i in range(90)],
        "totalRows": "90",
    }
    shown, text = _shape(tmp_path, doc)
    assert shown["_hostshape"]["list"] == "rows" and shown["_hostshape"]["total"] == 90
    assert _all_present(text, [f"SKU{i}" for i in range(90)])


def test_search_hits_are_unwrapped_and_keep_their_opaque_ids(tmp_path) -> None:
    hits = [
        {
            "_index": "logs",
            "_id": f"Zx{i:04d}AbCdEfGhIjKlMn",
            "_score": 1.0,
            "_source": {"message": f"event {i} {LONG}", "host": f"h{i % 5}"},
        }
        for i in range(80)
    ]
    shown, text = _shape(tmp_path, {"took": 3, "hits": {"total": {"value": 80}, "hits": hits}})
    assert shown["_hostshape"]["list"] == "hits.hits[]._source"
    assert _all_present(text, [h["_id"] for h in hits])


def test_a_release_map_of_file_lists_lists_every_version(tmp_path) -> None:
    releases = {
        f"1.{v}.0": (
            [{"filename": f"pkg-1.{v}.0.tar.gz", "size": 1000 + v, "digest": f"{v:064x}", "comment": f"{v} {LONG}"}]
            if v % 10
            else []
        )
        for v in range(120)
    }
    shown, text = _shape(tmp_path, {"info": {"name": "pkg"}, "releases": releases})
    assert shown["_hostshape"]["list"] == "releases" and shown["_hostshape"]["total"] == 120
    assert _all_present(text, [f"1.{v}.0" for v in range(120)])


def test_every_record_of_a_rewritten_list_can_be_paged_back(tmp_path) -> None:
    from hostshape.wayback.retrieve import read

    reservations = [
        {
            "ReservationId": f"r-{g:04d}",
            "OwnerId": "123",
            "Instances": [
                {"InstanceId": f"i-{g:04d}{k}", "State": {"Name": "running"}, "Log": f"{g}{k} {LONG}"} for k in range(3)
            ],
        }
        for g in range(15)
    ]
    policy = Policy(budget=1500, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    first = json.loads(shape(json.dumps({"Reservations": reservations}), policy=policy, tool="t").text)
    env = first["_hostshape"]
    assert env["list"] == "Reservations[].Instances" and env["total"] == 45
    seen = [r["InstanceId"] for r in as_records(first["Reservations[].Instances"])]
    cursor = env.get("next")
    for _ in range(60):
        if not cursor:
            break
        page = json.loads(read(env["handle"], cursor=cursor, policy=policy))
        seen += [r["InstanceId"] for r in as_records(page["Reservations[].Instances"])]
        cursor = page["_hostshape"].get("next")
    assert seen == [f"i-{g:04d}{k}" for g in range(15) for k in range(3)]


def test_search_results_with_only_urls_and_titles_are_indexed_by_url(tmp_path) -> None:
    results = [
        {
            "title": f"Result number {i} about widgets and more widgets",
            "url": f"https://site{i}.example.org/p/{i}",
            "description": f"{i} {LONG}",
            "age": "2 days",
        }
        for i in range(40)
    ]
    shown, text = _shape(tmp_path, {"type": "search", "web": {"results": results}}, budget=2000)
    assert shown["_index"]["fields"][:2] == ["url", "title"]
    assert _all_present(text, [r["url"] for r in results])


def test_shared_entities_collapse_but_parts_of_a_record_do_not() -> None:
    from hostshape.records.project import zero_config

    people = [
        {
            "login": f"user{i}",
            "id": 1000 + i,
            "type": "User",
            "site_admin": False,
            "profile": f"https://example.com/u/{i}",
        }
        for i in range(3)
    ]
    records = [
        {
            "number": n,
            "author": dict(people[n % 3]),
            "spec": {"node": f"node-{n}", "restart": "Always", "grace": n, "dns": "ClusterFirst"},
        }
        for n in range(12)
    ]
    projection = zero_config({"items": records}, count_tokens)
    shown = projection.value["items"]
    assert shown[0]["author"] == "user0"  # the same person recurs: a reference, named by its login
    assert isinstance(shown[0]["spec"], dict)  # one per record, never repeated: a part, shown
    assert projection.cuts is not None and any("author→login" in n for n in projection.cuts.summary())


def test_a_small_budget_compacts_the_envelope_instead_of_giving_up(tmp_path) -> None:
    records = [
        {
            "name": f"vm-{i}",
            "zone": f"z{i % 4}",
            **{f"setting{k}": f"value-{k}" for k in range(30)},
            "log": f"{i} {LONG}",
        }
        for i in range(20)
    ]
    shown, text = _shape(tmp_path, {"vms": records}, budget=400)
    env = shown["_hostshape"]
    assert env["truncated"] is True and "same" not in env
    assert any(n.startswith("same in every record, not shown") for n in env["notes"])
    assert "vm-0" in text


def test_member_names_that_are_not_strings_do_not_break_the_shrink(tmp_path) -> None:
    doc = {
        "groups": [{"name": f"g{i}", "rules": [{5: "a", "n": f"{i} {LONG}"}, {"n": LONG}]} for i in range(5)],
        "nodes": {i: {"a": i, 1: 2, "b": LONG} for i in range(10)},
    }
    result = shape(doc, policy=Policy(budget=1000, spill_dir=tmp_path / "spill"))
    assert result.fault is None and result.strategy not in ("fault", "refused", "minimal")
    json.loads(result.text)


@pytest.mark.parametrize("budget", [2000, 8000])
def test_caps_on_nested_lists_grow_with_the_budget(tmp_path, budget: int) -> None:
    """C9: head and tail of a long ordered list are sized by the budget, not a fixed count."""
    lines = [f"2031-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z step {i} done" for i in range(4000)]
    shown, text = _shape(tmp_path, {"run": "nightly", "log": lines}, budget=budget)
    assert count_tokens(text) >= budget * 0.5
    assert shown["log"][0] == lines[0] and shown["log"][-1] == lines[-1]
    assert shown["_hostshape"]["truncated"] is True and any("log" in n for n in shown["_hostshape"]["notes"])


def test_a_record_list_deep_inside_wrappers_is_found(tmp_path) -> None:
    """C1: the record list is searched for at any depth (bounded by objects visited, not levels)."""
    items = [{"code": f"Q{i:05d}", "text": f"{i} {LONG}"} for i in range(60)]
    doc = {"envelope": {"body": {"response": {"result": {"page": {"content": {"entries": items}}}}}}}
    shown, text = _shape(tmp_path, doc, budget=2000)
    assert _all_present(text, [r["code"] for r in items])
    assert shown["_hostshape"]["list"].endswith("content.entries")


@pytest.mark.parametrize("budget", [2000, 8000])
def test_envelope_notes_name_cut_paths_by_pattern_and_stay_small(tmp_path, budget: int) -> None:
    """C12: cut paths that differ only in map keys are one pattern; the envelope never crowds out the records."""
    schemas = {
        f"Schema{s}": {
            "id": f"Schema{s}",
            "type": "object",
            "description": LONG * 3,
            "properties": {f"field{f}": {"type": "string", "description": f"{s}.{f} {LONG[:300]}"} for f in range(12)},
        }
        for s in range(60)
    }
    shown, text = _shape(tmp_path, {"kind": "discovery", "schemas": schemas}, budget=budget)
    env = shown["_hostshape"]
    assert count_tokens(json.dumps(env, ensure_ascii=False)) <= budget * 0.15
    notes = " ".join(env["notes"])
    assert "properties.*.description" in notes and "field7.description" not in notes
    assert _all_present(text, [f"Schema{s}" for s in range(60)])


@pytest.mark.parametrize("count", [70, 78, 90])
def test_index_drops_columns_before_rows_measured_not_estimated(tmp_path, count: int) -> None:
    """C3: when every identifier fits, the index lists every record; an opaque second id goes before a title."""
    chan = ["edge", "beta", "lts"]
    records = [
        {
            "name": f"distro-{chan[i % 3]}-{1100 + i}-0-0-v2031{i:04d}",
            "id": str(4695747588770162260 - i * 3712498),
            "description": f"Distro, Distro {chan[i % 3]}, {1100 + i}.0.0, amd64 published on 2031-04-27",
            "family": f"distro-{chan[i % 3]}",
            "sizeBytes": str(374705530 + i * 1000),
        }
        for i in range(count)
    ]
    shown, text = _shape(tmp_path, records, budget=4000)
    assert _all_present(text, [r["name"] for r in records])
    fields = shown.get("_index", {}).get("fields", [])
    assert "id" not in fields or "description" in fields


def test_a_cheaper_human_key_one_level_down_beats_an_opaque_id(tmp_path) -> None:
    """C13: a unique readable column (blanks allowed, nested) that lists every record in fewer tokens than the
    opaque identifier is the identifier; the opaque one stays as the second column."""
    words = ["Blob", "Queue", "Reader", "Writer", "Network", "Backup", "Operator", "Vault", "Ledger", "Audit"]
    names = [f"{words[i % 10]} {words[i // 10 % 10]} {words[i // 100]} Role" for i in range(140)]
    records = [
        {
            "id": f"/tenants/t1/providers/Acme.Auth/roles/{uuid.UUID(int=i * 7919 + 13)}",
            "name": str(uuid.UUID(int=i * 7919 + 13)),
            "type": "Acme.Auth/roles",
            "properties": {"roleName": n, "description": f"{n}: {LONG[:200]}", "scopes": ["/"]},
        }
        for i, n in enumerate(names)
    ]
    assert record_keys(records, count_tokens)[0] == "properties.roleName"
    _, text = _shape(tmp_path, {"value": records}, budget=2000)
    assert _all_present(text, names)


@pytest.mark.parametrize("groups", [2, 3])
def test_a_map_of_a_few_groups_holding_the_same_kind_of_list_is_flattened(tmp_path, groups: int) -> None:
    """C2: whatever the group count, sibling groups holding lists of one record shape are one record list, each
    record naming its group; constants are computed over all groups."""
    doc = {
        "kind": "aggregated",
        "items": {
            f"regions/r{g}": {
                "volumes": [
                    {"label": f"r{g}-vol-{i}", "region": f"r{g}", "sizeGb": 10 * i, "note": f"{i} {LONG[:160]}"}
                    for i in range(40)
                ]
            }
            for g in range(groups)
        },
    }
    shown, text = _shape(tmp_path, doc, budget=2000)
    assert _all_present(text, [f"r{g}-vol-{i}" for g in range(groups) for i in range(40)])
    # the same names in every group: unique only with the group, which the index then names beside them
    same_names = {
        "items": {
            f"regions/r{g}": {
                "volumes": [
                    {
                        "label": f"vol-{i}",
                        "sizeGb": 10 * i,
                        "selfLink": f"https://cloud.example.com/v1/r{g}/volumes/vol-{i}",
                        "note": f"{i} {LONG[:160]}",
                    }
                    for i in range(40)
                ]
            }
            for g in range(groups)
        }
    }
    shown, text = _shape(tmp_path, same_names, budget=2000)
    assert shown["_index"]["fields"][0] == "label" and "volumes/vol-3" not in json.dumps(shown["_index"])
    assert "region" not in shown["_hostshape"].get("same", {})
    assert shown["_hostshape"]["total"] == 40 * groups


def test_a_record_list_beside_the_main_one_keeps_every_identifier(tmp_path) -> None:
    """C5: two sibling lists of comparable size: the one that is not the main list shows its head whole and every
    other record by its identifier, so no record of either disappears."""
    doc = {
        "members": [{"handle": f"member{i:03d}", "profile": f"{i} {LONG[:150]}"} for i in range(45)],
        "teams": [{"team": f"team-{i:03d}", "charter": f"{i} {LONG[:150]}"} for i in range(45)],
    }
    shown, text = _shape(tmp_path, doc, budget=2000)
    assert _all_present(text, [f"member{i:03d}" for i in range(45)] + [f"team-{i:03d}" for i in range(45)])
    assert shown["_hostshape"]["truncated"] is True


def test_a_url_identifier_listing_is_measured_not_estimated(tmp_path) -> None:
    """C3/C4: the index listing is counted exactly, so a listing of URLs that fits is complete."""
    records = [
        {
            "url": f"https://manual.example.org/v3/chapters/section-{i:03d}.html",
            "kind": "page",
            "part": ["intro", "usage"][i % 3 == 0],
            "rank": [0.5, 0.75][i % 2],
        }
        for i in range(80)
    ]
    _, text = _shape(tmp_path, records, budget=2000)
    assert _all_present(text, [r["url"] for r in records])


def test_a_tool_member_named_like_the_envelope_is_moved_aside(tmp_path) -> None:
    """C10: the envelope the model reads is always hostshape's; the tool's own is shown under another name."""
    doc = {
        "_hostshape": {"truncated": False, "notes": ["complete result, nothing was cut"]},
        "items": [{"id": f"doc-{i:04d}", "body": f"{i} {LONG}"} for i in range(60)],
    }
    shown, _ = _shape(tmp_path, doc, budget=2000)
    assert shown["_hostshape"]["truncated"] is True
    assert shown["_hostshape_input"] == doc["_hostshape"]
    assert any("_hostshape_input" in n for n in shown["_hostshape"]["notes"])


def test_records_of_several_kinds_are_indexed_by_each_kinds_identifier(tmp_path) -> None:
    """C6: no one member identifies every record, but each kind has its own unique one: the index coalesces them."""
    kinds = [
        lambda i: {"kind": "account", "account_ref": f"acc_{i:05d}", "tier": "gold", "bio": f"{i} {LONG[:90]}"},
        lambda i: {"kind": "invoice", "invoice_no": 70000 + i, "lines": [1, 2], "memo": f"{i} {LONG[:90]}"},
        lambda i: {"kind": "ping", "ping": f"png-{i:04d}", "meta": {"p": "/x"}, "body": f"{i} {LONG[:90]}"},
    ]
    records = [kinds[i % 3](i) for i in range(150)]
    shown, text = _shape(tmp_path, records, budget=2000)
    ids = [r.get("account_ref") or r.get("invoice_no") or r.get("ping") for r in records]
    assert _all_present(text, ids)
    assert "account_ref|invoice_no|ping" in shown["_index"]["fields"]


def test_rows_as_arrays_without_a_header_are_indexed_by_their_first_unique_position(tmp_path) -> None:
    """C7: a table without column names: the first unique, key-like position identifies each row."""
    rows = [[i % 50, f"row-{i:04d}", round(i / 7, 4), "xyz"[i % 3], "y" * 24] for i in range(400)]
    shown, text = _shape(tmp_path, rows, budget=4000)
    assert _all_present(text, [r[1] for r in rows])
    assert shown["_index"]["fields"] == ["[1]"]


def test_a_link_that_breaks_the_pattern_of_the_dropped_links_is_kept(tmp_path) -> None:
    """C11: links built from one template are noise; the one pointing elsewhere is information."""
    records = [
        {
            "sku": f"k{i:04d}",
            "href": f"https://api.shop.example/v3/items/k{i:04d}",
            "qty": i % 9,
            "blurb": f"{i} {LONG[:200]}",
        }
        for i in range(120)
    ]
    records[77]["href"] = "https://archive.other.example/legacy/k0077"
    _, text = _shape(tmp_path, records, budget=4000)
    assert "archive.other.example/legacy/k0077" in text and "api.shop.example/v3/items/k0001" not in text


def test_the_same_input_gives_the_same_layout_in_every_process(tmp_path) -> None:
    """The token estimate is seeded by the records, not by the envelope's random spill handle."""
    import subprocess
    import sys

    records = [
        {
            "resource": f"projects/p/locations/eu/clusters/c/pools/pool-{i:03d}",
            "name": ["a", "b"][i % 2],
            "nodes": i % 8,
            "version": "1.29",
        }
        for i in range(120)
    ]
    script = (
        "import json,sys,tempfile\nfrom hostshape import shape, Policy\n"
        "r=shape(sys.stdin.read(),policy=Policy(budget=4000,spill_dir=tempfile.mkdtemp()))\n"
        "e=json.loads(r.text)['_hostshape'];print(e.get('returned'),e.get('listed'))"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script], input=json.dumps(records), capture_output=True, text=True, check=True
        ).stdout
        for _ in range(3)
    }
    assert len(seen) == 1


def test_lone_surrogates_shown_as_replacement_characters_are_named(tmp_path) -> None:
    """C14: escapes of lone UTF-16 surrogates cannot be carried: shown as U+FFFD, and a note says so."""
    raw = (
        "["
        + ",".join(f'{{"name":"n-{i:03d}","label":"bad \\ud800 {i}","note":"{"x" * 80}"}}' for i in range(150))
        + "]"
    )
    text = shape(raw, policy=Policy(budget=2000, spill_dir=tmp_path / "spill")).text
    env = json.loads(text)["_hostshape"]
    assert "\ufffd" in text and any("surrogate" in n for n in env["notes"]) and env["truncated"] is True
    paired = (
        "["
        + ",".join(f'{{"name":"n-{i:03d}","label":"ok \\ud83d\\ude00 {i}","note":"{"x" * 80}"}}' for i in range(150))
        + "]"
    )
    env = json.loads(shape(paired, policy=Policy(budget=2000, spill_dir=tmp_path / "spill")).text)["_hostshape"]
    assert not any("surrogate" in n for n in env.get("notes", []))


def test_an_index_only_answer_also_shows_the_first_record_shrunk_to_the_room_left(tmp_path) -> None:
    """C9: records too wide for any to fit whole: the index lists them all and the first record, shrunk, uses the
    budget left (no answer ends far below the budget while something was cut)."""
    records = [{"id": f"w-{i:02d}", **{f"field_{k:03d}": f"value {i}-{k} text" for k in range(300)}} for i in range(30)]
    shown, text = _shape(tmp_path, records, budget=2000)
    assert count_tokens(text) >= 1000 and _all_present(text, [r["id"] for r in records])
    assert shown["items"][0]["id"] == "w-00" and shown["_hostshape"]["returned"] == 1


@pytest.mark.parametrize("form", ["jsonl", "csv", "tsv"])
def test_json_lines_and_delimited_text_with_a_header_are_record_lists(tmp_path, form: str) -> None:
    """C8: records outside one JSON document are shaped as a record list, every identifier listed."""
    rows = [
        {"ticket": f"TCK-{90000 + i}", "owner": f"team {i % 7}", "amount": f"{i * 1.25:.2f}", "state": "open"}
        for i in range(500)
    ]
    if form == "jsonl":
        raw = "\n".join(json.dumps(r) for r in rows)
    else:
        sep = "," if form == "csv" else "\t"
        raw = sep.join(rows[0]) + "\n" + "\n".join(sep.join(r.values()) for r in rows)
    text = shape(raw, policy=Policy(budget=4000, spill_dir=tmp_path / "spill")).text
    assert count_tokens(text) <= 4000
    env = json.loads(text)["_hostshape"]
    assert env["total"] == 500 and env["truncated"] is True
    assert all(f'"TCK-{90000 + i}"' in text for i in range(500))


def test_prose_with_commas_stays_text(tmp_path) -> None:
    prose = "\n".join(f"Line {i}, which has words, and {'more, ' * (i % 3)}commas." for i in range(3000))
    text = shape(prose, policy=Policy(budget=1000, spill_dir=tmp_path / "spill")).text
    assert not text.lstrip().startswith("{")


def test_an_envelope_is_compacted_only_when_records_are_cut(tmp_path) -> None:
    """Values stated once stay in the envelope when every record fits whole, even if the envelope is a sizable
    share of a small answer."""
    records = [
        {
            "number": i,
            "title": f"Issue {i}",
            "state": "open",
            "user": {
                "login": "someone",
                "id": 7,
                "type": "User",
                "site_admin": False,
                "html": "https://example.org/someone",
            },
            "reactions": {k: 0 for k in ("plus", "minus", "laugh", "hooray", "heart", "rocket", "eyes")},
            "body": f"{i} {LONG * 4}",
        }
        for i in range(3)
    ]
    shown, _ = _shape(tmp_path, records, budget=2000)
    assert shown["_hostshape"]["same"]["state"] == "open" and shown["_hostshape"]["returned"] == 3
