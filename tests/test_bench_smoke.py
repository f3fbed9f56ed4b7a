"""The benchmark script (bench/run.py) runs end to end on one small payload at one budget, so it cannot rot.

Peers that are not installed (the ``bench`` extra) are skipped by the script itself; hostshape always runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bench_run(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import run

    return run


def test_bench_script_reports_every_installed_tool_on_one_payload(bench_run, tmp_path: Path, capsys) -> None:
    text = bench_run.main(
        ["--files", "octokit_issues_page1.json", "--budgets", "2000", "--runs", "1", "--out", str(tmp_path), "--quiet"]
    )

    assert capsys.readouterr().out.strip() == text.strip()
    assert (tmp_path / "RESULTS.md").read_text(encoding="utf-8") == text
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    ran = {r["tool"] for r in data["rows"]}
    assert ran | set(data["missing"]) == {t.name for t in bench_run.peers.TOOLS}
    hostshape = [r for r in data["rows"] if r["tool"] == "hostshape"]
    assert len(hostshape) == 1 and hostshape[0]["fits"] and hostshape[0]["valid_json"]
    assert all(r["ms"] is not None and r["ms"] > 0 for r in hostshape)
    assert data["core"] and data["passthrough_ms"]
    assert "## Goals" in text and "octokit_issues_page1.json" in text
