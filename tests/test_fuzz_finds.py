"""Cases the long fuzz run (bench/fuzz.py) found, kept as tests."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from hostshape import Policy, shape
from hostshape.records.structure import moments
from tests.test_robustness import assert_budgeted, assert_json


@pytest.mark.parametrize("digits", ["7" * 4970, "²³⁴", "١٢٣٤٥٦٧٨٩"])  # past int()'s limit; digits int() refuses
def test_digit_strings_that_int_refuses_are_no_moments(digits: str) -> None:
    assert moments([digits, digits + "1", digits + "2"]) is False


def test_records_holding_five_thousand_digit_strings_are_shaped_without_a_fault(tmp_path: Path) -> None:
    records = [{"id": f"r{i}", "token": str(i) * 4970, "n": i} for i in range(1, 30)]
    policy = Policy(budget=500, spill_dir=tmp_path / "spill")
    res = shape(json.dumps(records), policy=policy, tool="t")
    assert_budgeted(res, policy, "t")
    assert res.fault is None
    assert_json(res)


def test_data_with_a_lone_surrogate_and_non_string_keys_is_shaped_from_its_labelled_rendering() -> None:
    """A value orjson refuses (a lone surrogate beside non-string keys) was kept as it came, so every later
    rendering took the slow path: 16 MB of such a dict took 9 s to shape. The payload's value is now what its
    text shows, which orjson renders."""
    from hostshape.input.host_forms import tool_result
    from hostshape.input.payload import payload_of

    raw = {1: "a\ud800b", "rows": [{(i, "k"): i, "name": f"n{i}"} for i in range(50)]}
    payload = payload_of(tool_result(raw))
    assert orjson.loads(payload.text) == payload.value
    orjson.dumps(payload.value)  # no exception: the fast path
    assert any("replaced by labels" in n for n in payload.notes)
