"""Strands Agents adapter, in the real framework: ``Agent`` + ``MCPClient`` over the example stdio server, with a
scripted model at Strands' own model interface (hostshape.testing.strands). Offline: no AWS credentials, no network.

What the model "received" is the text of the toolResult content blocks the agent hands the model.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("strands")

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
from hostshape.adapters import strands as adapter
from hostshape.testing.strands import run_sync
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


def test_without_hostshape_strands_hands_the_model_the_whole_result() -> None:
    run_ = run_sync("list_pull_requests", policy=None)
    assert count_tokens(run_.received) > 20 * BUDGET  # no limit of its own
    assert "structuredContent" in run_.extra["results"][0]  # kept in the result, not sent to the model


@pytest.mark.parametrize("sync", [True, False], ids=["agent-call", "invoke_async"])
def test_the_model_receives_the_list_within_the_budget_in_sync_and_async_runs(policy: Policy, sync: bool) -> None:
    run_ = run_sync("list_pull_requests", policy=policy, sync=sync)
    assert_pull_list_shaped(run_.received)
    result = run_.extra["results"][0]
    assert result["status"] == "success" and "structuredContent" not in result
    # The history keeps what the model read, so later turns send the shaped text too.
    stored = [
        b["toolResult"]
        for m in run_.extra["messages"]
        for b in m["content"]
        if isinstance(b, dict) and "toolResult" in b
    ]
    assert stored[0]["content"] == [{"text": run_.received}]


def test_it_fires_before_strands_own_context_offloader(policy: Policy) -> None:
    alone = run_sync("list_pull_requests", policy=None, offloader=True)
    assert "retrieve_offloaded_content" in alone.received  # the offloader's own preview, 1,000 tokens of a cut JSON
    with pytest.raises(ValueError):
        json.loads(alone.received)
    both = run_sync("list_pull_requests", policy=policy, offloader=True)
    assert_pull_list_shaped(both.received)  # hostshape ran first; the offloader found it within 2,500 tokens


def test_a_client_prefix_routes_as_the_server(policy: Policy) -> None:
    rule = projection_rule("gh")
    run_ = run_sync("list_pull_requests", policy=policy.replace(rules=(rule,)), prefix="gh")
    assert_projected(run_.received)


def test_a_short_error_is_left_alone_and_a_long_one_is_budgeted(policy: Policy) -> None:
    short = run_sync("fail", policy=policy, arguments={"message": "upstream API returned 502"})
    assert short.extra["results"][0]["status"] == "error" and "upstream API returned 502" in short.received
    long = run_sync("fail", policy=policy, arguments={"message": LONG_ERROR})
    assert long.extra["results"][0]["status"] == "error"
    assert count_tokens(long.received) <= BUDGET
    assert "upstream API returned 502" in long.received and "[hostshape]" in long.received


def test_images_reach_the_model_natively_beside_the_text(policy: Policy) -> None:
    alone = run_sync("image", policy=policy)
    assert "image" in alone.extra["results"][0]["content"][0]  # a lone image is left as Strands made it
    tight = policy.replace(budget=12)
    mixed = run_sync("mixed", policy=tight)
    content = mixed.extra["results"][0]["content"]
    assert count_tokens(mixed.received) <= 12
    assert "text" in content[0] and any("image" in block for block in content[1:])


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


def test_a_fault_never_reaches_the_run(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.adapters.strands._replaced", _boom)  # a fault in the adapter's own glue
    result = {"toolUseId": "t", "status": "success", "content": [{"text": "x" * 40_000}]}
    with caplog.at_level(logging.ERROR, logger="hostshape"):
        passed = adapter.shape_tool_result(result, tool="t", args={}, policy=policy.replace(on_fault="pass"))
    assert passed is None and caplog.records
    monkeypatch.undo()
    monkeypatch.setattr("hostshape.pipeline.project", _boom)  # and in the core, inside a real run
    run_ = run_sync("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert count_tokens(run_.received) <= BUDGET and run_.received.startswith("[hostshape]")
    assert run_.extra["final"].strip() == "done"


def test_non_mcp_tools_are_left_alone_unless_a_rule_names_them(policy: Policy) -> None:
    result = {"toolUseId": "t", "status": "success", "content": [{"text": json.dumps(list(range(5000)))}]}
    assert adapter.shape_tool_result(result, tool="numbers", args={}, policy=policy, is_mcp=False) is None
    named = policy.replace(rules=(Rule(tool="numbers", budget=300),))
    shaped = adapter.shape_tool_result(result, tool="numbers", args={}, policy=named, is_mcp=False)
    assert shaped is not None and count_tokens(shaped["content"][0]["text"]) <= 300


def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy) -> None:
    paged = policy.replace(budget=PAGED_BUDGET)  # the pull requests, even as a table, fill more than one page
    run_ = run_sync("list_pull_requests", policy=paged, retrieval=True, next_call=read_next_page, sync=False)
    assert_pages_hold_every_pull_request_once(run_.extra["received"], PAGED_BUDGET)


def test_install_into_an_agent_adds_the_hook_and_the_tool(policy: Policy) -> None:
    from strands import Agent

    from hostshape.testing.strands import scripted_model

    agent = adapter.install(Agent(model=scripted_model(None), callback_handler=None), policy)
    assert agent.tool_names == ["hostshape_read"]
    hooks, tool = adapter.install(policy)
    assert tool.tool_name == "hostshape_read" and hooks.policy.retrieval_tool == "hostshape_read"
