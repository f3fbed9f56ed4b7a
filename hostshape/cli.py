"""The ``hostshape`` command: ``shape``, ``read``, ``demo``, ``measure``, ``hook``, ``proxy`` and ``proxy-config``.

Imports stay inside each subcommand, so ``hostshape hook`` starts without loading the tokenizer or any framework.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        from hostshape.hook import main as hook_main

        return hook_main(argv[1:])
    if argv[:1] == ["measure"]:
        from hostshape.measure import main as measure_main

        return measure_main(argv[1:])
    if argv[:1] == ["proxy"]:
        from hostshape.proxy import main as proxy_main

        return proxy_main(argv[1:])
    if argv[:1] == ["proxy-config"]:
        from hostshape.mcp_config import main as config_main

        return config_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return int(args.run(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hostshape", description=__doc__)
    sub = parser.add_subparsers(title="commands")

    shape = sub.add_parser("shape", help="print exactly the text a model would read for one tool result")
    shape.add_argument("path", help="a file holding the tool result, or - for standard input")
    shape.add_argument("--budget", type=int, help="token budget (default: the policy's, 4000)")
    shape.add_argument("--tool", help="tool name, for per-tool rules and the spill handle")
    shape.add_argument("--server", help="MCP server name, for per-tool rules")
    shape.add_argument("--policy", help="a policy TOML file")
    shape.add_argument("--stats", action="store_true", help="one JSON line of statistics on standard error")
    shape.set_defaults(run=_shape)

    read = sub.add_parser("read", help="read a page of a saved full result by its handle")
    read.add_argument("handle")
    read.add_argument("--query", help="JMESPath expression over the full result")
    read.add_argument("--cursor", help="the envelope's next value")
    read.add_argument("--budget", type=int)
    read.add_argument("--policy", help="a policy TOML file")
    read.set_defaults(run=_read)

    demo = sub.add_parser("demo", help="run every installed host offline, without and with hostshape")
    demo.add_argument("--json", action="store_true", help="print the table as JSON")
    demo.add_argument("--budget", type=int, default=4000)
    demo.add_argument("--host", action="append", help="only these hosts (repeatable)")
    demo.set_defaults(run=_demo)

    sub.add_parser("measure", help="size of an MCP server's tool menu and results (hostshape measure --help)")
    sub.add_parser("hook", help="Claude Code command hook (hostshape hook --help)")
    sub.add_parser("proxy", help="an MCP server in front of any MCP server that shapes its results "
                   "(hostshape proxy --help)")
    sub.add_parser("proxy-config", help="put a host's MCP servers behind the proxy, or undo it "
                   "(hostshape proxy-config --help)")
    return parser


def _policy(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from hostshape.policy import Policy

    policy = Policy.from_toml(args.policy) if getattr(args, "policy", None) else Policy()
    return policy.replace(budget=args.budget) if getattr(args, "budget", None) else policy


def _shape(args: argparse.Namespace) -> int:
    import json

    from hostshape.pipeline import shape

    try:
        data = sys.stdin.buffer.read() if args.path == "-" else open(args.path, "rb").read()
    except OSError as exc:
        print(f"hostshape: cannot read {args.path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        policy = _policy(args)
    except (OSError, ValueError) as exc:
        print(f"hostshape: bad policy: {exc}", file=sys.stderr)
        return 2
    result = shape(data, policy=policy, tool=args.tool, server=args.server)
    sys.stdout.write(result.text)
    sys.stdout.flush()
    if args.stats:
        stats = result.stats()
        stats["tokens_after"] = result.tokens
        print(json.dumps(stats), file=sys.stderr)
    return 0


def _read(args: argparse.Namespace) -> int:
    from hostshape.retrieve import read

    policy = _policy(args).replace(retrieval_tool="`hostshape read HANDLE --cursor NEXT`")
    sys.stdout.write(read(args.handle, query=args.query, cursor=args.cursor, policy=policy))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from hostshape.demo import main as demo_main

    return demo_main(budget=args.budget, as_json=args.json, hosts=args.host)


if __name__ == "__main__":
    raise SystemExit(main())
