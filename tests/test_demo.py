"""`hostshape demo` runs each host for real and reports what its model received."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hostshape import Policy
from hostshape.cli.demo import Host, main, render_table, run_host


def test_a_host_whose_extra_is_missing_is_skipped_with_its_install_command() -> None:
    missing = Host("langchain", "langchain", "a_framework_that_is_not_installed")
    row = asyncio.run(run_host(missing, Policy(budget=4000)))
    assert row.skipped == "pip install 'hostshape[langchain]'"
    assert "skipped: pip install 'hostshape[langchain]'" in render_table([row], 4000)


@pytest.mark.host
def test_the_demo_reports_what_the_model_received_without_and_with_hostshape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(budget=4000, as_json=True, hosts=["pydantic_ai"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["host"] == "Pydantic AI" and row["fires"].startswith("before the model")
    assert row["tool_tokens"] == 54552 and row["without_tokens"] > 40000
    assert row["with_tokens"] <= 4000 and row["fits_budget"] is True
    assert row["ids_kept_with"] == 1.0


def test_a_host_missing_here_takes_its_row_from_another_environment(tmp_path: Any, monkeypatch: Any) -> None:
    # The frameworks' pins split the hosts over environments: scripts/demo names the others' interpreters.
    from hostshape.cli import demo

    row = {
        "host": "CrewAI",
        "interception_point": "@after_tool_call",
        "fires": "before",
        "tool_tokens": 54552,
        "without_tokens": 765,
        "with_tokens": 2817,
        "fits_budget": True,
        "ids_kept_without": 0.09,
        "ids_kept_with": 1.0,
        "seconds": 1.0,
        "skipped": None,
    }
    lacking = tmp_path / "lacking"
    lacking.write_text('#!/bin/sh\necho \'[{"host": "CrewAI", "skipped": "pip install"}]\'\n')
    having = tmp_path / "having"
    having.write_text(f"#!/bin/sh\necho '{json.dumps([row])}'\n")
    for script in (lacking, having):
        script.chmod(0o755)
    monkeypatch.setenv(demo.PYTHONS_ENV, f"{tmp_path / 'missing'}:{lacking}:{having}")
    found = demo._row_elsewhere(Host("crewai", "crewai", "a_framework_that_is_not_installed"), 4000)
    assert found is not None and found.host == "CrewAI" and found.fits_budget and found.ids_kept_with == 1.0
    monkeypatch.delenv(demo.PYTHONS_ENV)
    assert demo._row_elsewhere(Host("crewai", "crewai", "a_framework_that_is_not_installed"), 4000) is None
