"""Regenerate the README's figures from the code: every block that follows a marker line

    <!-- NAME: COMMAND -->

is replaced by COMMAND's standard output, run from the repository root: a fenced block keeps its fence (and a first
line starting with "$ ", which shows the command as a user types it), a Markdown table is replaced whole.

    .venv/bin/python scripts/readme.py                      # every marked block
    .venv/bin/python scripts/readme.py --only measure-sample  # some of them
    .venv/bin/python scripts/readme.py --check              # exit 1 when a block differs (nothing written)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- ([\w-]+): (.+?) -->$")


def blocks(lines: list[str]) -> list[tuple[str, str, int, int]]:
    """(name, command, first, end) of each generated block: lines[first:end] follow the marker."""
    found = []
    for i, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        first = end = i + 1
        if end < len(lines) and lines[end].startswith("```"):
            end += 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            end += 1
        else:
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
        found.append((match.group(1), match.group(2), first, end))
    return found


def render(old: list[str], output: str) -> list[str]:
    """The new block: ``output`` inside ``old``'s fence (keeping a "$ command" first line), or as a table."""
    body = output.rstrip("\n").splitlines()
    if old and old[0].startswith("```"):
        shown = [old[1]] if len(old) > 2 and old[1].startswith("$ ") else []
        return [old[0], *shown, *body, "```"]
    return body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the README's marked blocks from the code.")
    parser.add_argument("--only", action="append", metavar="NAME", help="only the blocks with this marker name")
    parser.add_argument("--check", action="store_true", help="report blocks that differ; write nothing")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md", help="the file to update")
    args = parser.parse_args(argv)
    lines = args.readme.read_text(encoding="utf-8").splitlines()
    stale = []
    for name, command, first, end in reversed(blocks(lines)):
        if args.only and name not in args.only:
            continue
        print(f"{name}: {command}", file=sys.stderr)
        done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
        if done.returncode != 0:
            print(f"{name}: {command} failed ({done.returncode}):\n{done.stderr}", file=sys.stderr)
            return 2
        new = render(lines[first:end], done.stdout)
        if new != lines[first:end]:
            stale.append(name)
            lines[first:end] = new
    if args.check:
        if stale:
            print(f"out of date: {', '.join(stale)}", file=sys.stderr)
        return 1 if stale else 0
    args.readme.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
