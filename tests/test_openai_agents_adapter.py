"""The OpenAI Agents SDK adapter in the real SDK, offline: a real Agent run (Runner.run / run_streamed), a real stdio
MCP server through agents.mcp.MCPServerStdio, and a scripted Model that records exactly the input items it gets.

Every assertion is about what the model received (the ``function_call_output`` items of its input).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import RunConfig, RunHooks
from agents.extensions import ToolOutputTrimmer
from agents.run_config import CallModelData, ModelInputData
from helpers import PR_NUMBERS, shown_records

import hostshape
from hostshape import Policy, Rule
from hostshape.adapters import openai_agents as adapter
from hostshape.examples import payload_text
from hostshape.testing.openai_agents import ModelCall, run
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


def envelope(text: str) -> dict[str, Any]:
    doc = json.loads(text)
    assert isinstance(doc, dict) and next(iter(doc)) == "_hostshape", text[:300]
    return doc["_hostshape"]


def records(text: str) -> list[dict[str, Any]]:
    """The records of a shaped JSON document (top level, or the list inside the envelope object)."""
    return shown_records(json.loads(text))


def assert_budgeted_pulls(text: str, budget: int) -> None:
    assert count_tokens(text) <= budget
    json.loads(text)
    missing = [n for n in PR_NUMBERS if str(n) not in text]
    assert not missing, f"PR numbers lost: {missing}"


def output_items(call: ModelCall) -> list[dict[str, Any]]:
    return [i for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]


def test_module_declares_where_it_fires() -> None:
    assert adapter.HOST == "OpenAI Agents SDK"
    assert adapter.FIRES == "before the model (the host has no limit)"
    assert "call_model_input_filter" in adapter.INTERCEPTION_POINT
    assert "only budget" in (adapter.__doc__ or "").split("\n\n")[1]


async def test_model_receives_budgeted_json(policy: Policy) -> None:
    without = await run("list_pull_requests", policy=None)
    assert count_tokens(without.received) > 40_000  # the SDK passes the whole payload on: no limit of its own

    shaped = await run("list_pull_requests", policy=policy)
    assert_budgeted_pulls(shaped.received, policy.budget)
    # MCP outputs stay a list of input_text parts (agents/mcp/util.py:801-823): one part now.
    (item,) = output_items(shaped.extra["calls"][1])
    assert item["output"] == [{"type": "input_text", "text": shaped.received}]


async def test_later_model_calls_see_byte_identical_output_and_history_keeps_the_original(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    shaped_calls: list[str | None] = []
    real_shape = hostshape.shape

    def counting_shape(raw: Any, **kw: Any) -> Any:
        shaped_calls.append(kw.get("tool"))
        return real_shape(raw, **kw)

    monkeypatch.setattr(hostshape, "shape", counting_shape)
    events: list[str] = []

    class MyHooks(RunHooks):  # the user's own hooks still get every event
        async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
            events.append(f"tool_end:{tool.name}")

        async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:
            events.append("llm_start")

    res = await run(
        "list_pull_requests",
        policy=policy,
        followups=[("fetch", {"name": "gh_issues_list.json"})],  # a second tool call => a third model call
        hooks=MyHooks(),
    )
    assert events == ["llm_start", "tool_end:list_pull_requests", "llm_start", "tool_end:fetch", "llm_start"]
    first, second = res.extra["seen"]
    assert first == second  # byte-identical on the second and third model calls (prompt caching holds)
    assert_budgeted_pulls(first, policy.budget)
    assert shaped_calls == ["list_pull_requests", "fetch"]  # each output shaped once, then served from the cache
    # Nothing the filter returns is stored: the run's own items still hold the original output.
    raw_outputs = [i for i in res.extra["result"].to_input_list() if i.get("type") == "function_call_output"]
    assert raw_outputs[0]["output"] == [{"type": "input_text", "text": payload_text("gh_pulls_list.json")}]


async def test_run_streamed_is_shaped_the_same_way(policy: Policy) -> None:
    res = await run("list_pull_requests", policy=policy, streamed=True, followups=[("list_issues_small", {})])
    first, second = res.extra["seen"]
    assert first == second
    assert_budgeted_pulls(first, policy.budget)


@pytest.mark.parametrize("mode", ["previous_response_id", "conversation_id"])
async def test_server_managed_conversation_routes_by_server_and_tool_from_the_hooks(policy: Policy, mode: str) -> None:
    # A rule that only matches with the server known: the filter sees no function_call item here, so the tool and
    # server can only come from the RunHooks' record of tool_call_id.
    routed = policy.replace(rules=(Rule(tool="list_pull_requests", server="corpus", fields=("number", "title")),))
    res = await run("list_pull_requests", policy=routed, server_managed=mode, followups=[("list_issues_small", {})])
    calls = res.extra["calls"]
    assert not [i for i in calls[1].input if isinstance(i, dict) and i.get("type") == "function_call"]
    assert (calls[1].previous_response_id, calls[1].conversation_id) == (
        ("resp_1", None) if mode == "previous_response_id" else (None, "conv_hostshape_test")
    )
    assert_budgeted_pulls(res.received, policy.budget)
    assert {frozenset(r) for r in records(res.received)} == {frozenset({"number", "title"})}
    # The server holds the history: the third call gets only the new output, never the first one again.
    assert [i["call_id"] for i in output_items(calls[2])] == ["call_2"]

    other_server = policy.replace(rules=(Rule(tool="list_pull_requests", server="github", fields=("number",)),))
    res = await run("list_pull_requests", policy=other_server, server_managed=mode)
    assert all(len(r) > 1 for r in records(res.received))  # the rule for another server did not apply


def old_turn_with_pulls() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Earlier."},
        {"type": "function_call", "call_id": "call_old", "name": "list_pull_requests", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_old",
            "output": [{"type": "input_text", "text": payload_text("gh_pulls_list.json")}],
        },
        {"role": "assistant", "content": "Seen them."},
    ]


async def test_composes_with_tool_output_trimmer_hostshape_first(policy: Policy) -> None:
    def trimmer() -> ToolOutputTrimmer:
        return ToolOutputTrimmer(recent_turns=1, max_output_chars=2000, preview_chars=200)

    alone = await run("list_pull_requests", policy=None, then=trimmer(), history=old_turn_with_pulls())
    assert count_tokens(alone.received) > 40_000  # the trimmer never touches the current turn

    res = await run("list_pull_requests", policy=policy, then=trimmer(), history=old_turn_with_pulls())
    assert_budgeted_pulls(res.received, policy.budget)  # current turn: hostshape's budgeted text
    old = next(i for i in output_items(res.extra["calls"][1]) if i["call_id"] == "call_old")
    old_text = old["output"] if isinstance(old["output"], str) else old["output"][0]["text"]
    assert old_text.startswith("[Trimmed: list_pull_requests; payload ")
    # The trimmer measured hostshape's output (it ran second), not the ~200k-char original.
    trimmed_size = int(old_text.split("payload ")[1].split(";")[0].split("]")[0])
    assert trimmed_size == len(res.received)

    via_base = adapter.shaping(policy).run_config(RunConfig(call_model_input_filter=trimmer()))
    assert isinstance(via_base.call_model_input_filter, adapter.ShapeToolOutputs)
    assert isinstance(via_base.call_model_input_filter.then, ToolOutputTrimmer)


async def test_structured_content_string_outputs_are_shaped(policy: Policy) -> None:
    res = await run("list_pull_requests", policy=policy, use_structured_content=True)
    (item,) = output_items(res.extra["calls"][1])
    assert isinstance(item["output"], str)  # json.dumps(structuredContent) (agents/mcp/util.py:797-798)
    assert_budgeted_pulls(res.received, policy.budget)

    res = await run(
        "fetch_structured", policy=policy, arguments={"name": "gh_search_issues.json"}, use_structured_content=True
    )
    assert count_tokens(res.received) <= policy.budget
    json.loads(res.received)


def _boom(*_a: Any, **_k: Any) -> Any:
    raise RuntimeError("injected fault")


@pytest.mark.parametrize("on_fault", ["pass", "refuse"])
async def test_a_fault_in_the_core_does_not_abort_the_run(
    policy: Policy, on_fault: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("hostshape.pipeline.project", _boom)
    caplog.set_level(logging.WARNING, logger="hostshape")
    res = await run("list_pull_requests", policy=policy.replace(on_fault=on_fault))
    assert res.extra["final_output"] == "done"
    if on_fault == "pass":
        assert res.received == payload_text("gh_pulls_list.json")  # the host's original, untouched
    else:
        assert count_tokens(res.received) <= policy.budget
        assert "hostshape" in res.received and res.received != payload_text("gh_pulls_list.json")
    assert any(r.name.startswith("hostshape") for r in caplog.records)


@pytest.mark.parametrize("on_fault", ["pass", "refuse"])
async def test_a_fault_in_the_adapter_glue_does_not_abort_the_run(
    policy: Policy, on_fault: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(adapter, "_digest", _boom)
    caplog.set_level(logging.ERROR, logger="hostshape.adapters.openai_agents")
    res = await run("list_pull_requests", policy=policy.replace(on_fault=on_fault), streamed=True)
    assert res.extra["final_output"] == "done"
    if on_fault == "pass":
        assert res.received == payload_text("gh_pulls_list.json")
    else:
        assert res.received.startswith("[hostshape]") and "on_fault='pass'" in res.received
    assert [r for r in caplog.records if r.name == "hostshape.adapters.openai_agents"]


async def test_parallel_calls_shape_data_and_leave_errors_and_images_alone(policy: Policy) -> None:
    step = [("fail", {}), ("image", {}), ("list_pull_requests", {})]
    res = await run("list_pull_requests", policy=policy, steps=[step])
    err, img, data = output_items(res.extra["calls"][1])
    assert err["output"] == [{"type": "input_text", "text": "Error executing tool fail: upstream API returned 502"}]
    assert img["output"][0]["type"] == "input_image"
    assert_budgeted_pulls(data["output"][0]["text"], policy.budget)


# ------------------------------------------------------------------------------------------- the filter on its own


def _data(items: list[Any]) -> CallModelData[Any]:
    return CallModelData(model_data=ModelInputData(input=items, instructions=None), agent=None, context=None)


def _pull_items(call_id: str) -> list[dict[str, Any]]:
    return [
        {"type": "function_call", "call_id": call_id, "name": "list_pull_requests", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": call_id,
            "output": [{"type": "input_text", "text": payload_text("gh_pulls_list.json")}],
        },
    ]


def test_filter_never_mutates_or_drops_items_and_its_cache_is_bounded(policy: Policy) -> None:
    flt = adapter.ShapeToolOutputs(policy, cache_size=2)
    items = [{"role": "user", "content": "hi"}, *_pull_items("a"), *_pull_items("b"), *_pull_items("c")]
    before = json.dumps(items)
    out = flt(_data(items))
    assert json.dumps(items) == before  # nothing mutated, nested parts included
    assert len(out.input) == len(items) and [i.get("call_id") for i in out.input] == [i.get("call_id") for i in items]
    assert out.input[0] is items[0] and out.input[1] is items[1]  # untouched items are the same objects
    assert out.input[2] is not items[2] and out.input[2]["output"] is not items[2]["output"]
    assert len(flt._cache) == 2


def test_filter_keeps_non_text_parts_after_the_shaped_text(policy: Policy) -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    items = _pull_items("m")
    items[1] = {**items[1], "output": [*items[1]["output"], image]}
    out = adapter.ShapeToolOutputs(policy)(_data(items)).input[1]["output"]
    assert [p["type"] for p in out] == ["input_text", "input_image"] and out[1] == image
    assert_budgeted_pulls(out[0]["text"], policy.budget)


def test_filter_is_thread_safe_and_deterministic(policy: Policy) -> None:
    flt = adapter.ShapeToolOutputs(policy)
    items = _pull_items("x")
    results: list[str] = []

    def work() -> None:
        results.append(json.dumps(flt(_data(list(items))).input))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and len(results) == 4


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch, policy: Policy) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match=r"hostshape\[openai\]"):
        adapter.shaping(policy)


# ---------------------------------------------------------------------------------------------------- retrieval


class RetrievalScript:
    """The model's side of the way back: read the envelope, fetch the next page, walk every page, misuse a cursor."""

    def __init__(self) -> None:
        self.handle = ""
        self.next_page = ""
        self.walk: list[str] = []
        self.walk_cursors: list[str] = []
        self.rejection = ""

    def read(self, cursor: str = "", query: str = "") -> list[tuple[str, dict[str, Any]]]:
        return [("hostshape_read", {"handle": self.handle, "query": query, "cursor": cursor})]

    def __call__(self, call: ModelCall) -> Any:
        if call.index == 0:
            return [("list_pull_requests", {})]
        if not self.handle:
            env = envelope(call.output_of("list_pull_requests") or "")
            assert "hostshape_read" in env["hint"]
            self.handle = env["handle"]
            return self.read(cursor=env["next"])
        page = call.output_of("hostshape_read") or ""
        if not self.next_page:
            self.next_page = page
            return self.read()  # start the walk from the first page
        if self.rejection == "" and (not self.walk or self.walk_cursors):
            self.walk.append(page)
            doc = json.loads(page)
            cursor = doc["_hostshape"].get("next") if isinstance(doc, dict) and "_hostshape" in doc else None
            if cursor:
                self.walk_cursors.append(cursor)
                return self.read(cursor=cursor)
            self.rejection = "pending"
            return self.read(cursor=self.walk_cursors[0], query="[].number")  # a cursor bound to no query
        self.rejection = page
        return "done"


async def test_retrieval_round_trip_pages_within_budget_and_rejects_a_foreign_cursor(tmp_path: Any) -> None:
    policy = Policy(budget=1500, spill_dir=tmp_path / "spill")
    script = RetrievalScript()
    res = await run("list_pull_requests", policy=policy, retrieval=True, steps=[script] * 12)
    assert res.extra["final_output"] == "done"
    assert res.extra["shaping"].policy.retrieval_tool == "hostshape_read"
    assert count_tokens(res.received) <= policy.budget

    next_page = records(script.next_page)
    assert count_tokens(script.next_page) <= policy.budget and next_page
    shown_first = {r["number"] for r in records(res.received)}
    assert {r["number"] for r in next_page} <= set(PR_NUMBERS)

    assert len(script.walk) >= 2 and all(count_tokens(p) <= policy.budget for p in script.walk)
    walked = [r["number"] for page in script.walk for r in records(page)]
    assert walked == PR_NUMBERS  # every record exactly once, in order
    assert shown_first <= set(walked)

    assert script.rejection.startswith("[hostshape]") and "without query" in script.rejection


async def test_an_mcp_servers_own_hostshape_read_is_shaped(policy: Policy, tmp_path: Any) -> None:
    """Only the adapter's own retrieval tool is exempt: an upstream tool of the same name is shaped like any."""
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
    for retrieval in (False, True):
        shaped = await run(
            "hostshape_read", policy=policy, retrieval=retrieval, server_command=[sys.executable, str(script)]
        )
        assert count_tokens(shaped.received) <= policy.budget, retrieval
