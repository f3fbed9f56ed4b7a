"""Documents bench (issue 26): does the first answer map the whole document, and answer what the agent asks next?

For every document of ``bench/documents.toml`` (real files of 12 kinds, provenance in corpus/documents/PROVENANCE.md)
and every budget (2,000 / 4,000 / 8,000 o200k tokens), each tool's first answer is judged on:

- **landmark recall**: the share of the document's landmarks (what an outline must name: headings, item titles,
  failed tests, kind/name of each manifest document, definitions, files of a diff...; derived without hostshape by
  ``bench/document_landmarks.py`` or by hand for logs) that the text the model receives names;
- **questions from the first answer**: how many of the document's 4-6 questions (asked as an agent would) have an
  answer in that text;
- **questions after one section read** (hostshape): the first answer plus one ``section`` read of the outline entry
  that best matches the question's ``section`` (only entries the first answer names can be chosen).

Peers: tooltrim and llmslim (``bench/hostpeers.py``), each at its most favourable fitting setting: their knob is in
cl100k tokens, so it starts at the budget and is scaled by budget / o200k tokens of the output until the output fits
(up to ``FIT_TRIES`` calls); the largest fitting knob tried is used. They have no section read.

Speed: milliseconds per MB of input for each kind, hostshape and the peers timed round-robin in the same run at
4,000 (the peers at their chosen knob), reported as ratios.

An output over the budget gets no credit in the summary (it is marked "over" in the per-document tables, with what
it would have scored). Nothing here calls a model or the network. Matching (``normalise``, ``found``) ignores case,
HTML entities, typographic quotes, Markdown emphasis and whitespace, so that a tool is not penalised for rendering a
heading differently.
"""

from __future__ import annotations

import argparse
import html
import inspect
import json
import re
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import median_seconds, tokens  # noqa: E402
from bench.peers import Tool  # noqa: E402
from bench.spill import fixed_spill  # noqa: E402

SPEC = ROOT / "bench" / "documents.toml"
LANDMARKS = ROOT / "bench" / "documents_landmarks.toml"
OUT = ROOT / "bench" / "DOCUMENTS.md"
BUDGETS = (2000, 4000, 8000)
SPEED_BUDGET = 4000
#: the parts of a multi-part landmark (kind and name; name and ref) must show within this many lines
WINDOW = 12
#: a landmark longer than this (normalised) also counts when its first PREFIX characters show (outlines cut titles)
LONG = 48
PREFIX = 40
FIT_TRIES = 4

Landmark = str | list[str]


# --- the corpus -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    ask: str
    answers: tuple[str, ...]
    needs: str  # "first" or "section"
    section: str = ""


@dataclass(frozen=True)
class Document:
    file: str
    kind: str
    license: str
    text: str
    landmarks: tuple[Landmark, ...]
    rule: str
    questions: tuple[Question, ...]

    @property
    def name(self) -> str:
        return Path(self.file).name

    @property
    def mb(self) -> float:
        return len(self.text.encode("utf-8")) / 1e6


def load(names: Iterable[str] | None = None) -> list[Document]:
    """The documents of bench/documents.toml (all, or those whose file name is in ``names``), with landmarks."""
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))
    derived = {d["file"]: d for d in tomllib.loads(LANDMARKS.read_text(encoding="utf-8"))["document"]}
    wanted = set(names) if names else None
    out = []
    for d in spec["document"]:
        if wanted is not None and Path(d["file"]).name not in wanted:
            continue
        marks = d.get("landmarks") or derived.get(d["file"], {}).get("landmarks", [])
        rule = "chosen by hand" if d.get("landmarks") else derived.get(d["file"], {}).get("rule", "")
        questions = tuple(
            Question(q["ask"], tuple(q["answer"]), q["from"], q.get("section", "")) for q in d.get("question", [])
        )
        text = (ROOT / d["file"]).read_text(encoding="utf-8")
        out.append(Document(d["file"], d["kind"], d.get("license", ""), text, tuple(marks), rule, questions))
    return out


# --- matching ---------------------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_EMPHASIS = re.compile(r"[`*_~]")


def normalise(text: str) -> str:
    """Lower case, entities decoded, typographic quotes made plain, Markdown emphasis dropped, blanks collapsed."""
    text = unicodedata.normalize("NFKC", html.unescape(text)).translate(_QUOTES).lower()
    return " ".join(_EMPHASIS.sub(" ", text).split())


def readable(output: str) -> str:
    """What a model reads in ``output``: a JSON document's strings and keys on their own lines, else the text."""
    try:
        doc = json.loads(output)
    except ValueError:
        return output
    parts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                parts.append(str(k))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif node is not None:
            parts.append(str(node))

    walk(doc)
    return "\n".join(parts)


def _pattern(needle: str) -> re.Pattern[str]:
    left = r"(?<!\w)" if needle[:1].isalnum() else ""
    right = r"(?!\w)" if needle[-1:].isalnum() else ""
    return re.compile(left + re.escape(needle) + right)


def _variants(part: str) -> list[str]:
    n = normalise(part)
    return [n, n[:PREFIX]] if len(n) > LONG else [n]


class Received:
    """The text a model received, prepared for matching (whole, and line by line)."""

    def __init__(self, output: str) -> None:
        text = readable(output)
        self.lines = [normalise(line) for line in text.splitlines()]
        self.whole = normalise(text)

    def has(self, needle: str) -> bool:
        return any(_pattern(v).search(self.whole) for v in _variants(needle) if v)

    def found(self, landmark: Landmark) -> bool:
        """A string anywhere; a list of strings all within ``WINDOW`` consecutive lines."""
        if isinstance(landmark, str):
            return self.has(landmark)
        pats = [[_pattern(v) for v in _variants(p) if v] for p in landmark]
        hits = [{i for i, line in enumerate(self.lines) if any(p.search(line) for p in ps)} for ps in pats]
        if not all(hits):
            return False
        return any(all(any(abs(j - i) < WINDOW for j in h) for h in hits[1:]) for i in hits[0])

    def answers(self, q: Question) -> bool:
        return any(self.has(a) for a in q.answers)


def recall(doc: Document, output: str) -> tuple[float, list[Landmark]]:
    """Share of ``doc``'s landmarks that ``output`` names, and the missed ones."""
    got = Received(output)
    missed = [m for m in doc.landmarks if not got.found(m)]
    return (1 - len(missed) / len(doc.landmarks) if doc.landmarks else 1.0), missed


# --- the tools --------------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """One tool's first answer to one document at one budget."""

    text: str | None
    knob: int | None = None
    error: str | None = None
    extra: Any = None  # hostshape: the Shaped result (for the section read)
    policy: Any = None  # hostshape: the policy it ran with (the same spill store for the read)


def hostshape_first(text: str, budget: int, spill_dir: str) -> Answer:
    from hostshape import Policy, shape

    policy = Policy(budget=budget, spill_dir=Path(spill_dir))
    res = shape(text, policy=policy, tool="read_document", server="documents")
    if res.fault:
        return Answer(None, budget, f"fault: {res.fault}")
    return Answer(res.text if res.changed else text, budget, extra=res, policy=policy)


def peer_first(tool: Tool, text: str, budget: int) -> Answer:
    """The peer's output at its most favourable fitting knob (see the module docstring)."""
    prepared = tool.prepare(text, "read_document")
    best: Answer | None = None
    knob, tried = budget, set()
    for _ in range(FIT_TRIES):
        if knob in tried or knob < 1:
            break
        tried.add(knob)
        try:
            out = tool.read(tool.build(knob)(prepared))
        except Exception as exc:  # noqa: BLE001 - a peer's failure is a result, not a crash
            return best or Answer(None, knob, f"{type(exc).__name__}: {str(exc)[:100]}")
        n = tokens(out)
        if n <= budget and (best is None or (best.knob or 0) < knob):
            best = Answer(out, knob)
        scaled = int(knob * budget / max(n, 1) * 0.98)
        if n <= budget and scaled <= knob:
            break  # fits and cannot grow
        knob = scaled if n > budget else max(scaled, knob + 1)
    return best or Answer(out, knob, "never fits")


def _peers() -> list[Tool]:
    from bench import hostpeers

    return [t for t in (hostpeers.TOOLTRIM, hostpeers.LLMSLIM) if t.available() is None]


# --- the section read -------------------------------------------------------------------------------------------

#: ``section(first: Answer, doc: Document, hint: str, budget: int) -> str | None``: what the model receives from one
#: ``section`` read of the outline entry best matching ``hint`` among those the first answer names; None while the
#: engine has no section read (the column is then reported as pending).
SectionReader = Callable[[Answer, Document, str, int], "str | None"]


#: an outline line of hostshape's first answer: ``<id> <title> (L<a>-<b>, <n> tok)``, or ``<id> <title>`` deeper
_ENTRY = re.compile(r"^\s*(\d+(?:\.\d+)*)\s+(.+?)(?:\s+\(L\d+(?:-\d+)?(?:,[^)]*)?\))?\s*$")


#: a compact outline line: ``<first id>-<last number>: <title> · <title> · ...`` (ids in order), or ``<id>: <title>``
_GROUP = re.compile(r"^\s*((?:\d+\.)*)(\d+)(?:-(\d+))?: (.+)$")


def outline_entries(first_text: str) -> dict[str, str]:
    """The outline entries the first answer shows, ``{id: title}``, in the order shown: one a line, or several on
    a compact line whose ids run in order (as its envelope says)."""
    out: dict[str, str] = {}
    for line in readable(first_text).splitlines():
        g = _GROUP.match(line)
        if g:
            prefix, low, high, titles = g.group(1), int(g.group(2)), int(g.group(3) or g.group(2)), g.group(4)
            names = titles.split(" · ")
            if len(names) == high - low + 1:
                for n, title in zip(range(low, high + 1), names, strict=True):
                    out.setdefault(f"{prefix}{n}", title)
            continue
        m = _ENTRY.match(line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
    return out


def best_entry(entries: dict[str, str], hint: str) -> str | None:
    """The id of the entry a reader looking for ``hint`` would open: the same title, else one containing it, else
    one naming its last dotted part (``Context.forward`` -> ``def forward(...)``), else the one sharing most of its
    words (-> ``class Context`` when methods are not shown), else the most similar."""
    if not entries:
        return None
    h = normalise(hint)
    words = set(re.findall(r"\w+", h))
    leaf = set(re.findall(r"\w+", normalise(hint.rsplit(".", 1)[-1])))

    def score(ident: str) -> tuple[bool, bool, bool, float, float]:
        t = normalise(entries[ident])
        tw = set(re.findall(r"\w+", t))
        shared = len(words & tw) / max(len(words), 1)
        return (t == h, h in t, bool(leaf) and leaf <= tw, shared, SequenceMatcher(None, t, h).ratio())

    return max(entries, key=score)


def engine_section_reader() -> SectionReader | None:
    """hostshape's ``section`` read (``hostshape_read(handle, section=ID)``, ``retrieve.read`` in Python), once the
    document engine has it; else None. The entry read is the one the first answer's outline shows whose title best
    matches the question's ``section``; a first answer that is the whole document needs no read."""
    try:
        from hostshape.wayback import retrieve
    except ImportError:
        return None
    read_page: Any = retrieve.read
    if "section" not in inspect.signature(read_page).parameters:
        return None

    def read(first: Answer, doc: Document, hint: str, budget: int) -> str | None:
        res = first.extra
        if res is None or not res.changed or not res.handle:
            return None
        ident = best_entry(outline_entries(first.text or ""), hint)
        if ident is None:
            return None
        return str(read_page(res.handle, section=ident, policy=first.policy))

    return read


# --- one run ----------------------------------------------------------------------------------------------------


@dataclass
class Cell:
    file: str
    kind: str
    tool: str
    budget: int
    tokens: int | None
    fits: bool
    recall: float | None
    missed: list[Landmark]
    first_ok: int
    section_ok: int | None  # None: no section read (peer, or pending)
    questions: int
    knob: int | None = None
    error: str | None = None
    unanswered: list[str] = field(default_factory=list)


def judge(doc: Document, tool: str, budget: int, ans: Answer, reader: SectionReader | None) -> Cell:
    if ans.text is None:
        return Cell(
            doc.file, doc.kind, tool, budget, None, False, None, [], 0, None, len(doc.questions), ans.knob, ans.error
        )
    got = Received(ans.text)
    rec, missed = recall(doc, ans.text)
    first = [got.answers(q) for q in doc.questions]
    section_ok: int | None = None
    unanswered = []
    if reader is not None:
        section_ok = 0
        for q, ok in zip(doc.questions, first, strict=True):
            if not ok and q.section:
                page = reader(ans, doc, q.section, budget)
                ok = page is not None and Received(ans.text + "\n" + page).answers(q)
            section_ok += ok
            if not ok:
                unanswered.append(q.ask)
    n = tokens(ans.text)
    return Cell(
        doc.file,
        doc.kind,
        tool,
        budget,
        n,
        n <= budget,
        rec,
        missed,
        sum(first),
        section_ok,
        len(doc.questions),
        ans.knob,
        ans.error,
        unanswered,
    )


def run(
    docs: list[Document], budgets: Iterable[int], peers: bool = True, timing: bool = True
) -> tuple[list[Cell], dict[str, dict[str, float]]]:
    """Every tool on every document at every budget; and ms per MB per kind (``speed[kind][tool]``)."""
    spill = fixed_spill("documents")  # a fixed path and secret: the same handles and hint on every run
    tools = _peers() if peers else []
    reader = engine_section_reader()
    cells: list[Cell] = []
    spent: dict[str, dict[str, list[float]]] = {}
    for doc in docs:
        for budget in budgets:
            first = hostshape_first(doc.text, budget, spill)
            cells.append(judge(doc, "hostshape", budget, first, reader))
            answers = {t.name: peer_first(t, doc.text, budget) for t in tools}
            cells += [judge(doc, name, budget, a, None) for name, a in answers.items()]
            if timing and budget == SPEED_BUDGET:
                _time(doc, budget, spill, tools, answers, spent)
    speed = {kind: {tool: sum(ms) / sum(mb) for tool, (ms, mb) in _pairs(per).items()} for kind, per in spent.items()}
    return cells, speed


def _pairs(per: dict[str, list[float]]) -> dict[str, tuple[list[float], list[float]]]:
    return {k[:-3]: (v, per[k[:-3] + " mb"]) for k, v in per.items() if k.endswith(" ms")}


def _time(
    doc: Document,
    budget: int,
    spill: str,
    tools: list[Tool],
    answers: dict[str, Answer],
    spent: dict[str, dict[str, list[float]]],
) -> None:
    """Time hostshape and each peer (at its chosen knob) round-robin on ``doc``; slow calls once."""
    from hostshape import Policy, shape

    policy = Policy(budget=budget, spill_dir=Path(spill))
    calls: list[tuple[str, Callable[[Any], Any], Any]] = [
        ("hostshape", lambda t: shape(t, policy=policy, tool="read_document"), doc.text)
    ]
    for t in tools:
        knob = answers[t.name].knob
        if knob is not None and answers[t.name].error is None:
            calls.append((t.name, t.build(knob), t.prepare(doc.text, "read_document")))
    t0 = time.perf_counter()
    for _, fn, arg in calls:
        fn(arg)
    runs = 3 if time.perf_counter() - t0 < 0.5 else 1
    secs = median_seconds([(fn, arg) for _, fn, arg in calls], runs=runs, min_total=0.0 if runs == 1 else 0.05)
    per = spent.setdefault(doc.kind, {})
    for (name, _, _), s in zip(calls, secs, strict=True):
        per.setdefault(f"{name} ms", []).append(s * 1000)
        per.setdefault(f"{name} mb", []).append(doc.mb)


# --- the report -------------------------------------------------------------------------------------------------


def _mean(xs: list[float]) -> float:
    return statistics.mean(xs) if xs else 0.0


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def summary(cells: list[Cell], budgets: list[int], tools: list[str]) -> list[str]:
    out = [
        "| budget | tool | fits | landmark recall mean / min | questions from the first answer | "
        "after one section read |",
        "|---|---|---|---|---|---|",
    ]
    for b in budgets:
        for tool in tools:
            cs = [c for c in cells if c.budget == b and c.tool == tool]
            if not cs:
                continue
            recs = [(c.recall or 0.0) if c.fits else 0.0 for c in cs]  # over the budget: no credit
            q = sum(c.questions for c in cs)
            first = sum(c.first_ok for c in cs if c.fits)
            sec = [c.section_ok for c in cs]
            sec_txt = (
                "-"
                if tool != "hostshape"
                else (
                    "pending (no section read in this build)"
                    if any(s is None for s in sec)
                    else f"{sum(s or 0 for s in sec)}/{q} ({sum(s or 0 for s in sec) / q:.0%})"
                )
            )
            out.append(
                f"| {b:,} | {tool} | {sum(c.fits for c in cs)}/{len(cs)} | {_mean(recs):.2f} / "
                f"{min(recs) if recs else 0:.2f} | {first}/{q} ({first / q:.0%}) | {sec_txt} |"
            )
    return out


def per_document(cells: list[Cell], budget: int, tools: list[str], marks: dict[str, int]) -> list[str]:
    head = " | ".join(f"{t} recall | {t} Q" for t in tools)
    out = [
        f"| document | kind | landmarks | {head} | hostshape Q + section |",
        "|---|---|---|" + "---|---|" * len(tools) + "---|",
    ]
    files = list(dict.fromkeys(c.file for c in cells))
    for f in files:
        row = {c.tool: c for c in cells if c.file == f and c.budget == budget}
        hs = row.get("hostshape")
        if hs is None:
            continue
        parts = []
        for t in tools:
            c = row.get(t)
            if c is None:
                parts.append("- | -")
            elif c.recall is None:
                parts.append(f"error: {c.error} | -")
            else:
                parts.append(f"{c.recall:.2f}{'' if c.fits else ' (over)'} | {c.first_ok}/{c.questions}")
        sec = "pending" if hs.section_ok is None else f"{hs.section_ok}/{hs.questions}"
        out.append(f"| {Path(f).name} | {hs.kind} | {marks.get(f, 0)} | " + " | ".join(parts) + f" | {sec} |")
    return out


def behind(cells: list[Cell], budgets: list[int], tools: list[str]) -> list[str]:
    """Documents and budgets where a fitting peer beats hostshape: on the first answer's landmark recall, or on
    questions answered (hostshape with its one section read when it has one: the peers have no budgeted way to a
    part, so their first answer is all they give)."""
    out = []
    for b in budgets:
        for f in dict.fromkeys(c.file for c in cells):
            row = {c.tool: c for c in cells if c.file == f and c.budget == b}
            hs = row.get("hostshape")
            if hs is None or hs.recall is None:
                continue
            for t in tools:
                c = row.get(t)
                if t == "hostshape" or c is None or c.recall is None or not c.fits:
                    continue
                what = []
                if c.recall > hs.recall + 1e-9:
                    what.append(f"recall {c.recall:.3f} vs {hs.recall:.3f}")
                hs_q = hs.first_ok if hs.section_ok is None else hs.section_ok
                if c.first_ok > hs_q:
                    what.append(f"questions {c.first_ok} vs {hs_q}")
                if what:
                    out.append(f"- {b:,}: `{Path(f).name}`: {t} ahead ({'; '.join(what)})")
    return out


def _section_goal(sec: list[int | None], q: int) -> str:
    if any(s is None for s in sec):
        return "pending"
    share = sum(s or 0 for s in sec) / q
    return f"{share:.0%} (goal >= 90%: {'met' if share >= 0.9 else 'NOT met'})"


def render(
    cells: list[Cell], speed: dict[str, dict[str, float]], docs: list[Document], budgets: list[int], command: str
) -> str:
    tools = list(dict.fromkeys(c.tool for c in cells))
    out = [
        "# Documents: outline recall and questions answered (issue 26)",
        "",
        f"Generated by `{command}` (o200k_base; no model, no network). What is measured and how: the docstring of",
        "`bench/documents.py`; the corpus and its questions: `bench/documents.toml`, landmarks:",
        "`bench/documents_landmarks.toml` (rules in `bench/document_landmarks.py`), provenance:",
        "`corpus/documents/PROVENANCE.md`.",
        "",
        "## Corpus",
        "",
        "| document | kind | o200k tokens | landmarks (rule) | questions (first / section) | licence |",
        "|---|---|---|---|---|---|",
    ]
    for d in docs:
        nf = sum(q.needs == "first" for q in d.questions)
        out.append(
            f"| {d.name} | {d.kind} | {tokens(d.text):,} | {len(d.landmarks)} ({d.rule}) | "
            f"{len(d.questions)} ({nf} / {len(d.questions) - nf}) | {d.license} |"
        )
    kinds = sorted({d.kind for d in docs})
    out += [
        "",
        f"{len(docs)} documents, {len(kinds)} kinds, {sum(len(d.questions) for d in docs)} questions.",
        "",
        "## Summary",
        "",
        *summary(cells, budgets, tools),
        "",
    ]
    at = SPEED_BUDGET if SPEED_BUDGET in budgets else budgets[0]
    hs = [c for c in cells if c.tool == "hostshape" and c.budget == at and c.recall is not None]
    if hs:
        recs = [c.recall or 0.0 for c in hs]
        sec = [c.section_ok for c in hs]
        q = sum(c.questions for c in hs)
        out += [
            f"Done-when at {at:,} (hostshape): landmark recall mean {_mean(recs):.2f} (goal >= 0.9: "
            f"{'met' if _mean(recs) >= 0.9 else 'NOT met'}), min {min(recs):.2f} (goal >= 0.7 on every document: "
            f"{'met' if min(recs) >= 0.7 else 'NOT met'}); questions after one section read: "
            + _section_goal(sec, q)
            + ".",
            "",
        ]
    for b in budgets:
        out += [
            f"## Per document at {b:,}",
            "",
            *per_document(cells, b, tools, {d.file: len(d.landmarks) for d in docs}),
            "",
        ]
    lag = behind(cells, budgets, tools)
    out += [
        "## Where a peer is ahead of hostshape",
        "",
        "Landmark recall of the first answers; questions: the peer's first answer against hostshape's first answer",
        "plus one section read (when the build has it). A peer output over the budget is not compared.",
        "",
        *(lag or ["- nowhere"]),
        "",
    ]
    if speed:
        peers = [t for t in tools if t != "hostshape"]
        out += [
            f"## Speed at {SPEED_BUDGET:,}: milliseconds per MB of input, per kind (timed round-robin in this run)",
            "",
            "| kind | hostshape ms/MB | " + " | ".join(f"{t} ms/MB | {t} ÷ hostshape" for t in peers) + " |",
            "|---|---|" + "---|---|" * len(peers),
        ]
        for kind in sorted(speed):
            s = speed[kind]
            h = s.get("hostshape")
            cols = []
            for t in peers:
                v = s.get(t)
                cols.append("-" if v is None else f"{v:,.0f} | {v / h:.1f}x" if h else f"{v:,.0f} | -")
            out.append(f"| {kind} | {h:,.1f} | " + " | ".join(cols) + " |")
        out.append("")
    missed = [c for c in cells if c.tool == "hostshape" and c.budget == at and c.missed]
    if missed:
        out += [f"## Landmarks hostshape's first answer misses at {at:,} (first five per document)", ""]
        for c in missed:
            shown = ", ".join(f"`{m if isinstance(m, str) else ' / '.join(m)}`" for m in c.missed[:5])
            out.append(f"- {Path(c.file).name} ({len(c.missed)}): {shown}")
        out.append("")
    open_q = [c for c in cells if c.tool == "hostshape" and c.budget == at and c.unanswered]
    if open_q:
        out += [f"## Questions hostshape leaves unanswered at {at:,} after one section read", ""]
        out += [f"- {Path(c.file).name}: " + " / ".join(c.unanswered) for c in open_q]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(prog="bench/documents.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--files", nargs="+", help="document file names from bench/documents.toml (default: all)")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown report (default: bench/DOCUMENTS.md)")
    ap.add_argument("--no-peers", action="store_true", help="hostshape only")
    ap.add_argument("--no-timing", action="store_true", help="skip the speed table")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    docs = load(args.files)
    cells, speed = run(docs, args.budgets, peers=not args.no_peers, timing=not args.no_timing)
    command = "python bench/documents.py" + (" " + " ".join(argv) if argv else "")
    text = render(cells, speed, docs, args.budgets, command)
    args.out.write_text(text, encoding="utf-8")
    tools = list(dict.fromkeys(c.tool for c in cells))
    print("\n".join(summary(cells, args.budgets, tools)))
    print(
        f"{len(docs)} documents x {len(args.budgets)} budgets in {time.perf_counter() - t0:.1f} s; report: {args.out}"
    )
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
