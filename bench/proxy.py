"""What ``hostshape proxy`` and the FastMCP middleware cost and deliver, measured in one run.

1. **Proxy overhead.** The ``mcp`` SDK client calls the example stdio server directly and through
   ``hostshape proxy`` (same machine, same run, calls interleaved). The proxy's own cost per call is
   ``via proxy - direct - core``, where *core* is ``hostshape.shape`` on the same result in this process (what any
   adapter pays). Medians over ``--calls`` calls.
2. **HostshapeMiddleware vs FastMCP's ResponseLimitingMiddleware**, each the only middleware of a real FastMCP
   server, called by FastMCP's client (in memory), on the example payloads served as ``-> str`` tools, at a budget
   of B o200k tokens (hostshape) and ``max_size = 4·B`` bytes (ResponseLimiting, the conversion a user would
   make). Reported: tokens the model would read (the text block), whether the text is valid JSON when the payload
   was, record identifiers kept, whether the MCP client accepts the result (it validates ``structuredContent``
   against the tool's output schema), whether the rest is retrievable, and server time per call.

Usage: ``python bench/proxy.py [--calls 30] [--budget 4000] [--out bench/PROXY.md]``. Needs ``hostshape[mcp,fastmcp]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hostshape import Policy, shape
from hostshape.examples import TOOLS, payload_text
from hostshape.testing import mcp_server_command
from hostshape.tokens import count_tokens

JSON_TOOLS = [
    "list_pull_requests",
    "list_commits",
    "list_issues",
    "search_issues",
    "get_pull_request_files",
    "list_issues_small",
]


async def proxy_overhead(calls: int, budget: int) -> list[dict[str, Any]]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from hostshape.testing.proxy import policy_toml, proxy_command

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        policy = Policy(budget=budget, spill_dir=Path(folder) / "spill")
        policy_file = Path(folder) / "policy.toml"
        policy_file.write_text(policy_toml(policy))
        direct_cmd = mcp_server_command()
        proxy_cmd = proxy_command(policy_file)
        errlog = open(Path(folder) / "stderr.log", "w")  # noqa: SIM115 - once, before timing
        async with (
            stdio_client(StdioServerParameters(command=direct_cmd[0], args=direct_cmd[1:]), errlog=errlog) as (r1, w1),
            ClientSession(r1, w1) as direct,
            stdio_client(StdioServerParameters(command=proxy_cmd[0], args=proxy_cmd[1:]), errlog=errlog) as (r2, w2),
            ClientSession(r2, w2) as proxied,
        ):
            await direct.initialize()
            await proxied.initialize()
            for tool, args, label in [
                ("image", {}, "tiny result (passes through)"),
                ("list_pull_requests", {}, "gh_pulls_list.json, 54,552 tokens"),
            ]:
                times: dict[str, list[float]] = {"direct": [], "proxy": [], "core": []}
                for i in range(calls + 2):
                    t0 = time.perf_counter()
                    raw = await direct.call_tool(tool, args)
                    t1 = time.perf_counter()
                    shape(raw.model_dump(mode="json", by_alias=True, exclude_none=True), policy=policy, tool=tool)
                    t2 = time.perf_counter()
                    await proxied.call_tool(tool, args)
                    t3 = time.perf_counter()
                    if i >= 2:  # warm-up: imports, tokenizer load, first spill
                        times["direct"].append(t1 - t0)
                        times["core"].append(t2 - t1)
                        times["proxy"].append(t3 - t2)
                med = {k: statistics.median(v) * 1000 for k, v in times.items()}
                best = {k: min(v) * 1000 for k, v in times.items()}
                overhead = med["proxy"] - med["direct"] - med["core"]
                rows.append(
                    {
                        "result": label,
                        "direct_ms": med["direct"],
                        "core_ms": med["core"],
                        "proxy_ms": med["proxy"],
                        "overhead_ms": overhead,
                        "overhead_best_ms": best["proxy"] - best["direct"] - best["core"],
                        "ratio": med["proxy"] / (med["direct"] + med["core"]),
                    }
                )
        errlog.close()
    return rows


def identifiers(value: Any) -> list[str]:
    """The identifier of each record of a JSON list payload (number, id, sha, filename or name)."""
    records = value if isinstance(value, list) else next((v for v in value.values() if isinstance(v, list)), [])
    for key in ("number", "id", "sha", "filename", "name"):
        if records and all(isinstance(r, dict) and key in r for r in records):
            return [str(r[key]) for r in records]
    return []


def kept(text: str, ids: list[str]) -> float:
    words = set(re.findall(r"[\w./-]+", text))
    return sum(i in words for i in ids) / len(ids) if ids else 1.0


def _payload_tool(file_name: str) -> Any:
    def tool() -> str:  # `-> str`: FastMCP adds structuredContent {"result": text} and an output schema
        return payload_text(file_name)

    return tool


async def middleware_comparison(budget: int, calls: int) -> list[dict[str, Any]]:
    import logging

    from fastmcp import Client, FastMCP
    from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware
    from mcp import types

    from hostshape.adapters.fastmcp import HostshapeMiddleware

    logging.getLogger("fastmcp.server.middleware.response_limiting").setLevel(logging.ERROR)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        contenders = {
            "hostshape HostshapeMiddleware": lambda: HostshapeMiddleware(Policy(budget=budget, spill_dir=Path(folder))),
            "fastmcp ResponseLimitingMiddleware": lambda: ResponseLimitingMiddleware(max_size=4 * budget),
        }
        for name, make in contenders.items():
            server = FastMCP("corpus")
            for tool in JSON_TOOLS:
                server.tool(name=tool)(_payload_tool(TOOLS[tool]))
            server.add_middleware(make())
            async with Client(server) as client:
                for tool in JSON_TOOLS:
                    original = json.loads(payload_text(TOOLS[tool]))
                    ids = identifiers(original)
                    accepted = True
                    try:
                        await client.call_tool(tool, {})
                    except RuntimeError:  # the client rejects it (structured content vs output schema)
                        accepted = False
                    request: Any = types.CallToolRequest(params=types.CallToolRequestParams(name=tool))
                    if isinstance(types.ClientRequest, type):  # mcp 1.x wraps requests in a union model; 2.x not
                        request = types.ClientRequest(request)
                    samples = []
                    for _ in range(calls):
                        t0 = time.perf_counter()
                        result = await client.session.send_request(request, types.CallToolResult)
                        samples.append(time.perf_counter() - t0)
                    text = "".join(b.text for b in result.content if b.type == "text")
                    try:
                        json.loads(text)
                        valid = True
                    except ValueError:
                        valid = False
                    rows.append(
                        {
                            "middleware": name,
                            "tool": tool,
                            "payload_tokens": count_tokens(payload_text(TOOLS[tool])),
                            "tokens": count_tokens(text),
                            "fits": count_tokens(text) <= budget,
                            "valid_json": valid,
                            "ids_kept": kept(text, ids),
                            "client_accepts": accepted,
                            "retrievable": "whole"
                            if text == payload_text(TOOLS[tool])
                            else ("yes" if "hostshape_read" in text else "no"),
                            "ms": statistics.median(samples) * 1000,
                        }
                    )
    return rows


def render(overhead: list[dict[str, Any]], compared: list[dict[str, Any]], budget: int, calls: int) -> str:
    title = (
        "# hostshape proxy and FastMCP middleware: one run of "
        f"`python bench/proxy.py --calls {calls} --budget {budget}`"
    )
    out = [
        title,
        "",
        "## What the proxy adds per call (ms; medians, and the proxy's own cost from the fastest calls)",
        "",
        "| result | direct call | core `shape` | via proxy | proxy's own cost | own cost, fastest calls "
        "| via proxy / (direct + core) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in overhead:
        out.append(
            f"| {r['result']} | {r['direct_ms']:.2f} | {r['core_ms']:.2f} | {r['proxy_ms']:.2f} | "
            f"{r['overhead_ms']:.2f} | {r['overhead_best_ms']:.2f} | {r['ratio']:.2f} |"
        )
    limits = f"budget {budget:,} tokens; max_size {4 * budget:,} bytes"
    head = (
        "| payload (tokens) | middleware | tokens read | fits | valid JSON | ids kept | client accepts "
        "| rest retrievable | ms/call |"
    )
    out += [
        "",
        f"## HostshapeMiddleware vs ResponseLimitingMiddleware ({limits})",
        "",
        head,
        "|---|---|---:|---|---|---:|---|---|---:|",
    ]
    for r in compared:
        out.append(
            f"| {r['tool']} ({r['payload_tokens']:,}) | {r['middleware']} | {r['tokens']:,} | "
            f"{'yes' if r['fits'] else 'NO'} | {'yes' if r['valid_json'] else 'no'} | {r['ids_kept']:.0%} | "
            f"{'yes' if r['client_accepts'] else 'no'} | {r['retrievable']} | {r['ms']:.1f} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--out", type=Path, help="write the report (markdown) here too")
    args = parser.parse_args(argv)
    overhead = asyncio.run(proxy_overhead(args.calls, args.budget))
    compared = asyncio.run(middleware_comparison(args.budget, max(3, args.calls // 5)))
    report = render(overhead, compared, args.budget, args.calls)
    sys.stdout.write(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
