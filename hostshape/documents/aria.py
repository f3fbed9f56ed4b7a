"""Accessibility snapshots (Playwright's aria snapshot: ``- role "name" [attr] [ref=e12]:`` lines nested by
indentation): landmarks and headings as the outline, interactive elements with their refs as highlights (inputs and
buttons first, one a line, then links, several a line as ``ref name``: a page's links are most of its controls).
The format is line-oriented YAML whose every line is one node, so each line is read with one anchored pattern
(linear). The head starts at the first ``main`` landmark when there is one (WAI-ARIA's role for the page's main
content: what comes before it is the site's banner, sidebar and navigation), else at the top."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, MAX_HIGHLIGHTS, Entry, Outline, clip, title_of

LINE = re.compile(r"(?P<indent> *)- (?P<role>[a-z]+)(?: \"(?P<name>(?:[^\"\\]|\\.){0,500})\")?(?P<rest>[^\n]*)")
_REF = re.compile(r"\[ref=([\w-]+)\]")
_LEVEL = re.compile(r"\[level=(\d)\]")
_LANDMARKS = frozenset(
    ["banner", "main", "navigation", "contentinfo", "complementary", "region", "form", "search", "article", "dialog"]
)
_INPUTS = frozenset(
    ["textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "slider", "spinbutton", "listbox"]
)
_ACTIONS = frozenset(["button", "menuitem", "tab", "option", "treeitem"])
LINKS_PER_LINE = 12
_LINK_NAME_CHARS = 80


def outline(text: str) -> Outline | None:
    """Landmarks (by nesting) and headings (by level), and the interactive elements; None when no line is a node."""
    entries: list[Entry] = []
    ranked: list[tuple[int, int, str]] = []
    links: list[tuple[int, str]] = []  # (line, "ref name") of the named links
    landmark_depth: list[int] = []
    unnamed: tuple[int, int] | None = None  # (entry index, indent) of a landmark still without a name
    nodes = main = 0
    for number, line in enumerate(text.splitlines(), 1):
        match = LINE.match(line[:1000])
        if not match:
            continue
        nodes += 1
        indent = len(match.group("indent")) // 2
        role, name, rest = match.group("role"), match.group("name") or "", match.group("rest")
        while landmark_depth and landmark_depth[-1] >= indent:
            landmark_depth.pop()
        if unnamed is not None and (indent <= unnamed[1] or name):
            if name and indent > unnamed[1]:  # an unnamed landmark is known by its first named content
                entry = entries[unnamed[0]]
                entries[unnamed[0]] = Entry(title_of(f"{entry.title}: {name}"), entry.level, entry.start)
            unnamed = None
        if role == "main" and not main:
            main = number
        if role in _LANDMARKS and len(entries) < MAX_ENTRIES:
            landmark_depth.append(indent)
            entries.append(Entry(title_of(f"{role} {name}".strip()), len(landmark_depth), number))
            if not name:
                unnamed = (len(entries) - 1, indent)
        elif role == "heading" and len(entries) < MAX_ENTRIES:
            level = _LEVEL.search(rest)
            depth = len(landmark_depth) + int(level.group(1) if level else 2)
            entries.append(Entry(title_of(f"heading {name}"), depth, number))
        ref = _REF.search(rest)
        if ref is None or len(ranked) + len(links) >= MAX_HIGHLIGHTS * LINKS_PER_LINE:
            continue
        if role in _INPUTS or role in _ACTIONS:
            rank = 0 if role in _INPUTS else 1
            ranked.append((rank, number, clip(f'{role} "{name}" [ref={ref.group(1)}]', 160)))
        elif role == "link" and name:  # an unnamed link says nothing before it is followed
            links.append((number, f"{ref.group(1)} {title_of(name, _LINK_NAME_CHARS)}"))
    if nodes < 3:
        return None
    ranked.sort()
    highlights = tuple(f"L{n} {t}" for _, n, t in ranked) + _link_lines(links)
    if not entries:
        entries = [Entry("(page)", 1, 1)]
    before = (f"lines 1-{main - 1:,} come before the page's main landmark, the head starts at it",) if main > 1 else ()
    return Outline(
        "aria snapshot",
        tuple(entries),
        highlights=highlights,
        highlights_label="interactive elements (ref); links as ref and name",
        summary=f"{nodes:,} nodes, {len(ranked) + len(links):,} interactive elements with refs",
        notes=before,
        head=max(main, 1),
    )


def _link_lines(links: list[tuple[int, str]]) -> tuple[str, ...]:
    """The links, ``LINKS_PER_LINE`` a line in page order: ``L20-72 links: e16 Markets · e21 World · ...``."""
    lines = []
    for at in range(0, len(links), LINKS_PER_LINE):
        chunk = links[at : at + LINKS_PER_LINE]
        first, last = chunk[0][0], chunk[-1][0]
        where = f"L{first}" if first == last else f"L{first}-{last}"
        lines.append(f"{where} links: " + " · ".join(text for _, text in chunk))
    return tuple(lines[:MAX_HIGHLIGHTS])
