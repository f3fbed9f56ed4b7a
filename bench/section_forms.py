"""Section reads by the forms a model asks in: for every document of bench/documents.toml, each outline entry the
first answer shows is asked for with ``hostshape_read(handle, section=...)`` in the forms a model would use, and
counted when the page read is that entry's section.

Forms (each asked only when it differs from the title as shown): the id; the title as shown; lower case; Markdown
and backticks stripped; a leading number (``3.2``), commit hash or ``file:line:`` dropped; a trailing colon; the
leading words only (a part of the title, what a model remembers); the path of titles (``Parent > Child``). A page
is "candidates" when the read names several sections instead of one. Nothing is written unless ``--out`` is given
(markdown; never a tracked file unless asked).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from bench.documents import hostshape_first, load, outline_entries  # noqa: E402

BUDGET = 4000
_MARKUP = re.compile(r"[`*_]")
_LEAD = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[0-9a-f]{7,40}|\S+?:\d+(?::\d+)?:?)\s+(?=\S)")
_PAGE = re.compile(r"^\S+ document, section (\S+) ")
FORMS = ("id", "shown", "lower", "no markup", "no lead", "colon", "leading words", "path")


def forms(ident: str, title: str, entries: dict[str, str]) -> Iterator[tuple[str, str]]:
    """``(form, what is asked)`` for the entry ``ident`` titled ``title`` (as the outline shows it)."""
    yield "id", ident
    yield "shown", title
    variants = {
        "lower": title.lower(),
        "no markup": " ".join(_MARKUP.sub("", title).split()),
        "no lead": _LEAD.sub("", title, count=1),
        "colon": title.rstrip("…").rstrip() + ":",
    }
    words = title.rstrip("…").split()
    if len(words) >= 4:
        variants["leading words"] = " ".join(words[: max(3, len(words) // 2)])
    parent = ident.rpartition(".")[0]
    if parent in entries:
        variants["path"] = f"{entries[parent]} > {title}"
    for form, asked in variants.items():
        if asked and asked != title:
            yield form, asked


def outcome(page: str, ident: str) -> str:
    """``hit`` (that section), ``wrong`` (another one), ``candidates`` (several named) or ``miss``."""
    m = _PAGE.match(page)
    if m:
        return "hit" if m.group(1) == ident else "wrong"
    return "candidates" if "sections match" in page else "miss"


def run(budget: int, files: list[str] | None) -> tuple[dict[str, Counter[str]], list[str]]:
    from hostshape.wayback import retrieve

    per: dict[str, Counter[str]] = {form: Counter() for form in FORMS}
    misses: list[str] = []
    with tempfile.TemporaryDirectory() as spill:
        for doc in load(files):
            first = hostshape_first(doc.text, budget, spill)
            res = first.extra
            if res is None or not res.changed or not res.handle:
                continue
            entries = outline_entries(first.text or "")
            for ident, title in entries.items():
                for form, asked in forms(ident, title, entries):
                    page = retrieve.read(res.handle, section=asked, policy=first.policy)
                    got = outcome(page, ident)
                    per[form][got] += 1
                    if got != "hit" and len(misses) < 400:
                        misses.append(f"{doc.name} {ident} [{form}] {asked[:70]!r}: {got}")
    return per, misses


def render(per: dict[str, Counter[str]], budget: int) -> str:
    rows = [
        f"Section reads by form at {budget:,} tokens (bench/section_forms.py)",
        "",
        "| form | asked | hit | candidates | wrong | miss |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total: Counter[str] = Counter()
    for form in FORMS:
        c = per[form]
        total.update(c)
        n = sum(c.values())
        rows.append(f"| {form} | {n} | {c['hit']} | {c['candidates']} | {c['wrong']} | {c['miss']} |")
    n = sum(total.values())
    rows.append(f"| **all** | {n} | {total['hit']} | {total['candidates']} | {total['wrong']} | {total['miss']} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(prog="bench/section_forms.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=BUDGET)
    ap.add_argument("--files", nargs="+", help="document file names from bench/documents.toml (default: all)")
    ap.add_argument("--out", type=Path, help="write the table (markdown) here")
    ap.add_argument("--misses", type=int, default=0, help="print this many reads that missed")
    args = ap.parse_args(argv)
    per, misses = run(args.budget, args.files)
    text = render(per, args.budget)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    for line in misses[: args.misses]:
        print(line)
    return text


if __name__ == "__main__":
    main()
