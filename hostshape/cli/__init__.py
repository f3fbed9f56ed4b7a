"""The ``hostshape`` command: ``shape``, ``read``, ``demo``, ``measure``, ``hook``, ``proxy`` and ``proxy-config``.

Imports stay inside each subcommand, so ``hostshape hook`` starts without loading the tokenizer or any framework.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hostshape.policy import Policy

DESCRIPTION = "Shape MCP tool results to a token budget, page through what was cut, and measure MCP servers."
READ_COMMAND = "hostshape read"  # the way back from a result the CLI shaped, named in the envelope's hint
VALUE_MAY_START_WITH_DASH = ("--cursor", "--query")
POLICY_HELP = (
    "a policy TOML file (default: $HOSTSHAPE_POLICY, else ./.hostshape.toml, else "
    "$XDG_CONFIG_HOME/hostshape/policy.toml, else the built-in defaults)"
)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        from hostshape.cli.hook import main as hook_main

        return hook_main(argv[1:])
    if argv[:1] == ["measure"]:
        from hostshape.cli.measure import main as measure_main

        return measure_main(argv[1:])
    if argv[:1] == ["proxy"]:
        from hostshape.proxy import main as proxy_main

        return proxy_main(argv[1:])
    if argv[:1] == ["proxy-config"]:
        from hostshape.cli.mcp_config import main as config_main

        return config_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(_glue(argv))
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return int(args.run(args))


def _glue(argv: list[str]) -> list[str]:
    """``--cursor VALUE`` as ``--cursor=VALUE`` (likewise ``--query``): a cursor may start with ``-``, which argparse
    would take for an option."""
    out: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg in VALUE_MAY_START_WITH_DASH:
            value = next(rest, None)
            out.append(arg if value is None else f"{arg}={value}")
        else:
            out.append(arg)
    return out


def _parser() -> argparse.ArgumentParser:
    from hostshape import __version__
    from hostshape.cli.demo import accepted_names

    parser = argparse.ArgumentParser(prog="hostshape", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"hostshape {__version__}")
    sub = parser.add_subparsers(title="commands")

    shape = sub.add_parser(
        "shape",
        help="print exactly the text a model would read for one tool result",
        description="Print exactly the text a model would read for one tool result. When "
        "anything is cut, the envelope gives a handle and next: page on with `hostshape read`.",
    )
    shape.add_argument("path", help="a file holding the tool result, or - for standard input")
    shape.add_argument("--budget", type=int, help="token budget (default: the policy's, 4000)")
    shape.add_argument("--tool", help="tool name, for per-tool rules and the spill handle")
    shape.add_argument("--server", help="MCP server name, for per-tool rules")
    shape.add_argument("--policy", help=POLICY_HELP)
    shape.add_argument("--stats", action="store_true", help="one JSON line of statistics on standard error")
    shape.set_defaults(run=_shape)

    read = sub.add_parser(
        "read",
        help="read a page of a saved full result by its handle",
        description="Read a page of a full result that `hostshape shape` or an adapter saved. "
        "Exit status 1 for an unknown or evicted handle, 2 for a bad query or cursor.",
    )
    read.add_argument("handle", help="the envelope's handle value")
    read.add_argument("--query", help="JMESPath expression over the full result")
    read.add_argument("--cursor", help="the envelope's next value")
    read.add_argument("--budget", type=int, help="token budget of the page (default: the policy's, 4000)")
    read.add_argument("--policy", help=POLICY_HELP)
    read.set_defaults(run=_read)

    demo = sub.add_parser(
        "demo",
        help="run every installed host offline, without and with hostshape",
        description="Run every installed host offline, without and with hostshape. Host names "
        f"(any one per host): {accepted_names()}.",
    )
    demo.add_argument("--json", action="store_true", help="print the table as JSON")
    demo.add_argument("--budget", type=int, default=4000, help="token budget of the shaped result (default 4000)")
    demo.add_argument(
        "--host",
        action="append",
        type=_host_name,
        metavar="NAME",
        help=f"only this host (repeatable): {accepted_names()}",
    )
    demo.set_defaults(run=_demo)

    sub.add_parser("measure", help="size of an MCP server's tool menu and results (hostshape measure --help)")
    sub.add_parser("hook", help="Claude Code command hook (hostshape hook --help)")
    sub.add_parser(
        "proxy", help="an MCP server in front of any MCP server that shapes its results (hostshape proxy --help)"
    )
    sub.add_parser(
        "proxy-config", help="put a host's MCP servers behind the proxy, or undo it (hostshape proxy-config --help)"
    )
    return parser


def _host_name(name: str) -> str:
    from hostshape.cli.demo import resolve_hosts

    try:
        resolve_hosts([name])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def _policy(args: argparse.Namespace) -> Policy:
    """The policy by the one discovery rule (hostshape.cli.policy_file), with --budget applied."""
    from hostshape.cli import policy_file
    from hostshape.policy import Policy

    path = policy_file.find(getattr(args, "policy", None))
    policy = Policy.from_toml(path) if path else Policy()
    return policy.replace(budget=args.budget) if getattr(args, "budget", None) else policy


def _load_policy(args: argparse.Namespace) -> Policy | None:
    """``_policy``, or None after printing why it cannot be used."""
    try:
        return _policy(args)
    except (OSError, ValueError) as exc:
        print(f"hostshape: bad policy: {exc}", file=sys.stderr)
        return None


def _shape(args: argparse.Namespace) -> int:
    import json

    from hostshape.pipeline import shape

    try:
        data = sys.stdin.buffer.read() if args.path == "-" else Path(args.path).read_bytes()
    except OSError as exc:
        print(f"hostshape: cannot read {args.path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    policy = _load_policy(args)
    if policy is None:
        return 2
    if policy.retrieval_tool is None:
        policy = policy.replace(retrieval_tool=READ_COMMAND)
    result = shape(data, policy=policy, tool=args.tool, server=args.server)
    sys.stdout.write(result.text)
    sys.stdout.flush()
    if args.stats:
        stats = result.stats()
        stats["tokens_after"] = result.tokens
        print(json.dumps(stats), file=sys.stderr)
    return 0


def _read(args: argparse.Namespace) -> int:
    import jmespath
    from jmespath.exceptions import JMESPathError

    from hostshape.wayback.cursor import CursorError, decode
    from hostshape.wayback.retrieve import read
    from hostshape.wayback.spill import store_for

    policy = _load_policy(args)
    if policy is None:
        return 2
    policy = policy.replace(retrieval_tool=READ_COMMAND)
    if args.query:
        try:
            jmespath.compile(args.query)
        except JMESPathError as exc:
            print(f"hostshape read: bad --query: {exc}", file=sys.stderr)
            return 2
    try:
        store = store_for(policy.spill_dir, policy.spill_max_bytes)
        if args.cursor:
            decode(store.secret, args.cursor, handle=args.handle, query=args.query)
        known = store.load(args.handle) is not None
    except CursorError as exc:
        print(f"hostshape read: bad --cursor: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"hostshape read: cannot open the spill store: {exc}", file=sys.stderr)
        return 1
    if not known:
        print(
            f"hostshape read: no saved result for handle {args.handle!r} (unknown or evicted): run the tool or "
            "`hostshape shape` again for a fresh handle",
            file=sys.stderr,
        )
        return 1
    page = read(args.handle, query=args.query, cursor=args.cursor, policy=policy)
    if page.startswith("[hostshape] the query"):  # a query that parses but fails on this data
        print(f"hostshape read: {page.removeprefix('[hostshape] ')}", file=sys.stderr)
        return 2
    sys.stdout.write(page)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from hostshape.cli.demo import main as demo_main

    return demo_main(budget=args.budget, as_json=args.json, hosts=args.host)
