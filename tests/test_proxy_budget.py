"""``hostshape proxy`` keeps every answer a model may read within the budget: error results, JSON-RPC errors,
structured content that is not a copy of the text, an upstream tool named like the proxy's own (issue 31).

The real proxy (its own process, stdio) with the real ``mcp`` client in front of ``tests/proxy_upstream.py``;
tokens are counted with o200k on exactly what the client received.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from helpers import is_shaped
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_client import McpError, is_error, structured, wire
from test_proxy import all_tools, assert_within_budget, proxy_argv, stdio_session, text_of, write_policy

from hostshape.tokens import count_tokens

BUDGET = 1000


@asynccontextmanager
async def own_read_session(tmp_path: Path) -> AsyncIterator[ClientSession]:
    """The proxy in front of an upstream that has a tool named ``hostshape_read`` of its own."""
    argv = proxy_argv(write_policy(tmp_path, BUDGET))
    env = {**os.environ, "HOSTSHAPE_TEST_OWN_READ": "1"}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with stdio_client(params, errlog=sys.stderr) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def test_an_error_result_is_shaped_within_the_budget(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path, BUDGET))) as session:
        result = await session.call_tool("big_error", {})
    assert is_error(result)
    text = assert_within_budget(result, BUDGET)
    assert "validation failed" in text and is_shaped(text)


async def test_a_json_rpc_error_is_shaped_within_the_budget(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path, BUDGET))) as session:
        with pytest.raises(McpError) as caught:
            await session.call_tool("rpc_error", {"code": -32602, "size": 80_000})
        with pytest.raises(McpError) as small:
            await session.call_tool("rpc_error", {"code": -32602, "size": 40})
    error = caught.value.error
    assert error.code == -32602 and error.message.startswith("upstream failure")
    assert count_tokens(error.message) <= BUDGET - 40 and "hostshape" in error.message
    assert len(small.value.error.message) == len("upstream failure ") + 40  # a small one unchanged


async def test_structured_content_that_is_not_a_copy_of_the_text_is_shaped(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path, BUDGET))) as session:
        result = await session.call_tool("split_structured", {})
        assert text_of(result) == "Found 30 pull requests."  # the text, small, as it was
        assert structured(result) is not None
        assert_within_budget(result, BUDGET)  # text and structured copy together (ADK shows both)
        envelope = structured(result)["_hostshape"]
        page = await session.call_tool("hostshape_read", {"handle": envelope["handle"]})
    assert not is_error(page) and '"number"' in text_of(page)
    assert_within_budget(page, BUDGET)


async def test_an_upstream_tool_named_hostshape_read_is_shaped_and_never_doubled(tmp_path: Path) -> None:
    async with own_read_session(tmp_path) as session:
        tools = await all_tools(session)
        (read_tool,) = [t for t in tools if t.name == "hostshape_read"]
        relayed = await session.call_tool("hostshape_read", {"handle": "not-one-of-the-proxys"})
        shaped = await session.call_tool("fetch_plain", {"name": "gh_pulls_list.json"})
        handle = json.loads(text_of(shaped))["_hostshape"]["handle"]
        own = await session.call_tool("hostshape_read", {"handle": handle})
    assert wire(read_tool)["inputSchema"]["required"] == ["handle"]  # the proxy's own
    assert is_shaped(assert_within_budget(relayed, BUDGET))  # the upstream's answer, shaped
    assert not is_error(own) and '"number"' in assert_within_budget(own, BUDGET)  # the proxy's own page


async def test_hostshape_read_of_an_unknown_handle_is_an_error_result(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path, BUDGET))) as session:
        result = await session.call_tool("hostshape_read", {"handle": "no-such-handle"})
    assert is_error(result) and "no saved result" in text_of(result)
