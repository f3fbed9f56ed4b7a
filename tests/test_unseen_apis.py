"""List payloads from services the rest of the suite never shows (issue 27, third round; corpus/PROVENANCE.md), as
the model receives them with zero configuration: records in a map keyed by zone whose names repeat across zones,
a map keyed by each record's own UUID, columns that repeat in lockstep, and the same records wrapped as a GraphQL
connection, an OData ``value``, an Elasticsearch ``hits.hits[]._source``, a JSON:API ``data``, a HAL
``_embedded`` list or FastMCP's ``{"result": ...}``."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import hostshape
from hostshape import Policy
from hostshape.tokens import count_tokens

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _load(name: str) -> Any:
    return json.loads((CORPUS / name).read_text(encoding="utf-8"))


def _shaped(tmp_path: Path, raw: Any, budget: int) -> dict[str, Any]:
    text = hostshape.shape(
        raw if isinstance(raw, str) else json.dumps(raw), policy=Policy(budget=budget, spill_dir=tmp_path)
    ).text
    assert count_tokens(text) <= budget
    shown: dict[str, Any] = json.loads(text)
    return shown


def _rows(node: Any) -> Iterator[set[str]]:
    """The scalars of every list and object of the output, one set per container (an index row, a record)."""
    stack = [node]
    while stack:
        here = stack.pop()
        items = list(here.values()) if isinstance(here, dict) else here if isinstance(here, list) else []
        yield {x if isinstance(x, str) else json.dumps(x) for x in items if not isinstance(x, (dict, list))}
        stack.extend(x for x in items if isinstance(x, (dict, list)))


def _scalars(node: Any) -> set[str]:
    return set().union(*_rows(node))


def _index(shown: dict[str, Any]) -> dict[str, Any]:
    index: dict[str, Any] = shown.get("_index") or {}
    return index


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_every_machine_type_is_named_within_its_zone(tmp_path: Path, budget: int) -> None:
    """GCE's aggregated list: a map keyed by zone of machine-type lists, the same names and numeric ids in every
    zone. Each of the 100 records is shown or listed with its name beside its zone, whatever the budget."""
    doc = _load("gcp_compute_aggregated_machine_types.json")
    wanted = {(r["name"], zone) for zone, group in doc["items"].items() for r in group["machineTypes"]}
    shown = _shaped(tmp_path, doc, budget)
    rows = list(_rows(shown))
    assert all(any(name in row and zone in row for row in rows) for name, zone in wanted)
    assert shown["_hostshape"]["total"] == len(wanted) == 100


@pytest.mark.parametrize("budget", [2000, 4000])
def test_a_map_keyed_by_its_records_own_uuid_keeps_that_member_as_the_identifier(tmp_path: Path, budget: int) -> None:
    """gridscale's templates: a map keyed by UUID whose entries each repeat their key as a member. The records
    keep that member under its own name (no invented ``key``), it is never omitted, and every UUID reaches the
    model, in a record or an index row, with the template's name beside it."""
    doc = _load("gridscale_templates.json")
    shown = _shaped(tmp_path, doc, budget)
    env = shown["_hostshape"]
    assert "object_uuid" not in env.get("omitted", [])
    assert '"key"' not in json.dumps(shown)
    rows = list(_rows(shown))
    for uuid, record in doc["templates"].items():
        assert any(uuid in row and record["name"] in row for row in rows), uuid


def test_index_columns_repeating_in_lockstep_with_another_leave_room_for_the_rest(tmp_path: Path) -> None:
    """KT ucloud's product types: each product combines a template, a service and a disk offering, the service
    offering given as an id and a description that repeat together. The index shows one of the pair, so every
    product it lists carries its template's description too."""
    doc = _load("ktucloud_product_types.json")
    records = doc["listavailableproducttypesresponse"]["producttypes"]
    shown = _shaped(tmp_path, doc, 4000)
    index = _index(shown)
    fields = index["fields"]
    assert not {"serviceofferingid", "serviceofferingdesc"} <= set(fields)
    by_id = {r["productid"]: r for r in records}
    listed = [dict(zip(fields, row, strict=True)) for row in index["rows"]]
    assert listed and all(by_id[r["productid"]]["templatedesc"] == r.get("templatedesc") for r in listed)


def _cursor(i: int) -> str:
    return base64.b64encode(f"cursor:v2:{i:08d}".encode()).decode()


Wrap = Callable[[list[dict[str, Any]], str], Any]
WRAPPERS: dict[str, Wrap] = {
    "plain": lambda recs, _id: {"count": len(recs), "results": recs},
    "graphql-edges": lambda recs, _id: {
        "data": {
            "things": {
                "totalCount": len(recs),
                "pageInfo": {"hasNextPage": True, "endCursor": _cursor(len(recs))},
                "edges": [{"cursor": _cursor(i), "node": r} for i, r in enumerate(recs)],
            }
        }
    },
    "odata": lambda recs, _id: {"@odata.nextLink": "https://api.example.test/items?$skip=100", "value": recs},
    "elasticsearch": lambda recs, idf: {
        "took": 3,
        "timed_out": False,
        "hits": {
            "total": {"value": len(recs), "relation": "eq"},
            "max_score": 1.0,
            "hits": [{"_index": "things", "_id": str(r[idf]), "_score": 1.0, "_source": r} for r in recs],
        },
    },
    "jsonapi": lambda recs, idf: {
        "data": [
            {"type": "thing", "id": str(r[idf]), "attributes": {k: v for k, v in r.items() if k != idf}} for r in recs
        ],
        "included": [{"type": "owner", "id": "own-1", "attributes": {"name": "Owner one"}}],
        "meta": {"total": len(recs)},
    },
    "hal": lambda recs, _id: {
        "_embedded": {"things": recs},
        "_links": {"next": {"href": "https://api.example.test/n"}},
    },
    "fastmcp-result": lambda recs, _id: {"result": recs},
}
PAYLOADS = {  # file -> (path to the records, their identifier)
    "upcloud_storage_cdrom.json": ("storages.storage", "uuid"),
    "dockerhub_ubuntu_tags.json": ("results", "name"),
    "cloudsigma_library_drives.json": ("objects", "uuid"),
}


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_same_identifiers_reach_the_model_whatever_the_wrapper(tmp_path: Path, name: str, wrapper: str) -> None:
    """Real records (their identifiers all fit at 2,000) wrapped the ways APIs wrap lists: every record's own
    identifier reaches the model, and a GraphQL cursor is never what the records are listed by."""
    where, idf = PAYLOADS[name]
    records: Any = _load(name)
    for step in where.split("."):
        records = records[step]
    shown = _shaped(tmp_path, WRAPPERS[wrapper](records, idf), 2000)
    values = _scalars(shown)
    assert all(str(r[idf]) in values for r in records)
    assert "cursor" not in _index(shown).get("fields", [])[:1]


@pytest.mark.parametrize("budget", [4000, 8000])
def test_a_short_graphql_cursor_never_replaces_the_ids_the_records_children_point_at(
    tmp_path: Path, budget: int
) -> None:
    """Fastly's services, each with versions that name it by its opaque id, wrapped as a GraphQL connection
    whose cursors are short readable tokens: the records are still listed by their own id (the ids fit at 4,000),
    never dropped as opaque while the cursor stands in for them."""
    records = _load("fastly_services_list.json")
    doc = {"data": {"services": {"edges": [{"cursor": f"Y3Vyc29yOn{i}", "node": r} for i, r in enumerate(records)]}}}
    shown = _shaped(tmp_path, doc, budget)
    assert "id" not in shown["_hostshape"].get("omitted", [])
    values = _scalars(shown)
    assert all(r["id"] in values for r in records)
    assert _index(shown).get("fields", ["-"])[0] != "cursor"
