"""``hostshape proxy`` with the real ``mcp`` SDK client, over stdio and streamable HTTP, offline.

The proxy runs as its own process (``python -m hostshape.cli proxy ...``) in front of ``tests/proxy_upstream.py``
(the example server plus tools that crash, hang, garble their output and report progress; tools/list paginated).
Every assertion is about what the client received, counted with o200k.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from helpers import PR_NUMBERS, is_shaped, shown_records
from mcp import (
    ClientSession,
    types,
)
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_client import McpError, http_streams, is_error, next_cursor, notification, read_timeout, structured, wire

from hostshape.examples import payload_text
from hostshape.tokens import count_tokens

UPSTREAM = [sys.executable, str(Path(__file__).with_name("proxy_upstream.py"))]
BUDGET = 3000


def write_policy(tmp_path: Path, budget: int = BUDGET, extra: str = "") -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(f'budget = {budget}\n{extra}\n[spill]\ndir = "{(tmp_path / "spill").as_posix()}"\n')
    return path


def proxy_argv(policy: Path, *extra: str, upstream: list[str] = UPSTREAM) -> list[str]:
    return [sys.executable, "-m", "hostshape.cli", "proxy", "--policy", str(policy), *extra, "--", *upstream]


@asynccontextmanager
async def stdio_session(argv: list[str], timeout: float = 60) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    with open(Path(argv[0]).parent.parent / "proxy-test-stderr.log", "a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=read_timeout(timeout)) as session,
        ):
            await session.initialize()
            yield session


async def all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor = None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        tools.extend(page.tools)
        cursor = next_cursor(page)
        if cursor is None:
            return tools


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def records(text: str) -> list[dict[str, Any]]:
    return shown_records(json.loads(text))


def assert_within_budget(result: types.CallToolResult, budget: int) -> str:
    """What a host may show the model (the text block, the structured copy as compact JSON, or both as Google ADK
    does) fits."""
    text = text_of(result)
    shown = count_tokens(text)
    if structured(result) is not None:
        shown += count_tokens(json.dumps(structured(result), ensure_ascii=False, separators=(",", ":")))
    assert shown <= budget
    return text


# --- pass-through --------------------------------------------------------------------------------------------------


async def test_tools_list_is_the_upstreams_plus_hostshape_read(tmp_path: Path) -> None:
    params = StdioServerParameters(command=UPSTREAM[0], args=UPSTREAM[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as direct:
        upstream_init = await direct.initialize()
        first_page = await direct.list_tools()
        upstream_tools = await all_tools(direct)
    assert next_cursor(first_page) is not None  # the upstream paginates, so the proxy must pass cursors through
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        proxied = await all_tools(session)
        page = await session.list_tools()
    typed_names = {t.name for t in upstream_tools if wire(t).get("outputSchema")}  # the proxy may leave these out
    unchanged = [wire(t) for t in upstream_tools if t.name not in typed_names]
    assert [wire(t) for t in proxied[:-1] if t.name not in typed_names] == unchanged
    for name in typed_names:  # a typed tool is the upstream's, with or without its outputSchema
        (mine,) = [wire(t) for t in proxied if t.name == name]
        (theirs,) = [wire(t) for t in upstream_tools if t.name == name]
        assert mine in (theirs, {k: v for k, v in theirs.items() if k != "outputSchema"})
    (typed,) = [wire(t) for t in proxied if t.name == "typed_pulls"]  # its outputSchema requires fields shaping drops
    (original,) = [wire(t) for t in upstream_tools if t.name == "typed_pulls"]
    assert original.pop("outputSchema") is not None and "outputSchema" not in typed
    assert typed == original
    assert proxied[-1].name == "hostshape_read" and wire(proxied[-1])["inputSchema"]["required"] == ["handle"]
    assert next_cursor(page) == next_cursor(first_page)
    assert [t.name for t in page.tools] == [t.name for t in first_page.tools]
    assert wire(upstream_init)["serverInfo"]["name"] == "corpus"


async def test_errors_images_and_small_results_pass_through(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        failed = await session.call_tool("fail", {"message": "quota exceeded"})
        assert is_error(failed) and text_of(failed).endswith("quota exceeded")  # mcp 1 prefixes "Error executing..."
        image = await session.call_tool("image", {})
        assert image.content[0].type == "image" and not is_error(image)
        small = await session.call_tool("counter", {})
        assert text_of(small).startswith("call 1 of process")
        assert structured(small) == {"result": text_of(small)}
        with pytest.raises(McpError):  # a JSON-RPC error of the upstream stays one
            await session.read_resource("file:///nowhere")  # type: ignore[arg-type]


async def test_progress_and_log_notifications_reach_the_client(tmp_path: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_message(message: Any) -> None:
        if isinstance(notification(message), types.LoggingMessageNotification):
            logs.append(notification(message).params.data)

    params = StdioServerParameters(command=sys.executable, args=proxy_argv(write_policy(tmp_path))[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write, message_handler=on_message) as s:
        await s.initialize()
        result = await s.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    assert text_of(result) == "finished"
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert logs == ["working"]


async def test_a_cancelled_call_leaves_the_proxy_working(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        with anyio.move_on_after(1.0) as scope:  # the client gives up: the SDK sends notifications/cancelled
            await session.call_tool("progress", {"steps": 2, "delay": 5})
        assert scope.cancelled_caught
        assert text_of(await session.call_tool("counter", {})).startswith("call 1 of process")


async def test_requests_of_the_server_reach_the_client_and_the_environment_reaches_the_server(tmp_path: Path) -> None:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])  # type: ignore[arg-type]

    argv = proxy_argv(write_policy(tmp_path))
    env = {"PATH": os.environ.get("PATH", ""), "HOSTSHAPE_TEST_TOKEN": "s3cret"}  # as a host's config sets it
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write, list_roots_callback=list_roots) as s:
        await s.initialize()
        roots = text_of(await s.call_tool("roots", {}))
        token = text_of(await s.call_tool("env", {"name": "HOSTSHAPE_TEST_TOKEN"}))
    assert roots == "file:///work/project"
    assert token == "s3cret"


# --- shaping and the way back --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("list_pull_requests", {}),  # FastMCP -> str: text block plus structuredContent {"result": text}
        ("fetch_plain", {"name": "gh_pulls_list.json"}),  # content blocks only
        ("fetch_structured", {"name": "gh_pulls_list.json"}),  # structured JSON
    ],
)
async def test_a_large_result_is_shaped_within_the_budget(tmp_path: Path, tool: str, arguments: dict[str, str]) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        result = await session.call_tool(tool, arguments)
    text = assert_within_budget(result, BUDGET)
    assert is_shaped(text) and not is_error(result)
    for number in PR_NUMBERS:
        assert str(number) in text


async def test_a_typed_tool_is_shaped_and_the_validating_client_accepts_it(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path, 1000))) as session:
        await all_tools(session)
        result = await session.call_tool("typed_pulls", {})  # the mcp client validates against what tools/list said
    text = assert_within_budget(result, 1000)
    assert is_shaped(text)
    rejected = ""
    async with stdio_session(proxy_argv(write_policy(tmp_path, 1000), "--output-schemas", "keep")) as session:
        await all_tools(session)
        try:
            await session.call_tool("typed_pulls", {})
        except RuntimeError as exc:  # keep: the client rejects a shaped copy its outputSchema does not allow
            rejected = str(exc)
    assert "Invalid structured content returned by tool typed_pulls" in rejected


async def test_paging_through_hostshape_read_returns_every_record_once(tmp_path: Path) -> None:
    budget = 1500
    async with stdio_session(proxy_argv(write_policy(tmp_path, budget))) as session:
        first = text_of(await session.call_tool("fetch_plain", {"name": "gh_pulls_list.json"}))
        envelope = json.loads(first)["_hostshape"]
        assert "hostshape_read" in envelope["hint"]
        walked: list[int] = []
        cursor = ""
        for _ in range(40):
            page = await session.call_tool("hostshape_read", {"handle": envelope["handle"], "cursor": cursor})
            text = assert_within_budget(page, budget)
            walked.extend(r["number"] for r in records(text))
            cursor = json.loads(text)["_hostshape"].get("next", "")
            if not cursor:
                break
        picked = text_of(
            await session.call_tool(
                "hostshape_read", {"handle": envelope["handle"], "query": f"[?number==`{PR_NUMBERS[3]}`].title"}
            )
        )
    assert walked == PR_NUMBERS
    title = next(p["title"] for p in json.loads(payload_text("gh_pulls_list.json")) if p["number"] == PR_NUMBERS[3])
    assert count_tokens(picked) <= budget and json.dumps(title)[1:-1][:30] in picked


async def test_per_tool_rules_address_the_upstream_tool_names(tmp_path: Path) -> None:
    rule = '[[rules]]\ntool = "fetch_plain"\nfields = ["number", "title"]\n'
    async with stdio_session(proxy_argv(write_policy(tmp_path, extra=rule))) as session:
        text = text_of(await session.call_tool("fetch_plain", {"name": "gh_pulls_list.json"}))
    assert [r["number"] for r in records(text)] == PR_NUMBERS
    assert all(set(r) == {"number", "title"} for r in records(text))


# --- a misbehaving upstream ----------------------------------------------------------------------------------------


async def test_a_crashed_upstream_gives_an_error_and_is_restarted(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        first = text_of(await session.call_tool("counter", {}))
        with pytest.raises(McpError, match=r"upstream MCP server .* failed: .*call the tool again"):
            await session.call_tool("crash", {})
        again = text_of(await session.call_tool("counter", {}))
    assert again.startswith("call 1 of process") and again != first  # a fresh upstream process


async def test_a_hung_upstream_times_out_and_is_restarted(tmp_path: Path) -> None:
    argv = proxy_argv(write_policy(tmp_path), "--timeout", "1.5")
    async with stdio_session(argv) as session:
        started = time.monotonic()
        with pytest.raises(McpError, match=r"did not answer within 1\.5 s"):
            await session.call_tool("hang", {"seconds": 60})
        assert time.monotonic() - started < 15
        assert text_of(await session.call_tool("counter", {})).startswith("call 1 of process")


async def test_malformed_json_rpc_gives_an_error_and_the_next_call_works(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        with pytest.raises(McpError, match="malformed JSON-RPC"):
            await session.call_tool("garble", {})
        assert text_of(await session.call_tool("counter", {})).startswith("call 1 of process")
        assert [t.name for t in await all_tools(session)][-1] == "hostshape_read"


def test_an_upstream_that_cannot_start_is_a_clear_exit(tmp_path: Path) -> None:
    argv = proxy_argv(write_policy(tmp_path), upstream=[sys.executable, "-c", "import sys; sys.exit(4)"])
    done = subprocess.run(argv, input=b"", capture_output=True, timeout=60, check=False)
    assert done.returncode == 1
    assert b"could not be started" in done.stderr


# --- downstream streamable HTTP; upstream over HTTP ----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@asynccontextmanager
async def http_proxy(argv: list[str]) -> AsyncIterator[str]:
    port = free_port()
    process = subprocess.Popen([*argv[:4], "--http", f"127.0.0.1:{port}", *argv[4:]], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else b""
                await anyio.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=20)


async def test_streamable_http_downstream_and_upstream(tmp_path: Path) -> None:
    policy = write_policy(tmp_path)
    async with http_proxy(proxy_argv(policy)) as url:
        async with http_streams(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [t.name for t in await all_tools(session)]
            result = await session.call_tool("list_pull_requests", {})
        assert names[-1] == "hostshape_read" and "list_pull_requests" in names
        text = assert_within_budget(result, BUDGET)
        assert is_shaped(text)

        # a second proxy (stdio) whose upstream is the first proxy over streamable HTTP, with a header passed on
        argv = [
            sys.executable,
            "-m",
            "hostshape.cli",
            "proxy",
            "--policy",
            str(policy),
            "--url",
            url,
            "--header",
            "X-Trace=1",
        ]
        async with stdio_session(argv) as chained:
            names_chained = [t.name for t in await all_tools(chained)]
            page = text_of(
                await chained.call_tool("hostshape_read", {"handle": json.loads(text)["_hostshape"]["handle"]})
            )
    assert names_chained == names  # the upstream's own hostshape_read is passed through, not doubled
    assert records(page) and count_tokens(page) <= BUDGET


async def test_an_sse_upstream(tmp_path: Path) -> None:
    port = free_port()
    upstream = subprocess.Popen([*UPSTREAM, "--sse", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await anyio.sleep(0.1)
        argv = [
            sys.executable,
            "-m",
            "hostshape.cli",
            "proxy",
            "--policy",
            str(write_policy(tmp_path)),
            "--url",
            f"http://127.0.0.1:{port}/sse",
        ]
        async with stdio_session(argv) as session:
            names = [t.name for t in await all_tools(session)]
            result = await session.call_tool("list_pull_requests", {})
    finally:
        upstream.terminate()
        upstream.wait(timeout=20)
    assert names[-1] == "hostshape_read" and "list_pull_requests" in names
    assert is_shaped(assert_within_budget(result, BUDGET))
