"""reStructuredText: section titles by their adornment (a line of one repeated punctuation character under the
title, and optionally over it), levels in the order each adornment style first appears, as docutils decides them.
Read line by line (linear), literal blocks (after ``::``) skipped; no parser is needed for titles. A title is shown
as it reads: inline literals, roles, emphasis and links keep their text, without their marks."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, title_of

#: an adornment line: one punctuation character repeated (docutils accepts any of these)
ADORNMENT = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])\1{2,}[ \t]*$""")
#: what only reStructuredText writes: directives, ``text <url>`_`` links, roles, a literal block's ``::``
MARKS = re.compile(r"^\.\. [\w:-]+::|^\.\. _[^:]+:|`_{1,2}(?:\s|$|[.,;)])|:\w+:`|::$", re.M)


# inline markup in a title: ``literal``, :role:`target <text>` or :role:`text`, `text <url>`_, *emphasis*, **strong**;
# each alternative stops at its closing mark or the line's end: linear in the title
_INLINE = re.compile(
    r"``([^`\n]{1,300}?)``|(?::[\w:+-]{1,40}:)?`([^`<\n]{1,300}?)\s*(?:<[^`>\n]{0,2000}>)?`(?:_{1,2}|(?::[\w:+-]{1,40}:))?"
    r"|\*\*([^*\n]{1,300}?)\*\*|\*([^*\n]{1,300}?)\*"
)


def clean_title(raw: str) -> str:
    """A title's text as it reads, without its inline markup (a mark left unclosed stays as written)."""
    return title_of(_INLINE.sub(lambda found: next(part for part in found.groups() if part is not None), raw))


def outline(text: str) -> Outline | None:
    """The section titles of ``text``, or None when it has none."""
    entries: list[Entry] = []
    styles: list[tuple[str, bool]] = []  # adornment styles (character, overlined) in order of first use
    lines = text.splitlines()
    notes: tuple[str, ...] = ()
    literal_indent: int | None = None  # inside a literal block: lines indented deeper than this
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        stripped = line.strip()
        if literal_indent is not None:
            if stripped and len(line) - len(line.lstrip()) <= literal_indent:
                literal_indent = None
            else:
                index += 1
                continue
        below = lines[index + 1]
        over = False
        title = ""
        if ADORNMENT.match(line) and index + 2 < len(lines) and lines[index + 2].rstrip() == line.rstrip():
            title, over, adornment = below.strip(), True, line.rstrip()  # an overlined title
            step = 3
        elif stripped and not line[:1].isspace() and ADORNMENT.match(below) and len(below.rstrip()) >= len(stripped):
            title, adornment, step = stripped, below.rstrip(), 2
        if title and not ADORNMENT.match(title):
            style = (adornment[0], over)
            if style not in styles:
                styles.append(style)
            entries.append(Entry(clean_title(title) or title_of(title), styles.index(style) + 1, index + 1))
            if len(entries) >= MAX_ENTRIES:
                notes = (f"outline keeps the first {MAX_ENTRIES:,} titles",)
                break
            index += step
            continue
        if stripped.endswith("::") and not stripped.startswith(".. "):
            literal_indent = len(line) - len(line.lstrip())
        index += 1
    if not entries:
        return None
    return Outline("restructuredtext", tuple(entries), notes=notes)


def looks_like_rst(sample: str) -> bool:
    """Titles adorned as reStructuredText, and its own marks (directives, roles, ``_`` links)."""
    underlined = len(re.findall(r"^[^\s].*\n([=\-~^\"'`#*+:.<>_])\1{2,}[ \t]*$", sample, re.M))
    return underlined >= 2 and len(MARKS.findall(sample)) >= 2
