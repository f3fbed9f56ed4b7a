"""Whether a JSON text survives parsing, and its compact form that certainly does.

Parsing loses what Python's values cannot hold: a number with more digits than a double (``12345678901234567.89``
becomes ``1.2345678901234568e+16``), one out of its range (``1e400``), a key repeated in one object (the last value
wins), ``NaN``/``Infinity`` (not JSON). ``losses(text)`` names what a text would lose; ``minify(text)`` removes the
whitespace between tokens and nothing else, so it is the original, exactly, in fewer tokens.

Given the compact rendering of the parsed value, ``losses`` first tells a text that loses nothing at C speed
(``_surely_lossless``) and parses it again, with a hook per object and per float, only when that cannot be told.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["MAX_CHECKED_CHARS", "losses", "minify"]

# Texts longer than this are not checked (a second parse costs time; the compact path only meets short texts).
MAX_CHECKED_CHARS = 2_000_000
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[ \t\r\n]+|[^" \t\r\n]+', re.DOTALL)
_DOUBLE_DIGITS = 15  # every decimal of up to 15 significant digits comes back from a double as written


def minify(text: str) -> str:
    """``text`` without the whitespace between JSON tokens (strings are kept byte for byte)."""
    return "".join(t for t in _TOKENS.findall(text.lstrip("\ufeff")) if t[0] not in " \t\r\n")


def losses(text: str, rendering: str | None = None) -> list[str]:
    """What parsing ``text`` as JSON would change, as notes for the model (empty when nothing, or when the text is
    longer than MAX_CHECKED_CHARS or not JSON). ``rendering``, when given, is the compact JSON of the value parsed
    from ``text`` (``output.render.dumps``), which must be strict JSON (no ``NaN`` or ``Infinity``, as orjson reads
    it): the same notes, found sooner when there are none."""
    if len(text) > MAX_CHECKED_CHARS:
        return []
    if rendering is not None and _surely_lossless(text, rendering):
        return []
    found: dict[str, str] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) < len(items) and "dup" not in found:
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    found["dup"] = f"a key repeated in one object ({key[:40]!r}) shows only its last value"
                    break
                seen.add(key)
        return out

    def number(literal: str) -> float:
        value = float(literal)
        if "num" not in found and not _exact(literal, value):
            found["num"] = f"numbers beyond a double's precision or range are shown rounded (e.g. {literal[:40]})"
        return value

    def constant(name: str) -> str:
        found.setdefault("const", f"{name} (not JSON) is shown as a string")
        return name

    try:
        json.loads(text.lstrip("\ufeff"), object_pairs_hook=pairs, parse_float=number, parse_constant=constant)
    except (ValueError, RecursionError):
        return []
    return list(found.values())


# The screen reads the UTF-8 text with every digit written 0, E as e and + as -: number shapes become literals.
_SHAPES = bytes.maketrans(b"123456789E+", b"000000000e-")
# A float literal of 16 or more significant digits has 8 or more on one side of its point, or none before an
# exponent; one out of a double's range has an exponent of three digits or more.
_LONG_BY_POINT = re.compile(rb"\.(?:00000000|(?<=00000000\.))")
_LONG_EXPONENT = re.compile(rb"0e-?000")
_LONG_MANTISSA = b"0000000000000000e"
_COLON_ESCAPE = re.compile(rb"\\u003[aA]")
_ESCAPE_HEAD = b"\\u003"  # found at C speed: the pattern is searched for only in a text that has it
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_RUN = 64  # bytes read either side of a candidate literal; a longer run is checked by parsing
# Candidate literals looked at before the text is checked by parsing: at least this many, or one per this many
# bytes (a look costs about what parsing a few hundred bytes with the hooks does).
_CANDIDATES = 2000
_BYTES_PER_CANDIDATE = 200


def _surely_lossless(text: str, rendering: str) -> bool:
    """True when ``text`` certainly loses nothing to parsing (False: parse it to know). ``rendering`` is the compact
    JSON of its parsed value, ``text`` strict JSON. Every step is a scan at C speed but the look at each candidate
    number.

    First, the text and its rendering are compared without their blanks (``_same_but_blanks``, two passes): they
    are equal for most texts that lose nothing, all but those with escapes the rendering does not write, numbers
    written otherwise or a byte-order mark. Else a repeated key drops a member: every colon outside a string
    separates a member, and the rendering writes the parsed value's strings with their colons as they are, so
    (counting a ``\\u003a`` escape as the colon it decodes to) ``text`` has more colons than its rendering exactly
    when parsing dropped a member. A rounded number needs a literal of 16 significant digits or a 3-digit exponent,
    and each such candidate (in a string or not) is checked as a literal."""
    if text == rendering:
        return True
    raw = text.encode("utf-8", "surrogatepass")
    if _same_but_blanks(raw, rendering.encode("utf-8", "surrogatepass")):
        return True
    escaped = len(_COLON_ESCAPE.findall(raw)) if b"\\" in raw and _ESCAPE_HEAD in raw else 0
    if raw.count(b":") + escaped != rendering.count(":"):
        return False
    shapes = raw.translate(_SHAPES)
    most = max(_CANDIDATES, len(raw) // _BYTES_PER_CANDIDATE)
    starts: list[int] = []
    at = shapes.find(_LONG_MANTISSA)
    while at >= 0 and len(starts) <= most:
        starts.append(at + len(_LONG_MANTISSA) - 1)
        at = shapes.find(_LONG_MANTISSA, at + len(_LONG_MANTISSA))
    for pattern in (_LONG_BY_POINT, _LONG_EXPONENT):
        for match in pattern.finditer(shapes):
            starts.append(match.start())
            if len(starts) > most:
                return False
    return not any(_maybe_rounded(raw, shapes, at) for at in starts)


_BLANK_BYTES = b" \t\r\n"


def _same_but_blanks(raw: bytes, rendered: bytes) -> bool:
    """Whether the UTF-8 text ``raw`` (strict JSON) and the compact rendering of its parsed value are the same
    bytes once every blank is deleted from both; then parsing lost nothing.

    Why: a strict JSON text has blanks between tokens and, inside strings, spaces only (control characters are
    escaped there); no escape holds a blank (``\\\\`` followed by a space is an escaped backslash, then a space), and
    punctuation stands between any two other tokens. So deleting the blanks joins no tokens and changes no escape:
    each deleted text reads as the same tokens as before, strings but for their spaces, and equal deleted texts mean
    the text and the rendering have the same tokens. The rendering has one member for each member the parsed value
    kept, so the text has no more: no key was repeated. Each of its number literals is, character for character,
    orjson's shortest form of the double it parsed to, which is ``repr``'s (tests/test_lossless_screen.py checks
    random doubles): none was rounded, as ``_exact`` tells rounding."""
    kept = raw.translate(None, _BLANK_BYTES)
    return len(kept) <= len(rendered) and kept == rendered.translate(None, _BLANK_BYTES)


def _maybe_rounded(raw: bytes, shapes: bytes, at: int) -> bool:
    """Whether the run of number characters around ``at`` may be a number literal that parsing rounds: False when
    it is certainly inside a string (no ``:``, ``,`` or ``[`` before it), an integer, or exact as a double."""
    low, high = max(0, at - _RUN), min(len(raw), at + _RUN)
    head, tail = shapes[low:at].rstrip(b"0.e-"), shapes[at:high].lstrip(b"0.e-")
    if (low > 0 and not head) or (high < len(raw) and not tail):
        return True  # a run longer than this window: checked by parsing
    start, end = low + len(head), high - len(tail)
    before = head.rstrip(b" \t\r\n")
    if before:
        if before[-1:] not in (b",", b":", b"[") and not before.endswith(b"\xef\xbb\xbf"):
            return False
    elif low > 0:
        return True  # blanks all the way back: checked by parsing
    if end - start < 17 and b"e" not in shapes[start:end]:
        return False  # no exponent and fewer than 16 digits: exact
    literal = raw[start:end].decode("ascii")
    return _NUMBER.fullmatch(literal) is not None and not _exact(literal, float(literal))


def _exact(literal: str, value: float) -> bool:
    mantissa = literal.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    exponent = re.search(r"[eE]([+-]?\d+)", literal)
    if len(mantissa) <= _DOUBLE_DIGITS and (exponent is None or abs(int(exponent.group(1))) < 300):
        return True
    try:
        return value not in (float("inf"), float("-inf")) and Decimal(literal) == Decimal(repr(value))
    except InvalidOperation:
        return False
