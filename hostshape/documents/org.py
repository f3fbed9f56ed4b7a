"""Org mode: its headlines (``* Top``, ``** Sub`` ...; level = number of stars, tags dropped from the title),
outside ``#+begin_...``/``#+end_...`` blocks. Read line by line (linear)."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, heading_text, kept, title_of

_HEADLINE = re.compile(r"(\*+)[ \t]+(\S.*)$")  # its text without the tags: heading_text
_TAGS = re.compile(r":[\w@#%:]+:")
_BEGIN = re.compile(r"[ \t]*#\+begin_(\w+)", re.I)
_END = re.compile(r"[ \t]*#\+end_(\w+)", re.I)
_KEYWORD = re.compile(r"^[ \t]*#\+\w+[:\s]|^[ \t]*:(?:PROPERTIES|END):[ \t]*$", re.M | re.I)
_HEADLINE_LINE = re.compile(r"^\*+[ \t]+\S", re.M)


def looks_like_org(sample: str) -> bool:
    """Headlines written ``* Title`` (at least two) and Org's own keyword lines (``#+title:``, ``#+begin_src``,
    property drawers)."""
    return len(_HEADLINE_LINE.findall(sample)) >= 2 and len(_KEYWORD.findall(sample)) >= 2


def outline(text: str) -> Outline | None:
    """The headlines of ``text``, or None when it has none."""
    entries: list[Entry] = []
    block = ""
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:2000]
        if block:
            end = _END.match(line)
            if end and end.group(1).lower() == block:
                block = ""
            continue
        begin = _BEGIN.match(line)
        if begin:
            block = begin.group(1).lower()
            continue
        found = _HEADLINE.match(line)
        if found:
            title = heading_text(found.group(2), lambda word: bool(_TAGS.fullmatch(word)))
            entries.append(Entry(title_of(title) or "(untitled)", len(found.group(1)), number))
            if len(entries) > MAX_ENTRIES:
                break
    if not entries:
        return None
    shown, notes = kept(entries, (), "headlines")
    return Outline("org", shown, notes=notes)
