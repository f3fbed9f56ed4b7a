"""Print the package's layout from the tree itself: every folder and module under hostshape/ with the first sentence
of its docstring (docs/pipeline.md's "Repository layout" block is this output:
scripts/readme.py --readme docs/pipeline.md --only layout)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hostshape"
WIDTH = 120
SKIP = {"__pycache__", "payloads"}


def summary(path: Path) -> str:
    """The first sentence of the module's docstring (of ``__init__.py`` for a folder), on one line."""
    source = path / "__init__.py" if path.is_dir() else path
    if not source.exists():
        return ""
    doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", first)
    return (match.group(1) if match else first).removesuffix(".")


def lines(folder: Path, depth: int = 0) -> list[str]:
    out = []
    entries = sorted(p for p in folder.iterdir() if p.name not in SKIP and (p.is_dir() or p.suffix == ".py"))
    for path in sorted(entries, key=lambda p: (p.is_dir(), p.name)):
        if path.name == "__init__.py" or (path.is_dir() and not (path / "__init__.py").exists()):
            continue
        name = path.name + ("/" if path.is_dir() else "")
        line = f"{'  ' * depth}{name:<{24 - 2 * depth}} {summary(path)}".rstrip()
        out.append(line if len(line) <= WIDTH else line[: WIDTH - 1] + "…")
        if path.is_dir():
            out.extend(lines(path, depth + 1))
    return out


def main() -> int:
    print(f"hostshape/{'':<14} {summary(PACKAGE)}".rstrip()[:WIDTH])
    print("\n".join("  " + line for line in lines(PACKAGE)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
