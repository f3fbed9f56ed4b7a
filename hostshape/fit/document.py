"""Fit a document, whatever its kind: the first answer (its whole outline with line ranges and sizes, what matters
first for its kind, then its head) and the pages of one part of it (a section, a range of lines, the lines a
pattern finds), each within the limit with its envelope line.

The outline comes first and gives way last: when it is over its share of the budget, deeper levels are left out
before shallower ones, then the last entries of the top level, and the envelope says so. Sizes are counted with the
limit's encoding (estimated from two samples' density, and marked ``~``, beyond ``SIZE_EXACT_CHARS``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hostshape.documents import outline_of
from hostshape.documents.grep import Matches, PatternError, find
from hostshape.documents.model import MAX_ENTRIES, Lines, Outline, Section, place
from hostshape.fit._base import Fitted
from hostshape.fit.budget import Limit
from hostshape.fit.section_match import candidates_text, recalled
from hostshape.fit.text import boundary, prefix_end, quiet
from hostshape.output.envelope import LINE_STYLES, Facts, WayBack, object_json, text_line
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

# A view of a document and where in it a page starts -> the cursor of that page (None when there is no way back).
ViewCursor = Callable[[str, int], "str | None"]

SIZE_EXACT_CHARS = 2_000_000
_SAMPLE_CHARS = 100_000
OUTLINE_SHARE = 0.7  # of the tokens left after the envelope line, when the kind has no highlights
OUTLINE_SHARE_WITH_HIGHLIGHTS = 0.55
OUTLINE_WIDE_SHARE = 0.85  # ... when the outline does not fit its share whole
OUTLINE_WIDE_SHARE_WITH_HIGHLIGHTS = 0.65
HIGHLIGHT_SHARE = 0.25  # at least, when the outline leaves it; more when the outline is short
HEAD_SHARE = 0.2  # what highlights leave to the head when they take what the outline left
MIN_HEAD_TOKENS = 40
GREP_CONTEXT = 2
# Levels deeper than this are shown compactly only (a map, not a table of contents: the head is worth more)
FULL_LEVELS = 3
GREP_LINE_CHARS = 300
GREP_LINE_WIDTHS = (GREP_LINE_CHARS, GREP_LINE_CHARS // 3, GREP_LINE_CHARS // 10, GREP_LINE_CHARS // 30)
GREP_PLACE_LINES = 12
_ROUNDS = 10
GROUP_SEPARATOR = " · "  # between the entries of a grouped outline line
_SHOWN_SIZE = re.compile(r"\s*\(L\d[\d,-]*, ~?[\d,]+ tok\)$")
_SHOWN_SIZE_MARK = re.compile(r"\s*\((L\d[\d,-]*, ~?[\d,]+ tok)\)$")


def no_view_cursor(view: str, offset: int) -> str | None:  # noqa: ARG001 - a ViewCursor that makes none
    return None


@dataclass
class Document:
    """A text read as a document: its outline, the ``body`` its line ranges refer to, and its placed sections."""

    outline: Outline
    body: str
    lines: Lines
    sections: list[Section]
    _split: list[str] | None = field(default=None, repr=False)

    @property
    def split(self) -> list[str]:
        if self._split is None:
            self._split = self.body.split("\n")
            if self._split and self._split[-1] == "" and len(self._split) > self.lines.count:
                self._split.pop()
        return self._split

    def find_section(self, wanted: str) -> list[Section]:
        """The sections ``wanted`` names: by id, by title (exactly, else ignoring case), or by a whole outline line
        copied as shown (``2.3 Title (L30-45, 512 tok)``); else as a model recalls a title (hostshape.fit.section_match:
        normalised, clipped, a part of it, a path of titles). Several when titles repeat or a recalled form fits more
        than one (``section_matches`` says which), none when nothing matches."""
        return self.section_matches(wanted)[0]

    def section_matches(self, wanted: str) -> tuple[list[Section], bool]:
        """``find_section``'s sections and whether they were named exactly (an id, a title as shown): several exact
        ones share a title; several recalled ones are candidates to choose from."""
        wanted = wanted.strip()  # as given first: a title may itself end like a shown size
        exact = self._named(wanted) or self._named(_SHOWN_SIZE.sub("", wanted))
        if exact:
            return exact, True
        return recalled(self.sections, _SHOWN_SIZE.sub("", wanted)), False

    def _named(self, wanted: str) -> list[Section]:
        by_id = {s.id: s for s in self.sections}
        if wanted in by_id:
            return [by_id[wanted]]
        ident, _, title = wanted.partition(" ")
        if ident in by_id and title in (by_id[ident].title, shown(by_id[ident].title)):
            return [by_id[ident]]
        exact = [s for s in self.sections if wanted in (s.title, s.name, shown(s.title), shown(s.short))]
        lower = wanted.lower()
        return (
            exact
            or [
                s
                for s in self.sections
                if lower in (s.title.lower(), s.name.lower(), shown(s.title).lower(), shown(s.short).lower())
            ]
            or [s for s in self.sections if s.version and lower == shown(s.version).lower()]
        )


@functools.lru_cache(maxsize=2)
def document(text: str) -> Document:
    """``text`` read as a document (the last two are remembered: a model reads one result several times)."""
    outline = outline_of(text)
    body = quiet(outline.body if outline.body is not None else text)
    lines = Lines(body)
    return Document(outline, body, lines, place(outline.entries, lines.count))


# -- the first answer --------------------------------------------------------------------------------------------
def fit_document(
    text: str,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: ViewCursor = no_view_cursor,
    *,
    as_json: bool = False,
) -> Fitted | None:
    """The outline of ``text``, its kind's highlights and its head, with the envelope line, within ``limit``;
    ``as_json`` (a JSON input read as a document: a notebook) gives the same text as the ``document`` member of a
    JSON object whose ``_hostshape`` envelope says what was shown;
    None when the limit is too small to hold an outline at all, or when the text has no parts of its own and
    nothing to highlight and is shown as it is (plain prose: its head says more than a map of its paragraphs; an
    HTML page without headings still gets its readable text)."""
    doc = document(text)
    if not doc.outline.structured and not doc.outline.highlights and doc.outline.body is None:
        return None
    whole = f"lines:1-{doc.lines.count}"
    sizes, approx, total = _sizes(doc, limit)
    total_tokens = _size_text(total, approx)
    facts = dataclasses.replace(facts, notes=[*facts.notes, *doc.outline.notes], truncated=True)
    for style in LINE_STYLES:
        if (style in ("no_room", "bare") and way.handle) or (as_json and style != "full"):
            break  # an outline without the handle names parts no read can reach: the plain cut keeps the handle
        probe = text_line(facts, way, cursor_at(whole, len(doc.body)), _detail_probe(doc), style)
        avail = limit.tokens - int(limit.count(probe) * (1.3 if as_json else 1)) - 8  # JSON: quoted members, escapes
        if avail < 60:
            continue
        fitted = _first_answer(
            doc, sizes, approx, total_tokens, facts, limit, way, cursor_at, whole, avail, "json" if as_json else style
        )
        if fitted is not None:
            return fitted
    return None


def _first_answer(
    doc: Document,
    sizes: list[int],
    approx: bool,
    total_tokens: str,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: ViewCursor,
    whole: str,
    avail: int,
    style: str,
) -> Fitted | None:
    outline = doc.outline
    summary = f"; {outline.summary}" if outline.summary else ""
    header = (
        f"{outline.kind} document: {doc.lines.count:,} lines, {total_tokens} tokens{summary}. "
        "Outline (id title (lines, tokens)):"
    )
    avail -= limit.count(header) + 1
    share = OUTLINE_SHARE_WITH_HIGHLIGHTS if outline.highlights else OUTLINE_SHARE
    outline_budget = int(avail * share)
    wide = int(avail * (OUTLINE_WIDE_SHARE_WITH_HIGHLIGHTS if outline.highlights else OUTLINE_WIDE_SHARE))
    for round_ in range(_ROUNDS):
        outline_lines, outline_note, shown = _choose(doc, sizes, approx, limit, outline_budget)
        if round_ == 0 and shown < len(doc.sections) and wide > outline_budget:
            outline_budget = wide  # a map that leaves parts out is worth more than a longer head
            outline_lines, outline_note, shown = _choose(doc, sizes, approx, limit, outline_budget)
        outline_cost = sum(_cost(limit, line) for line in outline_lines)
        left = avail - outline_cost
        highlight_budget = min(
            max(int(avail * HIGHLIGHT_SHARE), left - int(avail * HEAD_SHARE)), left - MIN_HEAD_TOKENS
        )
        highlights, highlight_note = _pick_highlights(outline, limit, highlight_budget)
        highlight_cost = sum(_cost(limit, line) for line in highlights)
        head_budget = avail - outline_cost - highlight_cost - 12
        text = _assemble(
            doc,
            header,
            outline_lines,
            highlights,
            outline_note,
            highlight_note,
            head_budget,
            facts,
            limit,
            way,
            cursor_at,
            whole,
            style,
            shown,
        )
        if text is not None:
            return Fitted(text, facts, "outline")
        outline_budget = int(outline_budget * 0.8)
        avail = int(avail * 0.95)
    return None


def _assemble(
    doc: Document,
    header: str,
    outline_lines: list[str],
    highlights: list[str],
    outline_note: str | None,
    highlight_note: str | None,
    head_budget: int,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: ViewCursor,
    whole: str,
    style: str,
    shown: int,
) -> str | None:
    """The first answer with a head of about ``head_budget`` tokens (less until it fits), or None."""
    notes = [n for n in (outline_note, highlight_note) if n]
    facts = dataclasses.replace(facts, notes=[*facts.notes, *notes])
    parts = [header, *outline_lines]
    if highlights:
        label = doc.outline.highlights_label or "what matters first"
        parts += [f"{label[:1].upper()}{label[1:]}:", *highlights]
    first = min(doc.outline.head, doc.lines.count)  # after the navigation a page opens with
    start = doc.lines.offset(first)
    rest = doc.body[start:] if start else doc.body
    head_end = start
    if head_budget >= MIN_HEAD_TOKENS:
        head_end = start + prefix_end(rest, head_budget, limit.chars or len(rest), limit)
    for _ in range(_ROUNDS):
        body = list(parts)
        if head_end > start:
            last = doc.lines.line_at(head_end - 1)
            body += [f"Head (lines {first:,}-{last:,}):", doc.body[start:head_end].rstrip("\n")]
        else:
            last = 0
        detail = f"outline {shown:,} of {len(doc.sections):,} entries; " + (
            f"head lines {first:,}-{last:,} of {doc.lines.count:,}" if last else "no head"
        )
        at = head_end if last else 0  # without a head, the next page starts at the top, navigation included
        next_cursor = cursor_at(whole, at) if at < len(doc.body) else None
        if style == "json":
            shown_facts = dataclasses.replace(facts, notes=[detail, *facts.notes])
            text = object_json(shown_facts, way, next_cursor, {"document": "\n".join(body)})
        else:
            text = "\n".join(body) + "\n" + text_line(facts, way, next_cursor, detail, style)
        if limit.fits(text):
            return text
        if head_end <= start:
            return None
        shown_chars = head_end - start
        head_end = start + (boundary(rest, int(shown_chars * 0.8)) if shown_chars > 200 else 0)
    return None


def _detail_probe(doc: Document) -> str:
    n = len(doc.sections)
    return f"outline {n:,} of {n:,} entries; head lines 1-{doc.lines.count:,} of {doc.lines.count:,}"


def _cost(limit: Limit, line: str) -> int:
    """Tokens of one line of the answer, its newline included (a join may merge a token or two: the whole answer
    is counted exactly at the end)."""
    return limit.count(line) + 1


def _entry_line(section: Section, size: int, approx: bool, short: bool = False) -> str:
    lines = f"L{section.start}" if section.start == section.end else f"L{section.start}-{section.end}"
    title = shown(section.name if short and _signature(section) else section.title)
    return f"{'  ' * (section.depth - 1)}{section.id} {title} ({lines}, {_size_text(size, approx)} tok)"


def _signature(section: Section) -> bool:
    """The section is a definition titled by its signature (parameters in parentheses) and known by a name: a
    compact outline may show the name alone (a class titled ``class Request extends Duplex`` keeps its title)."""
    return bool(section.name) and section.name != section.title and "(" in section.title


def _size_text(size: int, approx: bool) -> str:
    return f"~{size:,}" if approx else f"{size:,}"


def _choose(
    doc: Document, sizes: list[int], approx: bool, limit: Limit, budget: int
) -> tuple[list[str], str | None, int]:
    """The outline lines to show: every level (of the first ``FULL_LEVELS``) down to the deepest that fits
    ``budget`` with ranges and sizes, then the next level (the top one, when not even it fits so) by id and title,
    else by title or name alone grouped under their parents, and deeper levels so while the one above is whole, as
    far as it fits; else the first entries of the top level by id and title.
    Each line is counted at most once, and counting stops once over the budget."""
    by_depth: dict[int, list[int]] = {}
    for index, section in enumerate(doc.sections):
        by_depth.setdefault(section.depth, []).append(index)
    depths = sorted(by_depth)
    full, chosen, compact, levels, by_title, spans = _levels(doc, by_depth, sizes, approx, limit, budget, False)
    named = [i for i in full if _signature(doc.sections[i])]
    by_name = False
    if named and _shown_count(levels, full) < len(doc.sections):  # names instead of signatures, if more shows
        tried = _levels(doc, by_depth, sizes, approx, limit, budget, True)
        if _shown_count(tried[3], tried[0]) > _shown_count(levels, full):
            full, chosen, compact, levels, by_title, spans = tried
            by_name = True
    if full or compact:
        shown = sorted([*full, *compact])
        grouped = sum(count for _, count in levels)
        deepest = levels[-1][0] if levels else chosen
        left = sum(len(entries) for depth, entries in by_depth.items() if depth > deepest)
        notes = ["definitions shown by name, their signatures in their sections"] if by_name else []
        notes += [_compact_note(levels, by_depth, by_title)] if levels else []
        notes.extend(spans)
        if left:
            notes.append(f"{left:,} deeper entries left out: read a section to see its parts")
        note = "outline: " + "; ".join(notes) if notes else None
        return [full.get(i) or compact[i] for i in shown], note, len(full) + grouped
    shown_lines: list[str] = []
    used = 0
    top = by_depth[depths[0]] if depths else []
    for index in top:
        line = f"{doc.sections[index].id} {doc.sections[index].title}"
        used += _cost(limit, line)
        if used > budget:
            break
        shown_lines.append(line)
    if not shown_lines:
        return [], "outline left out: the budget is too small for it", 0
    last = doc.sections[top[len(shown_lines) - 1]].end
    return (
        shown_lines,
        f"outline cut: first {len(shown_lines):,} of {len(top):,} top-level entries (up to line {last:,}), by id and "
        "title only; read on by lines or grep",
        len(shown_lines),
    )


def _levels(
    doc: Document,
    by_depth: dict[int, list[int]],
    sizes: list[int],
    approx: bool,
    limit: Limit,
    budget: int,
    short: bool,
) -> tuple[dict[int, str], int, dict[int, str], list[tuple[int, int]], bool, list[str]]:
    """The levels shown with ranges and sizes (when ``short``, a definition by its name, not its signature:
    ``_signature``) and the deepest of them, then the levels after it shown compactly (``_compact_levels``)."""
    depths = sorted(by_depth)
    full: dict[int, str] = {}
    used, chosen = 0, 0
    for depth in depths[:FULL_LEVELS]:
        lines = _lines_within(doc, by_depth[depth], sizes, approx, limit, budget - used, short)
        if lines is None:
            break
        used += sum(cost for _, cost in lines.values())
        full.update({i: line for i, (line, _) in lines.items()})
        chosen = depth
    compact, levels, by_title, spans = _compact_levels(doc, by_depth, depths[chosen:], limit, budget - used)
    return full, chosen, compact, levels, by_title, spans


def _shown_count(levels: list[tuple[int, int]], full: dict[int, str]) -> int:
    """How many entries an outline names: those with ranges and sizes, and those of its compact levels."""
    return len(full) + sum(count for _, count in levels)


def _compact_levels(
    doc: Document, by_depth: dict[int, list[int]], depths: list[int], limit: Limit, budget: int
) -> tuple[dict[int, str], list[tuple[int, int]], bool, list[str]]:
    """The levels ``depths`` shown compactly, as far as they fit ``budget``: the first by id and title one a line
    when the whole level fits so, else by title grouped under their parents; each deeper one grouped by title
    while the level above it is shown whole. Returns the lines (by the index of their first entry), each level
    shown with how many of its entries, whether the first level is grouped, and what the envelope says of the
    releases a cut run shows as a span of versions."""
    compact: dict[int, str] = {}
    levels: list[tuple[int, int]] = []
    by_title = False
    used = 0
    spans: list[str] = []
    for depth in depths:
        entries = by_depth[depth]
        span = ""
        if not levels:
            lines, cost, count = _ids_and_titles(doc, entries, limit, budget - used)
            if count < len(entries):  # one line per entry does not fit the whole level: group them
                lines, cost, count, span = _titles_grouped(doc, entries, limit, budget - used)
                by_title = True
        else:
            lines, cost, count, span = _titles_grouped(doc, entries, limit, budget - used)
        if not lines:
            break
        compact.update(lines)
        used += cost
        levels.append((depth, count))
        if span:
            spans.append(span)
        if count < len(entries):
            break
    return compact, levels, by_title, spans


def _compact_note(levels: list[tuple[int, int]], by_depth: dict[int, list[int]], by_title: bool) -> str:
    """What the envelope says of the levels shown compactly."""
    first = levels[0][0]
    how = "by title only, grouped under their parent (ids in order)" if by_title else "by id and title only"
    note = f"level {first} shown {how}"
    deeper = [depth for depth, _ in levels[1:]]
    if deeper:
        span = f"level {deeper[0]}" if len(deeper) == 1 else f"levels {deeper[0]}-{deeper[-1]}"
        note += f"; {span} by title only, grouped under their parent"
    depth, count = levels[-1]
    total = len(by_depth[depth])
    if count < total:
        which = f"its first {count:,} of {total:,} entries"
        note += f" (level {depth}: {which})" if deeper else f" for {which}"
    return note


def _ids_and_titles(doc: Document, indexes: list[int], limit: Limit, budget: int) -> tuple[dict[int, str], int, int]:
    """The entries ``indexes`` by id and title, one line each, while they fit ``budget``; their cost and count."""
    lines: dict[int, str] = {}
    used = 0
    for index in indexes:
        section = doc.sections[index]
        line = f"{'  ' * (section.depth - 1)}{section.id} {shown(section.title)}"
        if len(line) > (budget - used) * SURELY_OVER_CHARS_PER_TOKEN:  # surely over: never count a huge line
            break
        cost = _cost(limit, line)
        if used + cost > budget:
            break
        used += cost
        lines[index] = line
    return lines, used, len(lines)


def _titles_grouped(
    doc: Document, indexes: list[int], limit: Limit, budget: int
) -> tuple[dict[int, str], int, int, str]:
    """The entries ``indexes`` (one level) by short name or title, one line per run of siblings
    (``1.3.1-74: A · B · C``), as many as fit ``budget`` in order, the last run cut to the entries that fit (and
    its releases after the cut as a span of versions on a line of their own: ``_release_span``); their cost, how
    many entries they name, and what the envelope says of a span (else empty)."""
    groups: list[list[int]] = []
    parent_of: dict[int, str] = {}
    for index in indexes:
        parent = doc.sections[index].id.rpartition(".")[0]
        if groups and parent_of[groups[-1][0]] == parent and index == groups[-1][-1] + _gap(doc, groups[-1][-1]):
            groups[-1].append(index)
        else:
            groups.append([index])
            parent_of[index] = parent
    lines: dict[int, str] = {}
    used = count = 0
    span_note = ""
    for group in groups:
        line = _group_line(doc, group)
        cost = _cost(limit, line) if len(line) <= (budget - used) * SURELY_OVER_CHARS_PER_TOKEN else budget + 1
        if used + cost > budget:  # the run does not fit whole: as many of its first entries as fit
            low, high, chars = 0, 0, 0
            while high < len(group) - 1 and chars <= (budget - used) * SURELY_OVER_CHARS_PER_TOKEN:
                chars += len(doc.sections[group[high]].short) + 3  # never count a prefix surely over
                high += 1
            while low < high:  # the longest prefix that fits (costs grow with the prefix)
                mid = (low + high + 1) // 2
                if _cost(limit, _group_line(doc, group[:mid])) <= budget - used:
                    low = mid
                else:
                    high = mid - 1
            if low:
                lines[group[0]] = _group_line(doc, group[:low])
                used += _cost(limit, lines[group[0]])
                count += low
                span = _release_span(doc, group[low:])
                if span is not None:  # a few tokens beyond the outline's share: the head pays them
                    lines[group[low]] = span
                    used += _cost(limit, span)
                    span_note = (
                        f"its last {len(group) - low:,} entries as the span of their versions (a section read "
                        "takes any version)"
                    )
            break
        used += cost
        lines[group[0]] = line
        count += len(group)
    return lines, used, count, span_note


def _release_span(doc: Document, rest: list[int]) -> str | None:
    """The entries ``rest`` after a cut run, when its first and last are releases, as the span of their versions
    (``1.100-205: 7.5.1 … 1.0.0 (106 releases)``); else None."""
    first, last = doc.sections[rest[0]], doc.sections[rest[-1]]
    if len(rest) < 2 or not first.version or not last.version:
        return None
    ids = f"{first.id}-{last.id.rpartition('.')[2]}"
    versions = f"{shown(first.version)} … {shown(last.version)}"
    return f"{'  ' * (first.depth - 1)}{ids}: {versions} ({len(rest):,} releases, by version only)"


def _group_line(doc: Document, group: list[int]) -> str:
    first, last = doc.sections[group[0]], doc.sections[group[-1]]
    span = first.id if len(group) == 1 else f"{first.id}-{last.id.rpartition('.')[2]}"
    return f"{'  ' * (first.depth - 1)}{span}: " + GROUP_SEPARATOR.join(shown(doc.sections[i].short) for i in group)


def shown(name: str) -> str:
    """A title or name as the outline shows it, so that no heading reads as the outline's own marks: a ``·`` as
    ``-`` (grouped entries are separated by `` · ``, and the ids of a run are counted by its entries), an ending
    like a shown size (``(L3-4, 9 tok)``) in brackets. A ``section`` read accepts it as shown."""
    return _SHOWN_SIZE_MARK.sub(r" [\1]", name).replace("·", "-")


def _gap(doc: Document, index: int) -> int:
    """How far the next entry of the same depth as ``doc.sections[index]`` is (its own deeper entries between)."""
    depth = doc.sections[index].depth
    step = 1
    while index + step < len(doc.sections) and doc.sections[index + step].depth > depth:
        step += 1
    return step


def _lines_within(
    doc: Document, indexes: list[int], sizes: list[int], approx: bool, limit: Limit, budget: int, short: bool
) -> dict[int, tuple[str, int]] | None:
    """The outline lines of ``indexes`` with their costs (by short name when ``short``), or None as soon as they
    exceed ``budget``."""
    lines: dict[int, tuple[str, int]] = {}
    used = 0
    for index in indexes:
        line = _entry_line(doc.sections[index], sizes[index], approx, short)
        cost = _cost(limit, line)
        used += cost
        if used > budget:
            return None
        lines[index] = (line, cost)
    return lines


def _pick_highlights(outline: Outline, limit: Limit, budget: int) -> tuple[list[str], str | None]:
    picked: list[str] = []
    used = 0
    for line in outline.highlights:
        used += _cost(limit, line)
        if used > budget:
            break
        picked.append(line)
    if len(picked) == len(outline.highlights):
        return picked, None
    label = outline.highlights_label or "highlights"
    return picked, f"{label}: {len(picked):,} of {len(outline.highlights):,} shown (grep finds the rest)"


# -- sizes -----------------------------------------------------------------------------------------------------
def _sizes(doc: Document, limit: Limit) -> tuple[list[int], bool, int]:
    """Tokens of each section's lines, whether they are estimates (for bodies over SIZE_EXACT_CHARS), and the
    tokens of the whole body."""
    lines = doc.lines
    spans = [(lines.offset(s.start), lines.end_offset(s.end)) for s in doc.sections]
    if len(doc.body) > SIZE_EXACT_CHARS:
        middle = len(doc.body) // 2
        sample = doc.body[:_SAMPLE_CHARS] + doc.body[middle : middle + _SAMPLE_CHARS]
        density = _count(limit, sample) / max(1, len(sample))
        return [round((end - start) * density) for start, end in spans], True, round(len(doc.body) * density)
    points = sorted({0, len(doc.body), *(p for span in spans for p in span)})
    where = {point: index for index, point in enumerate(points)}
    prefix = [0]
    for start, end in itertools.pairwise(points):
        prefix.append(prefix[-1] + _count(limit, doc.body[start:end]))
    return [prefix[where[end]] - prefix[where[start]] for start, end in spans], False, prefix[-1]


def _count(limit: Limit, text: str) -> int:
    from hostshape.tokens import counter

    return len(counter(limit.encoding_name).encode_ordinary(text))


# -- pages of a part -------------------------------------------------------------------------------------------
class ViewError(ValueError):
    """A view that names no part of this document; the message says what does."""


def fit_view(
    text: str, view: str, offset: int, facts: Facts, limit: Limit, way: WayBack, cursor_at: ViewCursor
) -> Fitted:
    """The page of ``view`` (``lines:A-B``, ``section:ID-or-title``, ``grep:PATTERN``) starting at ``offset``
    (a character of the body for lines and sections, a match group for grep). Raises ViewError for a view that
    does not apply (its message is for the model)."""
    doc = document(text)
    name, _, argument = view.partition(":")
    if name == "lines":
        first, last = _line_range(argument, doc.lines.count)
        header = f"{doc.outline.kind} document, lines {first:,}-{last:,} of {doc.lines.count:,}:"
        return _fit_range(doc, f"lines:{first}-{last}", first, last, offset, header, facts, limit, way, cursor_at)
    if name == "section":
        section = _section(doc, argument)
        header = (
            f"{doc.outline.kind} document, section {section.id} {section.title!r} (lines {section.start:,}-"
            f"{section.end:,} of {doc.lines.count:,}):"
        )
        return _fit_range(
            doc, f"section:{section.id}", section.start, section.end, offset, header, facts, limit, way, cursor_at
        )
    if name == "grep":
        try:
            matches = find(doc.split, argument)
        except PatternError as exc:
            raise ViewError(f"the grep pattern {argument[:60]!r} was refused: {exc}") from None
        return _fit_grep(doc, view, argument, matches, offset, facts, limit, way, cursor_at)
    raise ViewError(f"unknown view {name!r}")


def _line_range(argument: str, count: int) -> tuple[int, int]:
    start, _, end = argument.strip().partition("-")
    try:
        first = int(start)
        last = int(end) if end.strip() else count
    except ValueError:
        raise ViewError(f'lines must be START-END, e.g. "1-40" (this document has {count:,} lines)') from None
    if first < 1 or first > count or last < first:
        raise ViewError(f"lines {argument!r} are outside this document: it has lines 1-{count:,}")
    return first, min(last, count)


def _section(doc: Document, wanted: str) -> Section:
    found, exact = doc.section_matches(wanted)
    if found and (exact or len(found) == 1):
        return found[0]  # several share the title: the first, and the page's header names its id
    if found:  # a recalled form fits several: the model chooses, hostshape does not guess
        raise ViewError(candidates_text(wanted, found))
    examples = ", ".join(f"{s.id} {s.title!r}" for s in doc.sections[:5])
    past = len(doc.outline.entries) >= MAX_ENTRIES  # a part past the outline's cap has no section: say how to reach it
    kept = f"; the outline keeps the first {MAX_ENTRIES:,} parts: read later ones by lines or grep" if past else ""
    raise ViewError(
        f"no section {wanted[:80]!r} in this document: pass an id or a title exactly as the outline shows it "
        f"(e.g. {examples}){kept}"
    )


def _fit_range(
    doc: Document,
    view: str,
    first: int,
    last: int,
    offset: int,
    header: str,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: ViewCursor,
) -> Fitted:
    start = max(offset, doc.lines.offset(first))
    end = doc.lines.end_offset(last)
    segment = doc.body[start:end]
    for style in LINE_STYLES:
        probe = text_line(facts, way, cursor_at(view, end), f"lines {last:,}-{last:,} of {first:,}-{last:,}", style)
        avail = limit.tokens - limit.count(header) - limit.count(probe) - 6
        chars = len(segment) if limit.chars is None else limit.chars - len(header) - len(probe) - 4
        cut = prefix_end(segment, avail, chars, limit) if segment else 0
        for _ in range(_ROUNDS):
            if cut <= 0 and segment:
                break
            more = start + cut < end
            page_facts = dataclasses.replace(facts, truncated=more)
            cursor = cursor_at(view, start + cut) if more else None
            detail = _range_detail(doc, start, start + cut, first, last, more and style not in ("full", "next"))
            line = text_line(page_facts, way, cursor, detail, style)
            text = f"{header}\n{segment[:cut].rstrip(chr(10))}\n{line}"
            if limit.fits(text):
                return Fitted(text, page_facts, "document")
            cut = boundary(segment, int(cut * 0.85))
    raise ViewError("the budget is too small for a page of this document")


def _range_detail(doc: Document, start: int, stop: int, first: int, last: int, say_rest: bool) -> str:
    """What a page of lines ``first``-``last`` shows when it holds ``doc.body[start:stop]``: its whole lines, a
    line it shows in part, and (``say_rest``: an envelope line without a cursor) the lines left to read."""
    shown_first = doc.lines.line_at(start)
    partial = stop < doc.lines.end_offset(last) and stop > start and doc.body[stop - 1] != "\n"
    at = doc.lines.line_at(stop - 1) if stop > start else shown_first
    whole = at - 1 if partial else at
    if whole >= shown_first:
        detail = f"lines {shown_first:,}-{whole:,} of {first:,}-{last:,}"
        detail += f" and part of line {at:,}" if partial else ""
    else:
        detail = f"part of line {at:,} of {first:,}-{last:,}"
    if say_rest and stop < doc.lines.end_offset(last):
        resume = at if partial else at + 1
        detail += f"; lines {resume:,}-{last:,} left to read"
    return detail


def _fit_grep(
    doc: Document,
    view: str,
    pattern: str,
    matches: Matches,
    offset: int,
    facts: Facts,
    limit: Limit,
    way: WayBack,
    cursor_at: ViewCursor,
) -> Fitted:
    places = _places(doc, matches)
    more_note = f"; stopped at {len(matches.lines):,} matching lines" if matches.more else ""
    if not places:
        facts = dataclasses.replace(facts, matched=False)
        text = f"grep {pattern[:80]!r} ({matches.how}): no line matches in {doc.lines.count:,} lines."
        return Fitted(f"{text}\n{text_line(facts, way, None, 'no match', 'short')}", facts, "document")
    head = (
        f"grep {pattern[:80]!r} ({matches.how}): {len(matches.lines):,} matching lines in {len(places):,} "
        f"places{more_note}, of {doc.lines.count:,} lines; line numbers with ':' match, with '-' are context."
    )
    for style in LINE_STYLES:
        probe = text_line(
            facts,
            way,
            cursor_at(view, len(places)),
            f"places {len(places):,}-{len(places):,} of {len(places):,}",
            style,
        )
        avail = limit.tokens - limit.count(head) - limit.count(probe) - 6
        for width in GREP_LINE_WIDTHS:
            shown: list[str] = []
            used = 0
            for spot in places[offset:]:
                block = _block(doc, spot, width)
                cost = _cost(limit, block) + 1
                if used + cost > avail and shown:
                    break
                shown.append(block)
                used += cost
            for _ in range(_ROUNDS):  # whole places only: a page never drops part of one
                end = offset + len(shown)
                more = end < len(places)
                page_facts = dataclasses.replace(facts, truncated=more or matches.more)
                detail = f"places {offset + 1:,}-{end:,} of {len(places):,}"
                cursor = cursor_at(view, end) if more else None
                line = text_line(page_facts, way, cursor, detail, style)
                text = head + "\n" + "\n--\n".join(shown) + "\n" + line
                if cursor is not None and cursor not in line:
                    break  # places left and no cursor to reach them: narrower lines first, else too small
                if limit.fits(text):
                    return Fitted(text, page_facts, "document")
                if len(shown) == 1:
                    break
                shown.pop()
    raise ViewError("the budget is too small for a page of matches")


def _places(doc: Document, matches: Matches) -> list[list[tuple[int, int]]]:
    """The matching lines with GREP_CONTEXT lines around them, overlapping windows merged and split into places of
    at most GREP_PLACE_LINES lines: ``(line number, column of the match or -1 for context)``."""
    columns = dict(matches.lines)
    windows: list[list[int]] = []
    last_line = doc.lines.count
    for number, _ in matches.lines:
        low, high = max(1, number - GREP_CONTEXT), min(last_line, number + GREP_CONTEXT)
        if windows and low <= windows[-1][-1] + 1:
            windows[-1].extend(range(windows[-1][-1] + 1, high + 1))
        else:
            windows.append(list(range(low, high + 1)))
    places = []
    for window in windows:
        for at in range(0, len(window), GREP_PLACE_LINES):
            places.append([(n, columns.get(n, -1)) for n in window[at : at + GREP_PLACE_LINES]])
    return places


def _block(doc: Document, place: list[tuple[int, int]], width: int) -> str:
    """A place as text: each line by its number, cut to ``width`` characters around its match."""
    shown = []
    for number, at in place:
        line = doc.split[number - 1] if number - 1 < len(doc.split) else ""
        start = max(0, at - width // 3) if at > 0 else 0
        piece = line[start : start + width]
        piece = ("…" if start else "") + piece + ("…" if start + width < len(line) else "")
        shown.append(f"{number}{':' if at >= 0 else '-'} {piece}")
    return "\n".join(shown)
