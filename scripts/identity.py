"""Prove a refactor keeps the model's text byte-identical: shape every recorded payload at four budgets.

Usage (from the repository root, with the worktree on PYTHONPATH):

    python scripts/identity.py record GOLDEN.jsonl    # write the exact texts
    python scripts/identity.py compare GOLDEN.jsonl   # exit 1 and show the first differences when any text moved

Every file in ``hostshape/examples/payloads/`` and ``corpus/`` (but PROVENANCE.md and manifest.toml) is shaped at
budgets 500, 2000, 4000 and 8000 with the default policy (variant ``text``, the figure the refactor reports), and
with a few extra forms that reach other parts of the pipeline: the payload as MCP content blocks (``mcp``) and as an
error result (``error``), a policy with a retrieval tool so cursors are made (``read``), a host form that wraps the
replacement as ADK does and caps its characters (``host``), and a cl100k policy (``cl100k``). The spill store lives
in a fixed temporary folder, emptied first, whose secret is fixed, so handles and cursors are the same on every
run; the folder's path is replaced by ``<SPILL>`` in the texts.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "hostshape" / "examples" / "payloads", ROOT / "corpus")
SKIP = {"PROVENANCE.md", "manifest.toml"}
BUDGETS = (500, 2000, 4000, 8000)
SECRET = bytes(range(32))


def payloads() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in folder.iterdir() if p.is_file() and p.name not in SKIP)


def _host_form(budget: int) -> Any:
    from hostshape.host import HostForm, json_result

    return HostForm(wrap=json_result, max_chars=budget * 3)


def variants() -> dict[str, Callable[[str, Any, int], tuple[Any, Any, dict[str, Any]]]]:
    """name -> (text, base policy, budget) -> (raw, policy, extra shape() keywords)."""
    return {
        "text": lambda text, policy, budget: (text, policy, {}),
        "mcp": lambda text, policy, budget: ({"content": [{"type": "text", "text": text}]}, policy, {}),
        "error": lambda text, policy, budget: (
            {"content": [{"type": "text", "text": text}], "isError": True},
            policy,
            {},
        ),
        "read": lambda text, policy, budget: (text, policy.replace(retrieval_tool="hostshape_read"), {}),
        "host": lambda text, policy, budget: (text, policy, {"host": _host_form(budget)}),
        "cl100k": lambda text, policy, budget: (text, policy.replace(encoding="cl100k_base"), {}),
    }


def shaped_texts() -> Iterator[dict[str, Any]]:
    from hostshape import Policy, shape

    # A fixed path: the envelope's hint names the saved file, and a random folder name would tokenize differently.
    # It is the same for every checkout (a golden made on main compares with a branch), so runs take turns.
    spill = Path(tempfile.gettempdir()) / f"hostshape-identity-{os.geteuid()}" / "spill"
    lock = open(Path(tempfile.gettempdir()) / f"hostshape-identity-{os.geteuid()}.lock", "w")  # noqa: SIM115
    fcntl.flock(lock, fcntl.LOCK_EX)
    shutil.rmtree(spill.parent, ignore_errors=True)
    spill.mkdir(mode=0o700, parents=True)
    try:
        fd = os.open(spill / ".secret", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, SECRET)
        os.close(fd)
        for path in payloads():
            text = path.read_text(encoding="utf-8")
            for name, make in variants().items():
                for budget in BUDGETS:
                    raw, policy, extra = make(text, Policy(budget=budget, spill_dir=spill), budget)
                    result = shape(raw, policy=policy, tool=path.name, **extra)
                    yield {
                        "variant": name,
                        "file": f"{path.parent.name}/{path.name}",
                        "budget": budget,
                        "changed": result.changed,
                        "text": result.text.replace(str(spill), "<SPILL>"),
                    }
    finally:
        shutil.rmtree(spill.parent, ignore_errors=True)
        lock.close()


def _key(row: dict[str, Any]) -> str:
    return f"{row['variant']} {row['file']} @{row['budget']}"


def record(golden: Path) -> int:
    rows = list(shaped_texts())
    golden.parent.mkdir(parents=True, exist_ok=True)
    with golden.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"recorded {len(rows)} texts ({len(payloads())} payloads x {len(BUDGETS)} budgets x {len(variants())} forms)")
    return 0


def compare(golden: Path, show: int) -> int:
    want = {_key(row): row for row in map(json.loads, golden.read_text(encoding="utf-8").splitlines())}
    moved: dict[str, list[str]] = {}
    for row in shaped_texts():
        old = want.pop(_key(row), None)
        if old is None or old["text"] != row["text"] or old["changed"] != row["changed"]:
            moved.setdefault(row["variant"], []).append(_key(row))
            if sum(map(len, moved.values())) <= show:
                print(
                    f"--- {_key(row)}\n    was: {old['text'][:600] if old else None!r}\n    now: {row['text'][:600]!r}"
                )
    for key in want:
        moved.setdefault(key.split()[0], []).append(key + " (missing)")
    for name in variants():
        count = sum(1 for key in _keys(golden) if key.startswith(name + " "))
        diff = len(moved.get(name, []))
        print(f"{name:7} {count - diff}/{count} identical" + (f"; moved: {', '.join(moved[name][:8])}" if diff else ""))
    n = len(payloads())
    text_moved = len(moved.get("text", []))
    print(f"text: {n} payloads x {len(BUDGETS)} budgets {'identical' if not text_moved else f'({text_moved} moved)'}")
    return 1 if moved else 0


def _keys(golden: Path) -> list[str]:
    return [_key(json.loads(line)) for line in golden.read_text(encoding="utf-8").splitlines()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("record", "compare"))
    parser.add_argument("golden", type=Path)
    parser.add_argument("--show", type=int, default=3, help="differences printed in full (default 3)")
    args = parser.parse_args(argv)
    return record(args.golden) if args.command == "record" else compare(args.golden, args.show)


if __name__ == "__main__":
    sys.exit(main())
