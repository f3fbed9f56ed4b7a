"""Manual pages: roff source (man(7) ``.SH``/``.SS``, mdoc(7) ``.Sh``/``.Ss``, with the commands and flags of their
tagged lists, ``.It Ic name`` / ``.It Fl x`` / ``.TP`` then ``.B name``), or a page as ``man`` renders it (section
names flush left in capitals, their text indented, each command or flag of a tagged paragraph at the text's indent
with its description below it, deeper). Read line by line (linear)."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

_SECTION = re.compile(r"\.(SH|Sh|SS|Ss)(?:[ \t]+(.*))?$")
_ITEM = re.compile(r"\.It[ \t]+(?:Xo[ \t]+)?(Ic|Fl|Cm|Ev|Pa|Ar|Dv|Va|Nm|Cd)\b(.*)$")
_TAGGED = re.compile(r"\.(?:TP|IP)\b")
_BOLD = re.compile(r"\.(?:B|BR|BI|IR|I)\b[ \t]*(.*)$|\\f[B3](.*)$")
_MACRO = re.compile(r"\b(?:Xo|Xc|Ic|Fl|Cm|Ev|Pa|Ar|Dv|Va|Nm|Cd|Op|Oo|Oc|Ns|Li|Sy|Em|Dq|Ql|Pq|Ta|No)\b")
_ESCAPE = re.compile(r"\\f(?:\(..|\[[^\]]*\]|.)|\\\(..|\\\[[^\]]*\]|\\[&|^%]")
_MACRO_LINE = re.compile(r"^\.(?:\\\"|[A-Za-z]{1,3}\b)", re.M)
_SOURCE_SECTION = re.compile(r"^\.(?:SH|Sh|TH|Dt|Dd)\b", re.M)
_OVERSTRIKE = re.compile(r".\x08")
_RENDERED_HEAD = re.compile(r"[A-Z][A-Z0-9 ,/&()'-]{1,50}")
_RENDERED_SUB = re.compile(r" {3}[A-Z][\w ,/&()'-]{1,60}")


def looks_like_roff(lines: list[str]) -> bool:
    """Most lines are roff requests or macros (``.SH``, ``.Pp``, ``.\\"``), with section macros among them."""
    macros = sum(1 for line in lines if _MACRO_LINE.match(line))
    return macros >= 0.2 * len(lines) and any(_SOURCE_SECTION.match(line) for line in lines[:400])


def looks_rendered(lines: list[str]) -> bool:
    """A page as ``man`` prints it: ``NAME`` and ``SYNOPSIS`` or ``DESCRIPTION`` flush left, most lines indented."""
    heads = {_OVERSTRIKE.sub("", line).strip() for line in lines[:200] if line[:1].isalpha()}
    indented = sum(1 for line in lines if line[:1] in (" ", "\t"))
    return "NAME" in heads and bool(heads & {"SYNOPSIS", "DESCRIPTION"}) and indented >= 0.6 * len(lines)


def outline(text: str) -> Outline | None:
    """The sections of a manual page (its commands and flags below them), or None when it has none."""
    lines = text.split("\n")
    entries = _source(lines) if looks_like_roff(lines[:2000]) else _rendered(lines)
    if not entries:
        return None
    shown, notes = kept(entries, (), "sections and items")
    name = _page_name(lines[:200])
    return Outline("man page", shown, summary=name, notes=notes)


def _clean(raw: str) -> str:
    text = _ESCAPE.sub("", raw[:2000].replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " "))
    return title_of(_MACRO.sub("", text).replace('"', ""))


def _source(lines: list[str]) -> list[Entry]:
    entries: list[Entry] = []
    tagged = False
    for number, line in enumerate(lines, 1):
        if not line.startswith("."):
            if tagged and line.strip():
                tagged = False
                found = _BOLD.match(line)
                if found:
                    title = _clean(found.group(1) or found.group(2) or "")
                    entries.append(Entry(title, 3, number - 1, name=title.split(" ")[0]))
            continue
        section = _SECTION.match(line)
        item = None if section else _ITEM.match(line)
        if section:
            entries.append(
                Entry(
                    _clean(section.group(2) or "") or "(untitled)", 1 if section.group(1) in ("SH", "Sh") else 2, number
                )
            )
        elif item:
            flag = "-" if item.group(1) == "Fl" else ""
            title = flag + _clean(item.group(2)).lstrip()
            if title.strip("-"):
                entries.append(Entry(title, 3, number, name=title.split(" ")[0]))
        elif _TAGGED.match(line):
            tagged = True
            continue
        elif tagged:
            found = _BOLD.match(line)
            if found:
                title = _clean(found.group(1) or found.group(2) or "")
                if title:
                    entries.append(Entry(title, 3, number - 1, name=title.split(" ")[0]))
        tagged = False
        if len(entries) > MAX_ENTRIES:
            break
    return entries


def _rendered(lines: list[str]) -> list[Entry]:
    """Section names flush left, subsections at three spaces, and the tags of tagged paragraphs (a command or a
    flag at the text's own indent, its description right below it indented deeper) under them."""
    lines = [_OVERSTRIKE.sub("", line[:400]).rstrip() for line in lines]
    base = _base_indent(lines)
    entries: list[Entry] = []
    sub = False
    for index, line in enumerate(lines):
        number = index + 1
        if number > 1 and _RENDERED_HEAD.fullmatch(line):
            entries.append(Entry(line, 1, number))
            sub = False
        elif entries and _RENDERED_SUB.fullmatch(line) and base != 3:
            entries.append(Entry(line.strip(), 2, number))
            sub = True
        elif entries and base and _indent(line) == base and index + 1 < len(lines):
            below = lines[index + 1]
            tag = line.strip()
            ends = tag.endswith((".", ":", ",")) and not tag.startswith("-")  # a flag may share its line with its text
            if below.strip() and _indent(below) > base and len(tag) <= 100 and not ends:
                entries.append(Entry(title_of(tag), 3 if sub else 2, number, name=tag.split(" ")[0].rstrip(",")))
        if len(entries) > MAX_ENTRIES:
            break
    return entries


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" ")) if line.strip() else -1


def _base_indent(lines: list[str]) -> int:
    """The indent of the page's text: that of the first line under its first section (NAME)."""
    for index, line in enumerate(lines[:200]):
        if _RENDERED_HEAD.fullmatch(line):
            return next((_indent(text) for text in lines[index + 1 : index + 5] if text.strip()), 0)
    return 0


def _page_name(lines: list[str]) -> str:
    for line in lines:
        found = re.match(r"\.(?:TH|Dt)[ \t]+\"?([\w.+-]+)\"?[ \t]+\"?(\w+)", line)
        if found:
            return f"{found.group(1).lower()}({found.group(2)})"
    first = next((_OVERSTRIKE.sub("", line).strip() for line in lines if line.strip()), "")
    found = re.match(r"([\w.+-]+)\((\w+)\)", first)
    return f"{found.group(1).lower()}({found.group(2)})" if found else ""
