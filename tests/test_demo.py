"""`hostshape demo` runs each host for real and reports what its model received."""

from __future__ import annotations

import asyncio
import json

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
