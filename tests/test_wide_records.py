"""Records with thousands of members: identifier detection reads each record's members once, not once per column."""

from __future__ import annotations

import json
import time

import pytest

from hostshape import Policy, shape
from hostshape.tokens import count_tokens

WIDE = 4100  # members: the identifier search was quadratic in them (40-50 s of CPU for one record)


def _wide(records: int, value: str) -> dict[str, object]:
    if value == "int":
        inner = [{f"m{i}": i for i in range(WIDE)} for _ in range(records)]
    else:
        inner = [{f"m{i}": f"value-{j}-number-{i}" for i in range(WIDE)} for j in range(records)]
    return {"meta": {"page": 1}, "items": [{"id": j, "wide": w} for j, w in enumerate(inner)]}


@pytest.mark.parametrize("records", [1, 3])
@pytest.mark.parametrize("value", ["int", "str"])
def test_a_record_of_thousands_of_members_is_shaped_within_the_budget_in_bounded_time(records: int, value: str) -> None:
    text = json.dumps(_wide(records, value))
    started = time.process_time()
    shaped = shape(text, policy=Policy(budget=1000))
    spent = time.process_time() - started
    assert count_tokens(shaped.text) <= 1000
    json.loads(shaped.text)  # JSON in, JSON out
    assert spent < 10, f"{spent:.1f} s of CPU: the identifier search is quadratic in a record's members again"


def test_top_level_members_by_the_thousand_still_find_no_false_identifier() -> None:
    records = [{f"m{i}": f"value-{j}-number-{i}" for i in range(2000)} for j in range(20)]
    shaped = shape(json.dumps({"items": records}), policy=Policy(budget=2000))
    assert count_tokens(shaped.text) <= 2000
    assert json.loads(shaped.text)["_hostshape"]["truncated"] is True
