"""Speed: the command hook's wall time, and in-process shaping against its floor.

    python bench/latency.py                 # both tables (markdown) on stdout; a few minutes on two cores
    python bench/latency.py --runs 5 --budgets 4000 --files gh_pulls_list.json
    python bench/latency.py --readme docs/benchmark.md   # and put the tables into the benchmark page's Speed section

- **Hook latency**: the whole ``hostshape hook claude-code`` process (interpreter start, imports, the tokenizer from
  its per-user cache, shaping, output) on a PostToolUse input carrying a small, a medium and a large MCP result,
  timed round-robin with ``python -c pass`` so that every ratio is taken under the same machine load.
- **Floor ratio**: per corpus file and budget, in-process ``shape()`` CPU time over its floor: ``json.loads`` of the
  input (JSON files; nothing for text) plus one exact o200k count of the text shape() returned. Any exact-budget
  shaper has to parse the input and count what it sends at least once.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import median_seconds  # noqa: E402
from hostshape.examples import PAYLOADS  # noqa: E402

BUDGETS = (2000, 4000, 8000)
# (label, payload file, characters of it): small passes through, medium and large are shaped
HOOK_CASES = (
    ("small", "gh_issues_list.json", 3_500),  # within 4,000 bytes: passes without the tokenizer
    ("medium", "gh_issues_list.json", 21_000),
    ("large", "gh_pulls_list.json", None),
)


def hook_input(text: str) -> bytes:
    """A Claude Code PostToolUse input carrying ``text`` as one MCP text block."""
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/nonexistent/bench.jsonl",
            "cwd": "/tmp",
            "hook_event_name": "PostToolUse",
            "tool_name": "mcp__corpus__bench",
            "tool_input": {},
            "tool_response": [{"type": "text", "text": text}],
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def _hook_command() -> list[str]:
    exe = Path(sys.executable).with_name("hostshape")
    if exe.exists():
        return [str(exe), "hook", "claude-code"]
    return [sys.executable, "-c", "import sys; from hostshape.cli import main; sys.exit(main())", "hook", "claude-code"]


def hook_table(runs: int) -> tuple[list[dict[str, Any]], float]:
    """Per case: median and spread (min-max) of the hook process wall time and its ratio to ``python -c pass``."""
    work = Path(tempfile.mkdtemp(prefix="hostshape-latency-"))
    policy = work / "policy.toml"
    policy.write_text(f'[spill]\ndir = "{(work / "spill").as_posix()}"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hook = [*_hook_command(), "--policy", str(policy)]
    inputs = []
    for label, file, chars in HOOK_CASES:
        text = (PAYLOADS / file).read_text(encoding="utf-8")
        inputs.append((label, hook_input(text if chars is None else _cut_json(text, chars))))

    def run(cmd: list[str], data: bytes) -> tuple[float, float, bytes]:
        """Wall seconds, CPU seconds (user + system of the child) and stdout of one process."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, input=data, capture_output=True, env=env, cwd=work, check=True, timeout=120)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout

    python = [sys.executable, "-c", "pass"]
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in [("python", b""), *inputs]}
    shaped = {label: bool(run(hook, data)[2]) for label, data in inputs}  # warm-up; writes the tokenizer cache
    for _ in range(runs):
        for label, cmd, data in [("python", python, b""), *((label, hook, data) for label, data in inputs)]:
            samples[label].append(run(cmd, data)[:2])
    base_wall = statistics.median(w for w, _ in samples["python"])
    base_cpu = statistics.median(c for _, c in samples["python"])
    rows = []
    for label, data in inputs:
        wall = [w for w, _ in samples[label]]
        cpu = statistics.median(c for _, c in samples[label])
        rows.append(
            {
                "case": f"{label} ({len(data) / 1000:.0f} KB)",
                "bytes": len(data),
                "shaped": shaped[label],
                "median_s": statistics.median(wall),
                "min_s": min(wall),
                "max_s": max(wall),
                "vs_python": statistics.median(wall) / base_wall,
                "cpu_s": cpu,
                "cpu_vs_python": cpu / base_cpu,
            }
        )
    return rows, base_wall, base_cpu


def _cut_json(text: str, chars: int) -> str:
    """The first records of a JSON list whose compact text stays within ``chars``."""
    records, out = json.loads(text), []
    for r in records:
        if len(json.dumps([*out, r], separators=(",", ":"))) > chars:
            break
        out.append(r)
    return json.dumps(out, separators=(",", ":"))


def median_cpu_seconds(
    calls: list[tuple[Callable[[Any], Any], Any]], runs: int, min_total: float = 0.05
) -> list[float]:
    """Median CPU time of each ``fn(arg)``, timed round-robin after a warm-up call each, the garbage collector off.

    CPU time (``time.thread_time``) rather than wall time: on a shared two-core machine the wall clock of one call
    mostly measures who else ran meanwhile; the ratios are taken between calls of the same rounds either way.
    """
    return median_seconds(calls, runs, min_total, clock=time.thread_time)


def floor_table(files: list[str], budgets: list[int], runs: int) -> list[dict[str, Any]]:
    """Per file and budget: shape() time, json.loads time, one exact count of the output, and the ratio."""
    from hostshape import Policy, shape
    from hostshape.tokens import count_tokens

    spill = tempfile.mkdtemp(prefix="hostshape-floor-")
    rows = []
    for file in files:
        text = (PAYLOADS / file).read_text(encoding="utf-8")
        is_json = file.endswith(".json")
        for budget in budgets:
            policy = Policy(budget=budget, spill_dir=spill)

            def shape_it(raw: str, policy: Policy = policy, tool: str = Path(file).stem) -> Any:
                return shape(raw, policy=policy, tool=tool, server="corpus")

            out = shape_it(text)
            calls: list[tuple[Callable[[Any], Any], Any]] = [(shape_it, text), (count_tokens, out.text)]
            if is_json:
                calls.append((json.loads, text))
            ms = [s * 1000 for s in median_cpu_seconds(calls, runs)]
            parse = ms[2] if is_json else 0.0
            tokenizing = statistics.median(_tokenizer_ms(shape_it, text) for _ in range(max(3, runs // 2)))
            rows.append(
                {
                    "file": file,
                    "budget": budget,
                    "strategy": out.strategy,
                    "shape_ms": ms[0],
                    "parse_ms": parse,
                    "count_ms": ms[1],
                    "vs_floor": ms[0] / (parse + ms[1]),
                    "tokenizer_ms": tokenizing,
                }
            )
    return rows


def _tokenizer_ms(shape_it: Callable[[str], Any], text: str) -> float:
    """CPU ms that one shape() call spends inside the tokenizer (every encode_ordinary it makes)."""
    from hostshape.tokens import counter

    enc = counter()
    real = enc.encode_ordinary
    spent = [0.0]

    def timed(piece: str) -> list[int]:
        t0 = time.thread_time()
        try:
            return real(piece)
        finally:
            spent[0] += time.thread_time() - t0

    enc.encode_ordinary = timed  # type: ignore[method-assign]
    try:
        shape_it(text)
    finally:
        del enc.encode_ordinary
    return spent[0] * 1000


def report(
    hook_rows: list[dict[str, Any]], base: tuple[float, float], floor_rows: list[dict[str, Any]], runs: int
) -> str:
    lines = [
        f"Hook latency: `hostshape hook claude-code`, whole process, {runs} runs each, interleaved with "
        f"`python -c pass` (median {base[0] * 1000:.0f} ms wall, {base[1] * 1000:.0f} ms CPU in this run).",
        "",
        "| result | shaped | wall median | wall spread (min-max) | wall vs `python -c pass` | CPU median | "
        "CPU vs `python -c pass` |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in hook_rows:
        lines.append(
            f"| {r['case']} | {'yes' if r['shaped'] else 'no'} | {r['median_s']:.3f} s | "
            f"{r['min_s']:.3f}-{r['max_s']:.3f} s | {r['vs_python']:.1f}x | {r['cpu_s']:.3f} s | "
            f"{r['cpu_vs_python']:.1f}x |"
        )
    budgets = sorted({r["budget"] for r in floor_rows})
    lines += [
        "",
        "Floor ratio: in-process `shape()` time / (`json.loads` of the input + one exact count of the "
        "returned text); text files have no parse term.",
        "",
        "| file | " + " | ".join(f"{b:,}" for b in budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    for file in dict.fromkeys(r["file"] for r in floor_rows):
        cells = {r["budget"]: r for r in floor_rows if r["file"] == file}
        lines.append(f"| {file} | " + " | ".join(f"{cells[b]['vs_floor']:.2f}x" for b in budgets) + " |")
    lines += [
        "",
        "Where the time above the floor goes, summed over the table: shape() "
        f"{sum(r['shape_ms'] for r in floor_rows):.0f} ms = tokenizer "
        f"{sum(r['tokenizer_ms'] for r in floor_rows):.0f} ms (the floor's own count: "
        f"{sum(r['count_ms'] for r in floor_rows):.0f} ms) + everything else "
        f"{sum(r['shape_ms'] - r['tokenizer_ms'] for r in floor_rows):.0f} ms (the floor's parse: "
        f"{sum(r['parse_ms'] for r in floor_rows):.0f} ms).",
    ]
    ratios = [r["vs_floor"] for r in floor_rows]
    worst = max(floor_rows, key=lambda r: r["vs_floor"])
    lines += [
        "",
        f"Median {statistics.median(ratios):.2f}x, worst {worst['vs_floor']:.2f}x "
        f"({worst['file']} at {worst['budget']:,}: shape {worst['shape_ms']:.1f} ms, parse "
        f"{worst['parse_ms']:.1f} ms, count {worst['count_ms']:.1f} ms).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(prog="bench/latency.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--files", nargs="+", help="payload file names (default: every file in the corpus)")
    ap.add_argument("--no-hook", action="store_true", help="only the floor table")
    ap.add_argument("--json", type=Path, help="also write the raw rows here")
    ap.add_argument("--readme", type=Path, help="also put the tables between the speed-table markers of this file")
    args = ap.parse_args(argv)
    files = args.files or sorted(p.name for p in PAYLOADS.iterdir() if p.is_file())
    hook_rows, *base = ([], 1.0, 1.0) if args.no_hook else hook_table(args.runs)
    floor_rows = floor_table(files, args.budgets, args.runs)
    text = report(hook_rows, (base[0], base[1]), floor_rows, args.runs)
    if args.json:
        args.json.write_text(json.dumps({"hook": hook_rows, "python_s": base, "floor": floor_rows}, indent=1))
    if args.readme:
        _into_readme(args.readme, text)
    print(text)
    return text


def _into_readme(path: Path, text: str) -> None:
    start, end = "<!-- speed-table -->\n", "<!-- /speed-table -->"
    readme = path.read_text(encoding="utf-8")
    head, _, rest = readme.partition(start)
    _, _, tail = rest.partition(end)
    if not rest or (not tail and end not in rest):
        raise SystemExit(f"{path} has no speed-table markers")
    path.write_text(f"{head}{start}{text}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
