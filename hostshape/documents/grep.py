"""Finding lines by a model's pattern, in time linear in the text whatever the pattern.

With google-re2 (the ``documents`` extra) the pattern is an RE2 regular expression: RE2 guarantees linear-time
matching and its memory is capped (``RE2_MAX_MEM``); constructs it cannot run in linear time (backreferences,
lookaround) are refused with a message. Without it, the pattern is matched as literal text (``a|b`` as either
literal). Either way, a pattern without capitals matches regardless of case, and at most ``MAX_MATCHED_LINES``
lines are collected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_PATTERN_CHARS = 1_000
MAX_MATCHED_LINES = 5_000
RE2_MAX_MEM = 32 << 20


class PatternError(ValueError):
    """The pattern cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Matches:
    """The lines that match, ascending, as ``(line number (1-based), where the first match starts)``; ``more`` when
    collecting stopped early; ``how`` says how the pattern was read."""

    lines: tuple[tuple[int, int], ...]
    more: bool
    how: str


def find(lines: list[str], pattern: str) -> Matches:
    """The lines of ``lines`` (the document split into lines) that ``pattern`` matches."""
    if not pattern:
        raise PatternError("the pattern is empty: give the text or RE2 expression to find")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    search, how = _matcher(pattern)
    found: list[tuple[int, int]] = []
    for number, line in enumerate(lines, 1):
        at = search(line)
        if at >= 0:
            found.append((number, at))
            if len(found) >= MAX_MATCHED_LINES:
                return Matches(tuple(found), number < len(lines), how)
    return Matches(tuple(found), False, how)


def _matcher(pattern: str) -> tuple[Callable[[str], int], str]:
    ignore_case = pattern == pattern.lower()
    try:
        import re2
    except ImportError:
        return _literal(pattern, ignore_case)
    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.case_sensitive = not ignore_case
    options.log_errors = False
    try:
        regex = re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise PatternError(
            f"not an RE2 expression ({reason}); RE2 has no backreferences or lookaround: use a simpler expression "
            "or plain text"
        ) from None
    if regex.search("") is not None:
        raise PatternError("the pattern matches empty text, so every line: give something to find")

    def search(line: str) -> int:
        match = regex.search(line)
        return match.start() if match is not None else -1

    return search, "RE2 expression" + (", any case" if ignore_case else "")


def _literal(pattern: str, ignore_case: bool) -> tuple[Callable[[str], int], str]:
    needles = [n for n in pattern.split("|") if n]
    if not needles:
        raise PatternError("the pattern has nothing to find")
    if ignore_case:
        needles = [n.lower() for n in needles]

    def search(line: str) -> int:
        seen = line.lower() if ignore_case else line
        found = [at for at in (seen.find(n) for n in needles) if at >= 0]
        return min(found) if found else -1

    how = "literal text (regular expressions need google-re2: pip install 'hostshape[documents]')"
    return search, how + (", any case" if ignore_case else "")
