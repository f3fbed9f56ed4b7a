"""Agno adapter, in the real framework: ``Agent`` with ``MCPTools`` over the example stdio server, with a scripted
model at Agno's own model interface (hostshape.testing.agno). Offline: no model API, no network.

What the model "received" is the content of the tool message the agent sends the model.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("agno.tools.mcp")

from helpers import (
    BUDGET,
    LONG_ERROR,
    PAGED_BUDGET,
    assert_pages_hold_every_pull_request_once,
    assert_projected,
    assert_pull_list_shaped,
    projection_rule,
    read_next_page,
)

from hostshape import Policy, Rule
from hostshape.adapters import agno as adapter
from hostshape.testing.agno import run, run_sync_function
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


async def test_without_hostshape_agno_hands_the_model_the_whole_result() -> None:
    run_ = await run("list_pull_requests", policy=None)
    assert count_tokens(run_.received) > 20 * BUDGET  # no limit of its own


@pytest.mark.parametrize("stream", [False, True], ids=["arun", "arun-stream"])
async def test_the_model_receives_the_list_within_the_budget(policy: Policy, stream: bool) -> None:
    run_ = await run("list_pull_requests", policy=policy, stream=stream)
    assert_pull_list_shaped(run_.received)
    assert run_.extra["final"] == "done"


def test_the_sync_run_is_shaped_by_the_same_hook(policy: Policy) -> None:
    def numbers() -> str:
        """Returns many numbers."""
        return json.dumps(list(range(5000)))

    named = policy.replace(rules=(Rule(tool="numbers", budget=300),))
    run_ = run_sync_function(named, numbers, "numbers")  # Agent.run: the sync chain (tools/function.py:2468)
    assert count_tokens(run_.received) <= 300 and next(iter(json.loads(run_.received))) == "_hostshape"
    unnamed = run_sync_function(policy.replace(budget=300), numbers, "numbers")
    assert unnamed.received == numbers()  # not an MCP tool, no rule names it: left alone


async def test_a_toolkit_prefix_routes_as_the_server(policy: Policy) -> None:
    rule = projection_rule("gh")
    run_ = await run("list_pull_requests", policy=policy.replace(rules=(rule,)), prefix="gh")
    assert_projected(run_.received)


async def test_a_long_tool_error_is_budgeted_as_the_model_reads_it(policy: Policy) -> None:
    without = await run("fail", policy=None, arguments={"message": LONG_ERROR})
    assert count_tokens(without.received) > BUDGET
    shaped = await run("fail", policy=policy, arguments={"message": LONG_ERROR})
    assert shaped.received.startswith("Error from MCP tool 'fail'")
    assert count_tokens(shaped.received) <= BUDGET and "[hostshape]" in shaped.received


async def test_images_stay_artifacts_beside_the_shaped_text(policy: Policy) -> None:
    run_ = await run("mixed", policy=policy.replace(budget=60), arguments={"times": 20})  # shaped: 20 sentences
    assert count_tokens(run_.received) <= 60 and "Build 4812" in run_.received and "[hostshape]" in run_.received
    assert [image.mime_type for image in run_.extra["output"].images] == ["image/png"]


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


async def test_a_fault_never_reaches_the_run(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    with caplog.at_level(logging.ERROR, logger="hostshape"):
        passed = await run("list_pull_requests", policy=policy.replace(on_fault="pass"))
    assert passed.received.startswith('[{"url"') and passed.extra["final"] == "done"
    refused = await run("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert refused.received.startswith("[hostshape]") and count_tokens(refused.received) <= BUDGET
    monkeypatch.setattr("hostshape.adapters.agno.HostForm", _boom)  # the adapter's own glue
    assert adapter.shape_result("x" * 50_000, tool="t", args={}, policy=policy.replace(on_fault="pass")) is None


async def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy) -> None:
    paged = policy.replace(budget=PAGED_BUDGET)  # the pull requests, even as a table, fill more than one page
    run_ = await run("list_pull_requests", policy=paged, next_call=read_next_page)
    assert_pages_hold_every_pull_request_once(run_.extra["received"], PAGED_BUDGET)
