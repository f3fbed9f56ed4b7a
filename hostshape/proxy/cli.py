"""``hostshape proxy`` command-line arguments and the entry point."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from hostshape.cli import policy_file
from hostshape.cli.log_level import log_level
from hostshape.proxy.sdk import require_mcp
from hostshape.proxy.server import Proxy, serve_http, serve_stdio
from hostshape.proxy.upstream import DEFAULT_TIMEOUT, GROUP, Upstream, UpstreamError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hostshape proxy",
        description="An MCP server in front of one upstream MCP server that shapes every successful tool result "
        "to the policy's token budget and adds the hostshape_read tool.",
        epilog="Example: hostshape proxy --budget 4000 -- npx -y @modelcontextprotocol/server-github",
    )
    parser.add_argument(
        "--policy", help=f"a policy TOML file (the same format and discovery rule as every command: {policy_file.RULE})"
    )
    parser.add_argument("--budget", type=_positive, help="token budget per tool result (default: the policy's, 4000)")
    parser.add_argument("--server", dest="server_name", help="server name that policy rules with server= match")
    parser.add_argument("--url", help="the upstream's URL (streamable HTTP; SSE when it ends in /sse)")
    parser.add_argument("--transport", choices=("auto", "http", "sse"), default="auto", help="the URL's transport")
    parser.add_argument(
        "--header", action="append", default=[], metavar="K=V", help="an HTTP header for the upstream URL (repeatable)"
    )
    parser.add_argument(
        "--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio"
    )
    schemas = "tools' outputSchema in tools/list: auto (default) leaves out those a shaped result could not satisfy"
    parser.add_argument("--output-schemas", choices=("auto", "keep", "drop"), default="auto", help=schemas)
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds a tool call may take upstream (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the upstream server's command and arguments")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``hostshape proxy``: parse arguments and serve until the client goes away. Returns the exit code."""
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    level, problem = log_level(os.environ.get("HOSTSHAPE_LOG"))  # a typo must not take down every server behind it
    logging.basicConfig(level=level, stream=sys.stderr, format="%(name)s: %(message)s", force=True)
    if problem:
        print(f"hostshape proxy: HOSTSHAPE_LOG: {problem}", file=sys.stderr)
    try:  # bad options, a bad policy file, no usable mcp SDK: a clear refusal
        headers = dict(_header(h) for h in args.header)
        upstream = Upstream(command=tuple(command), url=args.url, headers=headers, transport=args.transport)
        policy = policy_file.load(args.policy, args.budget)
        require_mcp()
        import anyio
    except (ValueError, ImportError) as exc:
        print(f"hostshape proxy: {exc}", file=sys.stderr)
        return 2
    proxy = Proxy(
        upstream, policy, server_name=args.server_name, output_schemas=args.output_schemas, timeout=args.timeout
    )
    try:
        if args.http:
            host, _, port = args.http.rpartition(":")
            anyio.run(serve_http, proxy, host or "127.0.0.1", int(port))
        else:
            anyio.run(serve_stdio, proxy)
    except UpstreamError as exc:
        print(f"hostshape proxy: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except Exception as group:  # anyio wraps a startup failure in an ExceptionGroup
        failure = next((e for e in _leaves(group) if isinstance(e, UpstreamError)), None)
        if failure is None:
            raise
        print(f"hostshape proxy: {failure}", file=sys.stderr)
        return 1
    return 0


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, GROUP):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a budget is a number of tokens, at least 1, not {text!r}")
    return value


def _header(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--header wants KEY=VALUE, not {text!r}")
    return key.strip(), value.strip()


if __name__ == "__main__":
    raise SystemExit(main())
