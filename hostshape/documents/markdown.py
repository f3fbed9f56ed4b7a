"""Markdown: its headings, from markdown-it-py's token stream (``heading_open`` tokens carry ``.map``, their line
range), or from ATX and setext heading lines outside fenced code when markdown-it-py is not installed. A front matter
(``---`` or ``+++`` lines around ``key: value`` lines at the very top, as static site generators read it) holds no
heading: its closing ``---`` is no setext underline."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, heading_text, kept, title_of

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")  # its text without the closing #s: heading_text
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
# Inline markup dropped from a title: links keep their text, emphasis and code marks go; a code span keeps its text
# as written, an escaped character (``\_``, as converters from HTML write every underscore) is that character, and
# an underscore inside a word (``legacy_light``) is not emphasis (CommonMark, 6.2). Each alternative stops at the next
# backtick or newline: linear in the title.
_LINK = re.compile(r"!?\[([^\]\n]{0,300})\]\([^)\n]{0,2000}\)")
_INLINE = re.compile(r"(`+)([^`\n]{0,300}?)\1|\\([!-/:-@\[-`{-~])|(?<=[^\W_])(_+)(?=[^\W_])|[*_`]{1,3}")
# a permalink: a link to a place on the page whose text is only a symbol (``[¶](#usage "Link to this heading")``,
# as a page converted from HTML keeps it): dropped whole
_PERMALINK = re.compile(r"\[[^\w\]\n]{0,10}\]\(#[^)\n]{0,2000}\)")


# a front matter: its fence, then lines of keys, list items, comments or continuations, within the first lines
_MATTER_FENCE = re.compile(r"(---|\+\+\+)[ \t]*\n")
_MATTER_LINE = re.compile(r"[ \t]*(?:$|#|- |[\w\"'.-]{1,100}[ \t]*[:=])|[ \t]+\S")
MAX_MATTER_LINES = 200


def front_matter(text: str) -> int:
    """How many lines the front matter ``text`` opens with takes (its fences included), or 0 when none."""
    opened = _MATTER_FENCE.match(text)
    if opened is None:
        return 0
    fence = opened.group(1)
    lines = text[opened.end() :].split("\n", MAX_MATTER_LINES + 1)[:MAX_MATTER_LINES]
    for number, line in enumerate(lines, 2):
        if line.rstrip() == fence or (fence == "---" and line.rstrip() == "..."):
            return number if number > 2 else 0
        if not _MATTER_LINE.match(line[:200]):
            return 0
    return 0


def _closing_hashes(word: str) -> bool:
    return bool(word) and not word.strip("#")


# markdown-it-py parses about 0.3 MB a second; a longer text is read by the line scan (also linear, 50x faster).
MAX_PARSED_CHARS = 500_000


def outline(text: str) -> Outline | None:
    """The headings of ``text`` as entries (level = heading level), or None when it has none."""
    notes: tuple[str, ...] = ()
    matter = front_matter(text)
    if matter:  # its lines blanked: the headings keep their line numbers
        text = "\n" * matter + text.split("\n", matter)[-1]
    if len(text) > MAX_PARSED_CHARS:
        entries = _scanned(text)
        notes = (f"{len(text):,} characters: headings read line by line, not parsed",)
    else:
        try:
            entries = _parsed(text)
        except ImportError:
            entries = _scanned(text)
    if not entries:
        return None
    shown, kept_notes = kept(entries, notes, "headings")
    return Outline("markdown", shown, notes=kept_notes)


def clean_title(raw: str) -> str:
    """A heading's source text without its inline markup, and without the permalink sign a page converted from HTML
    ends it with (``Session Objects¶``)."""
    title = title_of(_INLINE.sub(_plain, _LINK.sub(r"\1", _PERMALINK.sub("", raw[:2000]))))
    return title.rstrip("¶§🔗 ").rstrip() or title


def _plain(found: re.Match[str]) -> str:
    """What one match of ``_INLINE`` shows: a code span's text, an escaped character, an underscore inside a word;
    an emphasis or code mark shows nothing."""
    if found.group(1):
        return found.group(2).strip(" ")
    return found.group(3) or found.group(4) or ""


def _parsed(text: str) -> list[Entry]:
    from markdown_it import MarkdownIt

    # Block structure only: inline parsing (emphasis, links) is what costs time on hostile input, and a heading's
    # title is its inline token's source text anyway. CommonMark's preset caps nesting (options.maxNesting).
    parser = MarkdownIt("commonmark").disable("inline")
    tokens = parser.parse(text)
    entries: list[Entry] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        inline = tokens[index + 1] if index + 1 < len(tokens) else None
        title = clean_title(inline.content if inline is not None else "")
        entries.append(Entry(title or "(untitled)", int(token.tag[1:]), token.map[0] + 1))
        if len(entries) > MAX_ENTRIES:
            break
    return entries


def _scanned(text: str) -> list[Entry]:
    """ATX and setext headings, line by line, skipping fenced code blocks (linear)."""
    entries: list[Entry] = []
    fence: str | None = None
    previous = ""
    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            previous = ""
            continue
        if opened:
            fence = opened.group(1)
            previous = ""
            continue
        atx = _ATX.match(line[:2000])
        if atx:
            title = heading_text(atx.group(2) or "", _closing_hashes)
            entries.append(Entry(clean_title(title) or "(untitled)", len(atx.group(1)), number))
        elif previous.strip() and _SETEXT.match(line) and not previous.lstrip().startswith(("-", "*", "+", ">")):
            level = 1 if line.strip()[0] == "=" else 2
            entries.append(Entry(clean_title(previous), level, number - 1))
        if len(entries) > MAX_ENTRIES:
            break
        previous = line if not atx else ""
    return entries
