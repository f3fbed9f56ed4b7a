"""Where a page's content starts, after the site's navigation: a page converted to Markdown whole (markdownify, a
fetch tool), or a page whose sidebar is plain ``<div>`` lists, opens with lists of links to other pages, short
labels and breadcrumbs before its first paragraph. Decided from the lines alone (links, labels, prose), never from a
site's class names; linear, over the first ``SCAN_LINES`` lines (and ``SCAN_CHARS`` characters) only.

The navigation is what comes before the content's first heading (or first paragraph) when most of its lines are
links (at least ``MIN_LINKS``), not all of them to places on the same page (a table of contents is part of the page),
and no line of it is prose. A link-dense line counts as a link even in a table (a repository's file list).

A paragraph before any heading that its buttons follow (short labels: ``Accept all``, ``Reject``) is the site's
banner (a cookie notice, an announcement), not the content's start, when the navigation's links come after it: a
scraper converting the whole page puts it first; so is a line of a header's labels, however many (a theme's icon
buttons read out: ``Contents Menu Expand Light mode Dark mode ... Skip to content``): a paragraph of one line holding
no sentence mark. At most ``MAX_BANNER_LINES`` lines of banners."""

from __future__ import annotations

import re
from dataclasses import dataclass

SCAN_LINES = 1_500
SCAN_CHARS = 100_000
MIN_LINKS = 5
MAX_BANNER_LINES = 6
# a link's text holds no bracket and its address no parenthesis or blank: each try stops at the next one, so that
# a line of 2,000 brackets costs 2,000 steps, not 600,000
_LINK = re.compile(r"!?\[([^\[\]\n]{0,300})\]\(([^()\s]{0,2000})(?:\s[^()\n]{0,300})?\)")
_IMAGE = re.compile(r"!\[[^\[\]\n]{0,300}\]\([^()\s]{0,2000}(?:\s[^()\n]{0,300})?\)")
_MARKS = re.compile(r"^(?:[-*+>|]|\d+[.)])\s*|[|*_`]")
_HEADING = re.compile(r" {0,3}#{1,6}\s+\S")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")  # the underline of a setext heading (turndown's default style)
_ITEM = re.compile(r"(?:[-*+>]|\d+[.)])(?:\s|$)")
_RULE = re.compile(r" {0,3}(?:[-*_]\s*){3,}$")
_CONTENT = re.compile(r" {0,3}(?:```|~~~)")
_WORD = re.compile(r"[^\W_]{2,}")
_PROSE_WORDS = 8
_LONG_WORDS = 20
_SENTENCE_END = re.compile(r"[.!?:;]\W{0,3}$")
_SENTENCE_MARK = re.compile(r"[.!?;:]")
_BLOCK_START = re.compile(r"(?:[-*+>|#]|\d+[.)])\s|```|~~~")


@dataclass(frozen=True)
class Navigation:
    """The navigation before the content: lines 1 to ``content - 1``, holding ``links`` links."""

    content: int
    links: int


def leading(text: str) -> Navigation | None:
    """The navigation ``text`` opens with, or None when it opens with its content."""
    links = others = local = banners = 0
    start = heading = 0  # the first line, and the first heading, after the last link line
    lines = text[:SCAN_CHARS].split("\n", SCAN_LINES)[:SCAN_LINES]
    for number, raw in enumerate(lines, 1):
        line = raw[:2000].strip()
        if not line or _RULE.match(line):
            continue
        following = lines[number].strip()[:2000] if number < len(lines) else ""
        if _SETEXT.match(following) and not _ITEM.match(line):  # a heading, even when its text is a link
            others += 1
            start = start or number
            heading = heading or number
            continue
        kind = _kind(line, following)
        if kind == "link":
            links += 1
            local += all(href.startswith("#") for _, href in _LINK.findall(line))
            start = heading = 0
            continue
        start = start or number
        if kind == "content":
            if (
                heading
                or banners >= MAX_BANNER_LINES
                or not (_labels(line, following) or _buttons_after(lines, number))
            ):
                break
            banners += 1  # a banner's line: the navigation may go on after its buttons
        others += 1
        if not heading and _HEADING.match(line):
            heading = number
    else:
        return None  # no content within reach: nothing to skip to
    start = heading or start  # labels before the content's heading ("On this page") are the navigation's
    if start <= 1 or links < MIN_LINKS or links < others or local >= links * 0.8:
        return None
    return Navigation(start, links)


def _kind(line: str, following: str) -> str:
    """``link`` (most of what it shows is link text), ``content`` (prose: a sentence, or a paragraph going on to the
    ``following`` line; code) or ``label`` (a heading, a short line, a caption)."""
    if _CONTENT.match(line):
        return "content"
    if _linked(line):
        return "link"
    if _HEADING.match(line) or _IMAGE.search(line):
        return "label"
    words = len(_WORD.findall(_MARKS.sub("", _LINK.sub(" ", line))))
    if words >= _LONG_WORDS or (words >= _PROSE_WORDS and (_SENTENCE_END.search(line) or _goes_on(following))):
        return "content"
    return "label"


def _labels(line: str, following: str) -> bool:
    """Whether ``line`` is a row of labels: a paragraph of its own (``following`` does not go on with it), neither
    code nor a list item, holding no sentence mark."""
    return not _SENTENCE_MARK.search(line) and not _goes_on(following) and not _BLOCK_START.match(line)


def _buttons_after(lines: list[str], number: int) -> bool:
    """Whether the paragraph holding line ``number`` (1-based) of ``lines`` is followed by a button: a short label,
    neither a link, nor a heading, nor prose (within a few lines: a paragraph of a banner is short)."""
    at = number
    while at < len(lines) and at - number < MAX_BANNER_LINES and lines[at].strip():
        at += 1  # to the end of the paragraph
    while at < len(lines) and not lines[at].strip():
        at += 1
    if at >= len(lines) or at - number > MAX_BANNER_LINES + 2:
        return False
    button = lines[at].strip()[:2000]
    following = lines[at + 1].strip()[:2000] if at + 1 < len(lines) else ""
    return not _HEADING.match(button) and not _SETEXT.match(following) and _kind(button, following) == "label"


def _linked(line: str) -> bool:
    """Whether most of what ``line`` shows is the text of its links (a link showing only an image, a badge or a
    logo, shows nothing)."""
    shown = _IMAGE.sub(" ", line)
    linked = sum(len(text.strip()) for text, _ in _LINK.findall(shown))
    return bool(linked) and linked >= len(_MARKS.sub("", _LINK.sub(" ", shown)).strip())


def _goes_on(following: str) -> bool:
    """Whether ``following`` continues a paragraph (a wrapped line), not a list item, heading, quote or table."""
    return bool(following) and not _BLOCK_START.match(following) and not _linked(following)
