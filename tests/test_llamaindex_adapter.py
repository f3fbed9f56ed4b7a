"""LlamaIndex adapter, in the real framework: ``FunctionAgent`` with ``McpToolSpec`` tools over the example stdio
server, with a scripted function-calling LLM (hostshape.testing.llamaindex). Offline: no model API, no network.

What the model "received" is the text of the tool message the agent sends it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("llama_index.tools.mcp")

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
from hostshape.adapters import llamaindex as adapter
from hostshape.testing.llamaindex import call_sync, run
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


async def test_without_hostshape_the_model_reads_the_pydantic_repr_of_the_whole_result() -> None:
    run_ = await run("list_pull_requests", policy=None)
    assert run_.received.startswith("meta=None content=[TextContent(")  # str(CallToolResult)
    assert "structured_content=" in run_.received  # the payload travels twice
    assert count_tokens(run_.received) > 50 * BUDGET


async def test_the_agent_hands_the_model_the_list_within_the_budget(policy: Policy) -> None:
    run_ = await run("list_pull_requests", policy=policy)
    assert_pull_list_shaped(run_.received)
    assert run_.extra["final"] == "done"


def test_the_sync_call_path_is_shaped_too(policy: Policy) -> None:
    run_ = call_sync("list_pull_requests", policy=policy)  # FunctionTool.call -> callback
    assert_pull_list_shaped(run_.received)


async def test_a_rule_routes_by_tool_and_server(policy: Policy) -> None:
    rule = projection_rule("github")
    run_ = await run("list_pull_requests", policy=policy.replace(rules=(rule,)), server="github")
    assert_projected(run_.received)


async def test_a_short_error_fits_and_a_long_one_is_budgeted(policy: Policy) -> None:
    short = await run("fail", policy=policy, arguments={"message": "upstream API returned 502"})
    assert "upstream API returned 502" in short.received and count_tokens(short.received) <= BUDGET
    long = await run("fail", policy=policy, arguments={"message": LONG_ERROR})
    assert count_tokens(long.received) <= BUDGET
    assert "upstream API returned 502" in long.received and "[hostshape]" in long.received


async def test_images_reach_the_model_as_image_blocks_not_base64_text(policy: Policy) -> None:
    without = await run("mixed", policy=None)
    assert "data='iVBOR" in without.received and without.extra["images"] == [0]  # base64 inside the repr
    shaped = await run("mixed", policy=policy.replace(budget=60))
    assert count_tokens(shaped.received) <= 60 and "iVBOR" not in shaped.received
    assert "Build 4812" in shaped.received and shaped.extra["images"] == [1]


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


async def test_a_fault_never_reaches_the_run(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    with caplog.at_level(logging.ERROR, logger="hostshape"):
        passed = await run("list_pull_requests", policy=policy.replace(on_fault="pass"))
    assert passed.received.startswith("meta=None") and passed.extra["final"] == "done"
    refused = await run("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert refused.received.startswith("[hostshape]") and count_tokens(refused.received) <= BUDGET
    monkeypatch.setattr("hostshape.adapters.llamaindex._is_call_result", _boom)  # the adapter's own glue
    assert adapter.shape_output(object(), tool="t", policy=policy.replace(on_fault="pass")) is None


def test_non_mcp_outputs_are_left_alone_unless_a_rule_names_the_tool(policy: Policy) -> None:
    big = json.dumps(list(range(5000)))
    assert adapter.shape_output(big, tool="numbers", policy=policy) is None
    named = policy.replace(rules=(Rule(tool="numbers", budget=300),))
    shaped = adapter.shape_output(big, tool="numbers", policy=named)
    assert shaped is not None and count_tokens(shaped.content) <= 300


async def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy) -> None:
    paged = policy.replace(budget=PAGED_BUDGET)  # the pull requests, even as a table, fill more than one page
    run_ = await run("list_pull_requests", policy=paged, next_call=read_next_page)
    assert_pages_hold_every_pull_request_once(run_.extra["received"], PAGED_BUDGET)


def test_a_callback_the_tool_had_runs_first(policy: Policy) -> None:
    from llama_index.core.tools import FunctionTool

    tool = FunctionTool.from_defaults(fn=lambda: "x" * 40_000, name="big", callback=lambda raw: "mine")
    [shaped, read] = adapter.install([tool], policy.replace(rules=(Rule(tool="big", budget=100),)))
    assert shaped.call().content == "mine" and read.metadata.name == "hostshape_read"
