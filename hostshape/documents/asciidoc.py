"""AsciiDoc: section titles (``= Title`` down to ``====== Title``, six levels; Markdown-style ``#`` titles too), outside
delimited blocks (listing ``----``, literal ``....``, example ``====``, sidebar ``****``, passthrough ``++++``, quote
``____``, comment ``////``). Read line by line (linear); no parser is needed for titles."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, heading_text, kept, title_of

_TITLE = re.compile(r"(={1,6}|#{1,6})[ \t]+(\S.*)$")  # its text without the closing marks: heading_text
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|\+{4,}|_{4,}|/{4,})[ \t]*$")
#: what only AsciiDoc writes: attribute entries, block attributes, macros with brackets, admonitions
MARKS = re.compile(
    r"^:[\w-]+:(?:\s|$)|^\[(?:source|listing|NOTE|TIP|IMPORTANT|WARNING|CAUTION|quote|verse|discrete|cols=)[^\]\n]*\]$"
    r"|^(?:include|image|link|xref)::?\S*\[|^(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION): |^-{4}$|^\.{4}$",
    re.M,
)
_TITLE_LINE = re.compile(r"^={1,6}[ \t]+\S", re.M)


def looks_like_asciidoc(sample: str) -> bool:
    """Titles written ``== Section`` (at least two), and AsciiDoc's own marks."""
    return len(_TITLE_LINE.findall(sample)) >= 2 and len(MARKS.findall(sample)) >= 2


def outline(text: str) -> Outline | None:
    """The section titles of ``text`` (level = number of ``=``), or None when it has none."""
    entries: list[Entry] = []
    block = ""
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:2000]
        delimiter = _DELIMITER.match(line)
        if delimiter:
            block = "" if block == delimiter.group(1) else block or delimiter.group(1)
            continue
        found = None if block else _TITLE.match(line)
        if found:
            mark = found.group(1)
            title = heading_text(found.group(2), mark.__eq__)
            entries.append(Entry(title_of(title) or "(untitled)", len(mark), number))
            if len(entries) > MAX_ENTRIES:
                break
    if not entries:
        return None
    shown, notes = kept(entries, (), "titles")
    return Outline("asciidoc", shown, notes=notes)
