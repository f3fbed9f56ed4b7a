"""Measuring one tool on one payload at one budget: the output's quality, the most favourable knob, the time."""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bench.corpus import Payload
from bench.peers import Tool
from hostshape.tokens import count_tokens

_token_cache: dict[str, int] = {}


def tokens(text: str) -> int:
    """Exact o200k count of ``text`` (memoised: searches see the same outputs again and again)."""
    n = _token_cache.get(text)
    if n is None:
        n = _token_cache[text] = count_tokens(text)
    return n


def fits(text: str, budget: int) -> bool:
    # A BPE token covers at least one byte, so a text no longer in bytes than the budget fits without encoding.
    return len(text.encode("utf-8")) <= budget or tokens(text) <= budget


def median_seconds(
    calls: list[tuple[Callable[[Any], Any], Any]],
    runs: int,
    min_total: float = 0.05,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Median time of each ``fn(arg)`` in ``calls`` on ``clock`` (wall time by default), timed round-robin after one
    warm-up call each.

    Interleaving puts every call under the same machine load, so ratios between them hold even on a busy host.
    Rounds go on past ``runs`` until ``min_total`` seconds have passed (at most 20 x ``runs`` rounds), so that
    sub-millisecond medians are not dominated by timer noise. The garbage collector is off, as in timeit.
    """
    for fn, arg in calls:
        fn(arg)
    samples: list[list[float]] = [[] for _ in calls]
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.perf_counter()
        rounds = 0
        while rounds < runs or (time.perf_counter() - started < min_total and rounds < 20 * runs):
            for (fn, arg), out in zip(calls, samples, strict=True):
                t0 = clock()
                fn(arg)
                out.append(clock() - t0)
            rounds += 1
    finally:
        if enabled:
            gc.enable()
    return [statistics.median(x) for x in samples]


@dataclass
class Row:
    """One tool, one payload, one budget, one knob setting."""

    tool: str
    setting: str  # "user" (budget x 4 in the tool's unit), "loop" (fit_loop) or "best" (largest knob that fits)
    knob: int
    unit: str
    file: str
    kind: str
    budget: int
    input_tokens: int
    tokens: int
    fits: bool
    valid_json: bool | None  # None when the input was not JSON
    recall: float | None
    ms: float | None
    changed: bool
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _attempt(tool: Tool, shrink: Callable[[Any], Any], prepared: Any) -> tuple[str | None, str | None]:
    """(output text, error); output None when the tool raised."""
    try:
        return tool.read(shrink(prepared)), None
    except Exception as exc:  # noqa: BLE001 - a peer's failure is a result, not a crash
        return None, f"{type(exc).__name__}: {str(exc)[:120]}"


LOOP_TRIES = 5


def fit_loop(tool: Tool, budget: int) -> Callable[[Any], Any]:
    """What a user who needs the token cap writes around a tool whose knob is not in tokens: shrink at the user
    setting, count the output exactly, and retry with the knob scaled by budget / tokens x 0.97 (at most 5 tries).
    The whole loop, counting included, is what gets timed."""

    def run(prepared: Any) -> Any:
        knob = tool.user_knob(budget)
        for _ in range(LOOP_TRIES):
            shrunk = tool.build(knob)(prepared)
            text = tool.read(shrunk)
            if len(text.encode("utf-8")) <= budget:
                return shrunk
            n = count_tokens(text)
            if n <= budget:
                return shrunk
            knob = max(1, int(knob * budget / n * 0.97))
        return shrunk

    return run


def best_knob(tool: Tool, payload: Payload, prepared: Any, budget: int) -> int:
    """The largest knob whose output fits the budget; 1 when none does.

    Exponential search out from the user's setting, then bisection (assumes the output grows with the knob). Knobs
    above 4x the input's size all give the same output, so the search stops there.
    """

    def ok(knob: int) -> bool:
        out, err = _attempt(tool, tool.build(knob), prepared)
        return err is None and out is not None and fits(out, budget)

    cap = 4 * len(payload.text.encode("utf-8")) + 1024
    k = min(max(tool.user_knob(budget), 1), cap)
    if ok(k):
        lo, hi = k, min(2 * k, cap)
        while ok(hi):
            if hi == cap:
                return cap
            lo, hi = hi, min(2 * hi, cap)
    else:
        lo, hi = k // 2, k
        while lo >= 1 and not ok(lo):
            lo, hi = lo // 2, lo
        if lo < 1:
            return 1
    while hi - lo > 1:  # lo fits, hi does not
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class Cell:
    """A measured row with what it takes to time it."""

    row: Row
    shrink: Callable[[Any], Any]
    prepared: Any


def evaluate(
    tool: Tool, payload: Payload, budget: int, setting: str, knob: int, shrink: Callable[[Any], Any] | None = None
) -> Cell:
    """Run the tool once (at ``knob``, or as ``shrink``) and judge its output; ``time_cells`` adds the time."""
    prepared = tool.prepare(payload.text, payload.tool)
    shrink = shrink or tool.build(knob)
    out, err = _attempt(tool, shrink, prepared)
    if out is None:
        out = payload.text  # what a user who catches the error would send on
    valid: bool | None = None
    if payload.is_json:
        try:
            json.loads(out)
            valid = True
        except ValueError:
            valid = False
    row = Row(
        tool=tool.name,
        setting=setting,
        knob=knob,
        unit=tool.unit,
        file=payload.name,
        kind=payload.kind,
        budget=budget,
        input_tokens=tokens(payload.text),
        tokens=tokens(out),
        fits=fits(out, budget),
        valid_json=valid,
        recall=payload.recall(out),
        ms=None,
        changed=out != payload.text,
        error=err,
    )
    return Cell(row, shrink, prepared)


SETTINGS = ("user", "loop", "best")


def cells_for(tool: Tool, payload: Payload, budget: int) -> list[Cell]:
    """The user's setting and, for tools whose knob is not exact tokens, the fit loop and the most favourable one."""
    user = tool.user_knob(budget)
    cells = [evaluate(tool, payload, budget, "user", user)]
    if tool.searchable:
        cells.append(evaluate(tool, payload, budget, "loop", user, fit_loop(tool, budget)))
        prepared = tool.prepare(payload.text, payload.tool)
        cells.append(evaluate(tool, payload, budget, "best", best_knob(tool, payload, prepared, budget)))
    return cells


def time_cells(cells: list[Cell], runs: int) -> None:
    """Fill in each row's median time; cells whose tool raised stay untimed."""
    live = [c for c in cells if c.row.error is None]
    for cell, seconds in zip(live, median_seconds([(c.shrink, c.prepared) for c in live], runs), strict=True):
        cell.row.ms = seconds * 1000


def measure_all(
    tools: list[Tool], payloads: list[Payload], budgets: list[int], runs: int, say: Callable[[str], None]
) -> list[Row]:
    """Every tool x payload x budget; all tools on one payload and budget are timed together, interleaved."""
    rows: list[Row] = []
    for payload in payloads:
        t0 = time.perf_counter()
        for budget in budgets:
            cells = [cell for tool in tools for cell in cells_for(tool, payload, budget)]
            time_cells(cells, runs)
            rows += [c.row for c in cells]
        say(f"{payload.name}: {time.perf_counter() - t0:.1f}s")
    order = {t.name: i for i, t in enumerate(tools)}
    return sorted(rows, key=lambda r: order[r.tool])  # stable: by tool, then payload and budget as measured
