"""Fit prose: clean it of noise, cut it at a paragraph or line, end it with the envelope line."""

from __future__ import annotations

import dataclasses
import re

from hostshape.fit._base import CursorAt, Fitted, last_resort, no_cursor
from hostshape.fit.budget import Limit
from hostshape.output.envelope import LINE_STYLES, Facts, WayBack, last_resort_texts, text_line

_DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]{64,}")
# One run of URL characters: no nested or competing quantifiers, so a search is linear in the text's length (the
# host part is found in Python; see _shorten_url). Every pattern here is tested on 400,000-character runs.
_LONG_URL = re.compile(r"https?://(?=[^\s/)\]>\"'])[^\s)\]>\"']{201,}")
_URL_TAIL = 200
# Three or more newlines with only blanks between: single-character repeats, which the regex engine runs without a
# backtracking frame per repetition (a repeated group, ``(?:[ \t]*\n)+``, kept one for each: 140 bytes a newline).
_BLANK_RUNS = re.compile(r"\n[ \t]*\n[ \t\n]*\n")


def clean(text: str) -> str:
    """Prose without noise: data URIs, overlong tracking URLs and runs of blank lines."""
    return _BLANK_RUNS.sub("\n\n", quiet(text))


def quiet(text: str) -> str:
    """``text`` with data URIs and overlong tracking URLs shortened; its lines stay where they are."""
    text = _DATA_URI.sub("[data URI omitted]", text)
    return _LONG_URL.sub(_shorten_url, text)


def _shorten_url(match: re.Match[str]) -> str:
    """The scheme and host of an overlong URL, then ``/…``: the host ends at the first ``/`` after ``://``, and at
    least 200 characters are dropped."""
    url = match.group(0)
    start = url.index("://") + 3
    slash = url.find("/", start)
    end = min(len(url) - _URL_TAIL, slash if slash >= 0 else len(url))
    return url[:end] + "/…"


def fit_text(
    text: str, facts: Facts, limit: Limit, way: WayBack, cursor_at: CursorAt = no_cursor, *, offset: int = 0
) -> Fitted:
    """The longest prefix of ``text[offset:]``, cut at a paragraph or line, that fits with its envelope line
    (naming ``cursor_at(end)``, the cursor of the rest, if any); the line is shortened (no hint, then no detail)
    when the budget is too small for it."""
    for style in LINE_STYLES:
        if style in ("no_room", "bare") and way.handle:  # the handle before more of the text: it reaches all of it;
            only = last_resort(False, way, limit, facts)  # else that there is no room for it, before more text
            if only.text in last_resort_texts(False, way.handle)[: 1 if style == "no_room" else 2]:
                return only
        fitted = _fit_text(text, facts, limit, way, cursor_at, offset, style)
        if fitted is not None:
            return fitted
    return last_resort(False, way, limit, facts)


def _fit_text(
    text: str, facts: Facts, limit: Limit, way: WayBack, cursor_at: CursorAt, offset: int, style: str
) -> Fitted | None:
    rest = text[offset:]
    total_lines = text.count("\n") + 1
    probe = text_line(
        facts,
        way,
        cursor_at(len(text)) if offset < len(text) else None,
        _detail(0, 1, total_lines, len(text), len(text), len(text)),
        style,
    )
    avail = limit.tokens - limit.count(probe) - 4
    avail_chars = len(rest) if limit.chars is None else limit.chars - len(probe) - 2
    end = prefix_end(rest, avail, avail_chars, limit)
    first = text.count("\n", 0, offset) + 1
    for _ in range(12):
        if end <= 0:
            return None
        body = rest[:end]
        next_cursor = cursor_at(offset + end) if offset + end < len(text) else None
        facts = dataclasses.replace(facts, truncated=end < len(rest) or offset > 0)
        last = first + body.count("\n") - (1 if body.endswith("\n") else 0)
        detail = _detail(first, last, total_lines, offset, offset + end, len(text))
        candidate = f"{body.rstrip()}\n{text_line(facts, way, next_cursor, detail, style)}"
        if limit.fits(candidate):
            return Fitted(candidate, facts, "text")
        end = boundary(rest, int(end * 0.85))
    return None


def _detail(first: int, last: int, lines: int, start: int, end: int, chars: int) -> str:
    return f"lines {first}-{last} of {lines:,} (chars {start:,}-{end:,} of {chars:,})"


def prefix_end(rest: str, avail: int, avail_chars: int, limit: Limit) -> int:
    """Where to cut ``rest`` so that the prefix holds about ``avail`` tokens, at a natural boundary."""
    if avail <= 0 or avail_chars <= 0:
        return 0
    # Tokenize about as much text as the answer will hold, not 8 characters per token of it: start from what the
    # limit already tokenized of this text (its over-budget probe), then add pieces sized from the characters per
    # token seen so far. Piece joins may split a word, so the cut can come a token early; the candidate built at
    # it is counted exactly all the same.
    reach = min(len(rest), avail * 8, avail_chars)
    done, tokens = limit.tokenized_prefix(rest[:reach])
    per_token = done / len(tokens) if tokens else _density(rest, limit)
    while len(tokens) <= avail and done < reach:
        piece = rest[done : min(reach, done + int((avail + 1 - len(tokens)) * per_token * 1.1) + 64)]
        tokens += _encode(piece, limit)
        done += len(piece)
        per_token = done / max(1, len(tokens))
    if len(tokens) <= avail and done == len(rest):
        return len(rest)
    cut = done if len(tokens) <= avail else len(_decode_bytes(tokens[:avail], limit).decode("utf-8", "ignore"))
    return boundary(rest, cut)


def _density(text: str, limit: Limit) -> float:
    """Characters per token at the start of ``text``."""
    sample = text[:_SAMPLE_CHARS]
    return len(sample) / max(1, len(_encode(sample, limit)))


_SAMPLE_CHARS = 1000


def boundary(rest: str, cut: int) -> int:
    """A paragraph end near ``cut``, else a line end, else a word's end (a blank, or between two punctuation
    marks), else ``cut`` itself (inside a word only when no word ends near)."""
    if cut >= len(rest):
        return len(rest)
    for mark, reach in (("\n\n", 0.8), ("\n", 0.5)):
        at = rest.rfind(mark, 0, cut)
        if at >= cut * reach and at > 0:
            return at + len(mark)
    return _word_end(rest, cut)


_WORD_REACH = 0.2  # a word end is near when it lies in the last fifth before the cut...
_WORD_CHARS = (32, 400)  # ...or in the last 32 characters, and at most 400 back (a long token has no end to find)


def _word_end(rest: str, cut: int) -> int:
    """The last place at or before ``cut``, and near it, that is not inside a word: beside a blank, or between two
    characters neither of which is a letter or digit (``4,812`` and ``don't`` are not cut); else ``cut``."""
    low = max(1, cut - max(_WORD_CHARS[0], min(int(cut * _WORD_REACH), _WORD_CHARS[1])))
    for at in range(cut, low - 1, -1):
        before, after = rest[at - 1], rest[at]
        if before.isspace() or after.isspace() or not (before.isalnum() or after.isalnum()):
            return at
    return cut


def _encode(text: str, limit: Limit) -> list[int]:
    from hostshape.tokens import counter

    return counter(limit.encoding_name).encode_ordinary(text)


def _decode_bytes(tokens: list[int], limit: Limit) -> bytes:
    from hostshape.tokens import counter

    return counter(limit.encoding_name).decode_bytes(tokens)
