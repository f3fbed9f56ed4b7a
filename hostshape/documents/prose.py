"""Plain prose: its heading-like lines (short lines standing alone between blank lines, not ending a sentence),
else its paragraphs, grouped so that the outline stays a map and not a copy."""

from __future__ import annotations

from hostshape.documents.model import Entry, Outline, title_of

# A document of more paragraphs is outlined by this many groups of consecutive paragraphs; one of fewer than
# MIN_ENTRIES paragraphs but more than BLOCK_LINES lines, by this many even blocks of lines.
MAX_PARAGRAPH_ENTRIES = 60
MIN_ENTRIES = 3
BLOCKS = 20
BLOCK_LINES = 60
_TITLE_WORDS = 10


def outline(text: str) -> Outline | None:
    """Heading-like lines as entries, else paragraph groups titled by their first words (an outline that is not
    ``structured``); None for empty text."""
    paragraphs = _paragraphs(text)
    if not paragraphs:
        return None
    headings = [Entry(title_of(first), 1, start) for start, first, count in paragraphs if _heading_like(first, count)]
    if len(headings) >= 2:
        return Outline("prose", tuple(headings))
    if len(paragraphs) < MIN_ENTRIES and text.count("\n") > BLOCK_LINES:
        return Outline("prose", tuple(blocks(text.splitlines())), structured=False)
    step = max(1, -(-len(paragraphs) // MAX_PARAGRAPH_ENTRIES))
    entries = tuple(
        Entry(_first_words(paragraphs[at][1]), 1, paragraphs[at][0]) for at in range(0, len(paragraphs), step)
    )
    return Outline("prose", entries, structured=False)


def blocks(lines: list[str]) -> list[Entry]:
    """``BLOCKS`` even blocks of ``lines``, each titled by its range and first line."""
    step = max(1, -(-len(lines) // BLOCKS))
    return [
        Entry(title_of(f"lines {at + 1}-{min(len(lines), at + step)}: {lines[at]}", 90), 1, at + 1)
        for at in range(0, len(lines), step)
    ]


def _paragraphs(text: str) -> list[tuple[int, str, int]]:
    """``(first line number, first line, number of lines)`` of each paragraph (linear)."""
    found: list[tuple[int, str, int]] = []
    start, first, count = 0, "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            if not count:
                start, first = number, line[:1000]
            count += 1
        elif count:
            found.append((start, first, count))
            count = 0
    if count:
        found.append((start, first, count))
    return found


def _heading_like(line: str, count: int) -> bool:
    stripped = line.strip()
    return count == 1 and 0 < len(stripped) <= 80 and stripped[-1] not in ".,;:!?)\"'" and stripped[0].isalnum()


def _first_words(line: str) -> str:
    words = line.split()
    return title_of(" ".join(words[:_TITLE_WORDS]) + (" …" if len(words) > _TITLE_WORDS else ""))
