"""Cases the long fuzz run (bench/fuzz.py) found, kept as tests."""

from __future__ import annotations

import json
from pathlib import Path

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
