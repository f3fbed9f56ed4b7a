"""HTML: the main content as readable text (headings as ``#`` lines, links as ``[text](href)``, list items, table
rows as ``| a | b |``), with scripts, styles, navigation, footers and hidden parts left out; the outline is its
headings, and the terms of its definition lists that are link targets (``<dt id=...>``: the classes, methods and
functions of an API reference page), nested under the heading and the term above them; its line ranges refer to
that readable text. A link to a place on the same page whose text is only a symbol (a permalink: ``¶``, ``§``,
``◆``) is left out, and titles are plain text (no link markup). A list of at least ``MIN_TOC_ITEMS`` items whose
text is all links to places on the same page is the page's table of contents: the outline lists its headings, so
the readable text holds one line saying so instead (a theme's "On this page", a generator's contents list). The
headings left out with the navigation and sidebars (a theme's "Related Topics", "Quick search") are named in a
note, at most ``MAX_OUTSIDE_HEADINGS`` of them: the reader learns what the page offers beside its content.

The tree comes from selectolax (Lexbor) when installed; without it, or when the markup nests deeper than
``MAX_TREE_DEPTH`` (the HTML5 tree algorithm checks the stack of open elements at each tag, which turns a document
nested 100,000 deep quadratic), the same conversion runs on the standard library's event parser, which keeps no
tree and is linear.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from hostshape.documents import prose
from hostshape.documents.model import Entry, Outline, kept, title_of

MAX_TREE_DEPTH = 1_000
# the most of a page read as HTML: its tree (about 20 bytes a character) and readable text stay bounded
MAX_READ_CHARS = 4_000_000
# terms nest under terms this deep at most (a class, its members, theirs): deeper ones are siblings, so that markup
# nesting terms 100,000 deep gives an outline of a few levels, not 100,000
MAX_TERM_NESTING = 2
MIN_TOC_ITEMS = 5
MAX_OUTSIDE_HEADINGS = 8
MAX_HEADINGS_LOOKED_AT = 2_000
TOC_LOCAL_SHARE = 0.95  # of a list's text in links to the same page, for it to be a table of contents
# a tag's attributes run to the next ``>`` or ``<`` (each ``<`` starts one try: stopping there keeps a text of
# unclosed ``<a `` linear, not 4,000 characters a try)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]{0,30})[^<>]{0,4000}?(/?)>")
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)
_SKIP = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "iframe",
        "canvas",
        "object",
        "nav",
        "footer",
        "aside",
        "form",
        "select",
        "option",
        "button",
        "dialog",
        "head",
    ]
)
_SKIP_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"})
_BLOCK = frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "figure",
        "figcaption",
        "blockquote",
        "address",
        "dl",
        "dt",
        "dd",
        "ul",
        "ol",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "caption",
        "details",
        "summary",
        "hr",
        "center",
    ]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# what inside a table cell is read as inline text: its blocks, items, code and a nested table's rows and cells
_IN_CELL = (_BLOCK - {"table"}) | {"li", "pre", "br", "tr", "td", "th", "table"}
_SPACE = re.compile(r"\s+")
_LABEL = re.compile(r"\s*\[\w+\]$")  # a trailing bracketed label of a term (a ``[source]`` link)
_WORD = re.compile(r"[^\W_]")
_PERMALINK = re.compile(r"\s*[^\w\s)\]?!.…]+$")  # a heading's trailing symbol (``¶``, ``#``, ``§``)
_NAME = re.compile(r"[A-Za-z_]\w*$")
# where a term's name ends: its parameters, its value, or its type annotation (a colon and a blank: not ``::``)
_SIGNATURE_END = re.compile(r"\(| = |(?<!:):\s")


def outline(text: str) -> Outline | None:
    """The readable text of ``text`` and its headings. A page longer than ``MAX_READ_CHARS`` is read up to the
    first tag end past it; its markup after that follows the readable text as it is, named in the notes (its
    lines and grep still reach it), so the tree and the text built from it stay bounded."""
    notes: list[str] = ["HTML shown as readable text: scripts, styles, navigation and footers left out"]
    rest = ""
    if len(text) > MAX_READ_CHARS:
        cut = (text.find(">", MAX_READ_CHARS) + 1) or len(text)
        text, rest = text[:cut], text[cut:]
    depth = _deepest(text)
    sink = _Readable()
    try:
        if depth > MAX_TREE_DEPTH:
            notes.append(f"markup nested {depth:,} deep: read as a flat stream of tags")
            raise ImportError
        _from_tree(text, sink)
    except ImportError:
        sink = _Readable()
        _from_stream(text, sink)
    body = sink.result()
    entries = sink.entries
    title = sink.title
    if title and not any(e.level == 1 for e in entries):
        body = f"# {title}\n{body}"
        entries = [Entry(title, 1, 1), *(Entry(e.title, e.level, e.start + 1) for e in entries)]
    structured = bool(entries)
    if not entries:
        fallback = prose.outline(body)
        structured = fallback is not None and fallback.structured
        entries = list(fallback.entries) if fallback else [Entry(title or "(page)", 1, 1)]
    if rest:
        body = body.rstrip("\n")
        first = body.count("\n") + 2
        notes.append(
            f"the page's markup after its first {len(text):,} of {len(text) + len(rest):,} characters is shown as it"
            f" is from line {first:,} on, not as readable text"
        )
        body = f"{body}\n{rest}"
    outside = _left_out(sink.outside, entries)
    if outside:
        notes.append("headings left out with the navigation and sidebars: " + " · ".join(outside))
    shown, kept_notes = kept(entries, notes, f"of {len(entries):,} headings")
    return Outline("html", shown, body=body, notes=kept_notes, structured=structured)


def _deepest(text: str) -> int:
    """How deep the tags of ``text`` nest at most (void and self-closed tags do not nest). Linear."""
    depth = deepest = 0
    for match in _TAG.finditer(text):
        closing, name, self_closed = match.group(1), match.group(2).lower(), match.group(3)
        if name in _VOID or self_closed:
            continue
        if closing:
            depth = max(0, depth - 1)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


class _Readable:
    """Turns start/end/text events into readable lines, noting each heading's line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line: list[str] = []
        self.entries: list[Entry] = []
        self.title = ""
        self.outside: list[str] = []  # the text of every heading of the page, content and left-out parts alike
        self._heading: int | None = None
        self._term: tuple[int, int] | None = None  # the level and first line of the definition term being read
        self._plain: list[str] = []  # the text of the heading or term being read, without link markup
        self._level = 0  # the level of the last heading
        self._lists: list[bool] = []  # per open <dl>: whether its last term was an entry
        self._defs: list[bool] = []  # per open <dd>: whether it describes an entry
        self._in_entries = 0  # how many of them do (kept, not summed: nesting may be 100,000 deep)
        self._links: list[tuple[int, int, str]] = []  # (position in the line, in the title, href) of the open links
        self._pre = 0
        self._cells = 0
        self._tables = 0  # how many tables are open
        self._cell: int | None = None  # while a cell is open: how many tables were open when it opened
        # the outermost open list: its depth of nesting, first line, items, characters, characters in local links
        self._list = [0, 0, 0, 0, 0]

    # -- events ---------------------------------------------------------------------------------------------
    def start(self, tag: str, attrs: dict[str, str | None]) -> bool:
        """Take an element's start; False when its content is to be left out."""
        if tag in _SKIP or _hidden(attrs):
            return False
        if tag == "table":
            self._tables += 1
        if tag in _IN_CELL and self._in_cell(tag):
            return True
        if tag in _HEADINGS:
            self.newline()
            self.line.clear()  # a heading is a line of its own, even in a list item
            self._heading = _HEADINGS[tag]
            self._plain.clear()
            self.line.append("#" * self._heading + " ")
        elif tag in ("dl", "dd", "dt"):
            self._start_definitions(tag, attrs)
        elif tag == "li":
            self.newline()
            if self.line != ["- "]:  # an empty item before: its marker stands for this one
                self.line.append("- ")
            self._list[2] += bool(self._list[0])
        elif tag == "br":
            self.newline()
            self._plain.append(" ")
        elif tag == "pre":
            self.newline()
            self.line.clear()  # code starts on a line of its own, even in a list item
            if not self._pre:
                self.lines.append("```")
            self._pre += 1
        elif tag == "a":
            href = (attrs.get("href") or "").strip()
            self._links.append((len(self.line), len(self._plain), href))
        elif tag == "img":
            alt = (attrs.get("alt") or "").strip()
            if alt:
                self.text(f"[image: {alt}]")
        elif tag in _BLOCK:
            self._start_block(tag)
        return True

    def _start_block(self, tag: str) -> None:
        """A block element: a line of its own; a list also starts or nests the outermost list's count."""
        self.newline()
        self._plain.append(" ")
        if tag in ("ul", "ol"):
            if not self._list[0]:
                self._list = [0, len(self.lines), 0, 0, 0]
            self._list[0] += 1

    def _start_definitions(self, tag: str, attrs: dict[str, str | None]) -> None:
        """A definition list, description or term; a term that is a link target (``id``) starts an entry."""
        self.newline()
        if tag == "dl":
            self._lists.append(False)
        elif tag == "dd":
            self._defs.append(bool(self._lists) and self._lists[-1])
            self._in_entries += self._defs[-1]
        elif attrs.get("id") and self._heading is None and self._term is None:
            self._term = (self._level + 1 + min(self._in_entries, MAX_TERM_NESTING), len(self.lines) + 1)
            self._plain.clear()

    def _in_cell(self, tag: str) -> bool:
        """Take the start of a row, a cell, or a block inside an open cell (a blank: the row stays one line);
        False when ``tag`` is none of these and is read as usual."""
        if self._cell is not None and not self._own_row(tag):
            self.text(" ")
        elif tag == "tr":
            self._end_row()
        elif tag in ("td", "th"):
            self.line.append("| " if self._cells == 0 else " | ")
            self._cells += 1
            self._cell = self._tables
        else:
            return False
        return True

    def _own_row(self, tag: str) -> bool:
        """Whether ``tag``, met inside an open cell, is its own table's cell or row (a cell whose end the markup left
        out): the cell is closed and the tag read as usual. A nested table's cells and rows are the cell's text."""
        if tag in ("td", "th", "tr") and self._tables <= (self._cell or 0):
            self._cell = None
            return True
        return False

    def end(self, tag: str) -> None:
        if tag == "table":
            self._tables = max(0, self._tables - 1)
            if self._cell is not None and self._tables < self._cell:
                self._cell = None  # its table ended: the cell with it
        if self._cell is not None and tag in _IN_CELL and not self._own_row(tag):
            self.text(" ")
        elif tag in ("td", "th"):
            pass
        elif tag in _HEADINGS and self._heading is not None:
            self._end_heading(self._heading)
        elif tag in ("dl", "dd", "dt"):
            self._end_definitions(tag)
        elif tag == "a" and self._links:
            self._end_link()
        elif tag == "tr":
            self._end_row()
        elif tag == "pre" and self._pre:
            self.newline()
            self._pre -= 1
            if not self._pre:
                self.lines.append("```")
        elif tag in _BLOCK or tag == "li":
            self.newline()
            if tag in ("ul", "ol") and self._list[0]:
                self._list[0] -= 1
                if not self._list[0]:
                    self._end_list()

    def _end_row(self) -> None:
        """A row's end, or the next row's start when the markup left the end out: its cells closed on its line."""
        if self._cells:
            self.line.append(" |")
        self.newline()
        self._cells = 0

    def _end_heading(self, level: int) -> None:
        title = title_of("".join(self._plain).strip()).rstrip("¶§#🔗 ").strip()
        if title:
            self.entries.append(Entry(title, level, len(self.lines) + 1))
            self._level = level
            self.newline()
        else:
            self.line.clear()
        self._heading = None

    def _end_definitions(self, tag: str) -> None:
        if tag == "dt" and self._term is not None:
            title = _LABEL.sub("", title_of("".join(self._plain).strip()))
            if title:
                level, start = self._term
                self.entries.append(Entry(title, level, start, name=_name_of(title)))
                if self._lists:
                    self._lists[-1] = True
            self._term = None
        elif tag == "dl" and self._lists:
            self._lists.pop()
        elif tag == "dd" and self._defs:
            self._in_entries -= self._defs.pop()
        self.newline()

    def _end_list(self) -> None:
        """At the end of an outermost list: a table of contents (every item a link to this page) becomes one line."""
        _, first, items, chars, local = self._list
        if items < MIN_TOC_ITEMS or not chars or local < chars * TOC_LOCAL_SHARE:
            return
        if self.entries and self.entries[-1].start > first:
            return  # a heading or a term inside the list: part of the outline, kept
        del self.lines[first:]
        self.lines.append(f"(table of contents: {items:,} links to this page's sections, listed by the outline)")

    def _end_link(self) -> None:
        at, plain_at, href = self._links.pop()
        shown = "".join(self.line[at:]).strip()
        if href.startswith("#") and shown and not _WORD.search(shown):
            del self.line[at:]  # a permalink: a symbol linking to its own place
            del self._plain[plain_at:]
        elif _useful(href) and shown:
            self.line.insert(at, "[")
            self.line.append(f"]({href})")

    def text(self, data: str) -> None:
        if self._pre:
            parts = data.split("\n")
            for index, part in enumerate(parts):
                if index:
                    self.newline(keep_blank=True)
                self.line.append(part)
            return
        data = _SPACE.sub(" ", data)
        if self._list[0] and data.strip():
            self._list[3] += len(data.strip())
            self._list[4] += len(data.strip()) if self._links and self._links[-1][2].startswith("#") else 0
        if data.strip() or (self.line and not self.line[-1].endswith(" ")):
            self.line.append(data)
            if self._heading is not None or self._term is not None:
                self._plain.append(data)

    # -- output ---------------------------------------------------------------------------------------------
    def newline(self, keep_blank: bool = False) -> None:
        line = "".join(self.line)
        line = line.rstrip() if self._pre else _SPACE.sub(" ", line).strip()
        self.line.clear()
        if line == "-" and not self._pre:  # a list item whose text opens a block (<li><p>): keep them on one line
            self.line.append("- ")
            return
        self._links = [(0, plain_at, href) for _, plain_at, href in self._links]
        if line or keep_blank:
            self.lines.append(line)

    def result(self) -> str:
        self.newline()
        return "\n".join(self.lines)


def _left_out(headings: list[str], entries: list[Entry]) -> list[str]:
    """The first ``MAX_OUTSIDE_HEADINGS`` distinct ``headings`` that are not entries (without a trailing
    permalink symbol), each cut to a title's length."""
    shown = {entry.title for entry in entries}
    found: list[str] = []
    for heading in headings:
        title = _PERMALINK.sub("", title_of(heading, 60))
        if title and _WORD.search(title) and title not in shown and title not in found:
            found.append(title)
            if len(found) == MAX_OUTSIDE_HEADINGS:
                break
    return found


def _name_of(title: str) -> str:
    """What a term defines: the last identifier of its signature before its parameters, value or annotation
    (``add`` for ``Foo.add(a, b)``, ``auth`` for ``auth: AuthType | None``, ``links`` for ``property links: dict``),
    or empty."""
    signature = _SIGNATURE_END.split(title, 1)[0].strip()
    last = re.split(r"[\s.:]+", signature)[-1] if signature else ""
    return last if _NAME.match(last) and last != title else ""


def _hidden(attrs: dict[str, str | None]) -> bool:
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").lower() == "true":
        return True
    return (attrs.get("role") or "").lower() in _SKIP_ROLES


def _useful(href: str) -> bool:
    return bool(href) and not href.startswith(("#", "javascript:")) and len(href) <= 300


# -- event sources -------------------------------------------------------------------------------------------
def _from_tree(text: str, sink: _Readable) -> None:
    """Walk selectolax's tree (iteratively: no recursion however deep) from the main content."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(text)
    title = tree.css_first("title")
    sink.title = title_of(title.text()) if title is not None else ""
    root = _main(tree)
    if root is None:
        return
    sink.outside = _outside(tree, root)
    root_id = root.mem_id
    node = root.child
    while node is not None:
        descend = _enter(node, sink)
        if descend and node.child is not None:
            node = node.child
            continue
        if descend and node.tag != "-text":
            sink.end(node.tag)
        while True:
            if node.next is not None:
                node = node.next
                break
            node = node.parent
            if node is None or node.mem_id == root_id:
                node = None
                break
            sink.end(node.tag)


def _outside(tree: Any, root: Any) -> list[str]:
    """The text of the page's visible headings that the readable text leaves out: outside ``root``, or inside a
    left-out element of it (a sidebar, a navigation); at most ``MAX_OUTSIDE_HEADINGS * 4`` of the first
    ``MAX_HEADINGS_LOOKED_AT`` headings, each up its ancestors (at most ``MAX_TREE_DEPTH``: the tree was built only
    when none is deeper), so that a page of 100,000 headings costs a bounded walk."""
    found: list[str] = []
    for heading in tree.css("h1, h2, h3, h4, h5, h6")[:MAX_HEADINGS_LOOKED_AT]:
        left_out, node = False, heading.parent
        while node is not None and node.mem_id != root.mem_id:
            attrs = node.attributes
            if "hidden" in attrs or (attrs.get("aria-hidden") or "").lower() == "true":
                break  # not shown at all
            left_out = left_out or node.tag in _SKIP or _hidden(attrs)
            node = node.parent
        else:
            if node is None or left_out:
                found.append(heading.text())
                if len(found) == MAX_OUTSIDE_HEADINGS * 4:
                    break
    return found


def _enter(node: Any, sink: _Readable) -> bool:
    tag = node.tag
    if tag == "-text":
        sink.text(node.text_content or "")
        return False
    if tag.startswith("-"):  # comments, doctype
        return False
    return sink.start(tag, dict(node.attributes))


def _main(tree: Any) -> Any:
    """The page's one ``main`` element (or ``[role=main]``), else its one dominant ``article``, else ``body``."""
    for selector in ("main", "[role=main]"):
        found = tree.css(selector)
        if len(found) == 1:
            return found[0]
    body = tree.body
    articles = tree.css("article")
    if body is not None and len(articles) == 1:
        total = len(body.text(strip=True))
        if total and len(articles[0].text(strip=True)) * 2 >= total:
            return articles[0]
    return body if body is not None else tree.root


class _Stream(HTMLParser):
    """The standard library's event parser feeding the sink, skipping left-out elements by their own depth."""

    def __init__(self, sink: _Readable, only_main: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.sink = sink
        self.skip: tuple[str, int] | None = None
        self.title: list[str] | None = None
        self.only_main = only_main
        self.main = 0 if only_main else 1  # how many main elements are open (always 1: the whole page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip is not None:
            if tag == self.skip[0]:
                self.skip = (tag, self.skip[1] + 1)
            return
        if tag == "title" and not self.sink.title:
            self.title = []
            return
        if tag == "main" and self.only_main:
            self.main += 1
        if not self.main:
            return
        if not self.sink.start(tag, dict(attrs)) and tag not in _VOID:
            self.skip = (tag, 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip is None and self.main:
            self.sink.start(tag, dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if self.skip is not None:
            if tag == self.skip[0]:
                left = self.skip[1] - 1
                self.skip = (tag, left) if left else None
            return
        if tag == "title" and self.title is not None:
            self.sink.title = title_of("".join(self.title))
            self.title = None
            return
        if self.main:
            self.sink.end(tag)
            if tag == "main" and self.only_main:
                self.main -= 1

    def handle_data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data[:1000])
        elif self.skip is None and self.main:
            self.sink.text(data)


def _from_stream(text: str, sink: _Readable) -> None:
    only_main = re.search(r"<main[\s>]", text, re.IGNORECASE) is not None
    parser = _Stream(sink, only_main)
    for start in range(0, len(text), 1 << 16):
        parser.feed(text[start : start + (1 << 16)])
    parser.close()
