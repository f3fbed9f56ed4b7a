"""Text to a JSON value, accepting what strict parsers refuse and saying why when it is not JSON at all."""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from hostshape.output.render import ORJSON_INTS, wide

MAX_INT_DIGITS = 4000  # CPython refuses to convert more than 4,300 digits; longer integers stay text


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # no value (JSON's null is None, a value)


@dataclass(frozen=True)
class Parsed:
    """``value`` when the text was JSON; otherwise ``error`` says why, and ``looks_json`` tells whether it
    was meant to be JSON (starts with ``{`` or ``[``), so the answer can stay JSON. ``strict`` says the text is
    strict JSON (no ``NaN`` or ``Infinity``, no integer past 64 bits: those come back exact, as ``WideInt``)."""

    value: Any = None
    ok: bool = False
    looks_json: bool = False
    error: str | None = None
    strict: bool = False


_BLANKS = "\ufeff \t\r\n"
_SCALAR_STARTS = frozenset('"-0123456789tfn')


def first_char(text: str) -> str:
    """The first character after any leading blanks (and byte-order mark), however many there are; "" if none."""
    stripped = text.lstrip(_BLANKS) if text[:1] in _BLANKS else text
    return stripped[:1]


def looks_like_json(text: str) -> bool:
    """True when the first non-blank character, however far in, opens a JSON object or array."""
    return first_char(text) in ("{", "[")


def may_be_json(text: str) -> bool:
    """True when ``text`` could be one JSON document (object, array, string, number or literal), judged by its
    first non-blank character; ``parse_json`` decides."""
    head = first_char(text)
    return head in ("{", "[") or (head != "" and head in _SCALAR_STARTS)


def parse_json(text: str) -> Parsed:
    """Parse ``text`` as one JSON document.

    Tolerated: a leading byte-order mark, NaN/Infinity (kept as strings), integers too long for Python (kept as
    strings of digits), duplicate keys (the last wins). Refused with a reason: anything else, including trailing
    data and nesting deeper than the parsers allow. Integers past 64 bits come back exact (orjson reads them as
    rounded floats): a text holding one is parsed by the standard library.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if not _wide_integer(text):
        try:
            return Parsed(_orjson_loads(text), ok=True, looks_json=True, strict=True)
        except (orjson.JSONDecodeError, TypeError, RecursionError):
            pass
    try:
        value = _paused(json.loads, text, parse_constant=str, parse_int=_parse_int)
    except RecursionError:
        return Parsed(looks_json=looks_like_json(text), error="nesting too deep to parse")
    except (ValueError, TypeError) as exc:
        return Parsed(looks_json=looks_like_json(text), error=_short(exc))
    return Parsed(value, ok=True, looks_json=True)


def _orjson_loads(text: str) -> Any:
    """``orjson.loads(text)`` with the cyclic garbage collector paused (``_paused``)."""
    return _paused(orjson.loads, text)


def _paused(loads: Callable[..., Any], text: str, **hooks: Any) -> Any:
    """``loads(text, **hooks)`` with the cyclic garbage collector paused, then set back as it was (also when the
    parse raises). A parse creates one container per object and array, and each allocation counts towards the
    collector's next run: in a host process whose heap holds millions of objects, the full collections that a
    large parse sets off traverse all of them (a 1.8 MB nested list took 32 ms instead of 7 with the collector
    on). What a parser builds holds no cycle (each container is new and only ever holds later ones), so nothing
    it makes needs the collector; reference counting frees it."""
    if not gc.isenabled():
        return loads(text, **hooks)
    gc.disable()
    try:
        return loads(text, **hooks)
    finally:
        gc.enable()


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_WIDE_DIGITS = 19  # 2**63 has 19 digits: a shorter integer literal is within orjson's 64 bits
_LONGEST_NARROW = 21  # -18446744073709551615 at most: a longer literal is past 64 bits
_RUN = b"0" * _WIDE_DIGITS
_NOT_ZERO = re.compile(rb"[^0]")
# Runs of 19 digits or more looked at one by one (this many, and one per so many characters); past that, the text
# is read exactly.
_MOST_RUNS = 256
_CHARS_PER_RUN = 512
_DIGIT_BYTES = frozenset(b"0123456789")
_BLANK_BYTES = b" \t\r\n"
_LOOK_BACK = 64  # characters read before a run for the one that opens it (all blanks: taken for a number)
_CHUNK = 1 << 20  # characters screened at once, so that the screen's copies stay small


def _parse_int(digits: str) -> int | str:
    if len(digits) < _WIDE_DIGITS:
        return int(digits)
    return wide(int(digits)) if len(digits.lstrip("-")) <= MAX_INT_DIGITS else digits


def _wide_integer(text: str) -> bool:
    """Whether the JSON ``text`` may hold an integer literal past 64 bits, which orjson turned into
    a float. Found at C speed (its UTF-8 with every digit written 0, searched for 19 zeros), a chunk at a time;
    each run of 19 digits or more is then an integer literal past 64 bits unless it is certainly not one: in a
    string (no ``[``, ``,`` or ``:`` before it, or a ``.`` or an exponent after it), or within the 64 bits. Past
    ``_MOST_RUNS`` runs (and one per ``_CHARS_PER_RUN`` characters), it may."""
    most = _MOST_RUNS + len(text) // _CHARS_PER_RUN
    for start in range(0, len(text), _CHUNK):
        before = text[max(0, start - _LOOK_BACK) : start].encode("utf-8", "surrogatepass")
        chunk = text[start : start + _CHUNK].encode("utf-8", "surrogatepass")
        after = text[start + _CHUNK : start + _CHUNK + _LONGEST_NARROW + 1].encode("utf-8", "surrogatepass")
        window = before + chunk + after  # a run starting in the chunk, with what opens it and what ends it
        shapes = window.translate(_DIGITS_AS_ZERO)
        at, limit = shapes.find(_RUN, len(before)), len(before) + len(chunk)
        while 0 <= at < limit:
            most -= 1
            if most < 0:
                return True
            past = _NOT_ZERO.search(shapes, at + _WIDE_DIGITS)
            end = past.start() if past else len(shapes)
            if _wide_literal(window, at, end):
                return True
            at = shapes.find(_RUN, end)
    return False


def _wide_literal(window: bytes, at: int, end: int) -> bool:
    """Whether the run of digits ``window[at:end]`` may be an integer literal past 64 bits (see ``_wide_integer``;
    a run that reaches the window's end is longer than any literal within them)."""
    if at > 0 and window[at - 1] in _DIGIT_BYTES:
        return False  # the rest of a run that started in the chunk before: looked at there
    if at > 0 and window[at - 1] == 0x2D:  # -
        at -= 1
    opening = window[max(0, at - _LOOK_BACK) : at].rstrip(_BLANK_BYTES)
    if opening and opening[-1:] not in (b"[", b",", b":"):
        return False
    if window[end : end + 1] in (b".", b"e", b"E"):
        return False
    literal = window[at:end]
    return len(literal) > _LONGEST_NARROW or int(literal) not in ORJSON_INTS


def _short(exc: Exception) -> str:
    message = str(exc)
    return message if len(message) <= 120 else message[:117] + "..."
