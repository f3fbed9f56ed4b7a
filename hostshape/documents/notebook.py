"""Jupyter notebooks (the nbformat JSON file format, versions 3 and 4): a map of the cells.

The notebook is read back as text, one cell after another under a marker line (``--- cell 3 · code [In 2]``), each
output under its own (``--- cell 3 output · error``): the line ranges and every ``section``, ``lines`` or ``grep``
read refer to that text. The outline is the markdown cells' headings, with every code and raw cell as an entry
under the heading above it (titled by its first line and, when it failed, its error); errors come first. Text
outputs are kept (ANSI colours dropped); images and other binary or widget outputs are named with their size and
the JMESPath that reads them from the saved JSON, never put in the text. Decided from the structure only: a JSON
object with a ``cells`` list (or nbformat 3's ``worksheets``) and an integer ``nbformat``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from hostshape.documents.model import MAX_HIGHLIGHTS, Entry, Outline, clip, heading_text, kept, title_of

_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.+)$")  # its text without the closing #s: heading_text
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# Outputs shown as text, best first; any other kind of output (images, PDFs, widgets, JavaScript) is set aside.
_TEXT_KINDS = ("text/plain", "text/markdown", "text/latex", "application/json", "text")
_SET_ASIDE_KINDS = ("image/", "application/pdf", "application/vnd.", "application/javascript", "video/", "audio/")
_CELL_LEVEL = 7  # below any Markdown heading
# The text marks of a notebook: its cells (or nbformat 3's worksheets) and its format version, near either end of the
# object (nbformat writes its keys sorted: cells first, the version last; version 3 opens with its metadata).
_CELLS = re.compile(r'"(?:cells|worksheets)"\s*:\s*\[')
_NBFORMAT = re.compile(r'"nbformat"\s*:\s*[34]\b')
_MARK_CHARS = 65_536


def looks_like_notebook(text: str) -> bool:
    """The text reads as an nbformat JSON file: a JSON object naming its ``cells`` (or ``worksheets``) and its
    ``nbformat`` version within its first 64 KB or its last 4 KB."""
    head = text[:_MARK_CHARS].lstrip("\ufeff \t\r\n")
    if not head.startswith("{"):
        return False
    tail = text[-4096:]
    return bool(_CELLS.search(head) or _CELLS.search(tail)) and bool(_NBFORMAT.search(head) or _NBFORMAT.search(tail))


def is_notebook(value: Any) -> bool:
    """``value`` (parsed JSON) is a notebook: an object with an integer ``nbformat`` and a list of ``cells`` (4)
    or of ``worksheets`` holding them (3), every cell an object that names its ``cell_type`` (as nbformat's schema
    requires): records that merely sit under a ``cells`` member are data."""
    version = value.get("nbformat") if isinstance(value, dict) else None
    if not isinstance(version, int) or isinstance(version, bool):
        return False
    if isinstance(value.get("cells"), list):
        return _all_cells(value["cells"])
    sheets = value.get("worksheets")
    return isinstance(sheets, list) and all(
        isinstance(sheet, dict) and isinstance(sheet.get("cells", []), list) and _all_cells(sheet.get("cells", []))
        for sheet in sheets
    )


def _all_cells(cells: list[Any]) -> bool:
    return all(isinstance(cell, dict) and isinstance(cell.get("cell_type"), str) for cell in cells)


def outline(text: str) -> Outline | None:
    """The cells of the notebook ``text``, read back as text; None when it is not one (or not valid JSON)."""
    text = text.lstrip("\ufeff")  # a notebook saved with a byte order mark
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        try:  # what nbformat itself reads and orjson refuses: NaN, integers past 64 bits
            value = json.loads(text)
        except (ValueError, RecursionError):
            return None
    if not is_notebook(value):
        return None
    return _Reader(value).outline()


def _cells(value: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each cell with the JMESPath of its place in the file."""
    if isinstance(value.get("cells"), list):
        return [(f"cells[{i}]", cell) for i, cell in enumerate(value["cells"])]
    found: list[tuple[str, Any]] = []
    for w, sheet in enumerate(value.get("worksheets") or []):
        cells = sheet.get("cells") if isinstance(sheet, dict) else None
        found += [(f"worksheets[{w}].cells[{i}]", cell) for i, cell in enumerate(cells or [])]
    return found


def _text(value: Any) -> str:
    """A multiline string of nbformat (a string, or a list of lines)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else str(part) for part in value)
    return "" if value is None else str(value)


def _size(value: Any) -> int:
    return len(_text(value)) if isinstance(value, str | list) else len(orjson.dumps(value))


def _query_key(key: str) -> str:
    """``key`` as one JMESPath step: bare when an unquoted identifier, else a quoted one (``"image/png"``)."""
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else orjson.dumps(key).decode()


class _Reader:
    """Builds the notebook's text, entries and highlights in one pass over its cells."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value
        self.lines: list[str] = []
        self.entries: list[Entry] = []
        self.errors: list[str] = []
        self.counts = {"code": 0, "markdown": 0, "heading": 0, "raw": 0, "other": 0}
        self.set_aside: dict[str, int] = {}

    def outline(self) -> Outline:
        cells = _cells(self.value)
        for number, (path, cell) in enumerate(cells, 1):
            if isinstance(cell, dict):
                self._cell(number, path, cell)
        if not self.lines:
            self.lines.append("(a notebook without cells)")
        entries, notes = kept(self.entries or [Entry("(no cells)", 1, 1)], (), "cells and headings")
        return Outline(
            "notebook",
            entries,
            highlights=tuple(self.errors[:MAX_HIGHLIGHTS]),
            highlights_label="errors in outputs",
            summary=self._summary(len(cells)),
            body="\n".join(self.lines) + "\n",
            notes=notes,
        )

    def _summary(self, total: int) -> str:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in self.counts.items() if n)
        parts = [f"{total:,} cells" + (f" ({kinds})" if kinds else "")]
        if self.errors:
            parts.append(f"{len(self.errors):,} error" + ("s" if len(self.errors) > 1 else ""))
        if self.set_aside:
            kinds = ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in self.set_aside.items())
            parts.append(f"outputs set aside: {kinds}")
        language = _language(self.value.get("metadata"))
        if language:
            parts.append(f"language {language}")
        return "; ".join(parts)

    def _cell(self, number: int, path: str, cell: dict[str, Any]) -> None:
        kind = title_of(str(cell.get("cell_type") or ""), 40) or "other"  # one line: no marker of its own
        self.counts[kind if kind in self.counts else "other"] += 1
        source = _ANSI.sub("", _text(cell.get("source", cell.get("input"))))
        start = len(self.lines) + 1
        if kind == "heading":  # nbformat 3: a heading is a cell of its own
            given = cell.get("level")
            level = max(1, min(6, given)) if isinstance(given, int) else 1
            self.lines.append(f"--- cell {number} · heading")
            self.lines.append("#" * level + " " + " ".join(source.split()))
            self.entries.append(Entry(title_of(source) or "(untitled)", level, start + 1))
            return
        prompt = cell.get("execution_count", cell.get("prompt_number"))
        marker = f"--- cell {number} · {kind}" + (f" [In {prompt}]" if isinstance(prompt, int) else "")
        self.lines.append(marker)
        self.lines += source.split("\n") if source else []
        if kind == "markdown":
            self._headings(source, start + 1)
            self._attachments(number, path, cell)
            return
        errors: list[str] = []
        for index, output in enumerate(cell.get("outputs") or []):
            if isinstance(output, dict):
                error = self._output(number, f"{path}.outputs[{index}]", output)
                if error:
                    errors.append(error)
        first = next((line.strip() for line in source.split("\n") if line.strip()), "(empty)")
        failed = f" ({errors[0].split(':', 1)[0]})" if errors else ""
        self.entries.append(
            Entry(
                title_of(f"cell {number} {kind}{failed}: {first}"),
                _CELL_LEVEL,
                start,
                len(self.lines),
                f"cell {number}",
            )
        )

    def _headings(self, source: str, first_line: int) -> None:
        fence = ""
        for offset, line in enumerate(source.split("\n")):
            opener = _FENCE.match(line)
            if opener:
                mark = opener.group(1)[:3]
                fence = "" if fence == mark else fence or mark
                continue
            found = None if fence else _HEADING.match(line[:2000])
            if found:
                text = heading_text(found.group(2), lambda word: bool(word) and not word.strip("#"))
                title = title_of(text.replace("`", "").replace("*", "")) or "(untitled)"
                self.entries.append(Entry(title, len(found.group(1)), first_line + offset))

    def _attachments(self, number: int, path: str, cell: dict[str, Any]) -> None:
        attachments = cell.get("attachments")
        if not isinstance(attachments, dict):
            return
        for name, bundle in attachments.items():
            for kind, data in bundle.items() if isinstance(bundle, dict) else []:
                query = f"{path}.attachments.{_query_key(str(name))}.{_query_key(str(kind))}"
                self._aside(number, "attachment", str(kind), _size(data), query)

    def _output(self, number: int, path: str, output: dict[str, Any]) -> str | None:
        """Adds one output to the text; returns its error line when it is an error."""
        kind = str(output.get("output_type") or "output")
        if kind in ("error", "pyerr"):
            name, value = str(output.get("ename") or "Error"), str(output.get("evalue") or "")
            line = len(self.lines) + 2
            self.lines.append(f"--- cell {number} output · error")
            self.lines.append(f"{name}: {value}")
            frames = output.get("traceback") or []
            trace = _ANSI.sub("", "\n".join(map(_text, frames)) if isinstance(frames, list) else _text(frames))
            self.lines += trace.split("\n") if trace else []
            error = clip(f"{name}: {' '.join(value.split())}")
            self.errors.append(f"L{line} cell {number}: {error}")
            return error
        if kind == "stream":
            self._text_output(number, f"stream {output.get('name') or 'stdout'}", _text(output.get("text")))
            return None
        bundle = output.get("data")
        data: dict[str, Any] = bundle if isinstance(bundle, dict) else output  # nbformat 3: kinds at the top
        where = f"{path}.data" if isinstance(bundle, dict) else path
        shown = next((k for k in _TEXT_KINDS if k in data and not isinstance(data[k], dict)), None)
        for key, item in data.items():
            binary = str(key).startswith(_SET_ASIDE_KINDS) or key in ("png", "jpeg", "svg", "pdf", "html")
            if binary or (key == "text/html" and shown is None):
                self._aside(number, kind, str(key), _size(item), f"{where}.{_query_key(str(key))}")
        if shown is not None:
            self._text_output(number, f"{kind} {shown}", _text(data[shown]))
        return None

    def _text_output(self, number: int, label: str, text: str) -> None:
        self.lines.append(f"--- cell {number} output · {label}")
        text = _ANSI.sub("", text).rstrip("\n")
        self.lines += text.split("\n") if text else []

    def _aside(self, number: int, kind: str, mime: str, size: int, query: str) -> None:
        self.set_aside[mime] = self.set_aside.get(mime, 0) + 1
        self.lines.append(
            f"--- cell {number} {kind} · {mime}, {size:,} characters: set aside (not text); read it with the query "
            f"{query}"
        )


def _language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return ""
    info = metadata.get("language_info")
    spec = metadata.get("kernelspec")
    for holder, key in ((info, "name"), (spec, "language"), (spec, "name")):
        if isinstance(holder, dict) and isinstance(holder.get(key), str):
            return title_of(holder[key], 40)
    return ""
