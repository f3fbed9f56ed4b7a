"""Whether a JSON text survives parsing, and its compact form that certainly does.

Parsing loses what Python's values cannot hold: a number with more digits than a double (``12345678901234567.89``
becomes ``1.2345678901234568e+16``), one out of its range (``1e400``), a key repeated in one object (the last value
wins), ``NaN``/``Infinity`` (not JSON). ``losses(text)`` names what a text would lose; ``minify(text)`` removes the
whitespace between tokens and nothing else, so it is the original, exactly, in fewer tokens.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from hostshape.input.parse import MISSING

__all__ = ["MAX_CHECKED_CHARS", "losses", "minify"]

# Texts longer than this are not checked (a second parse costs time; the compact path only meets short texts).
MAX_CHECKED_CHARS = 2_000_000
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[ \t\r\n]+|[^" \t\r\n]+', re.DOTALL)
_DOUBLE_DIGITS = 15  # every decimal of up to 15 significant digits comes back from a double as written


def minify(text: str) -> str:
    """``text`` without the whitespace between JSON tokens (strings are kept byte for byte)."""
    return "".join(t for t in _TOKENS.findall(text.lstrip("\ufeff")) if t[0] not in " \t\r\n")


def losses(text: str, value: Any = MISSING) -> list[str]:
    """What parsing ``text`` as JSON would change, as notes for the model (empty when nothing, or when the text is
    longer than MAX_CHECKED_CHARS or not JSON). ``value``, when given, is ``text`` as parsed (``parse_json``): a
    scan of the text against it then tells, in time proportional to the input at C speed, that nothing can be
    lost (see ``_surely_lossless``), and the text is parsed again only when it cannot tell."""
    if len(text) > MAX_CHECKED_CHARS or (value is not MISSING and _surely_lossless(text, value)):
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


def _exact(literal: str, value: float) -> bool:
    mantissa = literal.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    exponent = re.search(r"[eE]([+-]?\d+)", literal)
    if len(mantissa) <= _DOUBLE_DIGITS and (exponent is None or abs(int(exponent.group(1))) < 300):
        return True
    try:
        return value not in (float("inf"), float("-inf")) and Decimal(literal) == Decimal(repr(value))
    except InvalidOperation:
        return False


# --- the scan: what the text could lose, found without parsing it again -----------------------------------------

# Each byte of the text as a class: digits "0", the decimal point ".", exponent letters "e", signs "+", what may end
# a number ("|": a comma, a closing bracket, a blank), anything else " ".
def _class(b: int) -> int:
    c = chr(b)
    if "0" <= c <= "9":
        return ord("0")
    if c in ".+e":
        return b
    return ord({"E": "e", "-": "+"}.get(c, "|" if c in ",]} \t\r\n" else " "))


_CLASSES = bytes(_class(b) for b in range(256))
_DIGITS = _DOUBLE_DIGITS + 1
# A float literal a double cannot hold holds one of these: more significant digits than a double keeps (with or
# without a point, before an exponent), or an exponent of three digits or more (out of range, or subnormal) that
# ends the number (hex digests hold "0e000" everywhere, but a letter or a quote follows it there).
_LONG = (
    *(b"0" * i + b"." + b"0" * (_DIGITS - i) for i in range(1, _DIGITS)),
    b"0" * _DIGITS + b".",
    b"." + b"0" * _DIGITS,
    b"0" * _DIGITS + b"e",
    *(b"0e" + sign + b"0" * n + b"|" for sign in (b"", b"+") for n in range(3, 7)),
    b"0e0000000",
    b"0e+0000000",
)
_NUMBER_CHARS = frozenset(b"0123456789.eE+-")
_BEFORE_NUMBER = frozenset(b":,[ \t\r\n")  # what a number token follows in JSON (inside a string, anything)
_AFTER_NUMBER = frozenset(b",]} \t\r\n")  # and what it is followed by
_MAX_CANDIDATES = 1_000
_SPACED_COLON = re.compile(rb'"[ \t\r\n]+:')


def _surely_lossless(text: str, value: Any) -> bool:
    """True when ``value`` (``text`` parsed) certainly holds all that ``text`` says: no ``NaN``/``Infinity``
    anywhere, as many keys in the text as in the value (no key repeated in an object), and no number literal a
    double cannot hold. False means "parse again to find out", never "something was lost"."""
    try:
        data = text.encode("utf-8")
        again = orjson.dumps(value)
    except (UnicodeEncodeError, TypeError, orjson.JSONEncodeError):
        return False
    if _constants(data):
        return False
    if _keys(data) != _keys(again):
        return False
    classes = data.translate(_CLASSES) + b"|"  # the end of the text ends a number too
    seen = 0
    for pattern in _LONG:
        at = classes.find(pattern)
        while at != -1:
            seen += 1
            if seen > _MAX_CANDIDATES or not _harmless(data, at):
                return False
            at = classes.find(pattern, at + 1)
    return True


def _keys(data: bytes) -> int:
    """The number of object keys in JSON text: each ends with an unescaped quote (after an even run of
    backslashes, often none), blanks perhaps, and a colon; a quote inside a string is escaped (``\\"``)."""
    keys = data.count(b'":') - data.count(b'\\":')  # a quote after a backslash: escaped, mostly
    at = data.find(b'\\\\":')
    while at != -1:  # unless the backslash is itself escaped (a key ending in one; JSON text inside a string)
        keys += _slashes_before(data, at + 2) % 2 == 0
        at = data.find(b'\\\\":', at + 1)
    for match in _SPACED_COLON.finditer(data):  # '"key" : value' (some pretty-printers)
        keys += _slashes_before(data, match.start()) % 2 == 0
    return keys


def _slashes_before(data: bytes, at: int) -> int:
    """How many backslashes run right before ``data[at]``."""
    n = 0
    while at - n > 0 and data[at - n - 1] == ord("\\"):
        n += 1
    return n


def _constants(data: bytes) -> bool:
    """``NaN`` or ``Infinity`` as a token (not inside a string: after a colon, comma, bracket or blank)."""
    for word in (b"NaN", b"Infinity"):
        at = data.find(word)
        while at != -1:
            before = data[at - 1] if at > 0 else ord(" ")
            if before == ord("-") or before in _BEFORE_NUMBER:
                return True
            at = data.find(word, at + 1)
    return False


def _harmless(data: bytes, at: int) -> bool:
    """The long run of number characters at ``at`` is inside a string (a number token neither follows nor is
    followed by a letter or a quote), or a number a double holds exactly."""
    start = at
    while start > 0 and data[start - 1] in _NUMBER_CHARS:
        start -= 1
    end = at
    while end < len(data) and data[end] in _NUMBER_CHARS:
        end += 1
    if (start > 0 and data[start - 1] not in _BEFORE_NUMBER) or (end < len(data) and data[end] not in _AFTER_NUMBER):
        return True
    literal = data[start:end].decode("ascii")
    try:
        return _exact(literal, float(literal))
    except ValueError:
        return False
