"""Google ADK adapter, in the real framework: LlmAgent + McpToolset over the example stdio server + Runner +
InMemorySessionService, with a scripted model (hostshape.testing.adk). Offline: no Google credentials, no network.

What the model "received" is the function response as ADK's connectors serialise it (see hostshape.testing.adk).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("google.adk")

from helpers import PR_NUMBERS

from hostshape import Policy, Rule
from hostshape.adapters import adk
from hostshape.examples import payload_text
from hostshape.output.columns import as_records
from hostshape.testing.adk import run
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host

BUDGET = 2000
PAGED = 1500  # a budget the eleven pull requests take pages at


@pytest.fixture
def policy(tmp_path: Any) -> Policy:
    return Policy(budget=BUDGET, spill_dir=tmp_path / "spill")


def _result_text(received: str) -> str:
    """The shaped text inside ``{"result": text}``, the response the adapter returns."""
    response = json.loads(received)
    assert list(response) == ["result"], f"expected {{'result': text}}, got keys {list(response)}"
    assert isinstance(response["result"], str)
    return response["result"]


def _assert_pull_list_shaped(received: str) -> dict[str, Any]:
    assert count_tokens(received) <= BUDGET
    text = _result_text(received)
    assert "structuredContent" not in received
    shaped = json.loads(text)
    assert isinstance(shaped, dict) and next(iter(shaped)) == "_hostshape"
    for number in PR_NUMBERS:
        assert str(number) in text, f"PR #{number} is missing from what the model received"
    return shaped


# --- the host on its own --------------------------------------------------------------------------------------------


async def test_without_hostshape_adk_hands_the_model_the_whole_result_twice() -> None:
    run_ = await run("list_pull_requests", policy=None)
    response = json.loads(run_.received)
    # McpTool's response is CallToolResult.model_dump(exclude_none=True, mode="json") (mcp_tool.py:741, 171-173):
    # the FastMCP text travels once as a text block and again as structuredContent, with no size limit.
    assert set(response) == {"content", "structuredContent", "isError"}
    assert response["content"][0]["text"] == response["structuredContent"]["result"]
    assert count_tokens(run_.received) > 50 * BUDGET


# --- shaping --------------------------------------------------------------------------------------------------------


async def test_the_model_receives_the_list_within_the_budget(policy: Policy) -> None:
    run_ = await run("list_pull_requests", policy=policy)
    _assert_pull_list_shaped(run_.received)
    # The session stores what the callback returned, not the original (so only the spill holds the original).
    stored = [
        part.function_response.response
        for event in run_.extra["session"].events
        for part in (event.content.parts if event.content else [])
        if part.function_response
    ]
    assert stored == [json.loads(run_.received)]


async def test_the_plugin_shapes_the_result_before_the_model(policy: Policy) -> None:
    run_ = await run("list_pull_requests", policy=policy, mode="plugin")
    _assert_pull_list_shaped(run_.received)


async def test_text_results_fit_the_budget_once_json_escaped(policy: Policy) -> None:
    # A diff grows by ~16% when JSON-escaped inside {"result": ...}; the adapter fits the escaped form.
    run_ = await run("git_diff", policy=policy)
    assert count_tokens(run_.received) <= BUDGET
    text = _result_text(run_.received)
    assert text.rstrip().splitlines()[-1].startswith("[hostshape]")


async def test_a_rule_routes_by_tool_name(policy: Policy) -> None:
    rule = Rule(tool="list_pull_requests", fields=("number", "title"), budget=1200)
    run_ = await run("list_pull_requests", policy=policy.replace(rules=(rule,)))
    assert count_tokens(run_.received) <= 1200
    text = _result_text(run_.received)
    assert "html_url" not in text
    for number in PR_NUMBERS:
        assert str(number) in text


async def test_a_result_that_already_fits_is_left_untouched(policy: Policy) -> None:
    run_ = await run("fetch", policy=policy.replace(budget=100_000), arguments={"name": "octokit_issues_page1.json"})
    response = json.loads(run_.received)
    assert set(response) == {"content", "structuredContent", "isError"}


async def test_a_result_that_fits_once_is_sent_once(policy: Policy) -> None:
    # 2.7k tokens counted once, 6k as ADK would send it (text block + structuredContent copy): one copy is sent.
    run_ = await run("fetch", policy=policy.replace(budget=3200), arguments={"name": "octokit_issues_page1.json"})
    assert count_tokens(run_.received) <= 3200
    assert json.loads(_result_text(run_.received)) == json.loads(payload_text("octokit_issues_page1.json"))


# --- errors and faults ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["callback", "plugin"])
async def test_error_results_pass_through_unchanged(policy: Policy, mode: str) -> None:
    run_ = await run("fail", policy=policy, mode=mode, arguments={"message": "upstream API returned 502"})
    response = json.loads(run_.received)
    assert response["isError"] is True
    assert "upstream API returned 502" in response["content"][0]["text"]


def _boom(*_: Any, **__: Any) -> Any:
    raise RuntimeError("injected fault")


async def test_a_core_fault_keeps_the_original_when_the_policy_fails_open(
    policy: Policy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    with caplog.at_level(logging.ERROR, logger="hostshape"):
        run_ = await run("list_pull_requests", policy=policy.replace(on_fault="pass"))
    assert set(json.loads(run_.received)) == {"content", "structuredContent", "isError"}
    assert any(r.levelno >= logging.ERROR for r in caplog.records if r.name.startswith("hostshape"))
    assert _final_text(run_) == "done"


async def test_a_core_fault_refuses_when_the_policy_fails_closed(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    run_ = await run("list_pull_requests", policy=policy.replace(on_fault="refuse"), mode="plugin")
    assert count_tokens(run_.received) <= BUDGET
    text = _result_text(run_.received)
    assert text.startswith("[hostshape]") and "on_fault" in text
    assert _final_text(run_) == "done"


def _final_text(run_: Any) -> str | None:
    texts = [
        part.text
        for event in run_.extra["events"]
        for part in (event.content.parts if event.content else [])
        if part.text
    ]
    return texts[-1] if texts else None


# --- routing without a run ------------------------------------------------------------------------------------------


def _mcp_tool(name: str, prefix: str | None = None) -> Any:
    import copy

    from google.adk.tools.mcp_tool.mcp_tool import McpTool
    from mcp.types import Tool

    declared = Tool(name=name, inputSchema={"type": "object"})
    tool = McpTool(mcp_tool=declared, mcp_session_manager=None)  # type: ignore[arg-type]
    if prefix:  # what BaseToolset.get_tools_with_prefix does (tools/base_toolset.py:158-163)
        tool = copy.copy(tool)
        tool.name = f"{prefix}_{name}"
    return tool


def test_a_toolset_prefix_routes_as_the_server(policy: Policy) -> None:
    big = {"content": [{"type": "text", "text": payload_text("gh_pulls_list.json")}], "isError": False}
    rule = Rule(tool="list_pull_requests", server="github", fields=("number",))
    routed = adk.shape_tool_response(
        _mcp_tool("list_pull_requests", prefix="github"), {}, big, policy=policy.replace(rules=(rule,))
    )
    assert routed is not None and "title" not in routed["result"]
    unrouted = adk.shape_tool_response(
        _mcp_tool("list_pull_requests", prefix="gitlab"), {}, big, policy=policy.replace(rules=(rule,))
    )
    assert unrouted is not None and "title" in unrouted["result"]


def test_non_mcp_tools_are_left_alone_unless_a_rule_names_them(policy: Policy) -> None:
    from google.adk.tools.function_tool import FunctionTool

    def list_pull_requests() -> str:
        """Returns pull requests."""
        return payload_text("gh_pulls_list.json")

    tool = FunctionTool(list_pull_requests)
    big = payload_text("gh_pulls_list.json")
    assert adk.shape_tool_response(tool, {}, big, policy=policy) is None
    assert adk.shape_tool_response(tool, {}, big, policy=policy.replace(rules=(Rule(budget=500),))) is None
    named = policy.replace(rules=(Rule(tool="list_pull_*", budget=500),))
    shaped = adk.shape_tool_response(tool, {}, big, policy=named)
    assert shaped is not None and count_tokens(adk.wire_text(shaped)) <= 500


def test_the_adapter_never_raises_into_the_run(policy: Policy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adk, "_host_form", _boom)  # a fault in the adapter itself
    tool = _mcp_tool("list_pull_requests")
    assert adk.shape_tool_response(tool, {}, {"content": []}, policy=policy.replace(on_fault="pass")) is None
    refused = adk.shape_tool_response(tool, {}, {"content": []}, policy=policy.replace(on_fault="refuse"))
    assert refused is not None and refused["result"].startswith("[hostshape]")


async def test_the_plugin_covers_workflow_tool_nodes(policy: Policy) -> None:
    # Workflow tool nodes run only plugin callbacks (workflow/_tool_node.py:237), never an agent's.
    run_ = await run("list_pull_requests", policy=policy, mode="plugin", workflow=True)
    _assert_pull_list_shaped(run_.received)


# --- the way back ---------------------------------------------------------------------------------------------------


def _envelope(received: str) -> dict[str, Any]:
    return json.loads(_result_text(received))["_hostshape"]


def _items(received: str) -> list[dict[str, Any]]:
    """The records of one page: its ``items``, or the page itself when it holds a single record."""
    page = json.loads(_result_text(received))
    if "items" in page:
        return as_records(page["items"])
    return [{k: v for k, v in page.items() if k != "_hostshape"}]


@pytest.mark.parametrize("mode", ["callback", "plugin"])
async def test_the_model_reads_the_rest_back_with_hostshape_read(policy: Policy, mode: str) -> None:
    query = "[?state=='open']"  # whole records, fields the first page omitted included
    plan: list[str] = []

    def next_call(received: list[str]) -> tuple[str, dict[str, Any]] | None:
        first = _envelope(received[0])
        last = _envelope(received[-1]) if received[-1].startswith('{"result": "{') else {}
        if len(received) == 1 or (plan[-1] == "walk" and last.get("next")):
            plan.append("walk")  # follow `next` from the first page to the last
            return "hostshape_read", {"handle": first["handle"], "cursor": last["next"]}
        if plan[-1] == "walk":
            plan.append("query")
            return "hostshape_read", {"handle": first["handle"], "query": query}
        if plan[-1] == "query" and last.get("next"):  # the next page of the query
            plan.append("query-next")
            return "hostshape_read", {"handle": first["handle"], "query": query, "cursor": last["next"]}
        if plan[-1] in ("query", "query-next"):
            plan.append("foreign")  # a cursor of the unqueried pages, reused with a query
            return "hostshape_read", {"handle": first["handle"], "query": "[].title", "cursor": first["next"]}
        return None

    paged = policy.replace(budget=PAGED)  # the pull requests, even as a table, fill more than one page
    run_ = await run("list_pull_requests", policy=paged, mode=mode, retrieval=True, next_call=next_call)
    received: list[str] = run_.extra["received"]
    assert len(received) == len(plan) + 1 and plan[-1] == "foreign" and "query-next" in plan
    for text in received:
        assert count_tokens(text) <= PAGED

    first = _envelope(received[0])
    assert first["handle"] and first["next"] and "hostshape_read" in first["hint"]
    walked = [item["number"] for item in _items(received[0])]
    for text, step in zip(received[1:], plan, strict=False):
        if step == "walk":
            walked += [item["number"] for item in _items(text)]
    assert sorted(walked) == sorted(PR_NUMBERS)  # every record exactly once

    query_pages = [_items(text) for text, step in zip(received[1:], plan, strict=False) if step.startswith("query")]
    assert all("node_id" in item for page in query_pages for item in page)  # fields the first page omitted
    first_numbers = {item["number"] for item in query_pages[0]}
    assert query_pages[1] and not first_numbers & {item["number"] for item in query_pages[1]}

    refusal = _result_text(received[-1])
    assert refusal.startswith("[hostshape]") and "without query" in refusal and "omit cursor" in refusal


def test_a_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "google.adk", None)
    importlib.reload(adk)  # importing the adapter itself needs no framework
    with pytest.raises(ImportError, match=r"hostshape\[adk\]"):
        adk.after_tool_callback(Policy())
    with pytest.raises(ImportError, match=r"hostshape\[adk\]"):
        adk.ShapingPlugin(Policy())


async def test_gemini_is_sent_the_response_dict_as_json(policy: Policy) -> None:
    # The harness counts json.dumps(response, ensure_ascii=False). Check that against the request body google-genai
    # really builds for Gemini (ADK's default connector), captured offline by a mock HTTP transport.
    import httpx
    from google import genai
    from google.genai import types

    big = {"content": [{"type": "text", "text": payload_text("gh_pulls_list.json")}], "isError": False}
    response = adk.shape_tool_response(_mcp_tool("list_pull_requests"), {}, big, policy=policy)
    assert response is not None
    bodies: list[str] = []

    def reply(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content.decode())
        candidate = {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}
        return httpx.Response(200, json={"candidates": [candidate]})

    transport = httpx.AsyncClient(transport=httpx.MockTransport(reply))
    client = genai.Client(api_key="offline", http_options=types.HttpOptions(httpx_async_client=transport))
    call = types.Part(function_call=types.FunctionCall(name="list_pull_requests", args={}, id="call-1"))
    answer = types.Part.from_function_response(name="list_pull_requests", response=response)
    contents = [types.Content(role="model", parts=[call]), types.Content(role="user", parts=[answer])]
    await client.aio.models.generate_content(model="gemini-2.5-flash", contents=contents)
    await transport.aclose()

    sent = json.loads(bodies[0])["contents"][1]["parts"][0]["functionResponse"]["response"]
    assert sent == response and json.dumps(response) in bodies[0]  # the dict, JSON-encoded as is
    assert count_tokens(adk.wire_text(response)) <= BUDGET


def test_adk_error_dicts_pass_through_unchanged(policy: Policy) -> None:
    # McpTool turns transport failures into {"error": ...} (mcp_tool.py:620-627); they are the host's, left as is.
    failure = {"error": "MCP tool execution failed: " + "x" * 50_000}
    assert adk.shape_tool_response(_mcp_tool("list_pull_requests"), {}, failure, policy=policy) is None


# --- errors (issue 17) ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["callback", "plugin"])
async def test_a_long_tool_error_is_budgeted_like_any_result(policy: Policy, mode: str) -> None:
    # A 40,000-character tool error reached the model unshaped in ADK (9,314 tokens at 4,000).
    message = "upstream API returned 502: " + "stack frame in handler; " * 1_700
    without = await run("fail", policy=None, arguments={"message": message})
    shaped = await run("fail", policy=policy, mode=mode, arguments={"message": message})
    assert count_tokens(without.received) > BUDGET
    assert count_tokens(shaped.received) <= BUDGET
    text = _result_text(shaped.received)
    assert "upstream API returned 502" in text and "[hostshape]" in text


def test_install_into_an_agent_or_an_app(policy: Policy) -> None:
    from google.adk.agents import LlmAgent
    from google.adk.apps import App

    mine = adk.after_tool_callback(policy)
    agent = LlmAgent(name="a", model="gemini-2.5-flash", after_tool_callback=mine)
    installed = adk.install(agent, policy)
    assert installed.after_tool_callback[0] is mine and len(installed.after_tool_callback) == 2
    assert [t.name for t in installed.tools] == ["hostshape_read"]
    assert agent.after_tool_callback is mine and agent.tools == []  # the original is untouched
    app = adk.install(App(name="x", root_agent=LlmAgent(name="b", model="gemini-2.5-flash")), policy)
    assert [p.name for p in app.plugins] == ["hostshape"]
    assert [t.name for t in app.root_agent.tools] == ["hostshape_read"]
    hook, tool = adk.install(policy, mode="plugin")  # the former form
    assert hook.name == "hostshape" and tool.name == "hostshape_read"


@pytest.mark.parametrize("budget", [2, 5, 30])
def test_a_budget_below_the_smallest_answer_is_refused_at_install(budget: int, tmp_path: Any) -> None:
    """Below about 40 tokens no answer fits ADK's {"result": ...} wrapper with a handle: refused, with the minimum."""
    policy = Policy(budget=budget, spill_dir=tmp_path)
    smallest = adk.minimum_budget(policy)
    for make in (adk.after_tool_callback, adk.install, adk.ShapingPlugin):
        with pytest.raises(ValueError, match=f"at least {smallest} tokens"):
            make(policy)
    with pytest.raises(ValueError, match="rule 'list_\\*' budget"):
        adk.after_tool_callback(Policy(spill_dir=tmp_path, rules=(Rule(tool="list_*", budget=budget),)))


async def test_the_smallest_allowed_budget_is_kept_as_the_model_reads_it(tmp_path: Any) -> None:
    policy = Policy(budget=adk.minimum_budget(Policy()), spill_dir=tmp_path / "spill")
    run_ = await run("list_pull_requests", policy=policy)
    assert count_tokens(run_.received) <= policy.budget
    assert "hs_" in run_.received  # the way back is named


def test_the_smallest_allowed_budget_holds_for_every_handle() -> None:
    """A handle is a digest: its digits tokenize in 6 to 20 tokens, so the minimum is taken at the longest."""
    import secrets

    from hostshape.host import json_result
    from hostshape.output.envelope import last_resort_texts

    smallest = adk.minimum_budget(Policy())
    for _ in range(3000):
        shown = json_result(last_resort_texts(True, "hs_" + secrets.token_hex(12))[0])
        assert count_tokens(shown) <= smallest


async def test_an_mcp_servers_own_hostshape_read_is_shaped(policy: Policy, tmp_path: Any) -> None:
    import sys

    script = tmp_path / "server.py"
    script.write_text(
        "from fastmcp import FastMCP\n"
        "from hostshape.examples import payload_text\n"
        "mcp = FastMCP('corpus')\n"
        "@mcp.tool\n"
        "def hostshape_read(handle: str = '') -> str:\n"
        "    return payload_text('gh_pulls_list.json')\n"
        "mcp.run(show_banner=False, log_level='WARNING')\n"
    )
    pytest.importorskip("fastmcp")
    run_ = await run("hostshape_read", policy=policy, server_command=[sys.executable, str(script)])
    assert count_tokens(run_.received) <= policy.budget


async def test_structured_content_beside_a_short_text_is_shaped_not_dropped(policy: Policy, tmp_path: Any) -> None:
    """A result saying "Found 55 pull requests." with the records as structured content: ADK shows the model both,
    so the records are shaped (named, retrievable) under the text, not dropped."""
    import sys

    script = tmp_path / "server.py"
    script.write_text(
        "import json\n"
        "from fastmcp import FastMCP\n"
        "from fastmcp.tools.base import ToolResult\n"
        "from hostshape.examples import payload_text\n"
        "mcp = FastMCP('corpus')\n"
        "@mcp.tool\n"
        "def list_pull_requests() -> ToolResult:\n"
        "    pulls = json.loads(payload_text('gh_pulls_list.json'))\n"
        "    return ToolResult(content='Found 55 pull requests.', structured_content={'pulls': pulls})\n"
        "mcp.run(show_banner=False, log_level='WARNING')\n"
    )
    pytest.importorskip("fastmcp")
    run_ = await run("list_pull_requests", policy=policy, server_command=[sys.executable, str(script)])
    text = _result_text(run_.received)
    assert count_tokens(run_.received) <= policy.budget
    assert text.startswith("Found 55 pull requests.")
    assert '"truncated":true' in text.replace(" ", "") and "hs_" in text
    for number in PR_NUMBERS:
        assert str(number) in text
