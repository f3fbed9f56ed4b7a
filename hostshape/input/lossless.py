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


def losses(text: str, rendering: str | bytes | None = None) -> list[str]:
    """What parsing ``text`` as JSON would change, as notes for the model (empty when nothing, or when the text is
    longer than MAX_CHECKED_CHARS or not JSON). ``rendering``, when given, is the compact JSON of the value parsed
    from ``text`` (``output.render.dumps``, or its UTF-8 bytes), which must be strict JSON (no ``NaN`` or
    ``Infinity``, as orjson reads it): the same notes, found sooner when there are none."""
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


def _surely_lossless(text: str, rendering: str | bytes) -> bool:
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
    raw = text.encode("utf-8", "surrogatepass")
    rendered = rendering if isinstance(rendering, bytes) else rendering.encode("utf-8", "surrogatepass")
    if raw == rendered or _same_but_blanks(raw, rendered):
        return True
    escaped = len(_COLON_ESCAPE.findall(raw)) if b"\\" in raw and _ESCAPE_HEAD in raw else 0
    if raw.count(b":") + escaped != rendered.count(b":"):
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
_BOM = "\ufeff".encode()
_CHUNK = 1 << 14  # bytes compared at once while looking for the next difference
_MOST_DIFFERENCES = 64  # differences looked at before the text is left to the other screens
_NUMBER_BYTES = frozenset(b"0123456789.eE+-")
_BEFORE_NUMBER = frozenset(b",:[")
_AFTER_NUMBER = frozenset(b",]}")
_LONGEST_ESCAPE_RUN = 64  # backslashes counted before an escape; a longer run is left to the other screens


def _same_but_blanks(raw: bytes, rendered: bytes) -> bool:
    """Whether the UTF-8 text ``raw`` (strict JSON) and the compact rendering of its parsed value are, once every
    blank is deleted from both, the same bytes but for number literals of the same value that ``raw`` writes
    exactly (``1e-05`` for ``0.00001``, ``-0`` for ``0``) and characters it escapes otherwise (``\\u00e9`` for
    ``é``, ``\\/`` for ``/``); then parsing lost nothing. At most ``_MOST_DIFFERENCES`` differences are looked at.

    Why: a strict JSON text has blanks between tokens and, inside strings, spaces only (control characters are
    escaped there); no escape holds a blank (``\\\\`` followed by a space is an escaped backslash, then a space), and
    punctuation stands between any two other tokens. So deleting the blanks joins no tokens and changes no escape:
    each deleted text reads as the same tokens as before, strings but for their spaces. Where the two agree byte
    for byte they are in the same place of the same token (what came before is the same); each difference
    replaces one number by a number of the same value, or one character of a string by the same character, so
    both have the same tokens but for these. The rendering has one member for each member the parsed value kept,
    so the text has no more: no key was repeated. Each number literal the two share is, character for character,
    orjson's shortest form of the double it parsed to, which is ``repr``'s (tests/test_lossless_screen.py checks
    random doubles); each other one is checked with ``_exact``: none was rounded, as ``_exact`` tells rounding."""
    a, b = raw.translate(None, _BLANK_BYTES), _without_blanks(rendered)
    if a.startswith(_BOM):
        a = a[len(_BOM) :]
    if a == b:
        return True
    i = j = synced_i = 0  # a[synced_i:i] == b[j - (i - synced_i):j]: the stretch the two agree on
    for _ in range(_MOST_DIFFERENCES):
        same = _common_length(a, i, b, j)
        i, j = i + same, j + same
        if i == len(a) and j == len(b):
            return True
        if i == len(a) or j == len(b):
            return False
        after = _number_difference(a, i, b, j, i - synced_i) or _character_difference(a, i, b, j, i - synced_i)
        if after is None:
            return False
        i, j = after
        synced_i = i
    return False


def _without_blanks(text: bytes) -> bytes:
    """``text.translate(None, _BLANK_BYTES)``, told sooner for a text whose only blanks are a few spaces (a compact
    rendering: blanks only in its strings, where tabs and line ends are escaped): the text itself when it has
    none, else its spaces deleted by ``replace``, which copies the runs between them at C speed."""
    step = max(_DENSITY_BYTES, len(text) // _DENSITY_SLICES)  # slices spread over the text tell how many spaces
    looked = sum(text.count(b" ", at, at + _DENSITY_BYTES) for at in range(0, len(text), step))
    dense = looked * _SPARSE_SPACES > min(len(text), _DENSITY_SLICES * _DENSITY_BYTES)
    if dense or b"\t" in text or b"\n" in text or b"\r" in text:
        return text.translate(None, _BLANK_BYTES)
    return text.replace(b" ", b"") if b" " in text else text


_DENSITY_BYTES = 1 << 13  # bytes of each slice whose spaces tell whether a text's spaces are few
_DENSITY_SLICES = 8
_SPARSE_SPACES = 64  # ... fewer than one in this many bytes: few


def _common_length(a: bytes, i: int, b: bytes, j: int) -> int:
    """How many bytes ``a`` from ``i`` and ``b`` from ``j`` have in common (compared a chunk at a time)."""
    done, size = 0, 256  # the chunk grows: differences close together cost little, far apart few chunks
    while True:
        x, y = a[i + done : i + done + size], b[j + done : j + done + size]
        if x != y:
            break
        if len(x) < size:
            return done + len(x)
        done, size = done + size, min(2 * size, _CHUNK)
    low, high = 0, min(len(x), len(y))  # x[:low] == y[:low]; x[:high + 1] != y[:high + 1]
    while low < high:
        middle = (low + high + 1) // 2
        if x[:middle] == y[:middle]:
            low = middle
        else:
            high = middle - 1
    return done + low


def _number_difference(a: bytes, i: int, b: bytes, j: int, shared: int) -> tuple[int, int] | None:
    """Where ``a`` and ``b`` go on agreeing when they differ at ``i`` and ``j`` inside one number literal each
    (``shared`` bytes before are the same), of the same value, ``a``'s exact; else None."""
    back = 0
    while back < shared and a[i - back - 1] in _NUMBER_BYTES:
        back += 1
    if back == shared and i - back > 0:
        return None  # the literal's start is not in the stretch the two agree on
    start_a, start_b = i - back, j - back
    if start_a > 0 and a[start_a - 1] not in _BEFORE_NUMBER:
        return None
    end_a, end_b = _number_end(a, i), _number_end(b, j)
    if (end_a < len(a) and a[end_a] not in _AFTER_NUMBER) or (end_b < len(b) and b[end_b] not in _AFTER_NUMBER):
        return None
    mine, theirs = a[start_a:end_a].decode("ascii"), b[start_b:end_b].decode("ascii")
    if not (_NUMBER.fullmatch(mine) and _NUMBER.fullmatch(theirs)):
        return None
    if not any(c in mine for c in ".eE"):  # an integer: parsed as Python's int, which loses nothing
        return (end_a, end_b) if not any(c in theirs for c in ".eE") and int(mine) == int(theirs) else None
    value = float(mine)
    return (end_a, end_b) if value == float(theirs) and _exact(mine, value) else None


def _number_end(text: bytes, at: int) -> int:
    while at < len(text) and text[at] in _NUMBER_BYTES:
        at += 1
    return at


def _character_difference(a: bytes, i: int, b: bytes, j: int, shared: int) -> tuple[int, int] | None:
    """Where ``a`` and ``b`` go on agreeing when they differ at ``i`` and ``j`` inside one string, each writing
    the same character there, one of them (or both) as an escape; else None. ``shared`` bytes before are the
    same: the escape that holds ``i`` may start there."""
    start = i
    for back in range(1, min(6, shared + 1)):  # an escape is at most 6 bytes long: \uXXXX
        if a[i - back] == 0x5C and _starts_escape(a, i - back, shared - back):
            start = i - back
            break
    if start == i and not (a[i] == 0x5C or b[j] == 0x5C):
        return None
    if start == i and not _starts_escape(a, i, shared):
        return None  # a backslash whose run reaches past the stretch the two agree on (or too long a run)
    start_b = j - (i - start)
    mine, theirs = _character(a, start), _character(b, start_b)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return None
    return mine[1], theirs[1]


def _starts_escape(text: bytes, at: int, shared: int) -> bool:
    """Whether a backslash at ``at`` (or the character there, when it is not one) starts an escape: the run of
    backslashes just before it is even. Only the ``shared`` bytes before are counted: where they start, both
    texts are between two characters (or tokens), so a run starting there pairs from there."""
    run = 0
    while run < shared and text[at - run - 1] == 0x5C:
        run += 1
        if run > _LONGEST_ESCAPE_RUN:
            return False
    return run % 2 == 0


_ESCAPES = {
    ord(k): v
    for k, v in {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.items()
}


def _character(text: bytes, at: int) -> tuple[str, int] | None:
    """The string character written at ``at`` (raw, or as one escape, a surrogate pair being one) and where what
    follows it starts; None when that is not one character."""
    if text[at] != 0x5C:
        if text[at] in b'"\\':
            return None
        size = 1 if text[at] < 0x80 else 2 if text[at] < 0xE0 else 3 if text[at] < 0xF0 else 4
        try:
            return text[at : at + size].decode("utf-8"), at + size
        except UnicodeDecodeError:
            return None
    kind = text[at + 1] if at + 1 < len(text) else 0
    if kind in _ESCAPES:
        return _ESCAPES[kind], at + 2
    if kind != ord("u"):
        return None
    try:
        unit = int(text[at + 2 : at + 6], 16)
    except ValueError:
        return None
    if len(text[at + 2 : at + 6]) != 4 or not text[at + 2 : at + 6].isalnum():
        return None
    if 0xD800 <= unit < 0xDC00 and text[at + 6 : at + 8] == b"\\u":
        try:
            low = int(text[at + 8 : at + 12], 16)
        except ValueError:
            return None
        if 0xDC00 <= low < 0xE000 and text[at + 8 : at + 12].isalnum():
            return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)), at + 12
    return None if 0xD800 <= unit < 0xE000 else (chr(unit), at + 6)


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
