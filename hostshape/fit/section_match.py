"""Sections named the way a model recalls them: a title in another case, without its Markdown, numbering ("3.2"),
commit hash or ``file:line``, with a trailing colon, clipped with "…" (by the outline or by the model), a part of
it, or a path of titles ("Configuration > Theme").

Tried after an exact id or title (hostshape/fit/document.py ``Document.section_matches``), in order: the same
normalised title (whole, then without its lead); a clipped title one is the start of the other; a title holding
the asked words as a whole-word part. The first step that finds any answers; several found are candidates for the
model to choose from, never a guess. The work is bounded by the outline's size: each title and the ask are
normalised from at most ``TITLE_CHARS`` characters (a path from at most ``TITLE_CHARS * 4``), and each step is one
pass over the sections with plain string operations (no pattern built from the ask).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from hostshape.documents.model import Section

TITLE_CHARS = 300  # of a title or an ask, normalised
MIN_PART_CHARS = 3  # a part of a title shorter than this names nothing
CANDIDATES_SHOWN = 8
CANDIDATE_TITLE_CHARS = 60
PATH_SEPARATOR = " > "
_CLIPS = ("…", "...")
_MARKUP = str.maketrans({c: " " for c in "`*_~"})
# what leads a title without being its words: a numbering (3.2, 3.2., IV.), a commit hash, a file:line[:col]
_LEAD = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[0-9a-fA-F]{7,40}|[^\s:]+:\d+(?::\d+)?:?)\s+(?=\S)")
_NOT_WORD = re.compile(r"[^\w]+")


def normal(text: str) -> str:
    """``text`` (its first ``TITLE_CHARS`` characters) in lower case, compatibility forms folded, Markdown marks
    and punctuation as blanks, blanks collapsed: the words a title is recalled by."""
    text = unicodedata.normalize("NFKC", text[:TITLE_CHARS]).casefold().translate(_MARKUP)
    return " ".join(_NOT_WORD.sub(" ", text).split())


def _unled(text: str) -> str:
    return _LEAD.sub("", text.strip(), count=1)


def _clipped(text: str) -> tuple[str, bool]:
    """``text`` without a clip mark at its end, and whether it had one."""
    stripped = text.rstrip()
    for mark in _CLIPS:
        if stripped.endswith(mark):
            return stripped[: -len(mark)], True
    return stripped, False


class _Title:
    """A section's title as it is compared: normalised whole and without its lead, and whether it was clipped."""

    __slots__ = ("bare", "clipped", "full")

    def __init__(self, section: Section) -> None:
        title, self.clipped = _clipped(section.title[:TITLE_CHARS])
        self.full = normal(title)
        self.bare = normal(_unled(title))


def recalled(sections: Sequence[Section], wanted: str) -> list[Section]:
    """The sections ``wanted`` names as recalled (see the module docstring); a path of titles is read from its
    last part, kept to sections whose enclosing sections match its earlier parts in order. Empty when none."""
    wanted = wanted[: TITLE_CHARS * 4]
    parts = wanted.split(PATH_SEPARATOR) if PATH_SEPARATOR in wanted else [wanted]
    if len(parts) > 1 and all(normal(p) for p in parts):
        titles = [_Title(s) for s in sections]
        by_id = {s.id: i for i, s in enumerate(sections)}
        found = _match(sections, titles, parts[-1])
        return [s for s in found if _within(sections, titles, by_id, s, parts[:-1])]
    return _match(sections, [_Title(s) for s in sections], wanted)


def _match(sections: Sequence[Section], titles: Sequence[_Title], wanted: str) -> list[Section]:
    text, clipped = _clipped(wanted.rstrip().rstrip(":").rstrip())
    full, bare = normal(text), normal(_unled(text))
    if not bare:
        return []
    steps: list[Callable[[_Title], bool]] = [
        lambda t: full == t.full,
        lambda t: bare in (t.full, t.bare),
        lambda t: (
            (t.clipped and bool(t.bare) and (bare.startswith(t.bare) or full.startswith(t.full)))
            or (clipped and (t.bare.startswith(bare) or t.full.startswith(full)))
        ),
        lambda t: len(bare) >= MIN_PART_CHARS and f" {bare} " in f" {t.full} ",
    ]
    for step in steps:
        found = [s for s, t in zip(sections, titles, strict=True) if step(t)]
        if found:
            return found
    return []


def _within(
    sections: Sequence[Section], titles: Sequence[_Title], by_id: dict[str, int], section: Section, path: list[str]
) -> bool:
    """Whether the sections enclosing ``section`` (its id's dotted prefixes) match ``path`` in order."""
    ident, outer = section.id, []
    while "." in ident:
        ident = ident.rpartition(".")[0]
        if ident in by_id:
            outer.append(by_id[ident])
    outer.reverse()
    at = 0
    for part in path:
        while at < len(outer) and not _match([sections[outer[at]]], [titles[outer[at]]], part):
            at += 1
        if at == len(outer):
            return False
        at += 1
    return True


def candidates_text(wanted: str, found: Sequence[Section]) -> str:
    """What a read answers when ``wanted`` fits several sections: their ids and titles (the first
    ``CANDIDATES_SHOWN``), and how to name one."""
    shown = "; ".join(f"{s.id} {_short(s.title)!r}" for s in found[:CANDIDATES_SHOWN])
    more = f" and {len(found) - CANDIDATES_SHOWN:,} more" if len(found) > CANDIDATES_SHOWN else ""
    return (
        f"{len(found):,} sections match {_short(wanted)!r}: {shown}{more}; pass one of their ids, e.g. "
        f'section="{found[0].id}"'
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CANDIDATE_TITLE_CHARS else text[: CANDIDATE_TITLE_CHARS - 1] + "…"
