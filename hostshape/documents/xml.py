"""XML: feeds (RSS, Atom: every item's title), test reports (JUnit: suites, cases, failures first), and any
other XML by its elements ``GENERIC_LEVELS`` levels down (leaf elements are part of their parent's title), each
titled by its identifying attribute or its short leaf values (a Maven POM's ``dependency: org.x:lib:1.2``) and
named by its identifying attribute or leaf (``lib``), which a compact outline shows; an element of many different
leaves (a map of settings) is titled by their count.

Parsed by defusedxml (entity declarations and external references refused: no entity bomb is expanded), or by
the standard library's expat with the same refusals when defusedxml is not installed. An entity declared in an
external DTD (which is never fetched: ``&mdash;`` in a changelog naming its DTD) is kept as written, not expanded
and not an error; an undeclared entity in a document without a DTD is still malformed XML. Events are summarised as
they come (no tree is kept), so memory follows the nesting, not the size. XML that cannot be parsed is outlined
from its tag lines, and the outline says why.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from hostshape.documents.model import MAX_ENTRIES, MAX_HIGHLIGHTS, Entry, Outline, clip, title_of

_LABEL_ATTRIBUTES = ("name", "id", "key", "title", "ref", "type", "path", "artifactId")
_LEAF_CHARS = 200
_MAX_LEAVES = 40  # leaf values kept per element, for its title
_TITLE_VALUES = 6  # an element of more leaves than this is a map of settings, titled by their count
_VALUES_TITLE_CHARS = 80  # a title made of leaf values: enough to tell records apart, short enough for a map
GENERIC_LEVELS = 5
_LIST_TITLE_CHARS = 400  # an element that is a list of values (a POM's modules) is titled by them
_TAG_LINE = re.compile(r"[ \t]*<([A-Za-z_][\w.:-]{0,80})")
_FEED_ROOTS = {"rss": "item", "RDF": "item", "feed": "entry"}
_REPORT_ROOTS = ("testsuites", "testsuite")
# Other test reports (TRX, NUnit, xUnit) mark each result by one of these attributes; a failed one reads so.
_OUTCOME_ATTRIBUTES = ("outcome", "result", "status")
_FAILED = re.compile(r"(?:fail(?:ed|ure)?|error(?:ed)?|timeout|aborted)", re.I)
# a value that reads as a message: two words of letters (not an id, a number, a date or a path)
_PROSE = re.compile(r"[^\W\d_]{2,}[ \t]+[^\W\d_]{2,}")
_SAID_CHARS = 160
_STATED = 3  # attributes that title an element with no identifying one
_STATED_CHARS = 40


class _Refused(ValueError):
    """An entity declaration or external reference: the document is not expanded."""


@dataclass
class _Frame:
    name: str
    attrs: dict[str, str]
    line: int
    depth: int
    entry: int | None = None  # index of its entry, when it has one
    text: list[str] = field(default_factory=list)
    text_chars: int = 0
    leaves: list[tuple[str, str]] = field(default_factory=list)  # (name, text) of its leaf children
    children: int = 0
    status: str = ""
    said: str = ""  # the first message-like text of its descendants (what a failed result says)


class _Summary:
    """An expat target that turns element events into outline entries, with their lines."""

    def __init__(self, shift: int = 0) -> None:
        self.parser: Any = None
        self.shift = shift  # lines before the parsed text (blank lines ahead of its XML declaration)
        self.stack: list[_Frame] = []
        self.entries: list[list[Any]] = []  # [title, level, start, end]
        self.spans: list[list[int]] = []  # [start tag, end tag] of each entry: where each starts, in UTF-8 bytes
        self.failed: list[tuple[int, str]] = []  # (entry, "suite > test STATUS") of each failed test
        self.root = ""
        self.items = 0
        self.tests = 0
        self.counts = {"failure": 0, "error": 0, "skipped": 0}
        self.cut = False

    def _line(self) -> int:
        return int(getattr(self.parser, "CurrentLineNumber", 1) or 1) + self.shift

    def _byte(self) -> int:
        """Where the event's tag starts, in the parsed text's UTF-8 (-1 when the parser does not say)."""
        return int(getattr(self.parser, "CurrentByteIndex", -1))

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        name = tag.rsplit("}", 1)[-1]
        depth = len(self.stack) + 1
        if depth == 1:
            self.root = name
        frame = _Frame(name, {k.rsplit("}", 1)[-1]: v for k, v in list(attrib.items())[:12]}, self._line(), depth)
        if self.stack:
            self.stack[-1].children += 1
        level = self._level(frame)
        if level and len(self.entries) < MAX_ENTRIES:
            frame.entry = len(self.entries)
            self.entries.append([name, level, frame.line, 0])
            self.spans.append([self._byte(), -1])
        elif level:
            self.cut = True
        self.stack.append(frame)

    def _level(self, frame: _Frame) -> int:
        """The outline level of an element, 0 for none."""
        item = _FEED_ROOTS.get(self.root)
        if item is not None:
            return 1 if frame.name == item else 0
        if self.root in _REPORT_ROOTS:
            return {"testsuite": 1, "testcase": 2}.get(frame.name, 0)
        return frame.depth - 1 if 2 <= frame.depth <= GENERIC_LEVELS + 1 else 0

    def data(self, text: str) -> None:
        if self.stack:
            frame = self.stack[-1]
            if frame.text_chars < _LEAF_CHARS:
                frame.text.append(text[: _LEAF_CHARS - frame.text_chars])
                frame.text_chars += len(text)

    def end(self, tag: str) -> None:
        frame = self.stack.pop()
        parent = self.stack[-1] if self.stack else None
        text = " ".join("".join(frame.text).split())
        if parent is not None and not frame.children and len(parent.leaves) < _MAX_LEAVES:
            parent.leaves.append((frame.name, text))
        if parent is not None and not parent.said:
            leaf = text if not frame.children and _PROSE.search(text[:_LEAF_CHARS]) else ""
            parent.said = leaf or frame.said  # texts only: a child's attributes describe it, not its parent
        if frame.name in ("failure", "error", "skipped") and parent is not None and parent.name == "testcase":
            self.counts[frame.name] += 1
            message = frame.attrs.get("message") or text
            parent.status = f"{frame.name.upper()}{': ' + clip(message, 160) if message else ''}"
        if frame.name == "testcase" and self.root in _REPORT_ROOTS:
            self.tests += 1  # counted whether or not the outline keeps its entry
        if self.root in _FEED_ROOTS and frame.name == _FEED_ROOTS[self.root]:
            self.items += 1
        if frame.entry is None:
            return
        generic = self.root not in _FEED_ROOTS and self.root not in _REPORT_ROOTS
        if generic and not frame.children and frame.depth > 2 and frame.entry == len(self.entries) - 1:
            self.entries.pop()  # a leaf below the top is part of its parent's title
            self.spans.pop()
            return
        self.spans[frame.entry][1] = self._byte()  # where its end tag starts (a self-closed tag: where it starts)
        entry = self.entries[frame.entry]
        entry[0] = self._title(frame, text)
        entry[3] = self._line()
        if generic:
            entry.append(self._name(frame))
        if generic and _FAILED.fullmatch(_outcome(frame.attrs)) and len(self.failed) < MAX_HIGHLIGHTS:
            self.failed.append((frame.entry, entry[0]))  # a result of another report format
        failed = frame.status and not frame.status.startswith("SKIPPED")
        if frame.name == "testcase" and failed and len(self.failed) < MAX_HIGHLIGHTS:
            suite = parent.attrs.get("name", "") if parent is not None and parent.name == "testsuite" else ""
            where = f"{suite} > " if suite and suite not in entry[0] else ""
            self.failed.append((frame.entry, f"{where}{entry[0]}"))

    def _title(self, frame: _Frame, text: str) -> str:
        leaves = dict(frame.leaves)
        if frame.name in ("item", "entry") and self.root in _FEED_ROOTS:
            date = leaves.get("pubDate") or leaves.get("updated") or leaves.get("published") or ""
            return title_of(leaves.get("title") or "(untitled item)") + (f" ({title_of(date, 40)})" if date else "")
        if frame.name == "testsuite":
            counts = ", ".join(
                f"{key}={frame.attrs[key]}" for key in ("tests", "failures", "errors", "skipped") if key in frame.attrs
            )
            name = frame.attrs.get("name", "testsuite")
            return title_of(f"{name} ({counts})" if counts else name)
        if frame.name == "testcase":
            name = ".".join(v for v in (frame.attrs.get("classname"), frame.attrs.get("name")) if v)
            return title_of(f"{name or 'testcase'} {frame.status or 'passed'}")
        label = _label(frame.attrs)
        if label:
            outcome = _outcome(frame.attrs)
            said = (_said(frame.attrs, label) or frame.said) if _FAILED.fullmatch(outcome) else ""
            return title_of(
                f"{frame.name} {label}"
                + (f" {outcome}" if outcome else "")
                + (f": {clip(said, _SAID_CHARS)}" if said else "")
            )
        stated = _stated(frame.attrs)  # no identifying attribute, but short ones: as written, to be searched for
        if not frame.children:
            return title_of(f"{frame.name}: {text}" if text else f"{frame.name} {stated}".strip())
        names = {name for name, _ in frame.leaves}
        if len(names) == 1 and len(frame.leaves) == frame.children and frame.children > 1:  # a list of values
            listed = " · ".join(v for _, v in frame.leaves if v)
            return title_of(f"{frame.name} ({frame.children:,}): {listed}", _LIST_TITLE_CHARS)
        values = [v for _, v in frame.leaves if v and len(v) <= 80][:4]
        if not values or len(frame.leaves) > _TITLE_VALUES:
            return title_of(f"{frame.name}{' ' + stated if stated else ''} ({frame.children:,})")
        return title_of(f"{frame.name}: {':'.join(values)}", _VALUES_TITLE_CHARS)

    @staticmethod
    def _name(frame: _Frame) -> str:
        """The identifying attribute or leaf of an element (``lib`` of a dependency), else nothing."""
        leaves = dict(frame.leaves)
        for key in _LABEL_ATTRIBUTES:
            value = frame.attrs.get(key) or leaves.get(key)
            if value:
                return title_of(value, 60)
        if frame.children and not frame.leaves:  # a container titled by its attributes: known by the first
            return next((title_of(v, 60) for v in frame.attrs.values() if v.strip() and len(v) <= _STATED_CHARS), "")
        return ""

    def skipped(self, name: str, _parameter: bool) -> None:
        """An entity the parser did not expand (declared in an external DTD it never reads): kept as written."""
        self.data(f"&{name};")

    def close(self) -> None:
        return None


def _label(attrs: dict[str, str]) -> str:
    """An element's identifying attribute: a known one (``name``, ``id``...), else the first ``...name`` one
    (``testName``, ``displayName``)."""
    for key in _LABEL_ATTRIBUTES:
        if attrs.get(key):
            return attrs[key]
    return next((value for key, value in attrs.items() if key.lower().endswith("name") and value), "")


def _stated(attrs: dict[str, str]) -> str:
    """An element's short attributes as written (``ver="1.31.4" date="2026-08-19"``), else nothing: what tells
    apart elements that carry no identifying attribute. A long value (a schema location, a message) is left out."""
    short = [(k, " ".join(v.split())) for k, v in attrs.items() if v.strip() and len(v) <= _STATED_CHARS]
    return " ".join(f'{k}="{v}"' for k, v in short[:_STATED])


def _said(attrs: dict[str, str], label: str = "") -> str:
    """The first attribute value of an element that reads as a message (not its ``label``), else nothing: what a
    failed result of a test report says about its failure, whatever the format names it."""
    return next((" ".join(v.split()) for v in attrs.values() if v != label and _PROSE.search(v[:_LEAF_CHARS])), "")


def _outcome(attrs: dict[str, str]) -> str:
    """The outcome an element states (``outcome="Failed"``), else nothing."""
    return next((title_of(attrs[key], 30) for key in _OUTCOME_ATTRIBUTES if attrs.get(key)), "")


def outline(text: str) -> Outline | None:
    """The outline of an XML document; from its tag lines when it cannot be parsed."""
    # An XML declaration must open the text: blanks before it (common in fetched feeds) are skipped, and the
    # lines they held are counted back into every line number.
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    summary = _Summary(text.count("\n", 0, start))
    try:
        _parse(text[start:], summary)
    except _Refused:
        return _from_tag_lines(text, "entity declarations or external references refused: the XML is not expanded")
    except Exception as exc:  # noqa: BLE001 - expat and defusedxml raise several types for broken XML
        return _from_tag_lines(text, f"not well-formed XML ({type(exc).__name__}); outlined from its tag lines")
    body = _lined(text, start, summary)
    entries = tuple(
        Entry(str(e[0]), int(e[1]), int(e[2]), int(e[3]), str(e[4]) if len(e) > 4 else "") for e in summary.entries
    )
    notes = (f"outline keeps the first {MAX_ENTRIES:,} elements",) if summary.cut else ()
    if summary.root in _FEED_ROOTS:
        return Outline("xml feed", entries, summary=f"{summary.items:,} items", body=body, notes=notes)
    if summary.root in _REPORT_ROOTS:
        c = summary.counts
        line = f"{summary.tests:,} tests: {c['failure']:,} failed, {c['error']:,} errors, {c['skipped']:,} skipped"
        return Outline(
            "junit report",
            entries,
            highlights=tuple(f"L{summary.entries[at][2]} {failed}" for at, failed in summary.failed),
            highlights_label="failed tests",
            summary=line,
            body=body,
            notes=notes,
        )
    if not entries:
        entries = (Entry(summary.root or "(document)", 1, 1),)
    failed = tuple(f"L{summary.entries[at][2]} {title}" for at, title in summary.failed)
    counted = f"; {len(failed):,} failed" if failed else ""
    return Outline(
        "xml",
        entries,
        highlights=failed,
        highlights_label="failed results",
        summary=f"root element <{summary.root}>{counted}",
        body=body,
        notes=notes,
    )


def _lined(text: str, start: int, summary: _Summary) -> str | None:
    """When entries share a line (a feed minified on one line), the text with each entry on lines of its own and
    the entries' lines set in it, so that a section reads its entry, not the whole line; else None (the text's own
    lines hold them)."""
    lines = [int(e[2]) for e in summary.entries]
    if len(set(lines)) == len(lines) or any(first < 0 or end < 0 for first, end in summary.spans):
        return None
    data = text[start:].encode("utf-8")
    past = [(data.find(b">", end) + 1) or len(data) for _, end in summary.spans]  # past each end tag's ">"
    cuts = sorted({0, len(data)} | {first for first, _ in summary.spans} | set(past))
    spans = [(a, b) for a, b in itertools.pairwise(cuts) if b > a]  # at tags: ASCII, so whole UTF-8 characters
    lined = b"\n".join(data[a:b] for a, b in spans)
    newlines = [m.start() for m in re.finditer(b"\n", lined)]
    piece_starts = [a for a, _ in spans]

    def line_of(byte: int) -> int:
        at = byte + bisect.bisect_right(piece_starts, byte) - 1  # one break added before each piece but the first
        return summary.shift + 1 + bisect.bisect_left(newlines, at)

    for entry, (first, _), end in zip(summary.entries, summary.spans, past, strict=True):
        entry[2], entry[3] = line_of(first), line_of(max(first, end - 1))
    return text[:start] + lined.decode("utf-8")


def _parse(text: str, target: _Summary) -> None:
    try:
        from defusedxml import DefusedXmlException
        from defusedxml.ElementTree import DefusedXMLParser
    except ImportError:
        _parse_with_expat(text, target)
        return
    parser = DefusedXMLParser(target=target)
    target.parser = parser.parser
    # expat reports an entity it cannot expand here (only when the document names an external DTD), ahead of
    # ElementTree's default handler, which would call it undefined (expat's xmlparse.c, doContent, XML_TOK_ENTITY_REF)
    parser.parser.SkippedEntityHandler = target.skipped
    try:
        parser.feed(text)
        parser.close()
    except DefusedXmlException as exc:
        raise _Refused(str(exc)) from None


def _parse_with_expat(text: str, target: _Summary) -> None:
    """The standard library's expat with defusedxml's refusals: no entity declaration, no external reference."""
    from xml.parsers import expat

    def refuse(*_: object) -> None:
        raise _Refused("entity declaration or external reference")

    parser = expat.ParserCreate(namespace_separator="}")
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]
    parser.StartElementHandler = target.start
    parser.EndElementHandler = target.end
    parser.CharacterDataHandler = target.data
    parser.SkippedEntityHandler = target.skipped
    target.parser = parser
    parser.Parse(text, True)


def _from_tag_lines(text: str, why: str) -> Outline:
    """Lines that open an element, at levels by indentation (the first three), for XML that was not parsed."""
    entries: list[Entry] = []
    indents: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _TAG_LINE.match(line[:200])
        if not match or match.group(1).startswith(("?", "!")):
            continue
        indent = len(line) - len(line.lstrip())
        while indents and indents[-1] > indent:
            indents.pop()
        if not indents or indents[-1] < indent:
            indents.append(indent)
        level = len(indents)
        if level <= 3:
            entries.append(Entry(title_of(line.strip(), 80), level, number))
        if len(entries) >= MAX_ENTRIES:
            break
    return Outline("xml", tuple(entries) or (Entry("(document)", 1, 1),), notes=(why,))
