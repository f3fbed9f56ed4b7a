"""The LangChain adapter in the real framework, offline: create_agent + a scripted model + a real stdio MCP server.

Facts these tests pin (langchain 1.5.2, langchain-core 1.8.3, langgraph 1.2.24, langchain-mcp-adapters 0.3.2): the
interceptor sees the raw CallToolResult before conversion, structuredContent becomes ToolMessage.artifact, isError
becomes a ToolMessage with status="error", and LangChain itself passes any size to the model.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import pytest

from hostshape import Policy, Rule
from hostshape.examples import payload_text
from hostshape.tokens import count_tokens

pytest.importorskip("langchain_mcp_adapters")

from hostshape.adapters import langchain as adapter
from hostshape.output.columns import as_records
from hostshape.testing.langchain import run, run_agent

pytestmark = pytest.mark.host

PULLS = json.loads(payload_text("gh_pulls_list.json"))
PR_NUMBERS = [pr["number"] for pr in PULLS]
BUDGET = 2000


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


def envelope(text: str) -> dict[str, Any]:
    value = json.loads(text)
    assert isinstance(value, dict) and next(iter(value)) == "_hostshape", text[:300]
    return value["_hostshape"]


async def test_without_hostshape_langchain_gives_the_model_the_whole_payload() -> None:
    run_ = await run("list_pull_requests", policy=None)
    assert run_.received == payload_text("gh_pulls_list.json")
    assert run_.extra["artifact"] == {"structured_content": {"result": payload_text("gh_pulls_list.json")}}


async def test_the_model_receives_the_shaped_result_within_budget(policy: Policy) -> None:
    run_ = await run("list_pull_requests", policy=policy, server_per_call=True)  # the client.get_tools() path
    assert count_tokens(run_.received) <= BUDGET
    assert envelope(run_.received)
    for number in PR_NUMBERS:
        assert str(number) in run_.received
    assert run_.extra["status"] == "success"


async def test_the_artifact_no_longer_holds_the_full_payload(policy: Policy) -> None:
    dropped = await run("list_pull_requests", policy=policy)
    assert dropped.extra["artifact"] is None

    shaped = await run("list_pull_requests", policy=policy, structured_content="shape")
    artifact = shaped.extra["artifact"]
    assert isinstance(artifact, dict) and set(artifact) == {"structured_content"}
    assert artifact["structured_content"] == json.loads(shaped.received)
    assert count_tokens(json.dumps(artifact)) < 2 * BUDGET


async def test_rules_route_by_server_name_and_tool_name(tmp_path: Any) -> None:
    rules = (
        Rule(tool="list_pull_requests", server="elsewhere", fields=("title",)),
        Rule(tool="list_pull_requests", server="corpus", fields=("number", "state")),
    )
    run_ = await run("list_pull_requests", policy=Policy(budget=BUDGET, rules=rules, spill_dir=tmp_path))
    value = json.loads(run_.received)
    records = value if isinstance(value, list) else next(v for k, v in value.items() if k != "_hostshape")
    assert [r["number"] for r in records] == PR_NUMBERS
    assert all(set(r) == {"number", "state"} for r in records)


async def test_error_results_pass_through_unchanged(policy: Policy) -> None:
    without = await run("fail", policy=None, arguments={"message": "upstream API returned 502"})
    with_ = await run("fail", policy=policy, arguments={"message": "upstream API returned 502"})
    assert with_.extra["status"] == without.extra["status"] == "error"
    assert with_.received == without.received
    assert "upstream API returned 502" in with_.received


async def test_an_error_over_budget_is_cut_to_fit_and_stays_an_error(policy: Policy) -> None:
    message = payload_text("awesome_python_README.md")  # 74 kB of error text
    run_ = await run("fail", policy=policy, arguments={"message": message})
    assert run_.extra["status"] == "error"
    assert count_tokens(run_.received) <= BUDGET
    assert run_.received.startswith("Error executing tool fail:")


@pytest.mark.parametrize("on_fault", ["pass", "refuse"])
async def test_a_fault_in_the_core_does_not_crash_the_run(
    policy: Policy, on_fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr("hostshape.pipeline.project", boom)
    run_ = await run("list_pull_requests", policy=policy.replace(on_fault=on_fault))
    if on_fault == "pass":
        assert run_.received == payload_text("gh_pulls_list.json")
    else:
        assert run_.received.startswith("[hostshape]") and "Remedy:" in run_.received
        assert count_tokens(run_.received) <= BUDGET


async def test_the_middleware_shapes_a_plain_tool(policy: Policy) -> None:
    from langchain_core.tools import tool

    @tool
    def list_pulls() -> str:
        """Lists pull requests."""
        return payload_text("gh_pulls_list.json")

    run_ = await run_agent([list_pulls], "list_pulls", middleware=[adapter.shape_middleware(policy)])
    assert count_tokens(run_.received) <= BUDGET
    assert envelope(run_.received)
    for number in PR_NUMBERS:
        assert str(number) in run_.received


async def test_the_middleware_leaves_calls_the_interceptor_handled(policy: Policy) -> None:
    # list_issues_small (2,741 tokens) fits the interceptor's budget, so it passes untouched; a middleware with a
    # tiny budget would cut it if it shaped MCP calls a second time.
    tiny = adapter.shape_middleware(policy.replace(budget=100))
    run_ = await run("list_issues_small", policy=policy.replace(budget=10_000), middleware=[tiny])
    assert run_.received == payload_text("octokit_issues_page1.json")


async def test_retrieval_round_trip_pages_every_record_once_and_rejects_a_foreign_cursor(tmp_path: Any) -> None:
    """The model reads the handle and cursor from the envelope, walks every page with hostshape_read, then reuses
    the first cursor with a query it was not made for."""
    budget = 800
    state: dict[str, Any] = {}

    def follow_up(text: str) -> tuple[str, dict[str, Any]] | None:
        if "handle" not in state:  # the shaped first result
            env = envelope(text)
            state.update(handle=env["handle"], first_cursor=env["next"])
            return "hostshape_read", {"handle": env["handle"], "cursor": env["next"]}
        if "rejected" in state:
            return None
        nxt = envelope(text).get("next")
        if nxt:
            return "hostshape_read", {"handle": state["handle"], "cursor": nxt}
        state["rejected"] = True
        return "hostshape_read", {"handle": state["handle"], "cursor": state["first_cursor"], "query": "[].title"}

    policy = Policy(budget=budget, spill_dir=tmp_path)
    run_ = await run("list_pull_requests", policy=policy, retrieval=True, follow_up=follow_up)

    assert run_.extra["policy"].retrieval_tool == "hostshape_read"
    assert "hostshape_read" in run_.extra["bound_tools"]
    assert "hostshape_read" in envelope(run_.received)["hint"]
    *texts, foreign = run_.extra["received_all"]
    pages = [json.loads(t) for t in texts]
    assert len(pages) > 2 and all(count_tokens(t) <= budget for t in texts)
    walked = [record["number"] for page in pages for record in as_records(page["items"])]
    assert walked == PR_NUMBERS  # every record, once, in order
    assert foreign.startswith("[hostshape]") and "omit cursor" in foreign
    assert count_tokens(foreign) <= budget


async def test_retrieval_with_a_query_returns_fields_the_first_page_omitted(policy: Policy) -> None:
    def follow_up(text: str) -> tuple[str, dict[str, Any]] | None:
        if text.startswith('{"_hostshape"') and "url" in envelope(text).get("omitted", []):  # the first result
            return "hostshape_read", {"handle": envelope(text)["handle"], "query": "[].{number: number, url: url}"}
        return None

    run_ = await run("list_pull_requests", policy=policy, retrieval=True, follow_up=follow_up)
    page = run_.extra["received_all"][1]
    assert count_tokens(page) <= BUDGET
    items = as_records(json.loads(page)["items"])
    assert [item["number"] for item in items] == PR_NUMBERS
    assert all(item["url"].startswith("https://api.github.com/") for item in items)


def test_importing_the_adapter_needs_no_framework_and_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters", None)
    with pytest.raises(ImportError, match=r"hostshape\[langchain\]"):
        adapter.ShapeInterceptor(Policy())


async def test_a_fault_in_the_adapter_glue_passes_through_or_refuses(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from langchain_mcp_adapters.interceptors import MCPToolCallRequest
    from mcp.types import CallToolResult, TextContent

    big = CallToolResult(content=[TextContent(type="text", text=payload_text("gh_pulls_list.json"))])

    async def handler(request: MCPToolCallRequest) -> CallToolResult:
        return big

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("glue")

    monkeypatch.setattr(adapter, "_replace_call_result", boom)
    request = MCPToolCallRequest(name="list_pull_requests", args={}, server_name="corpus")
    with caplog.at_level(logging.ERROR, logger="hostshape.adapters.langchain"):
        passed = await adapter.ShapeInterceptor(policy.replace(on_fault="pass"))(request, handler)
        refused = await adapter.ShapeInterceptor(policy.replace(on_fault="refuse"))(request, handler)
    assert passed is big
    assert isinstance(refused, CallToolResult) and refused.structuredContent is None
    assert refused.content[0].text.startswith("[hostshape]") and "Remedy:" in refused.content[0].text
    assert len([r for r in caplog.records if r.name == "hostshape.adapters.langchain"]) == 2


# -- media (issue 17) -------------------------------------------------------------------------------------------------
async def test_an_image_beside_text_and_a_blob_reaches_the_model(policy: Policy) -> None:
    # text + a 70-byte PNG + a 30-byte blob, far under budget: the image block must still reach the model.
    without = await run("mixed", policy=None)
    shaped = await run("mixed", policy=policy)
    message = shaped.extra["tool_messages"][0]
    images = [b for b in message.content if isinstance(b, dict) and b.get("type") == "image"]
    assert len(images) == 1
    originals = [b for b in without.extra["tool_messages"][0].content if b.get("type") == "image"]
    assert [(b["base64"], b["mime_type"]) for b in images] == [(b["base64"], b["mime_type"]) for b in originals]
    assert "Build 4812 passed" in shaped.received and "image omitted" not in shaped.received
    assert "application/octet-stream, 30 bytes" in shaped.received  # the blob is named, not dropped silently
    assert count_tokens(shaped.received) <= policy.budget


def test_install_into_a_client_puts_the_interceptor_outermost(policy: Policy) -> None:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    from hostshape.adapters.langchain import ShapeInterceptor, install

    async def mine(request: Any, handler: Any) -> Any:
        return await handler(request)

    client = MultiServerMCPClient({}, tool_interceptors=[mine])
    same, tool = install(client, policy)
    assert same is client and isinstance(client.tool_interceptors[0], ShapeInterceptor)
    assert client.tool_interceptors[1] is mine and tool.name == "hostshape_read"
    install(client, policy)  # twice: still one hostshape interceptor
    assert sum(isinstance(i, ShapeInterceptor) for i in client.tool_interceptors) == 1
