"""CSV and JSON lines have a way back (issue 27): `next` continues after the last row shown, every row comes once,
and a query runs on the parsed rows, through the `hostshape` command as a newcomer uses it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from hostshape.cli import main, policy_file
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(policy_file.ENV_VAR, raising=False)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _walk(capsys: pytest.CaptureFixture[str], path: Path, budget: int) -> list[dict[str, Any]]:
    """Every record shown, first page then `hostshape read --cursor` until there is no `next`."""
    page = json.loads(_run(capsys, "shape", str(path), "--budget", str(budget)))
    env = page["_hostshape"]
    handle, rows = env["handle"], list(as_records(page["items"]))
    while env.get("next"):
        text = _run(capsys, "read", handle, "--cursor", env["next"], "--budget", str(budget))
        assert count_tokens(text) <= budget
        page = json.loads(text)
        env = page["_hostshape"]
        assert page["items"], "an empty page"
        rows += as_records(page["items"])
    return rows


def _csv(n: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["order_id", "customer", "status", "amount", "note"])
    for i in range(n):
        writer.writerow([f"ORD-{i:05d}", f"customer {i % 97}", ["paid", "refunded", "open"][i % 3], i * 3 % 1000, "ok"])
    return out.getvalue()


def test_a_csv_of_3000_rows_walks_with_next_every_row_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "orders.csv"
    path.write_text(_csv(3000))
    rows = _walk(capsys, path, 4000)
    ids = [r["order_id"] for r in rows]
    assert ids == [f"ORD-{i:05d}" for i in range(3000)]


def test_json_lines_walk_with_next_every_row_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    lines = [{"event": f"e{i}", "level": ["info", "warn"][i % 2], "msg": f"step {i} " * 20} for i in range(400)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    rows = _walk(capsys, path, 2000)
    assert [r["event"] for r in rows] == [f"e{i}" for i in range(400)]


def test_a_query_runs_on_the_parsed_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "orders.csv"
    path.write_text(_csv(3000))
    handle = json.loads(_run(capsys, "shape", str(path), "--budget", "2000"))["_hostshape"]["handle"]
    answer = json.loads(_run(capsys, "read", handle, "--query", "[?order_id=='ORD-02999'].status | [0]"))
    assert answer["value"] == "open"  # row 2,999 of 3,000: 2999 % 3 == 2
