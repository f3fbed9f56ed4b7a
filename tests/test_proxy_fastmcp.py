"""``hostshape.adapters.fastmcp.HostshapeMiddleware`` in a real FastMCP server (3.x with mcp 1.x in the shared
environment, 4.x with mcp 2.x in the mcp-2 one), called by FastMCP's own client (in-memory transport: the full MCP
session, no network) and by the ``mcp`` SDK client over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastmcp")

from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware
from fastmcp.tools.base import ToolResult
from helpers import PR_NUMBERS, is_shaped, shown_records
from mcp import types
from pydantic import BaseModel

from hostshape import Policy
from hostshape.adapters.fastmcp import HostshapeMiddleware
from hostshape.examples import payload_text
from hostshape.tokens import count_tokens

PULLS = "gh_pulls_list.json"


class Pull(BaseModel):
    number: int
    title: str
    html_url: str
    body: str | None


def build_server(*middleware: Any) -> FastMCP:
    server = FastMCP("corpus")

    @server.tool
    def list_pull_requests() -> str:
        """The recorded pull request list (55k tokens)."""
        return payload_text(PULLS)

    @server.tool
    def pulls_structured() -> dict[str, Any]:
        """The same, as structured output."""
        return {"pulls": json.loads(payload_text(PULLS))}

    @server.tool
    def typed_pulls() -> list[Pull]:
        """Typed records: an output schema with required fields."""
        return [Pull(**{k: p.get(k) for k in Pull.model_fields}) for p in json.loads(payload_text(PULLS))]

    @server.tool
    def small() -> str:
        """A short answer."""
        return "ok"

    @server.tool
    def fail() -> str:
        """Always fails."""
        raise RuntimeError("upstream API returned 502")

    @server.tool
    def fail_loudly() -> str:
        """Fails with the whole payload in its message (a ToolError of about 19,000 tokens)."""
        raise ToolError("upstream API failed; its answer was: " + payload_text(PULLS)[:80_000])

    @server.tool
    def summary_beside_records() -> ToolResult:
        """A short text and structured content that is not a copy of it."""
        return ToolResult(
            content="Found 55 pull requests.", structured_content={"pulls": json.loads(payload_text(PULLS))}
        )

    for m in middleware:
        server.add_middleware(m)
    return server


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return str(result.content[0].text)


def output_schema(tool: types.Tool) -> Any:
    """The listed tool's output schema: ``output_schema`` in mcp 2.x (``outputSchema`` is deprecated there)."""
    return getattr(tool, "output_schema", None) if hasattr(tool, "output_schema") else tool.outputSchema


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def test_one_line_shapes_every_result_and_adds_hostshape_read(policy: Policy) -> None:
    server = build_server(HostshapeMiddleware(policy.replace(budget=3000)))
    async with Client(server) as client:
        names = [t.name for t in await client.list_tools()]
        shaped = await client.call_tool("list_pull_requests", {})
        structured = await client.call_tool("pulls_structured", {})
        small = await client.call_tool("small", {})
        failed = await client.call_tool("fail", {}, raise_on_error=False)
    assert sorted(names) == sorted(
        [
            "list_pull_requests",
            "pulls_structured",
            "typed_pulls",
            "small",
            "fail",
            "fail_loudly",
            "summary_beside_records",
            "hostshape_read",
        ]
    )
    for result in (shaped, structured):
        text = text_of(result)
        assert is_shaped(text) and count_tokens(text) <= 3000
        assert count_tokens(compact(result.structured_content)) <= 3000  # the copy Claude Code would show
        for number in PR_NUMBERS:
            assert str(number) in text
    assert shaped.structured_content == {"result": text_of(shaped)}  # the -> str wrapper keeps its form
    assert text_of(small) == "ok" and small.structured_content == {"result": "ok"}
    assert failed.is_error and "upstream API returned 502" in text_of(failed)


async def test_typed_results_are_shaped_and_accepted_by_the_validating_client(policy: Policy) -> None:
    async with Client(build_server(HostshapeMiddleware(policy.replace(budget=1000)))) as client:
        listed = {t.name: t for t in await client.list_tools()}
        result = await client.call_tool("typed_pulls", {})  # validated against the listed schema, if any
    assert output_schema(listed["typed_pulls"]) is None  # its required fields cannot survive every projection
    assert output_schema(listed["list_pull_requests"]) is not None  # the {"result": string} wrapper always can
    assert count_tokens(text_of(result)) <= 1000 and is_shaped(text_of(result))


async def test_a_raised_tool_error_reaches_the_client_within_the_budget(policy: Policy) -> None:
    async with Client(build_server(HostshapeMiddleware(policy.replace(budget=1000)))) as client:
        failed = await client.call_tool("fail_loudly", {}, raise_on_error=False)
        small = await client.call_tool("fail", {}, raise_on_error=False)
    assert count_tokens("upstream API failed; its answer was: " + payload_text(PULLS)[:80_000]) > 15_000
    assert failed.is_error and count_tokens(text_of(failed)) <= 1000 and is_shaped(text_of(failed))
    assert "upstream API failed" in text_of(failed)
    assert small.is_error and "upstream API returned 502" in text_of(small)  # a short error as the tool said it


async def test_structured_content_that_is_not_a_copy_of_the_text_is_shaped_with_it(policy: Policy) -> None:
    async with Client(build_server(HostshapeMiddleware(policy.replace(budget=1000)))) as client:
        result = await client.call_tool("summary_beside_records", {})
    text = text_of(result)
    structured = compact(result.structured_content)
    assert count_tokens(text) + count_tokens(structured) <= 1000  # hosts such as ADK show both
    assert "_hostshape" in structured  # the cut is named where it was made


async def test_tools_declare_the_result_size_claude_code_should_show_whole(policy: Policy) -> None:
    async with Client(build_server(HostshapeMiddleware(policy.replace(budget=20_000)))) as client:
        large = {t.name: (t.meta or {}) for t in await client.list_tools()}
    async with Client(build_server(HostshapeMiddleware(policy.replace(budget=4000)))) as client:
        small = {t.name: (t.meta or {}) for t in await client.list_tools()}
    assert all(meta["anthropic/maxResultSizeChars"] > 50_000 for meta in large.values())
    assert not any("anthropic/maxResultSizeChars" in meta for meta in small.values())  # the host's default holds


async def test_paging_with_hostshape_read_returns_every_record_once(tmp_path: Path) -> None:
    policy = Policy(budget=1500, spill_dir=tmp_path / "spill")
    async with Client(build_server(HostshapeMiddleware(policy))) as client:
        first = json.loads(text_of(await client.call_tool("list_pull_requests", {})))
        handle = first["_hostshape"]["handle"]
        walked: list[int] = []
        cursor = ""
        for _ in range(40):
            page = text_of(await client.call_tool("hostshape_read", {"handle": handle, "cursor": cursor}))
            assert count_tokens(page) <= 1500
            doc = json.loads(page)
            walked.extend(r["number"] for r in shown_records(doc))
            cursor = doc["_hostshape"].get("next", "")
            if not cursor:
                break
    assert walked == PR_NUMBERS


async def test_per_tool_rules_use_the_servers_tool_names(tmp_path: Path) -> None:
    from hostshape import Rule

    policy = Policy(
        budget=3000, spill_dir=tmp_path / "spill", rules=(Rule(tool="list_pull_requests", fields=("number", "title")),)
    )
    async with Client(build_server(HostshapeMiddleware(policy, server="corpus"))) as client:
        text = text_of(await client.call_tool("list_pull_requests", {}))
    records = json.loads(text)
    records = shown_records(records)
    assert [r["number"] for r in records] == PR_NUMBERS and all(set(r) == {"number", "title"} for r in records)


async def test_compared_with_response_limiting_middleware(policy: Policy) -> None:
    """Same server, same payload, a byte limit giving about the same text size: FastMCP's own middleware cuts the
    JSON mid-record (invalid, most records lost, nothing retrievable); hostshape's keeps it valid and complete."""
    shaped_result = None
    async with Client(build_server(HostshapeMiddleware(policy))) as client:
        shaped_result = await client.call_tool("list_pull_requests", {})
    shaped = text_of(shaped_result)
    limit = len(shaped.encode())
    async with Client(build_server(ResponseLimitingMiddleware(max_size=limit))) as client:
        # FastMCP 3.x drops the structured copy of a tool that has an output schema, so MCP SDK clients reject the
        # result; FastMCP 4.x keeps a {"result": <cut text>} copy.
        try:
            limited = text_of(await client.call_tool("list_pull_requests", {}))
        except RuntimeError as rejected:
            assert "did not return structured content" in str(rejected)
            raw = await client.session.send_request(  # the same call without the client's validation
                types.ClientRequest(
                    types.CallToolRequest(params=types.CallToolRequestParams(name="list_pull_requests"))
                ),
                types.CallToolResult,
            )
            limited = text_of(raw)
    assert limited.endswith("[Response truncated due to size limit]")
    with pytest.raises(ValueError):
        json.loads(limited)
    kept = sum(f'"number":{n},' in limited.replace(" ", "") for n in PR_NUMBERS)
    assert kept < len(PR_NUMBERS)
    assert all(str(n) in shaped for n in PR_NUMBERS)
    json.loads(shaped)


async def test_the_mcp_sdk_client_over_stdio(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    script = tmp_path / "server.py"
    script.write_text(
        "from fastmcp import FastMCP\n"
        "from hostshape import Policy\n"
        "from hostshape.adapters.fastmcp import HostshapeMiddleware\n"
        "from hostshape.examples import payload_text\n"
        "mcp = FastMCP('corpus')\n"
        "@mcp.tool\n"
        "def list_pull_requests() -> str:\n"
        f"    return payload_text({PULLS!r})\n"
        f"mcp.add_middleware(HostshapeMiddleware(Policy(budget=2000, spill_dir={str(tmp_path / 'spill')!r})))\n"
        "mcp.run(show_banner=False, log_level='WARNING')\n"
    )
    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("list_pull_requests", {})  # validated against the tool's outputSchema
    assert sorted(names) == ["hostshape_read", "list_pull_requests"]
    assert count_tokens(text_of(result)) <= 2000 and is_shaped(text_of(result))


def test_the_bench_script_runs(tmp_path: Path) -> None:
    import subprocess

    from hostshape.proxy import require_mcp

    try:  # the bench measures hostshape proxy too, which the mcp SDK version here may not run
        require_mcp()
    except ImportError as missing:
        pytest.skip(str(missing))

    out = tmp_path / "PROXY.md"
    bench = Path(__file__).parent.parent / "bench" / "proxy.py"
    done = subprocess.run(
        [sys.executable, str(bench), "--calls", "1", "--out", str(out)], capture_output=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    report = out.read_text()
    assert "proxy's own cost" in report and "fastmcp ResponseLimitingMiddleware" in report
