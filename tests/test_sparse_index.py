"""An index of a list whose identifiers do not all fit spans the whole list (issue 27): rows evenly spread from the
record after the whole ones to the last, each led by its position, the last record whole beside the head when room
allows, every record counted once, `next` continuing after the head, and any record read back by its position;
through the `hostshape` command as a newcomer uses it, on real payloads from the corpus."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench import hostbench, tasks
from hostshape.cli import main, policy_file
from hostshape.fit.records import _positions
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
TRACE = CORPUS / "zipkin_trace_mobile_web_install.json"  # 1,041 spans: 16-hex ids, their ids never all fit
PROJECTS = CORPUS / "jira_projects_apache.json"  # 567 projects whose keys are a token or two each


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(policy_file.ENV_VAR, raising=False)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _shaped(capsys: pytest.CaptureFixture[str], path: Path, budget: int) -> tuple[str, dict[str, Any]]:
    text = _run(capsys, "shape", str(path), "--budget", str(budget))
    assert count_tokens(text) <= budget
    return text, json.loads(text)


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_the_index_spans_the_whole_list_each_row_at_its_position(
    capsys: pytest.CaptureFixture[str], budget: int
) -> None:
    spans = json.loads(TRACE.read_text())
    _, doc = _shaped(capsys, TRACE, budget)
    env, index = doc["_hostshape"], doc["_index"]
    assert index["fields"][0] == "#"
    at = [row[0] for row in index["rows"]]
    assert at == sorted(set(at)) and at[0] == len(doc["items"])  # from the record after the whole ones, ascending
    assert at[-1] == len(spans) - 1 == doc["_last"]["#"]  # to the end: the last listed, and shown whole
    gaps = {b - a for a, b in itertools.pairwise(at)}
    assert max(gaps) - min(gaps) <= 1  # evenly spread
    for row in index["rows"]:  # each row is the record at its position
        assert dict(zip(index["fields"][1:], row[1:], strict=True))["id"] == spans[row[0]]["id"]
    assert doc["_last"]["id"] == spans[-1]["id"] and doc["_last"]["name"] == spans[-1]["name"]
    middle = doc.get("_middle", {}).get("#")  # the record midway, shown whole beside the last when room allows
    assert env["returned"] == len(doc["items"]) + (middle is not None and middle not in at)  # unlisted: returned
    assert env["returned"] + env["listed"] + env["dropped"] == env["total"] == len(spans)  # each counted once
    notes = " ".join(env["notes"])
    assert f"index: {len(at):,} of #{at[0]}-#{at[-1]}, spread evenly" in notes and "position '#' (from 0)" in notes
    assert f"the list's last record (#{len(spans) - 1}) listed last and shown whole in '_last'" in notes


def test_next_continues_after_the_head_and_a_position_reads_its_record(capsys: pytest.CaptureFixture[str]) -> None:
    spans = json.loads(TRACE.read_text())
    _, doc = _shaped(capsys, TRACE, 4000)
    env = doc["_hostshape"]
    shown = len(doc["items"])
    page = json.loads(_run(capsys, "read", env["handle"], "--cursor", env["next"], "--budget", "4000"))
    assert page["items"][0]["id"] == spans[shown]["id"]  # after the last record shown whole, not after the index
    query = re.search(r"query (\S*)\[N\] reads #N", " ".join(env["notes"]))
    assert query is not None
    middle = len(spans) // 2
    read = json.loads(_run(capsys, "read", env["handle"], "--query", f"{query.group(1)}[{middle}]"))
    assert json.dumps(spans[middle]["id"]) in json.dumps(read)


def test_rows_a_position_would_crowd_out_follow_the_head_and_the_last_comes_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    projects = json.loads(PROJECTS.read_text())
    _, doc = _shaped(capsys, PROJECTS, 2000)
    env, index = doc["_hostshape"], doc["_index"]
    assert "#" not in index["fields"]  # ids of a few tokens: a position would cost a third of each row
    shown = len(doc["items"])
    key = index["fields"].index("id")
    assert [row[key] for row in index["rows"]] == [p["id"] for p in projects[shown : shown + len(index["rows"])]]
    assert doc["_last"]["#"] == len(projects) - 1 and doc["_last"]["key"] == projects[-1]["key"]
    assert env["returned"] == shown + 1  # the last, shown whole and not listed, is counted among those returned
    assert f"the list's last record (#{len(projects) - 1}) shown whole in '_last'" in env["notes"]
    assert env["returned"] + env["listed"] + env["dropped"] == env["total"] == len(projects)


@pytest.mark.parametrize("budget", [4000, 8000])
def test_a_listing_of_every_record_stays_in_order_the_last_whole_beside_it(
    capsys: pytest.CaptureFixture[str], budget: int
) -> None:
    projects = json.loads(PROJECTS.read_text())
    _, doc = _shaped(capsys, PROJECTS, budget)
    env, index = doc["_hostshape"], doc["_index"]
    assert "#" not in index["fields"]  # every record listed: their positions go without saying
    shown = env["returned"]  # the head, then the index of every other record, then the last whole
    assert shown == len(as_records(doc["items"]))
    key = index["fields"].index("id")
    assert [row[key] for row in index["rows"]] == [p["id"] for p in projects[shown:]]
    assert doc["_last"]["#"] == len(projects) - 1 and doc["_last"]["name"] == projects[-1]["name"]
    assert env["returned"] + env["listed"] == env["total"] == len(projects) and "dropped" not in env


def test_positions_are_evenly_spread_the_first_and_the_last_included() -> None:
    assert _positions(10, 1041, 120)[0] == 10 and _positions(10, 1041, 120)[-1] == 1040
    assert len(set(_positions(10, 1041, 120))) == 120
    assert _positions(0, 5, 9) == [0, 1, 2, 3, 4] and _positions(3, 100, 1) == [3]


def test_the_task_reader_places_a_row_at_the_position_it_states(capsys: pytest.CaptureFixture[str]) -> None:
    text, doc = _shaped(capsys, TRACE, 4000)
    spans = json.loads(TRACE.read_text())
    (payload,) = hostbench.load_all(["corpus/zipkin_trace_mobile_web_install.json"])
    truth = hostbench.truth_for(payload)
    assert truth is not None
    reading = tasks.read(text, truth)
    at = doc["_index"]["rows"][3][0]
    assert reading.records[at] is not None and reading.records[at]["id"] == spans[at]["id"]
    assert reading.records[at - 1] is None  # between two rows: not shown, never guessed
    assert reading.records[-1] is not None and reading.records[-1]["name"] == spans[-1]["name"]
