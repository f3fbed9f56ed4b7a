"""Documents speed (issue 26): milliseconds per MB of input for the first answer of each document kind, at two
sizes, so that the ratio shows whether the time stays linear in the input.

Each kind's document is a real one from hostshape/examples/payloads or a format sample (JUnit, RSS, YAML
manifests, Rust, a CI log, prose), repeated to about 1 MB and about 4 MB; ``hostshape.shape`` runs at a budget of
4,000 with the spill store in a temporary folder, all calls timed round-robin in one run (bench.measure), so the
ratios hold on a busy machine. Run: ``python bench/documents_speed.py`` (``--sizes`` in MB; ``--json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.measure import median_seconds  # noqa: E402
from hostshape import Policy, shape  # noqa: E402
from hostshape.documents import outline_of  # noqa: E402
from hostshape.examples import payload_text  # noqa: E402

MB = 1_000_000


def _samples() -> dict[str, tuple[str, str, str]]:
    """kind -> (head, repeated part, tail): the repeated part makes the document as long as asked."""
    junit_case = '    <testcase classname="pkg.Suite" name="test_{n}" time="0.01"/>\n'
    return {
        "markdown": ("", payload_text("awesome_python_README.md"), ""),
        "html": (
            "<html><body><main>",
            _html_body(payload_text("v8_blog_standalone_wasm.html")),
            "</main></body></html>",
        ),
        "diff": ("", payload_text("git_diff_github3py_2.0.0_3.0.0.diff"), ""),
        "aria": ("", payload_text("playwright_aria_snapshot_cnn.yml"), ""),
        "junit": (
            '<?xml version="1.0"?>\n<testsuites>\n<testsuite name="pkg.Suite">\n',
            junit_case,
            "</testsuite>\n</testsuites>\n",
        ),
        "rss": (
            '<?xml version="1.0"?>\n<rss><channel><title>Feed</title>\n',
            "<item><title>Item {n}</title><link>https://example.org/{n}</link>"
            "<description>Some words about item {n}.</description></item>\n",
            "</channel></rss>\n",
        ),
        "yaml": (
            "",
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{n}\n"
            "data:\n  key: value {n}\n  other: more {n}\n",
            "",
        ),
        "code": (
            "",
            "pub struct Thing{n} {{\n    x: i32,\n}}\n\n"
            "impl Thing{n} {{\n    pub fn new() -> Self {{\n        Thing{n} {{ x: {n} }}\n    }}\n}}\n\n",
            "",
        ),
        "log": (
            "",
            "2025-01-06T10:00:00Z ##[group]Run step {n}\n2025-01-06T10:00:01Z compiling module {n}\n"
            "2025-01-06T10:00:02Z warning: unused variable x{n}\n2025-01-06T10:00:03Z ##[endgroup]\n",
            "",
        ),
        "prose": (
            "",
            "The committee met on day {n} and agreed to review the budget again before the next session.\n\n",
            "",
        ),
    }


def _html_body(page: str) -> str:
    """The body of the page (so that repeating it repeats content, not <html> elements)."""
    start = page.find("<body")
    end = page.rfind("</body>")
    return page[page.find(">", start) + 1 : end] if start >= 0 and end > start else page


def document(kind: str, size: int) -> str:
    head, part, tail = _samples()[kind]
    if "{n}" in part:
        pieces, n, total = [], 0, len(head) + len(tail)
        while total < size:
            piece = part.format(n=n)
            pieces.append(piece)
            total += len(piece)
            n += 1
        return head + "".join(pieces) + tail
    return head + part * max(1, size // len(part)) + tail


def measure(sizes: list[float], runs: int) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        policy = Policy(budget=4000, spill_dir=Path(folder) / "spill")
        calls, rows = [], []
        for kind in _samples():
            for size in sizes:
                text = document(kind, int(size * MB))
                rows.append({"kind": kind, "MB": round(len(text) / MB, 2), "read as": outline_of(text).kind})
                calls.append((lambda t: shape(t, policy=policy), text))
        seconds = median_seconds(calls, runs)
    for row, spent in zip(rows, seconds, strict=True):
        row["ms per MB"] = round(spent * 1000 / float(str(row["MB"])), 1)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs=2, default=[1.0, 4.0], help="two sizes in MB (default 1 4)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = measure(args.sizes, args.runs)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    small, large = args.sizes
    print(f"| kind | read as | ms/MB at {small:g} MB | ms/MB at {large:g} MB | ratio (linear = 1) |")
    print("|---|---|---|---|---|")
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        ratio = float(str(second["ms per MB"])) / max(0.001, float(str(first["ms per MB"])))
        print(f"| {first['kind']} | {first['read as']} | {first['ms per MB']} | {second['ms per MB']} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
