"""hostshape against the peers that hook the same hosts (issue 22): one table per run of ``bench/run.py``.

Per tool x payload x budget (2,000 / 4,000 / 8,000): the exact o200k tokens of what the model receives, whether it
fits the budget, valid JSON when the input was JSON, identifier recall (``bench/corpus.py``), whether the rest is
retrievable through the tool's own way back (``bench/hostpeers.RETRIEVE``), the task share (``bench/tasks.py``) and
the time, as a ratio to hostshape timed round-robin in the same loop.

Payloads: ``hostshape/examples/payloads`` and, when present, the top-level ``corpus/`` folder (its manifest names
each file's record list and identifier field; see ``load_corpus``).
"""

from __future__ import annotations

import gc
import json
import math
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import corpus, hostpeers, peers, tasks
from bench.corpus import Payload
from bench.measure import fits, tokens

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = ROOT / "corpus"
#: a call slower than this is timed once per cell (after its warm-up), so that the whole run stays short
SLOW_SECONDS = 0.25


# --- payloads ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusPayload(Payload):
    """A corpus/ payload: its recall is corpus/manifest.toml's (bench/recall.py), its task truth its main list."""

    source: Any = None

    def recall(self, output: str) -> float | None:
        return self.source.recall(output)


def load_corpus(directory: Path = CORPUS_DIR) -> list[Payload]:
    """The payloads of corpus/manifest.toml that live in ``directory`` (the packaged examples are loaded apart)."""
    manifest = directory / "manifest.toml"
    if not manifest.is_file():
        return []
    from bench import recall

    out: list[Payload] = []
    for rp in recall.load(manifest):
        if not rp.file.startswith(f"{directory.name}/"):
            continue
        label = rp.file
        main = rp.main
        ident = main.id if main is not None else ""
        identifiers = tuple(main.identifiers if main else ())
        out.append(CorpusPayload(label, rp.text, rp.is_json, rp.kind, ident, identifiers, rp))
        if main is not None and "@key" not in main.id and rp.kind == "list":
            try:
                records = [r for _k, r in recall.records_at(json.loads(rp.text), main.path) if isinstance(r, dict)]
            except (ValueError, KeyError, TypeError):
                records = []
            if records:
                _TRUTH[label] = (records, main.id)
    return out


_TRUTH: dict[str, tuple[list[Any], str]] = {}


def load_all(files: list[str] | None = None, examples: Path | None = None) -> list[Payload]:
    base: list[Payload] = corpus.load(examples or corpus.PAYLOADS)
    extra = load_corpus()
    all_payloads = base + extra
    if files:
        all_payloads = [p for p in all_payloads if p.name in files or Path(p.name).name in files]
    return all_payloads


def truth_for(p: Payload) -> tasks.Truth | None:
    if p.name in _TRUTH:
        records, id_field = _TRUTH[p.name]
        return tasks.truth(p, [r for r in records if isinstance(r, dict)], id_field)
    return tasks.truth(p)


# --- reading what a tool sent -----------------------------------------------------------------------------------


def view(tool: str, text: str) -> str:
    """The text a reader who knows the tool's lossless encoding would read (JSON text when it decodes)."""
    decode = hostpeers.VIEWS.get(tool)
    if decode is None:
        return text
    try:
        return decode(text)
    except Exception:  # noqa: BLE001 - undecodable: read as is
        return text


_HS_HANDLE = re.compile(r"hs_[0-9a-f]{24}")


def hostshape_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    """hostshape: the handle in the envelope loads the full original from the spill store (JSON is saved as the
    compact JSON of its value, so the same data, not the same spacing)."""
    from hostshape.policy import Policy
    from hostshape.wayback.spill import store_for

    text = shrunk
    if text == original:
        return True
    m = _HS_HANDLE.search(text)
    if not m:
        return False
    loaded = store_for(Path(peers.SPILL_DIR), Policy().spill_max_bytes).load(m.group(0))
    return loaded is not None and _same_data(loaded[0], original)


RETRIEVE: dict[str, Callable[[Any, Any, str], bool]] = {"hostshape": hostshape_retrieve, **hostpeers.RETRIEVE}


# --- measuring --------------------------------------------------------------------------------------------------


@dataclass
class HostRow:
    tool: str
    file: str
    kind: str
    budget: int
    knob: int
    input_tokens: int
    tokens: int
    fits: bool
    valid_json: bool | None
    recall: float | None
    retrievable: bool | None
    tasks_ok: int | None
    tasks_n: int | None
    ms: float | None
    runs: int
    changed: bool
    error: str | None = None
    ratio: float | None = None  # hostshape ms / this tool's ms, same payload and budget

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Cell:
    row: HostRow
    shrink: Callable[[Any], Any]
    prepared: Any
    first_s: float


def _evaluate(tool: peers.Tool, p: Payload, budget: int) -> _Cell:
    knob = tool.user_knob(budget)
    prepared = tool.prepare(p.text, p.tool)
    shrink = tool.build(knob)
    err = None
    shrunk: Any = None
    t0 = time.perf_counter()
    try:
        shrunk = shrink(prepared)
        out = tool.read(shrunk)
    except Exception as exc:  # noqa: BLE001 - a peer's failure is a result
        out, err = p.text, f"{type(exc).__name__}: {str(exc)[:120]}"
    first = time.perf_counter() - t0
    valid: bool | None = None
    if p.is_json:
        part = hostpeers.JSON_PART.get(tool.name)
        try:
            json.loads(part(shrunk) if part is not None and err is None else out)
            valid = True
        except ValueError:
            valid = False
    seen = view(tool.name, out)
    retrievable: bool | None = None
    check = RETRIEVE.get(tool.name)
    if err is None and _same_data(out, p.text):
        retrievable = True  # nothing withheld: the same JSON value, re-spaced
    elif err is None and check is None:
        retrievable = False  # a tool with no way back: what it cut is gone
    elif err is None:
        try:
            retrievable = bool(check(prepared, shrunk, p.text))
        except Exception:  # noqa: BLE001 - a way back that raises is no way back
            retrievable = False
    t = truth_for(p)
    ok = n = None
    if t is not None:
        ok, n = tasks.score(seen, t)
    row = HostRow(
        tool=tool.name,
        file=p.name,
        kind=p.kind,
        budget=budget,
        knob=knob,
        input_tokens=tokens(p.text),
        tokens=tokens(out),
        fits=fits(out, budget),
        valid_json=valid,
        recall=p.recall(seen),
        retrievable=retrievable,
        tasks_ok=ok,
        tasks_n=n,
        ms=None,
        runs=0,
        changed=out != p.text,
        error=err,
    )
    return _Cell(row, shrink, prepared, first)


def _same_data(out: str, original: str) -> bool:
    if out == original:
        return True
    try:
        return json.dumps(json.loads(out), sort_keys=True) == json.dumps(json.loads(original), sort_keys=True)
    except (ValueError, RecursionError):
        return False


def _time(cells: list[_Cell], runs: int) -> None:
    """Median of ``runs`` round-robin calls per cell after a warm-up; a cell whose first call took longer than
    SLOW_SECONDS keeps that one call as its time (seconds apart, warm-up effects are noise)."""
    live = [c for c in cells if c.row.error is None]
    samples: list[list[float]] = [[c.first_s] if c.first_s > SLOW_SECONDS else [] for c in live]
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(runs):
            for cell, out in zip(live, samples, strict=True):
                if cell.first_s > SLOW_SECONDS:
                    continue
                t0 = time.perf_counter()
                cell.shrink(cell.prepared)
                out.append(time.perf_counter() - t0)
    finally:
        if enabled:
            gc.enable()
    for cell, out in zip(live, samples, strict=True):
        cell.row.ms = statistics.median(out) * 1000
        cell.row.runs = len(out)


def measure(
    tools: list[peers.Tool], payloads: list[Payload], budgets: list[int], runs: int, say: Callable[[str], None]
) -> list[HostRow]:
    rows: list[HostRow] = []
    for p in payloads:
        t0 = time.perf_counter()
        for budget in budgets:
            cells = [_evaluate(tool, p, budget) for tool in tools]
            _time(cells, runs)
            base = next((c.row.ms for c in cells if c.row.tool == "hostshape"), None)
            for c in cells:
                if base and c.row.ms:
                    c.row.ratio = base / c.row.ms
            rows += [c.row for c in cells]
        say(f"host peers, {p.name}: {time.perf_counter() - t0:.1f}s")
    order = {t.name: i for i, t in enumerate(tools)}
    return sorted(rows, key=lambda r: order[r.tool])


def untimed(tools: list[peers.Tool], payloads: list[Payload], budgets: list[int]) -> list[HostRow]:
    """The same judgement without timing, for the other peers' task share (their times are in the main table)."""
    return [_evaluate(tool, p, b).row for tool in tools for p in payloads for b in budgets]


# --- report -----------------------------------------------------------------------------------------------------


def _geo(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.3g}" if ms < 100 else f"{ms:,.0f}"


KNOBS = {
    "hostshape": "budget B (o200k)",
    "halo-format (Claude hook)": "none (defaults)",
    "tooltrim": "max_tokens B (cl100k)",
    "jmunch-mcp": "threshold B",
    "terse-mcp": "none (defaults)",
    "leancontext": "none (defaults)",
    "llmslim fit_text": "budget B (cl100k)",
    "mcp-pager": "max_tokens B (cl100k)",
    "LangChain ClearToolUsesEdit": "trigger B",
}


def summary(rows: list[HostRow], tools: list[peers.Tool]) -> str:
    head = (
        "| tool | knob at budget B | fits | JSON stays valid | list recall (mean / min) | rest retrievable | "
        "tasks answered | median ms | hostshape ÷ tool time (geo-mean) |\n|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for tool in tools:
        rs = [r for r in rows if r.tool == tool.name]
        if not rs:
            continue
        js = [r for r in rs if r.valid_json is not None]
        lists = [r.recall for r in rs if r.kind == "list" and r.recall is not None]
        retr = [r for r in rs if r.retrievable is not None]
        t_ok = sum(r.tasks_ok or 0 for r in rs)
        t_n = sum(r.tasks_n or 0 for r in rs)
        errs = sum(1 for r in rs if r.error)
        ms = [r.ms for r in rs if r.ms is not None]
        ratio = _geo([r.ratio for r in rs if r.ratio is not None])
        knob = KNOBS.get(tool.name, "B x 4 (user setting)")
        lines.append(
            f"| {tool.name} | {knob} | {sum(r.fits for r in rs)}/{len(rs)}"
            + (f" ({errs} errors)" if errs else "")
            + f" | {sum(1 for r in js if r.valid_json)}/{len(js)}"
            + (f" | {statistics.mean(lists):.2f} / {min(lists):.2f}" if lists else " | -")
            + f" | {sum(1 for r in retr if r.retrievable)}/{len(retr)}"
            + (f" | {t_ok}/{t_n} ({t_ok / t_n:.0%})" if t_n else " | -")
            + f" | {_fmt_ms(statistics.median(ms)) if ms else 'above'}"
            + (" | 1" if tool.name == "hostshape" else f" | {ratio:.2f}" if ratio else " | above")
            + " |"
        )
    return "\n".join(lines)


def _cell(r: HostRow) -> str:
    if r.error:
        return f"error ({r.error.split(':')[0]})"
    parts = [f"{r.tokens:,}{'✓' if r.fits else '✗'}"]
    if r.valid_json is not None:
        parts.append("J" if r.valid_json else "~~J~~")
    if r.recall is not None:
        parts.append(f"r{r.recall:.2f}")
    if r.retrievable is not None:
        parts.append("R" if r.retrievable else "~~R~~")
    if r.tasks_n:
        parts.append(f"t{r.tasks_ok}/{r.tasks_n}")
    if r.ratio is not None and r.tool != "hostshape":
        parts.append(f"×{r.ratio:.2g}")
    elif r.ms is not None:
        parts.append(f"{_fmt_ms(r.ms)}ms")
    return " ".join(parts)


def detail(rows: list[HostRow], budget: int, tools: list[peers.Tool]) -> str:
    names = [t.name for t in tools if any(r.tool == t.name for r in rows)]
    files = list(dict.fromkeys(r.file for r in rows))
    out = ["| file (input tokens) | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    by = {(r.tool, r.file): r for r in rows if r.budget == budget}
    for f in files:
        cells = [by.get((n, f)) for n in names]
        first = next((c for c in cells if c is not None), None)
        label = f"{f} ({first.input_tokens:,})" if first else f
        out.append(f"| {label} | " + " | ".join(_cell(c) if c else "-" for c in cells) + " |")
    return "\n".join(out)


def losses(rows: list[HostRow]) -> list[tuple[str, str, str]]:
    """(tool, measure, cell) for every cell where a peer does better than hostshape on one measure."""
    base = {(r.file, r.budget): r for r in rows if r.tool == "hostshape"}
    out: list[tuple[str, str, str]] = []
    for r in rows:
        h = base.get((r.file, r.budget))
        if r.tool == "hostshape" or h is None or r.error:
            continue
        where = f"{r.file} @ {r.budget:,}"
        if r.fits and not h.fits:
            out.append((r.tool, "fits where hostshape does not", where))
        if r.recall is not None and h.recall is not None and r.fits and r.recall > h.recall + 1e-9:
            out.append(
                (r.tool, "higher identifier recall, within the budget", f"{where} ({r.recall:.2f} vs {h.recall:.2f})")
            )
        if r.tasks_n and h.tasks_n and r.fits and (r.tasks_ok or 0) > (h.tasks_ok or 0):
            out.append(
                (
                    r.tool,
                    "more tasks answered, within the budget",
                    f"{where} ({r.tasks_ok} vs {h.tasks_ok} of {r.tasks_n})",
                )
            )
        if r.retrievable and h.retrievable is False:
            out.append((r.tool, "rest retrievable where hostshape's is not", where))
        if r.ratio is not None and r.ratio > 1.0 and r.fits:
            out.append((r.tool, "faster (output within the budget)", f"{where} ({r.ratio:.2g}x)"))
    return out


def loss_summary(lost: list[tuple[str, str, str]]) -> list[str]:
    """One line per tool and measure, naming every cell."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for tool, measure_name, where in lost:
        grouped.setdefault((tool, measure_name), []).append(where)
    return [f"**{tool}**, {m} ({len(cells)} cells): {'; '.join(cells)}" for (tool, m), cells in grouped.items()]
