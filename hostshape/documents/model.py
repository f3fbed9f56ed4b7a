"""The one outline every document kind produces, and the line index its line ranges refer to."""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

# An outline keeps at most this many entries: a document of more headings is outlined by its first ones, and the
# outline says so (its ``notes``). The fit shows far fewer at any budget; this bounds memory and time.
MAX_ENTRIES = 20_000
# ... and at most this many highlight lines.
MAX_HIGHLIGHTS = 2_000
# Titles and highlight lines are cut to this many characters (a 10 MB line is not a title).
MAX_TITLE_CHARS = 120
MAX_HIGHLIGHT_CHARS = 240


@dataclass(frozen=True)
class Entry:
    """One part of a document: ``title``, ``level`` (1 = top) and its lines ``start``-``end`` (1-based,
    inclusive; ``end`` 0 = up to the next entry of the same or a higher level); ``name``, when the kind knows one,
    is the short name of what the part defines (``max_columns`` for ``pub fn max_columns(...)``), shown instead of
    the title where the outline is compact, and accepted by a ``section`` read like the title."""

    title: str
    level: int
    start: int
    end: int = 0
    name: str = ""


@dataclass(frozen=True)
class Outline:
    """What a kind module found: its parts, what matters first, and the text the line ranges refer to.

    - ``kind``: what the document is, in the reader's words (``markdown``, ``html``, ``junit report``...).
    - ``entries``: in document order; ids are given by position (``ids``), the same for every kind.
    - ``highlights``: the kind's "what matters first" lines (failed tests, errors, interactive elements...),
      most important first, each starting with its line (``L12``); ``highlights_label`` names them.
    - ``summary``: one line about the whole (``23 files changed, +120 -40``), or empty.
    - ``body``: the text the line ranges refer to when it is not the input itself (HTML: its readable text).
    - ``notes``: what the parser had to do (an entity declaration refused, entries beyond MAX_ENTRIES...).
    - ``structured``: False when the entries are only even slices of the text (paragraph groups, blocks of
      lines): a map by position, not by the document's own parts.
    - ``head``: the line the content starts at, after the navigation a page opens with (``documents.nav``): the
      head is shown from there.
    """

    kind: str
    entries: tuple[Entry, ...]
    highlights: tuple[str, ...] = ()
    highlights_label: str = ""
    summary: str = ""
    body: str | None = None
    notes: tuple[str, ...] = ()
    structured: bool = True
    head: int = 1


@dataclass(frozen=True)
class Section:
    """An entry placed in the document: its ``id`` (``2.3``), nesting ``depth`` (1 = top) and resolved ``end``."""

    id: str
    title: str
    depth: int
    start: int
    end: int
    name: str = ""

    @property
    def short(self) -> str:
        """What a compact outline shows of it: its name, else its title."""
        return self.name or self.title

    @property
    def version(self) -> str:
        """The version a release's title starts with (``7.0.0`` for ``[7.0.0] - 2017-05-06``, ``v2.1.0rc1`` for
        ``v2.1.0rc1 (2024-01-02)``), when the title says more than it; else its name when that is a version alone
        (an XML ``<changes ver="1.31.4" date=...>`` known by ``1.31.4``); else empty."""
        found = _VERSION_TITLE.match(self.title)
        if found and found.group(1) != self.title:
            return found.group(1)
        return self.name if self.name != self.title and _VERSION_NAME.fullmatch(self.name) else ""


# a release's title: a version first (bracketed or not, after an optional "v", "version" or "release"), then a
# separator or a year (a numbered section, ``10.2 Grid``, is not one); one character class after the digits keeps it
# linear
_VERSION_TITLE = re.compile(
    r"\[?((?:(?:version|release)\s+)?v?\d+(?:\.\d+)+[-.+0-9A-Za-z]*)\]?(?=\s*[-–—:,(\[]|\s+\d{4})",
    re.IGNORECASE,
)
_VERSION_NAME = re.compile(r"v?\d+(?:\.\d+)+[-.+0-9A-Za-z]{0,20}")


def title_of(text: str, most: int = MAX_TITLE_CHARS) -> str:
    """``text`` on one line, cut to ``most`` characters."""
    text = " ".join(text[: most * 4].split())
    return text if len(text) <= most else text[: most - 1] + "…"


def heading_text(rest: str, closing: Callable[[str], bool]) -> str:
    """A heading line's text after its marker and blanks, without trailing blanks and a closing mark (its last
    blank-separated word when ``closing`` accepts it: ``## Title ##``, ``== Title ==``, an Org headline's
    ``:tags:``), in time linear in the line (a lazy title before optional blanks and a mark backtracked over every
    blank: quadratic). A closing mark that is all there is stays the title."""
    text = rest.rstrip(" \t")
    cut = max(text.rfind(" "), text.rfind("\t"))
    return text[:cut].rstrip(" \t") if cut >= 0 and closing(text[cut + 1 :]) else text


def clip(text: str, most: int = MAX_HIGHLIGHT_CHARS) -> str:
    """``text`` cut to ``most`` characters, trailing blanks removed."""
    text = text[: most + 1].rstrip()
    return text if len(text) <= most else text[: most - 1] + "…"


def place(entries: tuple[Entry, ...], last_line: int) -> list[Section]:
    """The entries with ids (``1``, ``1.1``, ``1.2``, ``2``...), depths normalised to their nesting (a level-3
    heading under a level-1 one is at depth 2) and ends resolved (an entry ends before the next entry of its
    depth or above, or at ``last_line``)."""
    placed: list[Section] = []
    stack: list[tuple[int, int]] = []  # (level, index in placed) of the open ancestors
    counters: list[int] = []
    for entry in entries:
        while stack and stack[-1][0] >= entry.level:
            stack.pop()
        depth = len(stack) + 1
        del counters[depth:]
        while len(counters) < depth:
            counters.append(0)
        counters[depth - 1] += 1
        ident = ".".join(str(n) for n in counters[:depth])
        start = max(1, min(entry.start, last_line))
        placed.append(Section(ident, entry.title, depth, start, entry.end, entry.name))
        stack.append((entry.level, len(placed) - 1))
    # Resolve open ends: the next entry at the same or a smaller depth starts after it.
    open_at: list[int] = []  # indexes of entries without an end yet, by depth
    for index, section in enumerate(placed):
        while open_at and placed[open_at[-1]].depth >= section.depth:
            _close(placed, open_at.pop(), section.start - 1, last_line)
        open_at.append(index)
    while open_at:
        _close(placed, open_at.pop(), last_line, last_line)
    return placed


def _close(placed: list[Section], index: int, before_next: int, last_line: int) -> None:
    """Give ``placed[index]`` its end: its own (a kind that knows it), else the line before the next entry."""
    section = placed[index]
    end = min(max(section.end or before_next, section.start), last_line)
    placed[index] = dataclasses.replace(section, end=end)


@dataclass
class Lines:
    """Where each line of ``text`` starts (linear to build); lines are 1-based."""

    text: str
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        # one start, then one after each newline: summed at C speed (a text of a million lines in a loop took 2 s)
        starts = [0, *itertools.accumulate(len(line) + 1 for line in self.text.split("\n"))][:-1]
        if len(starts) > 1 and starts[-1] == len(self.text):
            starts.pop()  # a final newline does not open a line
        self.starts = starts

    @property
    def count(self) -> int:
        return len(self.starts)

    def offset(self, line: int) -> int:
        """Where line ``line`` starts; ``count + 1`` gives the end of the text."""
        if line > self.count:
            return len(self.text)
        return self.starts[max(1, line) - 1]

    def end_offset(self, line: int) -> int:
        """Just after line ``line`` (its newline included)."""
        return self.offset(line + 1)

    def line_at(self, offset: int) -> int:
        """The line holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def line(self, line: int) -> str:
        return self.text[self.offset(line) : self.end_offset(line)].rstrip("\n")


def kept(
    entries: list[Entry], notes: tuple[str, ...] | list[str], what: str
) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
    """The first MAX_ENTRIES of ``entries``, and ``notes`` with one more when that cut some (``outline keeps the
    first <MAX_ENTRIES> <what>``)."""
    if len(entries) <= MAX_ENTRIES:
        return tuple(entries), tuple(notes)
    return tuple(entries[:MAX_ENTRIES]), (*notes, f"outline keeps the first {MAX_ENTRIES:,} {what}")
