"""Files whose structure is ``#`` comments (a server's configuration, Terraform, a Makefile, a shell script): a
``#`` line there is a comment, never a Markdown heading. The outline is the file's banners (a title framed by rule
marks, on its line or between two rule lines: ``##### NETWORK #####``, ``####\\n# VPC\\n####``) at level 1, and
under them its top-level blocks (an unindented line opening ``{``: ``resource "aws_vpc" "this" {``, ``server {``),
its targets (``all: build``) and its comment blocks (by their first line, where there are neither) at level 2. A
text of top-level ``{`` blocks without ``#`` comments (a Protocol Buffers or GraphQL schema) is outlined so too.

Told from the lines alone: most ``#`` lines come in runs (comment blocks) or are bare ``#`` lines, which Markdown's
headings never do (a heading stands on a line of its own). Each line is read with anchored patterns (linear)."""

from __future__ import annotations

import re

from hostshape.documents.model import Entry, Outline, kept, title_of

#: the share of ``#`` lines in runs of two or more (or bare) for a text to be commented, not Markdown
RUN_SHARE = 0.6
MIN_COMMENT_LINES = 8
_COMMENT = re.compile(r"[ \t]*#")
_RULE = re.compile(r"[ \t]*#[#=*~_+\-\s]{5,}$")
_MARKS = "#=*~_+-"
_TEXT = re.compile(r"[ \t]*#+[ \t]*(?P<title>\S[^\n]{0,300})")
_BLOCK = re.compile(r"(?P<title>[A-Za-z_][^\n{}#]{0,200})\{[ \t]*$")  # one greedy class before the brace: linear
_TARGET = re.compile(r"(?P<title>[A-Za-z_.$(][\w.$()%/ -]{0,120}):(?![:=])(?:[ \t]|$)")


def looks_commented(lines: list[str]) -> bool:
    """``lines`` (the sample's lines, blank ones included) are a commented file's: at least ``MIN_COMMENT_LINES``
    ``#`` lines flush left, most in runs of two or more adjacent ones or bare."""
    comments = in_runs = 0
    previous = False
    for index, line in enumerate(lines):
        comment = line.startswith("#")  # flush left: an indented one is more often an example's, in a page
        if not comment:
            previous = False
            continue
        comments += 1
        following = index + 1 < len(lines) and lines[index + 1].startswith("#")
        in_runs += previous or following or line.strip() == "#"
        previous = True
    return comments >= MIN_COMMENT_LINES and in_runs >= RUN_SHARE * comments


MIN_TOP_BLOCKS = 5


def top_blocks(lines: list[str]) -> bool:
    """``lines`` are mostly top-level blocks: at least ``MIN_TOP_BLOCKS`` unindented lines opening ``{`` and as
    many unindented ``}`` lines closing them (a Protocol Buffers or GraphQL schema, a stylesheet, HCL)."""
    opened = closed = 0
    for line in lines:
        if line[:1] in " \t":
            continue
        if line.rstrip() == "}":
            closed += 1
        elif _BLOCK.match(line[:300]):
            opened += 1
    return min(opened, closed) >= MIN_TOP_BLOCKS


def _framed(line: str) -> str:
    """The title of a banner line (``##### NETWORK #####``, ``# ---- Build ----``): text between at least four
    rule marks (the ``#`` included) on its left and three on its right; else empty."""
    stripped = line.strip()
    inner = stripped.lstrip(_MARKS + " \t")
    core = inner.rstrip(_MARKS + " \t")
    left = stripped[: len(stripped) - len(inner)]
    right = inner[len(core) :]
    if core and sum(c in _MARKS for c in left) >= 4 and sum(c in _MARKS for c in right) >= 3:
        return core
    return ""


_LEAD = re.compile(r"[ \t]*(?://|#|/\*|\*|@)")  # a comment line, a doc comment's, an annotation
_QUOTES = '"""'
MAX_LEAD_LINES = 200


def _lead(lines: list[str], number: int) -> int:
    """The first line of what directly precedes the block opened on line ``number`` and belongs to it: its
    comments (``//``, ``#``, ``/* */``), annotations and descriptions (a GraphQL ``\"\"\"`` block or ``"..."``
    line), with no blank line between; ``number`` when there are none. A banner or rule line is not part of it.
    Looks back at most ``MAX_LEAD_LINES`` lines."""
    first = number
    quoted = False  # inside a description block, read upwards
    for at in range(number - 1, max(0, number - 1 - MAX_LEAD_LINES), -1):
        line = lines[at - 1][:2000]
        stripped = line.strip()
        if quoted:
            first = at
            quoted = not stripped.startswith(_QUOTES)
            continue
        if not stripped or _RULE.match(line) or _framed(line):
            break
        if stripped.endswith(_QUOTES):
            first = at
            quoted = not (stripped.startswith(_QUOTES) and len(stripped) >= 6)
            continue
        if _LEAD.match(line) or (stripped.startswith('"') and stripped.endswith('"')):
            first = at
            continue
        break
    return number if quoted else first


def outline(text: str) -> Outline | None:
    """Banners, blocks, targets and comment blocks; None when there are none."""
    lines = text.split("\n")
    banners: list[Entry] = []
    parts: list[Entry] = []
    blocks: list[Entry] = []  # comment blocks: the first line of each
    block_start = 0  # the first line of the comment block being read (0: none)
    for number, raw in enumerate(lines, 1):
        line = raw[:2000]
        if _COMMENT.match(line):
            framed = _framed(line)
            if framed:
                banners.append(Entry(title_of(framed), 1, number))
                block_start = 0
                continue
            if _RULE.match(line):
                block_start = 0
                continue
            if not block_start:
                block_start = number
                found = _TEXT.match(line)
                if found:
                    before = lines[number - 2][:2000] if number > 1 else ""
                    after = lines[number][:2000] if number < len(lines) else ""
                    title = found.group("title")
                    if "|" not in title and _RULE.match(before) and _RULE.match(after):  # between two rules
                        banners.append(Entry(title_of(title), 1, number - 1))
                    else:
                        blocks.append(Entry(title_of(title), 2, number))
            continue
        block_start = 0
        if not line or line[0] in " \t":
            continue
        found = _BLOCK.match(line) or _TARGET.match(line)
        if found:
            parts.append(Entry(title_of(found.group("title").rstrip(" \t")), 2, _lead(lines, number)))
    body_entries = parts or blocks
    entries = sorted([*banners, *body_entries], key=lambda e: (e.start, e.level))
    if not entries:
        return None
    if not banners:
        entries = [Entry(e.title, 1, e.start) for e in entries]
    what = "banners and blocks" if parts else "banners and comment blocks"
    shown, notes = kept(entries, (), what)
    return Outline("commented file" if banners or blocks else "blocks", shown, notes=notes)
