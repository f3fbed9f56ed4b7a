"""hostshape measure -- COMMAND: what an MCP server's tools cost a model's context.

Starts the stdio server, reports the tools/list "menu tax" (tokens of each tool's name, description and input
schema as a host would send them, and the total), and for each --call TOOL --args JSON the result's raw tokens,
what the structuredContent copy adds, and what hostshape would send under the policy. A table by default,
--json for data. --example measures hostshape's own example server, run with this Python. When the server fails,
its exit status and the end of its standard error are shown. Needs the mcp package (hostshape's [mcp] extra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ToolCost:
    name: str
    schema_tokens: int


@dataclass
class CallCost:
    tool: str
    args: dict[str, Any]
    raw_tokens: int
    structured_copy_tokens: int
    shaped_tokens: int
    is_error: bool
    strategy: str


@dataclass
class Report:
    server: list[str]
    tools: list[ToolCost] = field(default_factory=list)
    calls: list[CallCost] = field(default_factory=list)

    @property
    def menu_tokens(self) -> int:
        return sum(t.schema_tokens for t in self.tools)


class _Calls(argparse.Action):
    """``--call TOOL`` starts a call; ``--args JSON`` gives the arguments of the call just before it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if option_string == "--call":
            namespace.calls = [*getattr(namespace, "calls", []), [values, {}]]
            return
        if not namespace.calls:
            parser.error("--args must follow a --call")
        try:
            namespace.calls[-1][1] = json.loads(values)
        except json.JSONDecodeError as exc:
            parser.error(f"--args is not JSON: {exc}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hostshape measure", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--call", action=_Calls, dest="calls", default=[], metavar="TOOL", help="call this tool (repeatable)"
    )
    parser.add_argument(
        "--args",
        action=_Calls,
        dest="calls",
        metavar="JSON",
        help="JSON arguments for the --call just before it (default {})",
    )
    parser.add_argument(
        "--example",
        action="store_true",
        help="measure hostshape's example server (python -m hostshape.examples.mcp_server, with "
        "this Python) instead of a COMMAND",
    )
    parser.add_argument(
        "--policy",
        help="a policy TOML file (default: $HOSTSHAPE_POLICY, else ./.hostshape.toml, "
        "else $XDG_CONFIG_HOME/hostshape/policy.toml, else the defaults)",
    )
    parser.add_argument("--budget", type=int, help="override the policy's budget")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the server (default 60)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command that starts the server")
    return parser


EXAMPLE_SERVER = [sys.executable, "-m", "hostshape.examples.mcp_server"]
STDERR_LINES = 15


class ServerFailed(RuntimeError):
    """The server could not be measured: what went wrong, its exit status and the end of its standard error."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    command = [c for c in args.command if c != "--"] if args.command[:1] == ["--"] else list(args.command)
    if args.example:
        if command:
            parser.error("give either --example or a server command, not both")
        command = list(EXAMPLE_SERVER)
    if not command:
        parser.error("give the server command after --, e.g. hostshape measure -- python -m my_server (or --example)")
    calls = [(tool, arguments) for tool, arguments in args.calls]
    from hostshape.cli import policy_file

    try:
        policy = policy_file.load(args.policy, args.budget)
    except ValueError as exc:
        print(f"hostshape measure: {exc}", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(measure(command, calls, policy, timeout=args.timeout))
    except ImportError as exc:
        print(f"hostshape measure: {exc}", file=sys.stderr)
        return 2
    except ServerFailed as exc:
        print(f"hostshape measure: could not measure {' '.join(command)}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(to_data(report), indent=2) if args.json else render(report, policy.budget))
    return 0


async def measure(
    command: list[str], calls: list[tuple[str, dict[str, Any]]], policy: Any, *, timeout: float = 60.0
) -> Report:
    """Connect to the stdio server ``command``, list its tools and make ``calls``. Raises ServerFailed with the
    server's exit status and standard error when that fails."""
    from hostshape.adapters._shared import require

    require("mcp", "mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    report = Report(server=command)
    with tempfile.TemporaryDirectory(prefix="hostshape-measure-") as folder:
        status_file = os.path.join(folder, "status")
        # The server runs under a small watcher (this Python) that records its exit status; its standard error
        # goes to a file, shown only when something fails.
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "hostshape.cli.measure", "--watch", status_file, "--", *command]
        )
        stderr_file = os.path.join(folder, "stderr")
        with open(stderr_file, "w+", encoding="utf-8", errors="replace") as errlog:
            try:
                async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                    await _measure(session, calls, policy, timeout, report)
            except Exception as exc:  # anyio wraps the cause in ExceptionGroups
                raise ServerFailed(_diagnosis(exc, status_file, errlog)) from exc
    return report


def _diagnosis(exc: BaseException, status_file: str, errlog: Any) -> str:
    """What failed, the server's exit status (when it exited) and the end of its standard error."""
    while len(getattr(exc, "exceptions", ())) == 1:  # an ExceptionGroup (or the 3.10 backport's) of one
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    lines = [f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__]
    try:
        with open(status_file, encoding="utf-8") as f:
            lines.append(f"the server exited with status {f.read().strip()}")
    except OSError:
        lines.append("the server was still running")
    errlog.flush()
    errlog.seek(0)
    tail = errlog.read().splitlines()[-STDERR_LINES:]
    if tail:
        lines.append("its standard error ends:")
        lines.extend(f"  {line}" for line in tail)
    else:
        lines.append("it wrote nothing on standard error")
    return "\n".join(lines)


def _watch(status_file: str, command: list[str]) -> int:
    """Run ``command`` with this process's standard streams and record its exit status in ``status_file``."""
    try:
        code = subprocess.call(command)
    except OSError as exc:
        print(f"cannot start {command[0]}: {exc}", file=sys.stderr)
        code = 127
    except KeyboardInterrupt:
        code = 130
    with open(status_file, "w", encoding="utf-8") as f:
        f.write(str(code))
    return code


async def _measure(
    session: Any, calls: list[tuple[str, dict[str, Any]]], policy: Any, timeout: float, report: Report
) -> None:
    from hostshape.output.render import dumps
    from hostshape.pipeline import shape
    from hostshape.tokens import count_tokens

    await asyncio.wait_for(session.initialize(), timeout)
    listed = await asyncio.wait_for(session.list_tools(), timeout)
    for tool in listed.tools:
        menu_entry = {
            "name": tool.name,
            "description": tool.description or "",
            "input_schema": _field(tool, "inputSchema"),
        }
        report.tools.append(ToolCost(tool.name, count_tokens(dumps(menu_entry), policy.encoding)))
    for name, arguments in calls:
        result = await asyncio.wait_for(session.call_tool(name, arguments), timeout)
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        structured_content = _field(result, "structuredContent")
        structured = dumps(structured_content) if structured_content is not None else ""
        shaped = shape(result, policy=policy, tool=name, args=arguments)
        report.calls.append(
            CallCost(
                tool=name,
                args=arguments,
                raw_tokens=count_tokens(text, policy.encoding),
                structured_copy_tokens=count_tokens(structured, policy.encoding) if structured else 0,
                shaped_tokens=shaped.tokens,
                is_error=bool(_field(result, "isError")),
                strategy=shaped.strategy,
            )
        )


def _field(model: Any, name: str) -> Any:
    """An MCP type's field by its wire name: mcp 1.x names attributes like the wire (``structuredContent``), mcp 2.x
    in snake case (``structured_content``; mcp-types 2.3.0, mcp_types/_types.py)."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    # snake case first: with fastmcp 4 imported, the mcp 2 camelCase aliases exist but warn (deprecated)
    return getattr(model, snake) if hasattr(model, snake) else getattr(model, name, None)


def to_data(report: Report) -> dict[str, Any]:
    data = asdict(report)
    data["menu_tokens"] = report.menu_tokens
    return data


def render(report: Report, budget: int) -> str:
    """The report as plain-text tables."""
    lines = [f"Tool menu (tools/list): {len(report.tools)} tools, {report.menu_tokens:,} tokens"]
    width = max([len(t.name) for t in report.tools] + [4])
    for tool in sorted(report.tools, key=lambda t: -t.schema_tokens):
        lines.append(f"  {tool.name.ljust(width)}  {tool.schema_tokens:>7,}")
    if report.calls:
        lines.append("")
        lines.append(f"Calls (budget {budget:,}): raw tokens | + structured copy | hostshape sends | strategy")
        width = max(len(c.tool) for c in report.calls)
        for call in report.calls:
            flag = "  (error)" if call.is_error else ""
            lines.append(
                f"  {call.tool.ljust(width)}  {call.raw_tokens:>8,} | {call.structured_copy_tokens:>8,} | "
                f"{call.shaped_tokens:>8,} | {call.strategy}{flag}"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--watch"] and sys.argv[3:4] == ["--"]:
        raise SystemExit(_watch(sys.argv[2], sys.argv[4:]))
    raise SystemExit(main())
