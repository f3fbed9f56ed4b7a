"""Text shortened in place: previews that say how much was cut, base64 blobs labelled."""

from __future__ import annotations

import re
from typing import Any

_BASE64 = re.compile(r"^[A-Za-z0-9+/=\r\n]{400,}$")
_HAS_UPPER, _HAS_LOWER = re.compile("[A-Z]"), re.compile("[a-z]")


class Clipped(str):
    """A string too long for any answer, cut to its first ``kept`` characters before fitting and ending with the cut
    mark (shown as it is, it still says it was cut); ``full`` is the length of the string it stands for, which
    every later cut of it reports."""

    full: int
    kept: int


def clipped(text: str, keep: int) -> str:
    """``text`` cut to its first ``keep`` characters as a ``Clipped`` string; ``text`` itself when not longer."""
    if len(text) <= keep:
        return text
    full = full_length(text)
    out = Clipped(f"{text[:keep]}…[+{full - keep:,} chars]")
    out.full, out.kept = full, keep
    return out


def full_length(text: str) -> int:
    """The length of the text ``text`` stands for (a ``Clipped`` string's original length)."""
    return text.full if isinstance(text, Clipped) else len(text)


def own_chars(text: str) -> int:
    """How many of ``text``'s first characters are the text it stands for (all but a ``Clipped`` string's mark)."""
    return text.kept if isinstance(text, Clipped) else len(text)


def text_placeholder(text: str) -> str:
    """A label for a long base64 blob (mixed-case letters and digits, no blanks); any other text as it is."""
    head = text[:1000]
    if len(text) >= 400 and _BASE64.match(head) and _HAS_UPPER.search(head) and _HAS_LOWER.search(head):
        return f"[base64 omitted: {full_length(text):,} chars]"
    return text


def cap_strings(value: Any, limit: int, cuts: list[int], depth: int = 0) -> Any:
    """``value`` with every string in a record's own fields (depth <= 2 here) previewed at ``limit`` chars;
    ``cuts[0]`` counts the strings cut."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        cuts[0] += 1
        return preview(value, limit)
    if depth >= 3:
        return value
    if isinstance(value, dict):
        return {k: cap_strings(v, limit, cuts, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_strings(v, limit, cuts, depth + 1) for v in value]
    return value


def preview(text: str, limit: int) -> str:
    """``text`` when short (the same object); else its first ``limit`` characters (cut at a word) and how many
    were cut."""
    if len(text) <= limit:
        return text
    text_head = text_placeholder(text)
    if text_head is not text:
        return text_head
    limit = min(limit, own_chars(text))
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit
    return f"{text[:cut].rstrip()}…[+{full_length(text) - cut:,} chars]"
