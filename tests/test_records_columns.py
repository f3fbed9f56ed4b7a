"""Uniform records as a table (issue 27): field names once, a row per record, still JSON; used only when the list
of objects does not fit whole and the table is cheaper, so that more records fit whole; read back, paged and
queried like any record list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.output.columns import as_records, flatten, table_for, unflatten
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

STATUSES = ("open", "paid", "refunded", "overdue")


def _orders(n: int) -> list[dict[str, Any]]:
    return [
        {
            "order_no": f"ORD-{i:05d}",
            "status": STATUSES[i % 4],
            "created": f"2026-0{1 + i % 9}-{10 + i % 18}T08:{i % 60:02d}:00Z",
            "amount": {"value": round(i * 3.75, 2), "currency": ["EUR", "USD"][i % 2]},
            "customer": {"name": f"customer {i % 37}", "tier": ["gold", "basic"][i % 2]},
            "note": f"order {i} was placed through the web shop",
        }
        for i in range(n)
    ]


def _policy(tmp_path: Path, budget: int) -> Policy:
    return Policy(budget=budget, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")


@pytest.mark.parametrize("budget", [1000, 2000, 4000, 8000])
def test_every_table_answer_fits_the_budget_and_is_json(tmp_path: Path, budget: int) -> None:
    result = shape(json.dumps(_orders(400)), policy=_policy(tmp_path, budget))
    assert count_tokens(result.text) <= budget
    doc = json.loads(result.text)
    env = doc["_hostshape"]
    if budget >= 4000:  # smaller budgets list most records by identifier, a few whole as objects beside
        assert env.get("form") == "table"
    if env.get("form") == "table":
        assert set(doc["items"]) == {"fields", "rows"}
    assert env["returned"] + env["listed"] + env.get("dropped", 0) == env["total"] == 400  # each counted once


def test_a_table_fits_whole_what_the_list_of_objects_would_not(tmp_path: Path) -> None:
    records = _orders(60)
    table = table_for(records, count_tokens)
    assert table is not None
    as_list = count_tokens(json.dumps(records, separators=(",", ":")))
    as_table = count_tokens(json.dumps(table.render(records), separators=(",", ":")))
    budget = (as_list + as_table) // 2  # the list is over it, the table well within
    doc = json.loads(shape(json.dumps(records), policy=_policy(tmp_path, budget)).text)
    assert doc["_hostshape"]["form"] == "table" and doc["_hostshape"]["returned"] == 60
    assert as_records(doc["items"]) == records  # whole: every member, nested ones too, as sent


def test_every_row_reads_back_as_its_record() -> None:
    records = _orders(30)
    table = table_for(records, count_tokens)
    assert table is not None and table.fields[:3] == ("order_no", "status", "created")
    rendered = table.render(records)
    assert rendered is not None and as_records(rendered) == records
    assert unflatten(flatten(records[3]) or {}) == records[3]


def test_members_the_sample_did_not_show_are_kept() -> None:
    records = _orders(30)
    records[25]["refund"] = {"reason": "damaged"}
    table = table_for(records, count_tokens)
    assert table is not None and "refund.reason" not in table.fields
    rendered = table.render(records)
    assert rendered is not None and as_records(rendered) == records


def test_records_of_many_shapes_or_with_dotted_names_stay_a_list() -> None:
    mixed = [{"id": i, **{f"field_{i}_{k}": k for k in range(6)}} for i in range(30)]
    assert table_for(mixed, count_tokens) is None  # mostly nulls: no cheaper
    dotted = [{"id": i, "a.b": i} for i in range(30)]
    assert table_for(dotted, count_tokens) is None  # "a.b" would read as a nested member


def test_a_list_that_fits_whole_stays_a_list(tmp_path: Path) -> None:
    records = _orders(12)
    doc = json.loads(shape(json.dumps({"orders": records}), policy=_policy(tmp_path, 8000)).text)
    assert doc["orders"] == records and "form" not in doc.get("_hostshape", {})


def test_pages_read_back_as_tables_hold_every_record_once(tmp_path: Path) -> None:
    records = _orders(300)
    policy = _policy(tmp_path, 1500)
    doc = json.loads(shape(json.dumps(records), policy=policy).text)
    env = doc["_hostshape"]
    seen = [r["order_no"] for r in as_records(doc["items"])]
    cursor = env.get("next")
    for _ in range(200):
        if not cursor:
            break
        text = read(env["handle"], cursor=cursor, policy=policy)
        assert count_tokens(text) <= 1500
        page = json.loads(text)
        seen += [r["order_no"] for r in as_records(page["items"])]
        cursor = page["_hostshape"].get("next")
    assert seen == [r["order_no"] for r in records]


def test_a_query_picks_from_the_records_as_sent(tmp_path: Path) -> None:
    records = _orders(300)
    policy = _policy(tmp_path, 2000)
    doc = json.loads(shape(json.dumps(records), policy=policy).text)
    text = read(doc["_hostshape"]["handle"], query="[?status=='refunded'].order_no", policy=policy)
    assert json.loads(text)["items"][:3] == ["ORD-00002", "ORD-00006", "ORD-00010"]
