"""Time grows with the budget, not the input: shaping a list payload ten times larger at the same budget.

    python bench/scaling.py                     # every list payload below, budgets 2,000 / 4,000 / 8,000
    python bench/scaling.py --budgets 4000 --runs 9

For each real list payload (its record list taken from corpus/manifest.toml), two inputs are built from its own
records, repeated and renumbered in one member so that they stay distinct: about 180 KB and about 1.8 MB, in the
payload's own shape (a list under a member stays under it, beside the members around it; a map keyed by identifier
stays a map, its keys renumbered too; records gathered from several lists become one list). Both are
shaped in process (``hostshape.shape``, spill on, o200k) round-robin on the CPU clock (bench/measure.py
``median_seconds``), and the ratio large / small is reported. Issue 27's goal: at most 2 at the same budget.
Prints a Markdown table; about a minute on two cores.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import recall  # noqa: E402
from bench.measure import median_seconds  # noqa: E402
from hostshape import Policy, shape  # noqa: E402

FILES = (
    "jira_projects_apache.json",  # a top-level list of small objects
    "slack_conversations_list.json",  # a list beside a cursor object
    "datadog_hosts_list.json",  # wide records, beside totals
    "zipkin_trace_mobile_web_install.json",  # a trace: many short spans
    "gh_issues_list.json",  # long text members (issue bodies)
    "k8s_pods_list.json",  # deeply nested objects, inside a wrapper with its own members
    "usgs_earthquakes_all_day.geojson",  # GeoJSON features beside metadata and a bounding box
    "npm_package_lock_zipkin_lens.json",  # a map keyed by identifier (package paths)
)
SMALL, LARGE = 180_000, 1_800_000  # bytes of the two inputs
BUDGETS = (2000, 4000, 8000)


@dataclass(frozen=True)
class Source:
    """A corpus payload's records, and how to rebuild a payload of the same shape around more of them."""

    doc: Any
    member: tuple[str, ...]  # the members leading to the record list (empty: the document is the list)
    keys: list[str] | None  # the map keys of the records, when they are a map's members
    records: list[dict[str, Any]]
    nested_id: tuple[str, ...] = ()  # the identifier's members, when it is nested (``metadata.name``)


def source_of(name: str) -> Source:
    """The main record list of a corpus payload, as objects, and where it sits."""
    payload = next(p for p in recall.load() if Path(p.file).name == name)
    assert payload.main is not None
    doc = json.loads(payload.text)
    path = payload.main.path
    pairs = [(k, r) for k, r in recall.records_at(doc, path) if isinstance(r, dict)]
    steps = path[1:].split(".")[1:] if path.startswith("$.") else []
    plain = path == "$" or (all(_MEMBER.fullmatch(s) for s in steps) and path == "$." + ".".join(steps))
    keyed = bool(pairs) and pairs[0][0] is not None
    member = tuple(steps) if plain else ()
    keys = [str(k) for k, _ in pairs] if keyed and plain else None
    nested = tuple(payload.main.id.split(".")) if "." in payload.main.id else ()
    return Source(doc if member else None, member, keys, [r for _, r in pairs], nested)


_MEMBER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def sized(source: Source, target: int) -> str:
    """A payload of about ``target`` bytes in the shape of ``source`` made of its records repeated, each copy
    marked in every string member that is unique and in a nested identifier (so identifiers stay distinct)
    and, in a map, in its key."""
    records = source.records
    around = len(_placed(source, [])) if source.member else 0
    out: list[dict[str, Any]] = []
    keys: list[str] = []
    size, n = 2 + around, 0
    while size < target:
        record = copy.deepcopy(records[n % len(records)])
        copy_no = n // len(records)
        if copy_no:
            for key, value in record.items():
                if isinstance(value, str) and len(value) < 200:
                    record[key] = f"{value}~{copy_no}"
            if source.nested_id:
                *parents, last = source.nested_id
                node = record
                for step in parents:
                    node = node.get(step) if isinstance(node, dict) else None
                if isinstance(node, dict) and isinstance(node.get(last), str):
                    node[last] = f"{node[last]}~{copy_no}"
        out.append(record)
        size += len(json.dumps(record)) + 1
        if source.keys is not None:
            key = source.keys[n % len(records)]
            keys.append(f"{key}~{copy_no}" if copy_no else key)
            size += len(json.dumps(keys[-1])) + 1
        n += 1
    return _placed(source, dict(zip(keys, out, strict=True)) if source.keys is not None else out)


def _placed(source: Source, listed: Any) -> str:
    """The JSON text of ``source``'s document with ``listed`` in place of its records."""
    if not source.member:
        return json.dumps(listed)
    doc = copy.deepcopy(source.doc)
    node = doc
    for step in source.member[:-1]:
        node = node[step]
    node[source.member[-1]] = listed
    return json.dumps(doc)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(prog="bench/scaling.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--files", nargs="+", default=list(FILES))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    lines = [
        f"Shaping time, {LARGE // 1000:,} KB over {SMALL // 1000:,} KB of the same records at the same budget "
        "(CPU time, medians of round-robin runs; goal: at most 2).",
        "",
        "| payload | budget | small ms | large ms | large / small |",
        "|---|---:|---:|---:|---:|",
    ]
    ratios = []
    with tempfile.TemporaryDirectory() as spill:
        for name in args.files:
            source = source_of(name)
            small, large = sized(source, SMALL), sized(source, LARGE)
            for budget in args.budgets:
                policy = Policy(budget=budget, spill_dir=Path(spill))

                def run(text: str, policy: Policy = policy) -> Any:
                    return shape(text, policy=policy, tool="bench")

                a, b = median_seconds([(run, small), (run, large)], args.runs, clock=time.process_time)
                ratios.append(b / a)
                lines.append(f"| {name} | {budget:,} | {a * 1000:.0f} | {b * 1000:.0f} | {b / a:.2f} |")
    lines += ["", f"Largest ratio {max(ratios):.2f}, median {statistics.median(ratios):.2f}."]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
