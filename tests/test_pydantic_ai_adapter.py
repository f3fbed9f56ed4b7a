"""The Pydantic AI adapter in the real framework: a real Agent, a scripted FunctionModel, a real stdio MCP server.

Every assertion is about what the model received (``ToolReturnPart.model_response_str()``, the text providers send).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.mcp")

from helpers import PR_NUMBERS, shown_records

from hostshape import Policy, Rule
from hostshape.examples import payload_text
from hostshape.testing.pydantic_ai import run
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import RETRIEVAL_TOOL

pytestmark = pytest.mark.host


def records(doc: Any) -> list[Any]:
    """The record list of a shaped JSON document (top level, or the list inside the envelope object)."""
    return shown_records(doc)


def envelope(text: str) -> dict[str, Any]:
    doc = json.loads(text)
    assert isinstance(doc, dict) and next(iter(doc)) == "_hostshape", text[:300]
    return doc["_hostshape"]


async def test_the_model_receives_the_shaped_text_within_budget(policy: Policy) -> None:
    without = await run("list_pull_requests", policy=None)
    assert count_tokens(without.received) > 40_000  # Pydantic AI passes the whole payload on: no limit of its own

    shaped = await run("list_pull_requests", policy=policy)
    text = shaped.received
    assert count_tokens(text) <= policy.budget
    doc = json.loads(text)
    for number in PR_NUMBERS:
        assert str(number) in text
    assert {r["number"] for r in records(doc) if isinstance(r, dict) and "number" in r} <= set(PR_NUMBERS)
    # Statistics ride in ToolReturnPart.metadata, which providers never send.
    part = shaped.extra["part"]
    stats = part.metadata["hostshape"]
    assert stats["tool"] == "list_pull_requests" and stats["server"] == "corpus"
    assert stats["tokens_after"] == count_tokens(text)
    assert part.content == text and "bytes_before" not in text


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("fetch_plain", {"name": "gh_issues_list.json"}),  # a text block, parsed to a list by Pydantic AI
        ("fetch_structured", {"name": "gh_search_issues.json"}),  # structuredContent, a dict
        ("read_readme", {}),  # prose
    ],
)
async def test_every_converted_value_fits_the_budget(policy: Policy, tool: str, arguments: dict[str, Any]) -> None:
    shaped = await run(tool, policy=policy, arguments=arguments)
    assert shaped.extra["part"].outcome == "success"
    assert 0 < count_tokens(shaped.received) <= policy.budget
    if tool != "read_readme":
        json.loads(shaped.received)


async def test_a_result_that_fits_is_left_untouched(policy: Policy) -> None:
    shaped = await run("list_issues_small", policy=policy.replace(budget=50_000))
    # FastMCP's {"result": text} is unwrapped by Pydantic AI, so the model gets the server's text as it was.
    assert shaped.received == payload_text("octokit_issues_page1.json")
    assert shaped.extra["part"].metadata is None


async def test_parallel_tool_calls_are_each_shaped(policy: Policy) -> None:
    shaped = await run(
        "list_pull_requests",
        policy=policy,
        parallel=[("list_commits", None), ("search_issues", None), ("list_pull_requests", None), ("image", None)],
    )
    parts = shaped.extra["parts"]
    assert [p.tool_name for p in parts] == [
        "list_pull_requests",
        "list_commits",
        "search_issues",
        "list_pull_requests",
        "image",
    ]
    for part in parts[:4]:
        text = part.model_response_str()
        assert count_tokens(text) <= policy.budget, part.tool_name
        json.loads(text)
        assert part.metadata["hostshape"]["tool"] == part.tool_name
    # The same call made twice at once gets byte-identical text (one saved copy, one handle).
    assert parts[0].content == parts[3].content
    # An image reaches the model natively, untouched.
    assert parts[4].files and parts[4].files[0].media_type == "image/png" and parts[4].metadata is None


async def test_a_prefixed_toolset_routes_by_the_servers_tool_name(policy: Policy) -> None:
    rule = Rule(tool="list_pull_requests", server="corpus", fields=("number", "title"))
    shaped = await run("list_pull_requests", policy=policy.replace(rules=(rule,)), prefix="gh")
    assert shaped.extra["tool_names"][0].startswith("gh_")
    assert shaped.extra["part"].tool_name == "gh_list_pull_requests"
    rows = records(json.loads(shaped.received))
    assert sorted(r["number"] for r in rows) == sorted(PR_NUMBERS)
    assert all(set(r) <= {"number", "title"} for r in rows)


async def test_a_rule_for_another_server_does_not_apply(policy: Policy) -> None:
    rule = Rule(tool="list_pull_requests", server="elsewhere", fields=("number",))
    shaped = await run("list_pull_requests", policy=policy.replace(rules=(rule,)))
    rows = [r for r in records(json.loads(shaped.received)) if isinstance(r, dict)]
    assert any(set(r) - {"number"} for r in rows)


async def test_toolsets_from_load_mcp_toolsets_are_shaped(policy: Policy) -> None:
    shaped = await run("list_pull_requests", policy=policy, via="config")
    assert shaped.extra["part"].tool_name == "corpus_list_pull_requests"
    assert count_tokens(shaped.received) <= policy.budget
    assert shaped.extra["part"].metadata["hostshape"]["server"] == "corpus"


async def test_the_hook_passed_to_the_constructor_shapes(policy: Policy) -> None:
    shaped = await run("list_commits", policy=policy, via="hook")
    assert count_tokens(shaped.received) <= policy.budget
    assert shaped.extra["part"].metadata["hostshape"]["tool"] == "list_commits"
    # Without the retrieval tool installed, the hint points at the saved file instead.
    assert RETRIEVAL_TOOL not in shaped.extra["tool_names"]
    assert "saved at" in envelope(shaped.received)["hint"]


async def test_a_tool_error_reaches_the_model_as_the_same_retry(policy: Policy) -> None:
    without = await run("fail", policy=None, arguments={"message": "upstream API returned 502"})
    shaped = await run("fail", policy=policy, arguments={"message": "upstream API returned 502"})
    assert without.extra["part"].outcome == shaped.extra["part"].outcome == "retried"
    assert shaped.received == without.received
    assert "upstream API returned 502" in shaped.received
    assert shaped.extra["output"] == "done"


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("injected fault")


async def test_a_fault_in_the_core_passes_the_result_through(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    with caplog.at_level(logging.WARNING, logger="hostshape"):
        shaped = await run("list_pull_requests", policy=policy.replace(on_fault="pass"))
    assert shaped.extra["output"] == "done"
    assert shaped.received == payload_text("gh_pulls_list.json")
    assert "injected fault" in caplog.text


async def test_a_fault_in_the_core_refuses_when_the_policy_says_so(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    shaped = await run("list_pull_requests", policy=policy.replace(on_fault="refuse"))
    assert shaped.extra["output"] == "done"
    assert count_tokens(shaped.received) <= 200
    assert shaped.received.startswith("[hostshape]") and "Remedy" in shaped.received


@pytest.mark.parametrize("on_fault", ["pass", "refuse"])
async def test_a_fault_in_the_adapter_does_not_end_the_run(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, on_fault: str
) -> None:
    monkeypatch.setattr("hostshape.adapters.pydantic_ai._core_input", _boom)
    with caplog.at_level(logging.ERROR, logger="hostshape.adapters.pydantic_ai"):
        shaped = await run("list_commits", policy=policy.replace(on_fault=on_fault))
    assert shaped.extra["output"] == "done"
    assert "injected fault" in caplog.text
    if on_fault == "pass":
        assert shaped.received == payload_text("gh_commits_list.json")
    else:
        assert shaped.received.startswith("[hostshape]") and "Remedy: call list_commits again" in shaped.received


async def test_the_model_walks_every_page_through_hostshape_read(tmp_path: Any) -> None:
    policy = Policy(budget=1000, spill_dir=tmp_path / "spill")

    def follow(texts: list[str]) -> tuple[str, dict[str, Any]] | None:
        first, last = envelope(texts[0]), envelope(texts[-1])
        if "next" not in last:
            return None
        return RETRIEVAL_TOOL, {"handle": first["handle"], "cursor": last["next"]}

    shaped = await run("list_pull_requests", policy=policy, follow=follow)
    texts = shaped.extra["texts"]
    assert len(texts) >= 3 and RETRIEVAL_TOOL in envelope(texts[0])["hint"]
    numbers = []
    for text in texts:
        assert count_tokens(text) <= policy.budget
        doc = json.loads(text)
        numbers += [r["number"] for r in records(doc)[: doc["_hostshape"]["returned"]]]
    assert sorted(numbers) == sorted(PR_NUMBERS)  # every record exactly once
    assert [p.tool_name for p in shaped.extra["parts"][1:]] == [RETRIEVAL_TOOL] * (len(texts) - 1)


async def test_a_query_narrows_and_a_foreign_cursor_is_refused_with_its_remedy(tmp_path: Any) -> None:
    policy = Policy(budget=1000, spill_dir=tmp_path / "spill")
    query = "[].{number: number, title: title}"

    def follow(texts: list[str]) -> tuple[str, dict[str, Any]] | None:
        first = envelope(texts[0])
        if len(texts) == 1:
            return RETRIEVAL_TOOL, {"handle": first["handle"], "query": query}
        if len(texts) == 2:  # the first page's cursor pages the unqueried result
            return RETRIEVAL_TOOL, {"handle": first["handle"], "query": query, "cursor": first["next"]}
        return None

    shaped = await run("list_pull_requests", policy=policy, follow=follow)
    _, narrowed, foreign = shaped.extra["texts"]
    assert count_tokens(narrowed) <= policy.budget
    assert sorted(r["number"] for r in records(json.loads(narrowed))) == sorted(PR_NUMBERS)
    assert foreign.startswith("[hostshape]") and "omit cursor" in foreign


async def test_a_toolreturn_from_an_earlier_hook_keeps_its_metadata(policy: Policy) -> None:
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.messages import ToolReturn

    from hostshape.adapters.pydantic_ai import ShapingHook

    async def inner(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        return ToolReturn(return_value=await call_tool(name, args), metadata={"mine": 1}, content="see also")

    async def call_tool(name: str, args: dict[str, Any], **kwargs: Any) -> Any:
        if name == "fail":
            raise ModelRetry("upstream API returned 502")
        return payload_text("gh_pulls_list.json")

    hook = ShapingHook(policy=policy, server="corpus", inner=inner)
    shaped = await hook(None, call_tool, "list_pull_requests", {})
    assert isinstance(shaped, ToolReturn) and shaped.content == "see also"
    assert shaped.metadata["mine"] == 1 and shaped.metadata["hostshape"]["server"] == "corpus"
    assert count_tokens(shaped.return_value) <= policy.budget
    with pytest.raises(ModelRetry, match="502"):
        await hook(None, call_tool, "fail", {})


def test_attach_reaches_mcp_leaves_through_wrappers_and_capabilities(policy: Policy) -> None:
    from pydantic_ai.capabilities.mcp import MCP
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.toolsets import CombinedToolset

    from hostshape.adapters.pydantic_ai import ShapingHook, attach
    from hostshape.testing import mcp_server_command

    async def own_hook(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        return await call_tool(name, args)

    command, *args = mcp_server_command()
    from fastmcp.client.transports import StdioTransport

    leaf_a = MCPToolset(StdioTransport(command, args), id="a", process_tool_call=own_hook)
    leaf_b = MCPToolset(StdioTransport(command, args), id="b")
    combined = CombinedToolset([leaf_a.prefixed("a").filtered(lambda ctx, td: True), leaf_b])
    capability = MCP(local=MCPToolset(StdioTransport(command, args), id="c"))
    assert attach([combined, capability], policy=policy) == [combined, capability]
    attach(combined, policy=policy.replace(budget=1000))  # attaching again replaces, never nests

    hook_a = leaf_a.process_tool_call
    assert isinstance(hook_a, ShapingHook) and hook_a.server == "a" and hook_a.policy.budget == 1000
    assert hook_a.inner is own_hook
    assert isinstance(leaf_b.process_tool_call, ShapingHook) and leaf_b.process_tool_call.server == "b"
    assert isinstance(capability.local.process_tool_call, ShapingHook)


def test_the_module_names_its_extra_when_the_framework_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import hostshape.adapters.pydantic_ai as adapter

    monkeypatch.setitem(sys.modules, "pydantic_ai", None)
    with pytest.raises(ImportError, match=r"hostshape\[pydantic-ai\]"):
        adapter.process_tool_call(Policy())
    assert adapter.HOST == "Pydantic AI" and adapter.FIRES.startswith("before the model")


# -- errors and media (issue 17) -------------------------------------------------------------------------------------
async def test_a_long_tool_error_is_budgeted_in_the_retry_the_model_reads(policy: Policy) -> None:
    # A 40,000-character error reached the model unshaped as a retried ToolReturnPart (9,297 tokens at 4,000).
    message = "upstream API returned 502: " + "stack frame in handler; " * 1_700
    without = await run("fail", policy=None, arguments={"message": message})
    shaped = await run("fail", policy=policy, arguments={"message": message})
    assert count_tokens(without.received) > policy.budget
    assert shaped.extra["part"].outcome == "retried"
    assert count_tokens(shaped.received) <= policy.budget
    assert "upstream API returned 502" in shaped.received and "[hostshape]" in shaped.received
    assert shaped.extra["output"] == "done"


async def test_an_image_beside_text_and_a_blob_reaches_the_model(policy: Policy) -> None:
    # text + a 70-byte PNG + a 30-byte blob, far under budget: the image must still reach the model natively.
    from pydantic_ai.messages import BinaryImage

    shaped = await run("mixed", policy=policy)
    part = shaped.extra["part"]
    images = [f for f in part.files if isinstance(f, BinaryImage)]
    assert len(images) == 1 and images[0].media_type == "image/png"
    assert "Build 4812 passed" in shaped.received
    assert "image omitted" not in shaped.received  # the image was not omitted
    assert "application/octet-stream, 30 bytes" in shaped.received  # the blob is named, not dropped silently
    assert count_tokens(shaped.received) <= policy.budget


# -- the capability: every tool, the newer idiom ----------------------------------------------------------------------
async def test_the_capability_shapes_every_tool_and_its_errors(policy: Policy) -> None:
    shaped = await run("list_pull_requests", policy=policy, via="capability")
    assert count_tokens(shaped.received) <= policy.budget
    assert [r["number"] for r in records(json.loads(shaped.received))] == PR_NUMBERS[
        : len(records(json.loads(shaped.received)))
    ]
    assert "hostshape_read" in shaped.extra["tool_names"]  # the capability offers the way back
    message = "upstream API returned 502: " + "stack frame in handler; " * 1_700
    failed = await run("fail", policy=policy, via="capability", arguments={"message": message})
    assert failed.extra["part"].outcome == "retried" and count_tokens(failed.received) <= policy.budget


@pytest.mark.parametrize("budget", [2, 10, 30])
def test_a_budget_below_the_smallest_answer_is_refused_at_install(budget: int, tmp_path: Any) -> None:
    """Below its smallest answer (the envelope naming the handle, in the retry's {"error": ...} too) every answer
    would break the budget or lose the way back: refused when installed, with the minimum."""
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset

    import hostshape.adapters.pydantic_ai as adapter
    from hostshape.testing import mcp_server_command

    policy = Policy(budget=budget, spill_dir=tmp_path)
    smallest = adapter.minimum_budget(policy)
    assert smallest > budget
    command, *args = mcp_server_command()
    toolset = MCPToolset(StdioTransport(command, args), id="corpus")
    makes = (
        lambda: adapter.install([toolset], policy),
        lambda: adapter.attach(toolset, policy=policy),
        lambda: adapter.process_tool_call(policy),
        lambda: adapter.capability(policy),
    )
    for make in makes:
        with pytest.raises(ValueError, match=f"Pydantic AI needs a budget of at least {smallest} tokens"):
            make()
    with pytest.raises(ValueError, match="rule 'list_\\*' budget"):
        adapter.install([toolset], Policy(spill_dir=tmp_path, rules=(Rule(tool="list_*", budget=budget),)))
    assert toolset.process_tool_call is None  # nothing installed


@pytest.mark.parametrize("via", ["install", "capability"])
async def test_the_smallest_allowed_budget_is_kept_with_the_handle_as_the_model_reads_it(
    tmp_path: Any, via: Any
) -> None:
    import hostshape.adapters.pydantic_ai as adapter

    policy = Policy(budget=adapter.minimum_budget(Policy()), spill_dir=tmp_path / "spill")
    shaped = await run("list_pull_requests", policy=policy, via=via)
    assert count_tokens(shaped.received) <= policy.budget
    assert "hs_" in shaped.received  # the way back is named
    message = "upstream API returned 502: " + "stack frame in handler; " * 1_700
    failed = await run("fail", policy=policy, arguments={"message": message}, via=via)
    assert failed.extra["part"].outcome == "retried" and count_tokens(failed.received) <= policy.budget
