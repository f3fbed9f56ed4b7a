"""LangChain's own MCP path, ``langchain.mcp`` (beta in langchain 1.5, mcp 2.x), shaped by hostshape's agent
middleware in the real ``create_agent`` runtime, with a real stdio MCP server through a FastMCP client.

``langchain.mcp`` has no tool interceptors: each tool's content blocks go to the model and its structured content
into the ToolMessage's artifact (langchain/mcp/tools.py:168-180, 283-301), so ``shape_middleware`` (``wrap_tool_call``)
is the place to shape them. Runs where mcp 2.x is installed (the mcp-2 environment of scripts/test)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # LangChainBetaWarning
    lc_mcp = pytest.importorskip("langchain.mcp")

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from helpers import PR_NUMBERS

from hostshape import Policy
from hostshape.adapters.langchain import retrieval_tool, shape_middleware
from hostshape.testing.langchain import run_agent
from hostshape.tokens import count_tokens

pytestmark = pytest.mark.host


async def _tools() -> list[Any]:
    client = Client(StdioTransport(command=sys.executable, args=["-m", "hostshape.examples.mcp_server"]))
    async with client:
        return [await lc_mcp.as_langchain_tool(t, client) for t in await client.list_tools()]


async def test_without_hostshape_langchain_mcp_gives_the_model_the_whole_payload() -> None:
    run = await run_agent(await _tools(), "list_pull_requests")
    assert count_tokens(run.received) > 50_000


async def test_the_middleware_shapes_langchain_mcp_tools_within_the_budget(tmp_path: Path) -> None:
    policy = Policy(budget=2000, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    tools = [*await _tools(), retrieval_tool(policy)]
    run = await run_agent(tools, "list_pull_requests", middleware=[shape_middleware(policy)])
    assert count_tokens(run.received) <= 2000 and '"_hostshape"' in run.received
    assert run.extra["artifact"] is None  # the structured copy no longer rides into the graph's state
    for number in PR_NUMBERS:
        assert str(number) in run.received
