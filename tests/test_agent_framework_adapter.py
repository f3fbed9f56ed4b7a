"""Microsoft Agent Framework adapter, in the real framework: ``Agent`` with an ``MCPStdioTool`` over the example
stdio server, with a scripted chat client at the framework's own client interface
(hostshape.testing.agent_framework). Offline: no model API, no network.

What the model "received" is the text of the ``function_result`` the agent sends the client.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("agent_framework")
pytest.importorskip("mcp.client")

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
from hostshape.adapters import agent_framework as adapter
from hostshape.testing.agent_framework import run
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


async def test_without_hostshape_the_model_reads_the_structured_copy_json_escaped() -> None:
    run_ = await run("list_pull_requests", policy=None)
    assert run_.received.startswith('{"result": "[{\\"url\\"')  # structured_first: {"result": text} as JSON
    assert count_tokens(run_.received) > 20 * BUDGET  # no limit on the model-visible text


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run-stream"])
async def test_the_model_receives_the_list_within_the_budget(policy: Policy, stream: bool) -> None:
    run_ = await run("list_pull_requests", policy=policy, stream=stream)
    assert_pull_list_shaped(run_.received)
    assert run_.extra["final"] == "done"


async def test_a_rule_routes_by_tool_and_server(policy: Policy) -> None:
    rule = projection_rule("github")
    run_ = await run("list_pull_requests", policy=policy.replace(rules=(rule,)), server="github")
    assert_projected(run_.received)


async def test_a_detailed_tool_error_is_budgeted_as_the_model_reads_it(policy: Policy) -> None:
    without = await run("fail", policy=None, arguments={"message": LONG_ERROR}, detailed_errors=True)
    assert count_tokens(without.received) > BUDGET
    shaped = await run("fail", policy=policy, arguments={"message": LONG_ERROR}, detailed_errors=True)
    assert shaped.received.startswith("Error: Function failed. Exception: ")
    assert count_tokens(shaped.received) <= BUDGET
    assert "upstream API returned 502" in shaped.received and "[hostshape]" in shaped.received
    plain = await run("fail", policy=policy, arguments={"message": LONG_ERROR})
    assert plain.received == "Error: Function failed."  # the host's own message, without the detail


async def test_images_stay_native_beside_the_shaped_text(policy: Policy) -> None:
    smallest = adapter.minimum_budget(policy)
    run_ = await run("mixed", policy=policy.replace(budget=smallest), arguments={"times": 20})
    assert count_tokens(run_.received) <= smallest and "[hostshape]" in run_.received
    assert run_.extra["items"][0][0] == "text" and "data" in run_.extra["items"][0][1:]


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


async def test_a_fault_never_reaches_the_run(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    with caplog.at_level(logging.ERROR, logger="hostshape"):
        passed = await run("list_pull_requests", policy=policy.replace(on_fault="pass"))
    assert passed.received.startswith('{"result": ') and passed.extra["final"] == "done"
    refused = await run("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert refused.received.startswith("[hostshape]") and count_tokens(refused.received) <= BUDGET
    monkeypatch.setattr("agent_framework.Content.from_text", _boom)  # the adapter's own glue
    assert adapter.shape_result("x" * 50_000, tool="t", args={}, policy=policy.replace(on_fault="pass")) is None


def test_non_mcp_results_are_left_alone_unless_a_rule_names_the_tool(policy: Policy) -> None:
    from agent_framework import tool

    def numbers() -> str:
        """Numbers."""
        return json.dumps(list(range(5000)))

    function = tool(numbers)
    assert adapter._route(function, None) == ("numbers", False)
    shaped = adapter.shape_result(numbers(), tool="numbers", args={}, policy=policy.replace(budget=300))
    assert shaped is not None and count_tokens(shaped[0].text) <= 300
    assert adapter.rule_names(policy.replace(rules=(Rule(tool="numbers"),)), "numbers", None)


async def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy) -> None:
    paged = policy.replace(budget=PAGED_BUDGET)  # the pull requests, even as a table, fill more than one page
    run_ = await run("list_pull_requests", policy=paged, next_call=read_next_page)
    assert_pages_hold_every_pull_request_once(run_.extra["received"], PAGED_BUDGET)


@pytest.mark.parametrize("budget", [2, 10, 30])
def test_a_budget_below_the_smallest_answer_is_refused_at_install(budget: int, tmp_path: Any) -> None:
    """Below its smallest answer (the envelope naming the handle, after the error prefix) every answer would break
    the budget or lose the way back: refused when installed, with the minimum."""
    from agent_framework import Agent

    from hostshape.testing.agent_framework import scripted_model

    policy = Policy(budget=budget, spill_dir=tmp_path)
    smallest = adapter.minimum_budget(policy)
    assert smallest > budget
    for make in (lambda: adapter.install(policy), lambda: adapter.middleware(policy)):
        with pytest.raises(ValueError, match=f"Microsoft Agent Framework needs a budget of at least {smallest} tokens"):
            make()
    agent = Agent(client=scripted_model(None), tools=[])
    with pytest.raises(ValueError, match="rule 'list_\\*' budget"):
        adapter.install(agent, Policy(spill_dir=tmp_path, rules=(Rule(tool="list_*", budget=budget),)))
    assert not agent.middleware  # nothing installed


async def test_the_smallest_allowed_budget_is_kept_with_the_handle_as_the_model_reads_it(tmp_path: Any) -> None:
    policy = Policy(budget=adapter.minimum_budget(Policy()), spill_dir=tmp_path / "spill")
    run_ = await run("list_pull_requests", policy=policy)
    assert count_tokens(run_.received) <= policy.budget
    assert "hs_" in run_.received  # the way back is named
    error = await run("fail", policy=policy, arguments={"message": LONG_ERROR}, detailed_errors=True)
    assert error.received.startswith(adapter.ERROR_PREFIX) and count_tokens(error.received) <= policy.budget
    assert "hs_" in error.received
