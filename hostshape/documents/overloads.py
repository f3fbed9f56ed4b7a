"""Entries that share a title, told apart by the signature below them: an API page titles each overload by its bare
name (Javadoc's ``### notEmpty`` eight times, each followed by its ``public static <T> T[] notEmpty(T[] array,
...)``), so such an entry is titled by the name and its parameter list as the next lines give them
(``notEmpty(T[] array, String message, Object... values)``) and keeps the bare name as its ``name`` (a ``section``
read by it still finds the first). Linear: a few lines are read after each repeated entry."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

from hostshape.documents.model import Entry, Lines, title_of

LOOK_LINES = 4
_LINK = re.compile(r"!?\[([^\[\]\n]{0,300})\]\([^()\s]{0,2000}\)")  # no bracket, parenthesis: linear
_CODE = re.compile(r"[`*]")
_BARE = re.compile(r"[\w$.:~<>-]{1,120}")  # a bare name (``notEmpty``, ``Foo.bar``, ``operator<<``), no signature


def distinguished(entries: tuple[Entry, ...], text: str) -> tuple[Entry, ...]:
    """``entries`` with each repeated title replaced by its signature from ``text`` (the lines the entries refer
    to), where one follows within ``LOOK_LINES`` lines and the signatures differ; the others as they are."""
    counts = Counter(entry.title for entry in entries)
    if not counts or counts.most_common(1)[0][1] < 2:
        return entries
    lines = Lines(text)
    found: dict[str, dict[int, str]] = {}  # a repeated title -> the signature below each of its entries
    for index, entry in enumerate(entries):
        if counts[entry.title] > 1 and _BARE.fullmatch(entry.title):
            signature = _signature(entry.title, lines, entry.start)
            if signature:
                found.setdefault(entry.title, {})[index] = signature
    out = list(entries)
    for signatures in found.values():
        if len(set(signatures.values())) < 2:
            continue  # the same signature each time (a text repeated): it tells nothing apart
        for index, signature in signatures.items():
            entry = entries[index]
            out[index] = dataclasses.replace(entry, title=signature, name=entry.name or entry.title)
    return tuple(out)


def _signature(name: str, lines: Lines, start: int) -> str:
    """``name(...)`` as the first of the lines after ``start`` that calls it with a parameter list shows it."""
    bare = name.rsplit(".", 1)[-1]
    for number in range(start + 1, min(lines.count, start + LOOK_LINES) + 1):
        at = lines.offset(number)
        line = lines.text[at : min(lines.end_offset(number), at + 2000)].rstrip("\n")
        if bare + "(" not in _CODE.sub("", line):
            continue
        line = _CODE.sub("", _LINK.sub(r"\1", line))
        at = line.find(bare + "(")
        if at < 0:
            continue
        depth = 0
        for end in range(at + len(bare), len(line)):
            depth += {"(": 1, ")": -1}.get(line[end], 0)
            if depth == 0:
                return title_of(line[at : end + 1])
        return title_of(line[at:])
    return ""
