"""Time grows with the budget, not the input: shaping a list payload ten times larger at the same budget.

    python bench/scaling.py                     # every list payload below, budgets 2,000 / 4,000 / 8,000
    python bench/scaling.py --budgets 4000 --runs 9

For each real list payload (its record list taken from corpus/manifest.toml), two inputs are built from its own
records, repeated and renumbered in one member so that they stay distinct: about 180 KB and about 1.8 MB. Both are
shaped in process (``hostshape.shape``, spill on, o200k) round-robin on the CPU clock (bench/measure.py
``median_seconds``), and the ratio large / small is reported. Issue 27's goal: at most 2 at the same budget.
Prints a Markdown table; about a minute on two cores.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import recall  # noqa: E402
from bench.measure import median_seconds  # noqa: E402
from hostshape import Policy, shape  # noqa: E402

FILES = (
    "jira_projects_apache.json",
    "slack_conversations_list.json",
    "datadog_hosts_list.json",
    "zipkin_trace_mobile_web_install.json",
)
SMALL, LARGE = 180_000, 1_800_000  # bytes of the two inputs
BUDGETS = (2000, 4000, 8000)


def records_of(name: str) -> list[dict[str, Any]]:
    """The main record list of a corpus payload, as objects."""
    payload = next(p for p in recall.load() if Path(p.file).name == name)
    assert payload.main is not None
    doc = json.loads(payload.text)
    return [r for _key, r in recall.records_at(doc, payload.main.path) if isinstance(r, dict)]


def sized(records: list[dict[str, Any]], target: int) -> str:
    """A JSON list of about ``target`` bytes made of ``records`` repeated, each copy marked in every string member
    that is unique (so identifiers stay distinct)."""
    out: list[dict[str, Any]] = []
    size, n = 2, 0
    while size < target:
        record = copy.deepcopy(records[n % len(records)])
        copy_no = n // len(records)
        if copy_no:
            for key, value in record.items():
                if isinstance(value, str) and len(value) < 200:
                    record[key] = f"{value}~{copy_no}"
        out.append(record)
        size += len(json.dumps(record)) + 1
        n += 1
    return json.dumps(out)


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
            records = records_of(name)
            small, large = sized(records, SMALL), sized(records, LARGE)
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
