"""Text to a JSON value, accepting what strict parsers refuse and saying why when it is not JSON at all."""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from typing import Any

import orjson

MAX_INT_DIGITS = 4000  # CPython refuses to convert more than 4,300 digits; longer integers stay text


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # no value (JSON's null is None, a value)


@dataclass(frozen=True)
class Parsed:
    """``value`` when the text was JSON; otherwise ``error`` says why, and ``looks_json`` tells whether it
    was meant to be JSON (starts with ``{`` or ``[``), so the answer can stay JSON. ``strict`` says the text is
    strict JSON (no ``NaN`` or ``Infinity``, no integer past 64 bits)."""

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
    data and nesting deeper than the parsers allow.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return Parsed(_orjson_loads(text), ok=True, looks_json=True, strict=True)
    except (orjson.JSONDecodeError, TypeError, RecursionError):
        pass
    try:
        value = json.loads(text, parse_constant=str, parse_int=_parse_int)
    except RecursionError:
        return Parsed(looks_json=looks_like_json(text), error="nesting too deep to parse")
    except (ValueError, TypeError) as exc:
        return Parsed(looks_json=looks_like_json(text), error=_short(exc))
    return Parsed(value, ok=True, looks_json=True)


def _orjson_loads(text: str) -> Any:
    """``orjson.loads(text)`` with the cyclic garbage collector paused, then set back as it was (also when the
    parse raises). A parse creates one container per object and array, and each allocation counts towards the
    collector's next run: in a host process whose heap holds millions of objects, the full collections that a
    large parse sets off traverse all of them (a 1.8 MB nested list took 32 ms instead of 7 with the collector
    on). What orjson builds holds no cycle (each container is new and only ever holds later ones), so nothing it
    makes needs the collector; reference counting frees it."""
    if not gc.isenabled():
        return orjson.loads(text)
    gc.disable()
    try:
        return orjson.loads(text)
    finally:
        gc.enable()


def _parse_int(digits: str) -> int | str:
    return int(digits) if len(digits.lstrip("-")) <= MAX_INT_DIGITS else digits


def _short(exc: Exception) -> str:
    message = str(exc)
    return message if len(message) <= 120 else message[:117] + "..."
