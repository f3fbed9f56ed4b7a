"""bench/latency.py runs end to end on one payload, so its two tables cannot rot; and the hook it times shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_latency_bench_prints_both_tables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import latency

    out = tmp_path / "latency.json"
    text = latency.main(["--runs", "1", "--budgets", "2000", "--files", "gh_pulls_list.json", "--json", str(out)])

    assert capsys.readouterr().out.strip() == text.strip()
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [r["shaped"] for r in data["hook"]] == [False, True, True]  # small passes, medium and large are shaped
    assert all(r["median_s"] > 0 and r["cpu_s"] > 0 for r in data["hook"])
    (row,) = data["floor"]
    assert row["file"] == "gh_pulls_list.json" and row["vs_floor"] > 0 and 0 < row["tokenizer_ms"] <= row["shape_ms"]
    assert "Hook latency" in text and "Floor ratio" in text
