"""The ``hostshape`` command: ``shape``, ``read``, ``demo``, ``measure``, ``hook``, ``proxy`` and ``proxy-config``.

Imports stay inside each subcommand, so ``hostshape hook`` starts without loading the tokenizer or any framework.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.policy import Policy

DESCRIPTION = "Shape MCP tool results to a token budget, page through what was cut, and measure MCP servers."
READ_COMMAND = "hostshape read"  # the way back from a result the CLI shaped, named in the envelope's hint
VALUE_MAY_START_WITH_DASH = ("--cursor", "--query", "--section", "--lines", "--grep")
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
    """``--cursor VALUE`` as ``--cursor=VALUE`` (likewise ``--query``, ``--section``, ``--lines``, ``--grep``): a
    cursor or a pattern may start with ``-``, which argparse would take for an option."""
    out: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg in VALUE_MAY_START_WITH_DASH:
            value = next(rest, None)
            out.append(arg if value is None else f"{arg}={value}")
        else:
            out.append(arg)
    return out


def _command(sub: Any, name: str, run: Any, *, help: str, description: str) -> argparse.ArgumentParser:
    """A subcommand whose arguments run ``run``."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description)
    parser.set_defaults(run=run)
    return parser


def _budget_and_policy(parser: argparse.ArgumentParser, budget: str) -> None:
    parser.add_argument("--budget", type=_budget, help=f"{budget} (default: the policy's, 4000)")
    parser.add_argument("--policy", help=POLICY_HELP)


def _parser() -> argparse.ArgumentParser:
    from hostshape import __version__
    from hostshape.cli.demo import accepted_names

    parser = argparse.ArgumentParser(prog="hostshape", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"hostshape {__version__}")
    sub = parser.add_subparsers(title="commands")

    shape = _command(
        sub,
        "shape",
        _shape,
        help="print exactly the text a model would read for one tool result",
        description="Print exactly the text a model would read for one tool result. When "
        "anything is cut, the envelope gives a handle and next: page on with `hostshape read`.",
    )
    shape.add_argument("path", help="a file holding the tool result, or - for standard input")
    _budget_and_policy(shape, "token budget")
    shape.add_argument("--tool", help="tool name, for per-tool rules and the spill handle")
    shape.add_argument("--server", help="MCP server name, for per-tool rules")
    shape.add_argument("--stats", action="store_true", help="one JSON line of statistics on standard error")

    read = _command(
        sub,
        "read",
        _read,
        help="read a page of a saved full result by its handle",
        description="Read a page of a full result that `hostshape shape` or an adapter saved: the next page "
        "(--cursor), records or fields of a JSON result (--query), or one part of a text result (--section, "
        "--lines or --grep). Exit status 1 for an unknown or evicted handle, 2 for a bad query, cursor or part.",
    )
    read.add_argument("handle", help="the envelope's handle value")
    read.add_argument("--query", help="JMESPath expression over the full result (JSON results)")
    part = read.add_mutually_exclusive_group()
    part.add_argument("--section", help="an outline entry's id or title, exactly as the outline shows it")
    part.add_argument("--lines", help="a line range START-END")
    part.add_argument("--grep", help="text or an RE2 regular expression (without capitals: any case)")
    read.add_argument("--cursor", help="the envelope's next value")
    _budget_and_policy(read, "token budget of the page")

    demo = _command(
        sub,
        "demo",
        _demo,
        help="run every installed host offline, without and with hostshape",
        description="Run every installed host offline, without and with hostshape. Host names "
        f"(any one per host): {accepted_names()}.",
    )
    demo.add_argument("--json", action="store_true", help="print the table as JSON")
    demo.add_argument("--budget", type=_budget, default=4000, help="token budget of the shaped result (default 4000)")
    demo.add_argument(
        "--host",
        action="append",
        type=_host_name,
        metavar="NAME",
        help=f"only this host (repeatable): {accepted_names()}",
    )

    sub.add_parser("measure", help="size of an MCP server's tool menu and results (hostshape measure --help)")
    sub.add_parser("hook", help="Claude Code command hook (hostshape hook --help)")
    sub.add_parser(
        "proxy", help="an MCP server in front of any MCP server that shapes its results (hostshape proxy --help)"
    )
    sub.add_parser(
        "proxy-config", help="put a host's MCP servers behind the proxy, or undo it (hostshape proxy-config --help)"
    )
    return parser


def _budget(value: str) -> int:
    """A --budget: a whole number of tokens, at least 1 (0 is not "no limit": it is a mistake)."""
    try:
        budget = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {value!r}") from None
    if budget < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 token, not {budget}")
    return budget


def _host_name(name: str) -> str:
    from hostshape.cli.demo import resolve_hosts

    try:
        resolve_hosts([name])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def _policy_path(args: argparse.Namespace) -> Path | None:
    """The policy file by the one discovery rule (hostshape.cli.policy_file), or None for the defaults."""
    from hostshape.cli import policy_file

    return policy_file.find(getattr(args, "policy", None))


def _policy(args: argparse.Namespace, path: Path | None = None) -> Policy:
    """The policy from ``path`` (or the defaults), with --budget applied."""
    from hostshape.policy import Policy

    policy = Policy.from_toml(path) if path else Policy()
    return policy.replace(budget=args.budget) if getattr(args, "budget", None) else policy


def _load_policy(args: argparse.Namespace) -> tuple[Policy, Path | None] | None:
    """The policy and the file it came from, or None after printing why it cannot be used (naming the file, and
    how it was found when nobody named it)."""
    path = _policy_path(args)
    try:
        return _policy(args, path), path
    except (OSError, ValueError) as exc:
        how = "" if getattr(args, "policy", None) else f" (found by the policy search; {POLICY_HELP})"
        print(f"hostshape: bad policy file {path}{how}: {exc}", file=sys.stderr)
        return None


def _read_command(path: Path | None) -> str:
    """The command the envelope's hint names: ``hostshape read``, with ``--policy FILE`` when a policy file was
    used (its spill folder and secret are where the handle lives)."""
    import shlex

    return f"{READ_COMMAND} --policy {shlex.quote(str(path.resolve()))}" if path else READ_COMMAND


def _rule_report(policy: Policy, tool: str | None, server: str | None) -> dict[str, object]:
    """Which rule applied and why, and the rules for this tool that did not apply because of their server."""
    applied = policy.rule_for(tool, server)

    def named(rule: object) -> dict[str, object]:
        return {k: v for k, v in vars(rule).items() if v not in (None, (), {})}

    skipped = [
        {**named(r), "why": f"server {r.server!r} does not match {server!r}"}
        for r in policy.rules
        if r is not applied and r.matches(tool or "", r.server) and not r.matches(tool or "", server)
    ]
    report: dict[str, object] = {"rule": named(applied) if applied else None}
    if applied is not None:
        report["rule_why"] = f"first rule matching tool {tool!r}" + (f" on server {server!r}" if server else "")
    if skipped:
        report["rules_skipped"] = skipped
    return report


def _shape(args: argparse.Namespace) -> int:
    import json

    from hostshape.pipeline import shape

    try:
        data = sys.stdin.buffer.read() if args.path == "-" else Path(args.path).read_bytes()
    except OSError as exc:
        print(f"hostshape: cannot read {args.path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if not data.strip():
        where = "standard input" if args.path == "-" else args.path
        print(f"hostshape: {where} is empty: there is no tool result to shape", file=sys.stderr)
        return 1
    loaded = _load_policy(args)
    if loaded is None:
        return 2
    policy, path = loaded
    if policy.retrieval_tool is None:
        policy = policy.replace(retrieval_tool=_read_command(path))
    result = shape(data, policy=policy, tool=args.tool, server=args.server)
    if result.changed and result.handle and result.handle not in result.text:
        smallest = _smallest_budget(result.handle, policy)
        print(
            f"hostshape: a budget of {result.budget} tokens cannot hold any of this result nor its handle; "
            f"use --budget {smallest} or more",
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(result.text)
    sys.stdout.flush()
    if args.stats:
        stats = result.stats()
        stats["tokens_after"] = result.tokens
        stats.update(_rule_report(policy, args.tool, args.server))
        print(json.dumps(stats, default=str), file=sys.stderr)
    return 0


def _smallest_budget(handle: str, policy: Policy) -> int:
    """The tokens of the smallest answer that names ``handle`` (the envelope alone)."""
    import math

    from hostshape.output.envelope import last_resort_texts
    from hostshape.tokens import count_tokens

    text = last_resort_texts(True, handle)[0]
    return math.ceil(count_tokens(text, policy.encoding) * policy.safety_factor)


def _read(args: argparse.Namespace) -> int:
    import jmespath
    from jmespath.exceptions import JMESPathError

    from hostshape.wayback.cursor import CursorError, decode
    from hostshape.wayback.retrieve import CANNOT_READ_PART, NOT_THIS_CURSOR, read
    from hostshape.wayback.stores import open_store

    loaded = _load_policy(args)
    if loaded is None:
        return 2
    policy = loaded[0].replace(retrieval_tool=_read_command(loaded[1]))
    if args.query and (args.section or args.lines or args.grep):
        print(
            "hostshape read: --query picks from JSON results; --section, --lines and --grep read text", file=sys.stderr
        )
        return 2
    if args.query:
        try:
            jmespath.compile(args.query)
        except JMESPathError as exc:
            print(f"hostshape read: bad --query: {exc}", file=sys.stderr)
            return 2
    try:
        store = open_store(policy)
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
    page = read(
        args.handle,
        query=args.query,
        cursor=args.cursor,
        section=args.section,
        lines=args.lines,
        grep=args.grep,
        policy=policy,
    )
    if page.startswith(("[hostshape] the query", CANNOT_READ_PART, NOT_THIS_CURSOR)):  # fails on this result
        print(f"hostshape read: {page.removeprefix('[hostshape] ')}", file=sys.stderr)
        return 2
    sys.stdout.write(page)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from hostshape.cli.demo import main as demo_main

    return demo_main(budget=args.budget, as_json=args.json, hosts=args.host)
