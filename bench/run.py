"""Run the whole benchmark: hostshape against its peers, and against the parsing floor.

    python bench/run.py                      # everything; writes bench/RESULTS.md and bench/results.json
    python bench/run.py --budgets 4000 --runs 3 --files gh_pulls_list.json --out /tmp/b

Offline; a few minutes on two cores. Peers that are not installed are listed as such and skipped
(``pip install -e . --group bench`` installs them all).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import core, corpus, hostbench, hostpeers, hostruns, measure, peers, report  # noqa: E402 - after sys.path

BUDGETS = (2000, 4000, 8000)
NOTES = Path(__file__).with_name("NOTES.md")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS), help="o200k token budgets")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per cell (median; fast cells run more)")
    ap.add_argument("--files", nargs="+", help="payload file names (default: every file in --corpus)")
    ap.add_argument("--corpus", type=Path, default=None, help="payload folder (default: hostshape/examples/payloads)")
    ap.add_argument("--tools", nargs="+", help="tool names to run (default: all)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for RESULTS.md / results.json")
    ap.add_argument("--no-core", action="store_true", help="skip the json.loads comparison")
    ap.add_argument("--quiet", action="store_true", help="print nothing but the final report")
    ap.add_argument("--no-hosts", action="store_true", help="skip the real Claude Code CLI / OpenAI Agents runs")
    ap.add_argument("--host-runs", type=int, default=3, help="timed runs per cell for the host peers' table")
    return ap.parse_args(argv)


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def _git_commit() -> str:
    sha = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--", "hostshape")
    return (sha + (" + uncommitted core changes" if dirty else "")) if sha else "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def main(argv: list[str] | None = None) -> str:
    args = _parse(argv)

    def say(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    payloads = corpus.load(args.corpus or corpus.PAYLOADS, args.files)
    all_tools = [*peers.TOOLS, *hostpeers.HOST_PEERS]
    tools = [t for t in all_tools if not args.tools or t.name in args.tools]
    missing = {t.name: why for t in tools if (why := t.available())}
    started = time.perf_counter()

    for name, why in missing.items():
        say(f"skip {name}: {why}")
    live = [t for t in tools if t.name not in missing]
    rows = measure.measure_all([t for t in live if t in peers.TOOLS], payloads, args.budgets, args.runs, say)

    # The peers that hook the same hosts (issue 22): every payload here and in corpus/, their own table.
    host_tools = [t for t in live if t is peers.HOSTSHAPE or t in hostpeers.HOST_PEERS]
    host_payloads = payloads + ([] if args.corpus or args.files else hostbench.load_corpus())
    host_rows: list[hostbench.HostRow] = []
    if len(host_tools) > 1:
        host_rows = hostbench.measure(host_tools, host_payloads, args.budgets, args.host_runs, say)
        others = [t for t in live if t in peers.PEERS]
        host_rows += hostbench.untimed(others, host_payloads, args.budgets)
        host_tools = [*host_tools, *others]
    run_rows: list[hostruns.HostRunRow] = []
    run_skipped: dict[str, str] = {}
    if not args.no_hosts and any(t in hostpeers.HOST_PEERS for t in host_tools):
        run_rows, run_skipped = hostruns.run_all(payloads, args.budgets, say)

    core_rows = passthrough = None
    if not args.no_core and "hostshape" not in missing and any(t.name == "hostshape" for t in tools):
        t0 = time.perf_counter()
        core_rows = core.measure_core(payloads, args.budgets, args.runs)
        passthrough = core.passthrough_ms(args.runs)
        say(f"core vs json.loads: {time.perf_counter() - t0:.1f}s")

    versions = {t.distribution: t.version() for t in tools}
    versions.update({d: _version(d) for d in (*hostpeers.DISTRIBUTIONS, "claude-agent-sdk")})
    versions.update({d: _version(d) for d in ("mcp", "langchain-core", "orjson", "tiktoken")})
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "hostshape_commit": _git_commit(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": f"{_cpu()} ({os.cpu_count()} cores)",
        "runs": args.runs,
        "host_runs": args.host_runs,
        "budgets": args.budgets,
        "seconds": round(time.perf_counter() - started, 1),
    }
    ran = [t.name for t in tools if t.name not in missing]
    peer_names = {t.name for t in peers.TOOLS}
    text = render(rows, core_rows, passthrough, versions, missing, env, [n for n in ran if n in peer_names])
    text += render_hosts(host_rows, host_tools, run_rows, run_skipped, env)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "RESULTS.md").write_text(text, encoding="utf-8")
    data = {
        "env": env,
        "versions": versions,
        "missing": missing,
        "rows": [r.as_dict() for r in rows],
        "core": [r.as_dict() for r in core_rows or []],
        "passthrough_ms": passthrough,
        "host_peers": [r.as_dict() for r in host_rows],
        "host_runs": [r.as_dict() for r in run_rows],
        "host_runs_skipped": run_skipped,
    }
    (args.out / "results.json").write_text(_json_lines(data), encoding="utf-8")
    print(text)
    say(f"wrote {args.out / 'RESULTS.md'} and results.json in {env['seconds']}s")
    return text


def _json_lines(data: dict[str, object]) -> str:
    """JSON with one row per line, so that a re-run shows up as a readable diff."""
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            inner = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f" {json.dumps(key)}: [\n{inner}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def render(
    rows: list[measure.Row],
    core_rows: list[core.CoreRow] | None,
    passthrough: dict[str, float] | None,
    versions: dict[str, str],
    missing: dict[str, str],
    env: dict[str, object],
    tool_names: list[str],
) -> str:
    summary, verdict = report.summary(rows)
    out = [
        "# hostshape benchmark results",
        "",
        (
            f"Generated by `python bench/run.py` on {env['date']} (hostshape commit {env['hostshape_commit']}); "
            f"Python {env['python']} on {env['cpu']}, {env['platform']}. Median of at least {env['runs']} runs per "
            f"cell, all tools in the same process run; whole run {env['seconds']} s. Method: bench/README.md."
        ),
        "",
        "Versions measured: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
    ]
    if missing:
        out += ["", "Not installed, skipped: " + "; ".join(f"{k} ({v})" for k, v in missing.items())]
    out += ["", "## Goals", "", report.goals(verdict, core_rows, passthrough)]
    out += [
        "",
        f"## hostshape and its peers over {len({r.file for r in rows})} payloads x budgets {env['budgets']}",
        "",
        (
            "Settings: *user*, the size knob at budget x 4 in the tool's unit (ClearToolUsesEdit: trigger = budget); "
            "*loop*, what a user who needs the token cap writes: the user setting, an exact count of the output and "
            "up to 4 retries with the knob scaled down (timed whole, counting included); *best*, the largest knob "
            "whose output fits, found by search beforehand (only the final call is timed, so this is the most "
            "favourable case for the peer). Time ratio below 1 means hostshape is faster (0.10 = 10x faster)."
        ),
        "",
        summary,
    ]
    for setting in measure.SETTINGS:
        for budget in env["budgets"]:  # type: ignore[attr-defined]
            out += [
                "",
                f"### {budget:,} tokens, {setting} setting",
                "",
                (
                    "Cell: output tokens, ✓ fits / ✗ over; J valid JSON / ~~J~~ broken JSON; r identifier recall; "
                    "median time; @knob (for *loop*, the knob it starts from)."
                ),
                "",
                report.detail(rows, budget, setting, tool_names),
            ]
    if core_rows:
        out += [
            "",
            "## hostshape against the parsing floor (issue 2)",
            "",
            (
                "Shaping the payload text (and the same text as a FastMCP CallToolResult dict with its "
                "structuredContent mirror) vs parsing the same text."
            ),
            "",
            report.core_table(core_rows),
        ]
    if passthrough:
        out += ["", "Under-budget pass-through:", "", report.passthrough_table(passthrough)]
    if NOTES.is_file():
        out += ["", NOTES.read_text(encoding="utf-8").strip()]
    return "\n".join(out) + "\n"


def render_hosts(
    rows: list[hostbench.HostRow],
    tools: list[peers.Tool],
    run_rows: list[hostruns.HostRunRow],
    run_skipped: dict[str, str],
    env: dict[str, object],
) -> str:
    """The section on the peers that hook the same hosts (issue 22)."""
    if not rows:
        return ""
    budgets: list[int] = env["budgets"]  # type: ignore[assignment]
    out = [
        "",
        f"## hostshape and the peers that hook the same hosts, {len({r.file for r in rows})} payloads x {budgets}",
        "",
        (
            "Each peer through its own public API at its user setting (a token knob set to the budget; peers without "
            "one at their documented defaults: see *knob*); setup and file:line in bench/hostpeers.py. *rest "
            "retrievable*: the part the model did not see comes back whole through the tool's own way back (store, "
            "ref, handle, pages); unchanged output counts as retrievable. *tasks*: questions an agent asks next, "
            "answered from the text alone by bench/tasks.py. Time: hostshape's median ÷ the tool's, round-robin in "
            f"one loop (median of {env.get('host_runs', 3)} runs; calls over {hostbench.SLOW_SECONDS:.2f} s are timed "
            "once); above 1 means the tool is faster. The last rows are the peers of the tables above at their user "
            "setting, judged the same way on the same payloads (their times: above)."
        ),
        "",
        hostbench.summary(rows, tools),
    ]
    for budget in budgets:
        out += [
            "",
            f"### {budget:,} tokens, peers that hook the same hosts",
            "",
            (
                "Cell: tokens received ✓ fits / ✗ over; J valid JSON / ~~J~~ broken; r identifier recall; R rest "
                "retrievable / ~~R~~ not; t tasks answered; ×N hostshape's time ÷ the tool's (hostshape: its ms)."
            ),
            "",
            hostbench.detail(rows, budget, [t for t in tools if t not in peers.PEERS]),
        ]
    if run_rows or run_skipped:
        out += [
            "",
            "### Inside the real hosts",
            "",
            (
                "The real Claude Code CLI (offline, loopback model) and a real OpenAI Agents run, the example MCP "
                "server's tool for each payload; tokens are what the model received (bench/hostruns.py)."
            ),
            "",
            hostruns.table(run_rows, budgets),
        ]
        if run_skipped:
            out += ["", "Skipped: " + "; ".join(f"{k} ({v})" for k, v in run_skipped.items())]
    lost = hostbench.losses(rows)
    out += ["", "### Where a peer beats hostshape", ""]
    out += [f"- {line}" for line in hostbench.loss_summary(lost)] or ["- nowhere in this run"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
