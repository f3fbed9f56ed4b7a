"""Zero-configuration shaping time, this checkout against an earlier revision, as CPU-time ratios in one run.

    python bench/shrink_timing.py --against 0510d7b      # median CPU ms per file at budget 4,000, and new/old

Each side runs in its own interpreter (the earlier revision from ``git archive``), alternately, twice; CPU time
(``time.process_time``) rather than wall time, since these machines are shared. Files: the largest GitHub payload,
the same items repeated 20 times with unique numbers (~10 MB), and three corpus payloads of other services.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, statistics, sys, tempfile, time
from pathlib import Path
from hostshape import Policy, shape
root = Path(sys.argv[1])
search = json.loads((root / "hostshape/examples/payloads/gh_search_issues.json").read_text())
items = []
for k in range(20):
    for item in search["items"]:
        items.append({**item, "number": item["number"] * 100 + k, "id": item["id"] * 100 + k})
files = {"gh_search_issues.json": json.dumps(search), "search x20 (10 MB)": json.dumps({**search, "items": items})}
for name in ("k8s_pods_list.json", "terraform_plan_terragoat.json", "prometheus_rules.json"):
    files[name] = (root / "corpus" / name).read_text()
policy = Policy(budget=4000, spill_dir=Path(tempfile.mkdtemp()))
shape(files["k8s_pods_list.json"], policy=policy)
out = {}
for name, raw in files.items():
    runs = []
    for _ in range(3 if len(raw) > 2e6 else 7):
        start = time.process_time()
        shape(raw, policy=policy)
        runs.append(time.process_time() - start)
    out[name] = statistics.median(runs) * 1000
"""
_WHICH = """
import hostshape
print(hostshape.__file__)
print(json.dumps(out))
"""


def _run(package_root: Path) -> dict[str, float]:
    env = {"PYTHONPATH": str(package_root), "PATH": "/usr/bin:/bin"}
    with tempfile.TemporaryDirectory() as cwd:  # not the checkout: `-c` puts the working folder first on sys.path
        done = subprocess.run(
            [sys.executable, "-c", _CHILD + _WHICH, str(ROOT)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=cwd,
        )
    which, timings = done.stdout.strip().splitlines()[-2:]
    if Path(which).resolve().parent.parent != package_root.resolve():
        raise SystemExit(f"imported hostshape from {which}, not from {package_root}")
    return json.loads(timings)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="git revision to compare with")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as old:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.against, "hostshape"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
        new_runs, old_runs = [], []
        for _ in range(2):
            new_runs.append(_run(ROOT))
            old_runs.append(_run(Path(old)))
    print(f"| file | {args.against} ms | this checkout ms | ratio |\n|---|---:|---:|---:|")
    for name in new_runs[0]:
        before = statistics.median(r[name] for r in old_runs)
        after = statistics.median(r[name] for r in new_runs)
        print(f"| {name} | {before:.0f} | {after:.0f} | {after / before:.2f} |")


if __name__ == "__main__":
    main()
