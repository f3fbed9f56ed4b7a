"""The benchmark's inputs: the recorded payloads, and which identifiers each one's records carry.

An identifier counts as *kept* when the output text still carries it as that record's identifier:

- JSON lists: the value of the record's identifier field, written as a JSON member (``"number":1033``,
  ``"sha":"977560f2..."``, ``"filename":"github3/pulls.py"``, any spacing). A mention inside a URL or prose does not
  count, so a cut-off text earns no credit for ``.../pulls/1033`` links or "fixes #1033". hostshape's compact index
  (``"_index": {"fields": ["number", "title"], "rows": [[1033, "..."], ...]}``) counts by column: the value in the
  identifier field's column of any row (see ``_index_rows``).
- Markdown: every heading line (``## Web Frameworks``) as a whole line.
- Unified diff: every ``diff --git a/X b/Y`` header line.
- Playwright aria snapshot: every ``[ref=eN]`` element reference.

Only the JSON lists are "list payloads" for the issue's recall goal; the rest are reported for information.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostshape.examples import PAYLOADS, TOOLS

#: file -> (path to the record list inside the document, identifier field). ``""`` is the document itself.
LIST_IDENTIFIERS: dict[str, tuple[str, str]] = {
    "gh_pulls_list.json": ("", "number"),
    "gh_issues_list.json": ("", "number"),
    "octokit_issues_page1.json": ("", "number"),
    "gh_search_issues.json": ("items", "number"),
    "gh_commits_list.json": ("", "sha"),
    "gh_pull_files_patches.json": ("", "filename"),
}
#: single-object JSON payloads: the identifying members of the one record.
OBJECT_IDENTIFIERS: dict[str, tuple[str, ...]] = {
    "gh_file_contents_base64.json": ("path", "sha"),
}

TOOL_FOR_FILE: dict[str, str] = {file: tool for tool, file in TOOLS.items()}


@dataclass(frozen=True)
class Payload:
    """One corpus file as a host would receive it (its exact text), with the identifiers of its records."""

    name: str
    text: str
    is_json: bool
    kind: str  # "list", "object" or "text"
    id_field: str  # what an identifier is, for the report ("number", "heading", ...)
    identifiers: tuple[str | int, ...]

    @property
    def tool(self) -> str:
        return TOOL_FOR_FILE.get(self.name, Path(self.name).stem)

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    def recall(self, output: str) -> float | None:
        """Fraction of this payload's distinct identifiers that ``output`` still carries (None: none defined)."""
        if not self.identifiers:
            return None
        kept = _kept(self, output)
        return sum(1 for i in self.identifiers if i in kept) / len(self.identifiers)


def load(directory: Path = PAYLOADS, names: Iterable[str] | None = None) -> list[Payload]:
    """The payload files in ``directory`` (all regular files except PROVENANCE.md), sorted by name."""
    wanted = set(names) if names is not None else None
    out = []
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.name == "PROVENANCE.md" or (wanted is not None and path.name not in wanted):
            continue
        out.append(_payload(path.name, path.read_text(encoding="utf-8")))
    if wanted is not None and len(out) != len(wanted):
        missing = wanted - {p.name for p in out}
        raise SystemExit(f"no such payload in {directory}: {', '.join(sorted(missing))}")
    return out


def _payload(name: str, text: str) -> Payload:
    if name in LIST_IDENTIFIERS:
        where, field = LIST_IDENTIFIERS[name]
        doc: Any = json.loads(text)
        records = doc[where] if where else doc
        ids = tuple(dict.fromkeys(r[field] for r in records))
        return Payload(name, text, True, "list", field, ids)
    if name in OBJECT_IDENTIFIERS:
        fields = OBJECT_IDENTIFIERS[name]
        doc = json.loads(text)
        return Payload(name, text, True, "object", "+".join(fields), tuple(f"{f}={doc[f]}" for f in fields))
    if name.endswith(".json"):
        json.loads(text)
        return Payload(name, text, True, "object", "", ())
    if name.endswith(".md"):
        heads = tuple(dict.fromkeys(m.group(0) for m in re.finditer(r"(?m)^#{1,6} .+$", text)))
        return Payload(name, text, False, "text", "heading", heads)
    if name.endswith(".diff"):
        heads = tuple(dict.fromkeys(m.group(0) for m in re.finditer(r"(?m)^diff --git .+$", text)))
        return Payload(name, text, False, "text", "diff header", heads)
    if name.endswith((".yml", ".yaml")):
        refs = tuple(dict.fromkeys(re.findall(r"\[ref=e\d+\]", text)))
        return Payload(name, text, False, "text", "[ref=eN]", refs)
    return Payload(name, text, False, "text", "", ())


def _kept(p: Payload, output: str) -> set[str | int]:
    """The identifiers of ``p`` that ``output`` carries."""
    if p.kind == "text":
        if p.id_field == "[ref=eN]":
            return set(re.findall(r"\[ref=e\d+\]", output))
        return {line for line in p.identifiers if re.search(rf"(?m)^{re.escape(str(line))}$", output)}
    if p.kind == "object":
        kept: set[str | int] = set()
        for ident in p.identifiers:
            field, _, value = str(ident).partition("=")
            if _member_re(field, value).search(output):
                kept.add(ident)
        return kept
    field = p.id_field
    kept = {v for v in p.identifiers if _member_re(field, v).search(output)}
    kept |= _index_rows(output, field) & set(p.identifiers)
    return kept


def _member_re(field: str, value: str | int) -> re.Pattern[str]:
    if isinstance(value, int):
        return re.compile(rf'"{re.escape(field)}"\s*:\s*{value}(?![\d.])')
    return re.compile(rf'"{re.escape(field)}"\s*:\s*{re.escape(json.dumps(value, ensure_ascii=False))}')


def _index_rows(output: str, field: str) -> set[Any]:
    """Identifiers in a columnar index ({"fields": [..field..], "rows": [[...], ...]}) anywhere in valid JSON."""
    if '"rows"' not in output:
        return set()
    try:
        doc = json.loads(output)
    except ValueError:
        return set()
    found: set[Any] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            cols, rows = node.get("fields"), node.get("rows")
            if isinstance(cols, list) and field in cols and isinstance(rows, list):
                i = cols.index(field)
                found |= {r[i] for r in rows if isinstance(r, list) and len(r) > i and isinstance(r[i], (int, str))}
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found
