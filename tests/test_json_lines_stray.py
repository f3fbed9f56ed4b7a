"""JSON lines with a stray line (a tool's warning among its records): the records still read as records, the line
left out is named in the envelope by its line number and read back by lines."""

from __future__ import annotations

import json
from pathlib import Path

from hostshape import Policy, shape
from hostshape.records.locate import records_from_text
from hostshape.wayback.retrieve import read
from tests.test_robustness import assert_budgeted, envelope_of


def _jsonl(n: int, stray: dict[int, str]) -> str:
    lines = [stray.get(i) or json.dumps({"id": f"evt-{i:05d}", "level": "info", "ms": i % 97}) for i in range(n)]
    return "\n".join(lines) + "\n"


def test_one_stray_line_among_twenty_thousand_is_left_out_and_named(tmp_path: Path) -> None:
    text = _jsonl(20_000, {5001: "WARNING: connection pool at 90% capacity"})
    table = records_from_text(text)
    assert table is not None and len(table.records) == 19_999 and table.left_out == 1
    assert "line 5,002" in table.note
    policy = Policy(budget=2000, spill_dir=tmp_path / "spill")
    res = shape(text, policy=policy, tool="events")
    assert_budgeted(res, policy, "events")
    env = envelope_of(res)
    assert env["truncated"] is True and env["total"] == 19_999
    assert any("not a JSON object left out (line 5,002)" in n for n in env["notes"])
    back = read(res.handle, policy=policy, lines="5002")
    assert "WARNING: connection pool at 90% capacity" in back


def test_many_stray_lines_make_it_text_not_records() -> None:
    stray = {i: f"plain text {i}" for i in range(3, 3000, 50)}  # 60 in 3,000: two in a hundred
    assert records_from_text(_jsonl(3000, stray)) is None


def test_a_first_line_that_is_no_object_makes_it_no_json_lines() -> None:
    assert records_from_text(_jsonl(500, {0: "starting export"})) is None


def test_short_json_lines_allow_no_stray_line() -> None:
    assert records_from_text(_jsonl(10, {5: "oops"})) is None
    table = records_from_text(_jsonl(10, {}))
    assert table is not None and table.left_out == 0 and "left out" not in table.note
