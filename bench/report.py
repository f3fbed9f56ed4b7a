"""Markdown for bench/RESULTS.md: goals, the summary against peers, per-file detail, and the core's parsing floor."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from typing import Any

from bench.core import LARGE_BYTES, CoreRow
from bench.measure import Row

GOAL_BUDGET = 4000  # issue 10: identifier recall >= 0.98 on list payloads at 4,000 tokens
GOAL_RECALL = 0.98
GOAL_SPEEDUP = 10.0  # issue 10: at least 10x faster than every peer that keeps JSON valid
GOAL_PARSE_RATIO = 2.0  # issue 2: shaping <= 2x json.loads on the large files
GOAL_PASSTHROUGH_MS = 1.0  # issue 2: under-budget pass-through in about a millisecond


def _geomean(xs: Iterable[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else None


def _f(x: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def _ms(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 0.1 else f"{x:.2f}" if x < 10 else f"{x:.1f}"


def keeps_json(rows: list[Row]) -> bool:
    """Whether every output for a JSON input (where the tool did not raise) is valid JSON."""
    return all(r.valid_json for r in rows if r.valid_json is not None and r.error is None)


def speed_ratios(hs: dict[tuple[str, int], Row], rows: list[Row], json_only: bool = False) -> list[float]:
    """hostshape's time / the peer's time, for each (file, budget) both completed."""
    out = []
    for r in rows:
        h = hs.get((r.file, r.budget))
        if h and h.ms and r.ms and (not json_only or r.valid_json is not None):
            out.append(h.ms / r.ms)
    return out


def summary(rows: list[Row]) -> tuple[str, dict[str, Any]]:
    """The summary table (one line per tool and setting) and the goal verdicts."""
    hs = {(r.file, r.budget): r for r in rows if r.tool == "hostshape"}
    groups: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.tool, r.setting), []).append(r)
    lines = [
        (
            "| tool | setting | fits | JSON stays valid | list recall @4k (mean / min) | median ms (all cells) "
            "| hostshape ÷ tool time (geo-mean; worst) |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    verdict: dict[str, Any] = {"json_keeping_peers": {}}
    for (tool, setting), rs in groups.items():
        n_fit = sum(r.fits for r in rs)
        js = [r for r in rs if r.valid_json is not None]
        n_json = sum(bool(r.valid_json) for r in js)
        errors = sum(r.error is not None for r in rs)
        rec = [r.recall for r in rs if r.kind == "list" and r.budget == GOAL_BUDGET and r.recall is not None]
        ms = [r.ms for r in rs if r.ms is not None]
        if tool == "hostshape":
            ratio = "1"
        else:
            ratios = speed_ratios(hs, rs)
            g = _geomean(ratios)
            ratio = f"{_f(g)}; {_f(max(ratios))}" if ratios else "–"
            if keeps_json(rs) and js:
                verdict["json_keeping_peers"][f"{tool} ({setting})"] = {
                    "geomean": g,
                    "worst": max(ratios) if ratios else None,
                    "json_ratios": speed_ratios(hs, rs, json_only=True),
                    "json_ms": {(r.file, r.budget): r.ms for r in js if r.ms},
                }
        err = f" ({errors} errors)" if errors else ""
        lines.append(
            f"| {tool} | {setting} | {n_fit}/{len(rs)}{err} | {n_json}/{len(js)} | "
            f"{_f(statistics.fmean(rec)) if rec else '–'} / {_f(min(rec)) if rec else '–'} | "
            f"{_ms(statistics.median(ms)) if ms else '–'} | {ratio} |"
        )
    h = list(hs.values())
    if h:
        rec4 = [r for r in h if r.kind == "list" and r.budget == GOAL_BUDGET]
        verdict["hostshape_fits"] = all(r.fits for r in h)
        verdict["hostshape_json_valid"] = all(r.valid_json for r in h if r.valid_json is not None)
        verdict["hostshape_recall_ok"] = all((r.recall or 0) >= GOAL_RECALL for r in rec4) if rec4 else None
        verdict["hostshape_recall_misses"] = [(r.file, r.recall) for r in rec4 if (r.recall or 0) < GOAL_RECALL]
        verdict["hostshape_not_fitting"] = [(r.file, r.budget, r.tokens) for r in h if not r.fits]
        verdict["hostshape_invalid_json"] = [(r.file, r.budget) for r in h if r.valid_json is False]
    return "\n".join(lines), verdict


def _reachable(peer_ms: dict[tuple[str, int], float], core: list[CoreRow] | None) -> str:
    """How many cells leave room for 10x at all: orjson.loads plus one exact count of the output <= peer time / 10."""
    if not core:
        return ""
    floor = {(r.file, r.budget): (r.orjson_ms or 0) + r.count_ms for r in core if r.orjson_ms is not None}
    cells = [(floor[k], ms) for k, ms in peer_ms.items() if k in floor]
    ok = sum(f <= ms / GOAL_SPEEDUP for f, ms in cells)
    return (
        f"; 10x is within reach of any exact-token shaper (orjson.loads + one count of its output) on only "
        f"{ok} of {len(cells)} cells"
    )


def goals(verdict: dict[str, Any], core: list[CoreRow] | None, passthrough: dict[str, float] | None) -> str:
    def mark(ok: bool | None) -> str:
        return "**met**" if ok else "**NOT MET**" if ok is not None else "not measured"

    out = ["| goal | result |", "|---|---|"]
    if "hostshape_fits" in verdict:
        nf = verdict["hostshape_not_fitting"]
        out.append(
            f"| every hostshape output fits its budget | {mark(verdict['hostshape_fits'])}"
            + (f": over budget {nf}" if nf else "")
            + " |"
        )
        nj = verdict["hostshape_invalid_json"]
        out.append(
            f"| JSON in, valid JSON out | {mark(verdict['hostshape_json_valid'])}"
            + (f": invalid {nj}" if nj else "")
            + " |"
        )
        miss = ", ".join(f"{f} {r:.2f}" for f, r in verdict["hostshape_recall_misses"])
        out.append(
            f"| identifier recall >= {GOAL_RECALL} on list payloads at {GOAL_BUDGET:,} tokens | "
            f"{mark(verdict['hostshape_recall_ok'])}" + (f": {miss}" if miss else "") + " |"
        )
        for peer, v in verdict["json_keeping_peers"].items():
            jr = v["json_ratios"]
            worst = max(jr) if jr else None
            ok = worst is not None and worst <= 1 / GOAL_SPEEDUP
            out.append(
                f"| >= {GOAL_SPEEDUP:.0f}x faster than {peer}, which keeps JSON valid (every JSON file and budget) | "
                f"{mark(ok)}: hostshape takes {_f(_geomean(jr))}x its time on average, {_f(worst)}x at worst "
                f"(goal <= {1 / GOAL_SPEEDUP:.2f}x){_reachable(v['json_ms'], core)} |"
            )
    if core:
        large = [r for r in core if r.bytes >= LARGE_BYTES and r.vs_json is not None and r.changed]
        if large:
            worst = max(large, key=lambda r: r.vs_json or 0)
            floor = max(r.vs_floor or 0 for r in large)
            out.append(
                f"| shaping <= {GOAL_PARSE_RATIO:.0f}x json.loads on the large JSON files (>= 100 KB, all budgets) | "
                f"{mark((worst.vs_json or 0) <= GOAL_PARSE_RATIO)}: worst {worst.vs_json:.2f}x "
                f"({worst.file} at {worst.budget:,}); against json.loads plus one exact count of the output, "
                f"worst {floor:.2f}x |"
            )
    if passthrough:
        worst_ms = max(passthrough.values())
        out.append(
            f"| under-budget pass-through in about {GOAL_PASSTHROUGH_MS:.0f} ms | "
            f"{mark(worst_ms <= GOAL_PASSTHROUGH_MS * 1.5)}: at most {worst_ms:.3f} ms |"
        )
    return "\n".join(out)


def detail(rows: list[Row], budget: int, setting: str, tools: list[str]) -> str:
    """One table per budget and setting: a row per file, a cell per tool."""
    cell: dict[tuple[str, str], Row] = {}
    files: list[str] = []
    for r in rows:
        if r.budget == budget and (r.setting == setting or r.tool == "hostshape"):
            cell[(r.file, r.tool)] = r
            if r.file not in files:
                files.append(r.file)
    head = "| file (input tokens) | " + " | ".join(tools) + " |"
    lines = [head, "|---" * (len(tools) + 1) + "|"]
    for f in files:
        first = next(r for (ff, _), r in cell.items() if ff == f)
        cells = []
        for t in tools:
            r = cell.get((f, t))
            if r is None:
                cells.append("–")
                continue
            if r.error:
                cells.append(f"error ({r.error.split(':')[0]})")
                continue
            fit = "✓" if r.fits else "✗"
            js = "" if r.valid_json is None else (" J" if r.valid_json else " ~~J~~")
            rec = "" if r.recall is None else f" r{r.recall:.2f}"
            knob = "" if t == "hostshape" else f" @{r.knob:,}"
            cells.append(f"{r.tokens:,}{fit}{js}{rec} {_ms(r.ms)}ms{knob}")
        lines.append(f"| {f} ({first.input_tokens:,}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def core_table(core: list[CoreRow]) -> str:
    lines = [
        (
            "| file | bytes | budget | strategy | shape ms | shape ms (CallToolResult) | json.loads ms | orjson ms "
            "| count(output) ms | shape ÷ json.loads | shape ÷ orjson | shape ÷ (json.loads + count) |"
        ),
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in core:
        strategy = r.strategy if r.changed else f"{r.strategy} (unchanged)"
        lines.append(
            f"| {r.file} | {r.bytes:,} | {r.budget:,} | {strategy} | {_ms(r.shape_ms)} | {_ms(r.shape_mcp_ms)} | "
            f"{_ms(r.json_ms)} | {_ms(r.orjson_ms)} | {_ms(r.count_ms)} | {_f(r.vs_json)} | {_f(r.vs_orjson)} | "
            f"{_f(r.vs_floor)} |"
        )
    return "\n".join(lines)


def passthrough_table(passthrough: dict[str, float]) -> str:
    lines = ["| input (already fits 4,000 tokens) | hostshape ms |", "|---|---:|"]
    lines += [f"| {k} | {_ms(v)} |" for k, v in passthrough.items()]
    return "\n".join(lines)
