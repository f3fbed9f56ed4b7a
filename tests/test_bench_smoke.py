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
        [
            "--files",
            "octokit_issues_page1.json",
            "--budgets",
            "2000",
            "--runs",
            "1",
            "--host-runs",
            "1",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
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


def test_bench_script_measures_the_peers_that_hook_the_same_hosts(bench_run, tmp_path: Path) -> None:
    """Every installed host peer runs on one small list payload (no CLI runs: those are minutes); a peer that is not
    installed is reported as missing, not run."""
    from bench import hostpeers

    text = bench_run.main(
        [
            "--files",
            "octokit_issues_page1.json",
            "--budgets",
            "2000",
            "--runs",
            "1",
            "--host-runs",
            "1",
            "--no-core",
            "--no-hosts",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
    )
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rows = {r["tool"]: r for r in data["host_peers"]}
    names = {t.name for t in hostpeers.HOST_PEERS}
    assert (set(rows) & names) | (set(data["missing"]) & names) == names
    others = {t.name for t in bench_run.peers.PEERS}
    assert set(rows) - names - {"hostshape"} == others - set(data["missing"])  # judged too, untimed
    hs = rows["hostshape"]
    assert hs["fits"] and hs["valid_json"] and hs["recall"] == 1.0 and hs["retrievable"]
    assert hs["tasks_n"] and hs["tasks_ok"] == hs["tasks_n"]  # 13 questions, all answerable from 566 tokens
    for name, row in rows.items():
        assert row["error"] is None, (name, row["error"])
        assert row["tokens"] > 0 and row["tasks_n"] == hs["tasks_n"]
    assert "peers that hook the same hosts" in text and "Where a peer beats hostshape" in text


def test_task_reader_reads_hostshape_index_and_cut_json() -> None:
    """The reader takes records from JSON lists and columnar indexes, and from JSON members in cut-off text."""
    import json as _json

    from bench import tasks
    from bench.corpus import Payload

    records = [{"number": n, "title": f"title of record {n} is long enough", "state": "open"} for n in (5, 6, 7)]
    p = Payload("x.json", _json.dumps(records), True, "list", "number", (5, 6, 7))
    t = tasks.truth(p, records, "number")
    assert t is not None
    full = tasks.score(p.text, t)
    assert full[0] == full[1] == len(tasks.questions(t))
    shaped = _json.dumps(
        {
            "_hostshape": {"total": 3},
            "items": records[:1],
            "_index": {
                "fields": ["number", "title", "state"],
                "rows": [[r["number"], r["title"], r["state"]] for r in records[1:]],
            },
        }
    )
    assert tasks.score(shaped, t)[0] == full[1]
    cut = p.text[: p.text.index('"number": 7')]  # the last record is gone, and the text is no longer JSON
    ok, n = tasks.score(cut, t)
    assert 0 < ok < n
