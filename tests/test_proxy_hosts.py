"""Real hosts with NO hostshape adapter, their MCP server behind ``hostshape proxy``: what the model receives.

- Claude Code (the bundled CLI of claude-agent-sdk, offline against the loopback Messages API), no hook configured:
  the model gets the shaped result instead of the 25,000-token overflow notice, and can page with
  ``mcp__corpus__hostshape_read``.
- OpenAI Agents' ``MCPServerStdio`` with a scripted model, no ``call_model_input_filter``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import PR_NUMBERS, is_shaped

from hostshape import Policy
from hostshape.testing.proxy import run
from hostshape.tokens import count_tokens

HOST_NOTICE = "exceeds maximum allowed tokens"


@pytest.mark.host
async def test_claude_code_without_a_hook_gets_the_shaped_result(tmp_path: Path) -> None:
    pytest.importorskip("claude_agent_sdk")
    from hostshape.testing.anthropic_server import AnthropicServer, Text, ToolUse

    policy = Policy(budget=4000, spill_dir=tmp_path / "spill")

    def read_next_page(server: AnthropicServer) -> ToolUse | Text:
        envelope = json.loads(json.loads(server.tool_results()[-1])["result"])["_hostshape"]
        return ToolUse(
            "mcp__corpus__hostshape_read", {"handle": envelope["handle"], "cursor": envelope.get("next", "")}
        )

    result = await run("list_pull_requests", policy=policy, script=[read_next_page])
    assert not result.extra["hook_inputs"][0]["tool_response"].startswith("Error:")  # the host limit never fired
    assert HOST_NOTICE not in result.received
    # Claude Code shows a result's structuredContent when it has one, compact: for this FastMCP `-> str` tool the
    # proxy's {"result": <shaped text>}, which the budget counts as the host sends it.
    assert count_tokens(result.received) <= policy.budget
    shaped = json.loads(result.received)["result"]
    assert is_shaped(shaped)
    for number in PR_NUMBERS:
        assert str(number) in shaped
    page: Any = result.extra["tool_results"][1]
    assert count_tokens(page) <= policy.budget and json.loads(page)  # the way back works through the host


@pytest.mark.host
async def test_openai_agents_mcp_server_stdio_without_an_adapter(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    policy = Policy(budget=3000, spill_dir=tmp_path / "spill")
    result = await run("list_pull_requests", policy=policy, host="openai_agents")
    assert result.extra["shaping"] is None  # no hostshape adapter in the host
    assert is_shaped(result.received) and count_tokens(result.received) <= policy.budget
    for number in PR_NUMBERS:
        assert str(number) in result.received


def test_the_demo_has_a_proxy_row_run_through_claude_code_without_a_hook() -> None:
    from hostshape.cli.demo import HOSTS

    (host,) = [h for h in HOSTS if h.key == "proxy"]
    assert host.framework == "claude_agent_sdk" and host.adapter_module == "hostshape.proxy"
    from hostshape import proxy

    assert proxy.HOST == "any MCP host, via proxy" and proxy.FIRES.startswith("before the host")
