"""Identifier recall over the whole corpus: does the shaped output still name every record it was given?

    python bench/recall.py                     # every payload in corpus/manifest.toml at 2,000 / 4,000 / 8,000
    python bench/recall.py --budgets 4000 --files jira_projects_apache.json --out /tmp/r

For each payload and budget it reports, for the payload's main record list (corpus/manifest.toml):

- hostshape: ``shape(text, Policy(budget=B))`` with zero configuration; its output's exact o200k count and its
  identifier recall (the share of the list's records whose identifier appears in the output, see ``Present``; a
  member the envelope states as built from each record's own values, ``_hostshape.derived``, counts as present
  where a record or row holds its parts: a lossless re-encoding, decoded as a model told the format would);
- the identifier-only floor: the o200k count of a compact JSON list of just the identifiers, and whether it fits
  in 80% of the budget (then a recall of 1.00 is physically possible with room left for an envelope);
- shrinkfit with ``array_strategy="condense"`` at its most favourable setting: the largest ``max_chars`` whose
  output still fits the budget, found by search (bench/measure.py ``best_knob``), and that output's recall.

Writes bench/RECALL.md (a summary table per budget, then one table per file) and prints the summary.
Offline; well under a minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from bench.spill import fixed_spill  # noqa: E402
from hostshape.records.derived import rebuilt  # noqa: E402 - needs the repository root on sys.path
from hostshape.tokens import count_tokens  # noqa: E402 - needs the repository root on sys.path

MANIFEST = ROOT / "corpus" / "manifest.toml"
BUDGETS = (2000, 4000, 8000)
FLOOR_SHARE = 0.8  # the identifier-only listing must fit in this share of the budget
OUT = Path(__file__).with_name("RECALL.md")

Ident = str | int | float
#: members that identify a record only together (a machine type's name within its zone), from an ``also`` entry
#: ``"name+zone"``: kept when every part appears in one row or object of the output (see ``Present.together``)
Composite = tuple[Ident, ...]


# --- the manifest ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordList:
    """One record list of a payload: where it is, and each record's identifying values (primary first)."""

    path: str
    id: str
    also: tuple[str, ...]
    records: tuple[tuple[Ident | Composite, ...], ...]  # one per distinct primary identifier, in document order

    @property
    def identifiers(self) -> list[Ident]:
        """The primary identifiers, one per record."""
        return [r[0] for r in self.records]

    def floor_tokens(self) -> int:
        """o200k tokens of a compact JSON list of just the primary identifiers."""
        return count_tokens(json.dumps(self.identifiers, ensure_ascii=False, separators=(",", ":")))

    def recall(self, output: str) -> float:
        """Share of records with at least one of their identifying values present in ``output``."""
        if not self.records:
            return 1.0
        found = Present(output)
        return sum(1 for r in self.records if any(found(v) for v in r)) / len(self.records)

    def missing(self, output: str) -> list[Ident]:
        found = Present(output)
        return [r[0] for r in self.records if not any(found(v) for v in r)]


@dataclass(frozen=True)
class Payload:
    """One corpus file as a host receives it (its exact text) and what the manifest says it holds."""

    file: str  # relative to the repository root
    service: str
    kind: str  # "list", "object" or "text"
    text: str
    lists: tuple[RecordList, ...] = ()
    object_ids: tuple[Ident, ...] = ()
    units: str = ""

    @property
    def name(self) -> str:
        return Path(self.file).name

    @property
    def tool(self) -> str:
        return Path(self.file).stem

    @property
    def is_json(self) -> bool:
        return self.kind != "text"

    @property
    def main(self) -> RecordList | None:
        return self.lists[0] if self.lists else None

    def recall(self, output: str) -> float | None:
        """Main-list recall for list payloads; the share of identifying members kept for objects; for text, the
        share of its units (headings, diff headers, aria refs) kept as whole lines / tokens."""
        if self.main is not None:
            return self.main.recall(output)
        if self.kind == "object":
            found = Present(output)
            return sum(1 for v in self.object_ids if found(v)) / len(self.object_ids) if self.object_ids else None
        units = text_units(self.text, self.units)
        if not units:
            return None
        kept = set(text_units(output, self.units))
        return sum(1 for u in units if u in kept) / len(units)


def load(manifest: Path = MANIFEST, names: Iterable[str] | None = None) -> list[Payload]:
    """Every payload the manifest lists (or only those whose file name is in ``names``), in manifest order."""
    wanted = set(names) if names is not None else None
    entries = tomllib.loads(manifest.read_text(encoding="utf-8"))["payload"]
    out = [_payload(e) for e in entries if wanted is None or Path(e["file"]).name in wanted]
    if wanted is not None and len(out) != len(wanted):
        raise SystemExit(f"not in {manifest.name}: {', '.join(sorted(wanted - {p.name for p in out}))}")
    return out


def _payload(entry: dict[str, Any]) -> Payload:
    text = (ROOT / entry["file"]).read_text(encoding="utf-8")
    kind = entry["kind"]
    common = {"file": entry["file"], "service": entry.get("service", ""), "kind": kind, "text": text}
    if kind == "text":
        return Payload(**common, units=entry.get("units", ""))
    doc = json.loads(text)
    if kind == "object":
        return Payload(**common, object_ids=tuple(doc[k] for k in entry["ids"]))
    lists = tuple(_record_list(doc, spec) for spec in entry["list"])
    return Payload(**common, lists=lists)


def _record_list(doc: Any, spec: dict[str, Any]) -> RecordList:
    fields = (spec["id"], *spec.get("also", ()))
    columns = list(resolve(doc, spec["columns"])) if "columns" in spec else None
    seen: dict[Ident, tuple[Ident, ...]] = {}
    for key, record in records_at(doc, spec["path"]):
        primary = _field(record, key, fields[0], columns)
        if _usable(primary):  # records without an identifier (a null or empty one) are not counted
            alts = (v for f in fields[1:] if _usable(v := _alternate(record, key, f, columns)))
            seen.setdefault(primary, (primary, *alts))
    return RecordList(spec["path"], spec["id"], tuple(spec.get("also", ())), tuple(seen.values()))


def _usable(v: Any) -> bool:
    if isinstance(v, tuple):
        return bool(v) and all(map(_usable, v))
    return isinstance(v, (str, int, float)) and not isinstance(v, bool) and v != ""


def _alternate(record: Any, key: str | None, name: str, columns: list[Any] | None) -> Any:
    """An ``also`` member's value; for ``a+b``, the tuple of the parts' values."""
    if "+" in name:
        return tuple(_field(record, key, part, columns) for part in name.split("+"))
    return _field(record, key, name, columns)


def _field(record: Any, key: str | None, name: str, columns: list[Any] | None) -> Any:
    if name == "@key":
        return key
    if columns is not None:
        i = columns.index(name)
        return record[i] if isinstance(record, list) and len(record) > i else None
    node = record
    for part in name.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d*)\]")


def resolve(doc: Any, path: str) -> Iterator[Any]:
    """Every node ``path`` reaches (`$`, `.name`, `[N]`, `[]` = each element, `.*` = each member's value,
    flattened)."""
    if not path.startswith("$"):
        raise ValueError(f"a path starts with $: {path!r}")
    nodes = [doc]
    rest = path[1:]
    while rest:
        m = _STEP.match(rest)
        if not m:
            raise ValueError(f"bad path {path!r} at {rest!r}")
        rest = rest[m.end() :]
        name, index = m.group(1), m.group(2)
        nxt: list[Any] = []
        for node in nodes:
            if name == "*":
                if isinstance(node, dict):
                    nxt.extend(node.values())
            elif name is not None:
                if isinstance(node, dict) and name in node:
                    nxt.append(node[name])
            elif index == "":
                if isinstance(node, list):
                    nxt.extend(node)
            elif isinstance(node, list) and int(index) < len(node):
                nxt.append(node[int(index)])
        nodes = nxt
    yield from nodes


def records_at(doc: Any, path: str) -> Iterator[tuple[str | None, Any]]:
    """(map key or None, record) for every record of the list(s) or map(s) ``path`` reaches."""
    for container in resolve(doc, path):
        if isinstance(container, list):
            for record in container:
                yield None, record
        elif isinstance(container, dict):
            yield from container.items()


# --- "appears in the output" -------------------------------------------------------------------------------------

# Characters that end a token: JSON punctuation, quotes, whitespace, and the separators of plain-text tables. A value
# inside a URL or a longer word ("/project/10730", "pid=10730&", "#1033") is therefore not a token of its own.
_DELIMS = re.compile(r"""[\s"'`\[\]{}(),:;|<>]+""")


class Present:
    """``Present(output)(value)``: the identifier appears in the output as a whole JSON value (string, number,
    member name) or as a whole token of its text. Built once per output; each look-up is a set membership."""

    def __init__(self, output: str) -> None:
        self.tokens = set(_DELIMS.split(output))
        self.values: set[str] = set()
        self.doc: Any = None
        self.rows: list[set[str]] | None = None
        try:
            doc = json.loads(output)
        except ValueError:
            return
        self.doc = doc
        self.values.update(_derived_values(doc))
        stack = [doc]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                self.values.update(node.keys())
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, str):
                self.values.add(node)
            elif isinstance(node, (int, float)) and not isinstance(node, bool):
                self.values.add(json.dumps(node))

    def together(self, parts: Composite) -> bool:
        """Every part is a scalar of one row (list) or object of the output JSON, a part also matching a path that
        ends in it (``zones/europe-west1-a`` for a zone ``europe-west1-a``: the parent's map key)."""
        if self.rows is None:
            self.rows = []
            stack = [self.doc]
            while stack:
                node = stack.pop()
                items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
                scalars = {x if isinstance(x, str) else json.dumps(x) for x in items if not isinstance(x, (dict, list))}
                if len(scalars) >= len(parts):
                    self.rows.append(scalars)
                stack.extend(x for x in items if isinstance(x, (dict, list)))
        wanted = [p if isinstance(p, str) else json.dumps(p) for p in parts]
        return any(all(w in row or any(x.endswith("/" + w) for x in row) for w in wanted) for row in self.rows)

    def __call__(self, value: Ident | Composite) -> bool:
        if isinstance(value, tuple):
            return self.together(value)
        s = value if isinstance(value, str) else json.dumps(value)
        return s in self.values or s in self.tokens


def _derived_values(doc: Any) -> set[str]:
    """The values an envelope's ``derived`` templates (hostshape's ``_hostshape.derived``, syntax in
    hostshape.records.derived) rebuild from each record or table row of ``doc`` that holds their parts: a lossless
    re-encoding, read as a model told the format would."""
    env = doc.get(ENVELOPE) if isinstance(doc, dict) else None
    templates = env.get("derived") if isinstance(env, dict) else None
    if not isinstance(templates, dict) or not templates:
        return set()
    same = env.get("same") if isinstance(env.get("same"), dict) else {}
    out: set[str] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            fields, rows = node.get("fields"), node.get("rows")
            records = (
                [dict(zip(fields, r, strict=False)) for r in rows if isinstance(r, list)]
                if (isinstance(fields, list) and isinstance(rows, list))
                else [node]
            )
            for record in records:
                full = rebuilt({**same, **record}, templates)
                out.update(v for k, v in full.items() if k in templates and k not in record and isinstance(v, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


ENVELOPE = "_hostshape"


def text_units(text: str, units: str) -> list[str]:
    """The countable units of a text payload, in order, without repeats."""
    if units == "markdown-heading":
        found = re.findall(r"(?m)^#{1,6} .+$", text)
    elif units == "diff-header":
        found = re.findall(r"(?m)^diff --git .+$", text)
    elif units == "aria-ref":
        found = re.findall(r"\[ref=e\d+\]", text)
    else:
        found = []
    return list(dict.fromkeys(found))


# --- measuring ---------------------------------------------------------------------------------------------------


@dataclass
class Cell:
    """One payload at one budget."""

    file: str
    budget: int
    records: int | None
    hs_tokens: int
    hs_fits: bool
    hs_recall: float | None
    hs_ms: float
    hs_strategy: str
    floor_tokens: int | None
    floor_fits: bool | None
    sf_knob: int | None = None
    sf_tokens: int | None = None
    sf_recall: float | None = None
    sf_error: str | None = None
    missing: list[Ident] = field(default_factory=list)


def shape_text(payload: Payload, budget: int, spill_dir: str) -> tuple[str, Any, float]:
    """(exact text the model receives, the Shaped result, milliseconds) with zero configuration."""
    from hostshape import Policy, shape

    t0 = time.perf_counter()
    res = shape(payload.text, policy=Policy(budget=budget, spill_dir=spill_dir), tool=payload.tool, server="corpus")
    ms = (time.perf_counter() - t0) * 1000
    return (res.text if res.changed else payload.text), res, ms


def shrinkfit_best(payload: Payload, budget: int) -> tuple[int | None, str | None, str | None]:
    """(knob, output, error) for shrinkfit condense at the largest max_chars whose output fits ``budget``."""
    from bench import measure, peers

    tool = peers.SHRINKFIT_CONDENSE
    why = tool.available()
    if why:
        return None, None, f"not installed ({why})"
    prepared = tool.prepare(payload.text, payload.tool)
    knob = measure.best_knob(tool, payload, prepared, budget)  # type: ignore[arg-type] - only .text is read
    out, err = measure._attempt(tool, tool.build(knob), prepared)
    if out is not None and not measure.fits(out, budget):
        return knob, None, "no setting fits"
    return knob, out, err


def measure_payload(payload: Payload, budget: int, spill_dir: str, peer: bool = True) -> Cell:
    output, res, ms = shape_text(payload, budget, spill_dir)
    n = count_tokens(output)
    main = payload.main
    cell = Cell(
        file=payload.name,
        budget=budget,
        records=len(main.records) if main else None,
        hs_tokens=n,
        hs_fits=n <= budget,
        hs_recall=payload.recall(output),
        hs_ms=ms,
        hs_strategy=res.strategy if res.changed else "passthrough",
        floor_tokens=main.floor_tokens() if main else None,
        floor_fits=(main.floor_tokens() <= FLOOR_SHARE * budget) if main else None,
        missing=main.missing(output)[:5] if main else [],
    )
    if peer and payload.is_json:
        knob, out, err = shrinkfit_best(payload, budget)
        cell.sf_knob, cell.sf_error = knob, err
        if out is not None:
            cell.sf_tokens = count_tokens(out)
            cell.sf_recall = payload.recall(out)
    return cell


def run(payloads: list[Payload], budgets: Iterable[int], peer: bool = True) -> list[Cell]:
    spill = fixed_spill("recall")  # a fixed path and secret: the same handles and hint on every run
    return [measure_payload(p, b, spill, peer) for b in budgets for p in payloads]


# --- reporting ---------------------------------------------------------------------------------------------------


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _mean(xs: list[float]) -> float | None:
    return statistics.fmean(xs) if xs else None


def summary(cells: list[Cell], payloads: list[Payload]) -> list[str]:
    kinds = {p.name: p.kind for p in payloads}
    lines = []
    for budget in sorted({c.budget for c in cells}):
        row = [c for c in cells if c.budget == budget and kinds[c.file] == "list"]
        hs = [c.hs_recall for c in row if c.hs_recall is not None]
        sf = [c.sf_recall for c in row if c.sf_recall is not None]
        fit = [c.hs_recall for c in row if c.floor_fits and c.hs_recall is not None]
        low = [c.file for c in row if c.floor_fits and (c.hs_recall or 0) < 0.90]
        behind = [c.file for c in row if c.sf_recall is not None and (c.hs_recall or 0) < c.sf_recall]
        unfit = [c.file for c in cells if c.budget == budget and not c.hs_fits]
        lines.append(
            f"budget {budget}: {len(row)} list payloads, hostshape mean recall {_r(_mean(hs))}"
            f" (shrinkfit condense {_r(_mean(sf))}); where the ids fit ({len(fit)}): mean {_r(_mean(fit))},"
            f" below 0.90: {len(low)}"
            + (f" ({', '.join(low)})" if low else "")
            + f"; behind shrinkfit: {len(behind)}"
            + (f" ({', '.join(behind)})" if behind else "")
            + (f"; OVER BUDGET: {', '.join(unfit)}" if unfit else "")
        )
    return lines


def summary_table(cells: list[Cell], payloads: list[Payload]) -> list[str]:
    """The summary as one Markdown table (the README's recall block)."""
    kinds = {p.name: p.kind for p in payloads}
    lines = [
        "| budget | list payloads | hostshape mean recall | shrinkfit condense (most favourable) | "
        "hostshape below 0.90 where the ids fit | files where shrinkfit is ahead | over budget |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for budget in sorted({c.budget for c in cells}):
        row = [c for c in cells if c.budget == budget and kinds[c.file] == "list"]
        hs = [c.hs_recall for c in row if c.hs_recall is not None]
        sf = [c.sf_recall for c in row if c.sf_recall is not None]
        low = sum(1 for c in row if c.floor_fits and (c.hs_recall or 0) < 0.90)
        behind = sum(1 for c in row if c.sf_recall is not None and (c.hs_recall or 0) < c.sf_recall)
        unfit = sum(1 for c in cells if c.budget == budget and not c.hs_fits)
        lines.append(f"| {budget:,} | {len(row)} | {_r(_mean(hs))} | {_r(_mean(sf))} | {low} | {behind} | {unfit} |")
    return lines


def render(cells: list[Cell], payloads: list[Payload], command: str) -> str:
    by_file = {p.name: p for p in payloads}
    out = [
        "# Identifier recall on the corpus",
        "",
        f"Generated by `{command}` (hostshape zero configuration; o200k_base). Recall = share of the main record "
        "list's records whose identifier (or an alternate identifying member, corpus/manifest.toml) appears in the "
        "output as a whole JSON value or token. Floor = o200k tokens of a compact JSON list of just the "
        f'identifiers; "fits" = within {FLOOR_SHARE:.0%} of the budget. shrinkfit = `shrink(text, max_chars=N, '
        "array_strategy='condense', indent=0)` at the largest N whose output fits the budget (found by search). "
        "Object and text payloads are listed for information (their recall counts identifying members / headings, "
        "diff headers, aria refs).",
        "",
    ]
    for line in summary(cells, payloads):
        out.append(f"- {line}")
    for budget in sorted({c.budget for c in cells}):
        out += [
            "",
            f"## Budget {budget:,}",
            "",
            "| file | kind | records | floor tokens | floor fits | hostshape tokens | hostshape recall | "
            "shrinkfit tokens | shrinkfit recall | strategy | first missing |",
            "|---|---|---:|---:|:-:|---:|---:|---:|---:|---|---|",
        ]
        for c in (c for c in cells if c.budget == budget):
            p = by_file[c.file]
            sf_tok = str(c.sf_tokens) if c.sf_tokens is not None else (c.sf_error or "-")
            out.append(
                f"| {c.file} | {p.kind} | {c.records if c.records is not None else '-'} | "
                f"{c.floor_tokens if c.floor_tokens is not None else '-'} | "
                f"{'-' if c.floor_fits is None else ('yes' if c.floor_fits else 'no')} | "
                f"{c.hs_tokens}{'' if c.hs_fits else ' OVER'} | {_r(c.hs_recall)} | {sf_tok} | {_r(c.sf_recall)} | "
                f"{c.hs_strategy} | {', '.join(map(str, c.missing)) or '-'} |"
            )
    out += ["", "## Per file", ""]
    for p in payloads:
        out += [
            f"### {p.name}",
            "",
            f"{p.service} (`{p.file}`, {p.kind}"
            + (f", main list `{p.main.path}` by `{p.main.id}`" if p.main else "")
            + f", {count_tokens(p.text):,} tokens)",
            "",
            "| budget | hostshape tokens | hostshape recall | floor tokens (fits 80%) | shrinkfit max_chars | "
            "shrinkfit tokens | shrinkfit recall | hostshape ms |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for c in (c for c in cells if c.file == p.name):
            floor = "-" if c.floor_tokens is None else f"{c.floor_tokens} ({'yes' if c.floor_fits else 'no'})"
            out.append(
                f"| {c.budget} | {c.hs_tokens} | {_r(c.hs_recall)} | {floor} | {c.sf_knob or '-'} | "
                f"{c.sf_tokens if c.sf_tokens is not None else (c.sf_error or '-')} | {_r(c.sf_recall)} | "
                f"{c.hs_ms:.0f} |"
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(prog="bench/recall.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--files", nargs="+", help="file names from corpus/manifest.toml (default: all)")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown report path (default: bench/RECALL.md)")
    ap.add_argument("--no-peer", action="store_true", help="skip shrinkfit")
    ap.add_argument("--table", action="store_true", help="print the summary as one Markdown table (for the README)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    payloads = load(names=args.files)
    cells = run(payloads, args.budgets, peer=not args.no_peer)
    command = "python bench/recall.py" + (" " + " ".join(argv) if argv else "")
    text = render(cells, payloads, command)
    args.out.write_text(text, encoding="utf-8")
    if args.table:
        print("\n".join(summary_table(cells, payloads)))
        return text
    for line in summary(cells, payloads):
        print(line)
    print(
        f"{len(payloads)} payloads x {len(args.budgets)} budgets in {time.perf_counter() - t0:.1f} s; "
        f"report: {args.out}"
    )
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
