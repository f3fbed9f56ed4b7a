"""Issue 27, eighth round: what the shrink states once is true of every record, not only of those it shrank.

The shrink reads records until they pass 16 characters a budget token (the time grows with the budget, not the
input); the members it states once (``same``) were those constant over the records it read.

- a member stated once (``same``, in the envelope or its note) is so in every record of the list, those the shrink
  left as they are included: a value that changes only past the shrunk records is not stated once.
"""

from __future__ import annotations

import json
from typing import Any

from hostshape import Policy, shape


def _records(n: int, *, odd_after: int | None = None) -> dict[str, Any]:
    return {
        "items": [
            {
                "id": f"rec-{i:05d}",
                "kind": "Widget",
                "region": "eu-west-1" if odd_after is None or i < odd_after else "us-east-2",
                "owner": {"team": "platform", "tier": "gold" if odd_after is None or i < odd_after else "silver"},
                "description": f"widget number {i} of the fleet, serving traffic for shard {i % 17}",
                "size": i * 7 % 1000,
            }
            for i in range(n)
        ]
    }


def _stated_once(text: str) -> str:
    meta = json.loads(text)["_hostshape"]
    return json.dumps(meta.get("same", {})) + json.dumps([n for n in meta.get("notes", []) if "same in every" in n])


def test_a_member_that_changes_past_the_shrunk_records_is_not_stated_once() -> None:
    doc = _records(3_000, odd_after=2_990)
    for budget in (500, 2_000):
        shaped = shape(json.dumps(doc), policy=Policy(budget=budget, spill_dir=None), tool="t")
        stated = _stated_once(shaped.text)
        assert "region" not in stated and "tier" not in stated
        assert "Widget" in stated or "kind" in stated  # a true constant is still stated once


def test_a_member_constant_in_every_record_is_stated_once_on_a_long_list() -> None:
    shaped = shape(json.dumps(_records(3_000)), policy=Policy(budget=2_000, spill_dir=None), tool="t")
    stated = _stated_once(shaped.text)
    assert "region" in stated and "kind" in stated
