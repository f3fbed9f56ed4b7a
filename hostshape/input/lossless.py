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

__all__ = ["MAX_CHECKED_CHARS", "losses", "minify"]

# Texts longer than this are not checked (a second parse costs time; the compact path only meets short texts).
MAX_CHECKED_CHARS = 2_000_000
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[ \t\r\n]+|[^" \t\r\n]+', re.DOTALL)
_DOUBLE_DIGITS = 15  # every decimal of up to 15 significant digits comes back from a double as written


def minify(text: str) -> str:
    """``text`` without the whitespace between JSON tokens (strings are kept byte for byte)."""
    return "".join(t for t in _TOKENS.findall(text.lstrip("\ufeff")) if t[0] not in " \t\r\n")


def losses(text: str) -> list[str]:
    """What parsing ``text`` as JSON would change, as notes for the model (empty when nothing, or when the text is
    longer than MAX_CHECKED_CHARS or not JSON)."""
    if len(text) > MAX_CHECKED_CHARS:
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
