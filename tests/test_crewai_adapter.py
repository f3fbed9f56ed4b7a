"""CrewAI adapter, in the real framework: ``Agent(mcps=[MCPServerStdio(...)])`` over the example stdio server, run
by ``kickoff``/``kickoff_async``, with a scripted LLM at CrewAI's own model interface (hostshape.testing.crewai).
Offline: no model API, no network, telemetry off.

What the model "received" is the content of the tool message CrewAI sends the LLM.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("crewai")

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
from hostshape.adapters import crewai as adapter
from hostshape.testing.crewai import run_sync
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


def test_without_hostshape_crewai_defers_the_result_to_a_file() -> None:
    deferred = run_sync("list_pull_requests", policy=None)  # over 25% of a 128k window (chars / 4)
    assert "was stored as temporary artifact" in deferred.received
    assert count_tokens(deferred.received) < BUDGET  # a notice naming the file and a preview, not the records
    whole = run_sync("list_pull_requests", policy=None, context_window=10_000_000)
    assert count_tokens(whole.received) > 20 * BUDGET  # under the threshold, the whole result


@pytest.mark.parametrize("sync", [True, False], ids=["kickoff", "kickoff_async"])
def test_it_fires_before_the_deferral_in_sync_and_async_runs(policy: Policy, sync: bool) -> None:
    run_ = run_sync("list_pull_requests", policy=policy, sync=sync)
    assert_pull_list_shaped(run_.received)
    assert run_.extra["final"] == "done"


def test_a_budget_above_the_deferral_threshold_is_fitted_under_it(policy: Policy) -> None:
    # A 32k window defers results over 8k "tokens" (32,000 characters); a 20k-token budget would exceed that.
    run_ = run_sync("list_pull_requests", policy=policy.replace(budget=20_000), context_window=32_000)
    assert "temporary artifact" not in run_.received and len(run_.received) <= 32_000
    assert next(iter(json.loads(run_.received))) == "_hostshape"


def test_a_rule_routes_by_the_mcp_tool_name_and_server(policy: Policy) -> None:
    rule = projection_rule("github")
    run_ = run_sync("list_pull_requests", policy=policy.replace(rules=(rule,)), server="github")
    assert_projected(run_.received)


def test_a_long_tool_error_is_budgeted_and_images_stay_placeholders(policy: Policy) -> None:
    shaped = run_sync("fail", policy=policy, arguments={"message": LONG_ERROR}, context_window=10_000_000)
    assert count_tokens(shaped.received) <= BUDGET
    assert "upstream API returned 502" in shaped.received and "[hostshape]" in shaped.received
    image = run_sync("image", policy=policy)
    assert image.received == "[image: image/png]"  # CrewAI's own placeholder (mcp/content.py:43-44), left alone


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


def test_a_fault_never_reaches_the_crew(policy: Policy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    refused = run_sync("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert refused.received.startswith("[hostshape]") and count_tokens(refused.received) <= BUDGET
    assert refused.extra["final"] == "done"
    monkeypatch.setattr("hostshape.adapters.crewai.HostForm", _boom)  # the adapter's own glue
    context = SimpleNamespace(tool_name="t", tool_input={}, tool=None, agent=None, tool_result="x" * 50_000)
    named = policy.replace(on_fault="pass", rules=(Rule(tool="t"),))
    assert adapter.shape_tool_result(context, policy=named) is None


def test_the_hook_applies_only_to_the_agents_it_was_installed_for(policy: Policy) -> None:
    mine, other = object(), object()
    named = policy.replace(rules=(Rule(tool="numbers", budget=300),))
    hook = adapter.after_tool_call(named, agents=[mine])
    text = json.dumps(list(range(5000)))
    context = SimpleNamespace(tool_name="numbers", tool_input={}, tool=None, tool_result=text)
    assert hook(SimpleNamespace(**vars(context), agent=other)) is None
    shaped = hook(SimpleNamespace(**vars(context), agent=mine))
    assert shaped is not None and count_tokens(shaped) <= 300
    assert adapter.after_tool_call(policy)(SimpleNamespace(**vars(context), agent=mine)) is None  # no rule: not MCP


def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy) -> None:
    paged = policy.replace(budget=PAGED_BUDGET)  # the pull requests, even as a table, fill more than one page
    run_ = run_sync("list_pull_requests", policy=paged, next_call=read_next_page)
    assert_pages_hold_every_pull_request_once(run_.extra["received"], PAGED_BUDGET)
