"""Compact, deterministic JSON: no spaces, non-ASCII kept as is, always valid and always UTF-8 encodable."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import orjson

MAX_DEPTH = 200  # orjson renders at most 255 levels; deeper members are replaced by a labelled string
_MAX_INT_BITS = 13_000  # about 3,900 decimal digits: CPython refuses to print integers past 4,300 digits
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotExact(ValueError):
    """The value can be rendered only with replacements (see ``dumps``)."""


class WideInt(int):
    """An integer past orjson's 64 bits (and short enough to print), as the parser and ``json_ready`` give it:
    an ``int`` in every way, which ``dumps`` writes exactly at orjson's speed (orjson refuses a plain one)."""

    __slots__ = ()


# Libraries that tell a value's type by its name read it as an int (JMESPath's functions: max_by, sort_by, sum...
# refused "unknown"); its qualified name, which pickle and repr use, stays WideInt.
WideInt.__name__ = "int"

# The integers orjson reads and writes as integers; `in` is quick only for a plain int (``type(x) is int``).
ORJSON_INTS = range(-(2**63), 2**64)


def wide(value: int) -> int:
    """``value`` as a ``WideInt`` when orjson cannot write it as it is, else itself."""
    narrow = ORJSON_INTS.start <= value < ORJSON_INTS.stop  # compared: `in` walks the range for an int subclass
    return WideInt(value) if not narrow and value.bit_length() <= _MAX_INT_BITS else value


def _fragment(value: Any) -> Any:
    """orjson's ``default`` for ``WideInt``: its digits, as written; anything else is refused as before."""
    if isinstance(value, WideInt):
        return orjson.Fragment(int.__repr__(value))
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps(value: Any, *, exact: bool = False) -> str:
    """Compact JSON text of ``value``; the same value always gives the same bytes.

    Values JSON cannot carry are made safe rather than refused: lone surrogates become U+FFFD, NaN and the
    infinities become strings, integers too long to print become a labelled string, members nested deeper than
    ``MAX_DEPTH`` become a labelled string, anything else its ``str``. With ``exact=True`` such a value raises
    ``NotExact`` instead.
    """
    try:
        return _orjson(value)
    except (TypeError, orjson.JSONEncodeError, RecursionError) as exc:
        if exact:
            return _exact_fallback(value, exc)
    safe = _safe(value, 0)
    try:
        return _orjson(safe)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(safe, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps_each(values: Iterable[Any]) -> list[str]:
    """``[dumps(v) for v in values]``, rendered by one comprehension at C speed when orjson renders every value as
    it is (``dumps`` then returns just that), else value by value as ``dumps`` does."""
    values = list(values)
    try:
        return [orjson.dumps(v).decode() for v in values]
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        return [dumps(v) for v in values]


def _orjson(value: Any) -> str:
    """orjson's rendering of ``value``; integers past 64 bits, each a ``WideInt``, written exactly at its speed."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(value, default=_fragment, option=orjson.OPT_PASSTHROUGH_SUBCLASS).decode()


def _exact_fallback(value: Any, orjson_error: Exception) -> str:
    """The standard library's rendering where orjson declines (integers past 64 bits), if it is exact."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        text.encode("utf-8")
    except RecursionError as exc:
        raise NotExact(f"nested deeper than {MAX_DEPTH} levels") from exc
    except ValueError as exc:
        reason = "an integer too long to print" if "integer string conversion" in str(exc) else str(exc)
        raise NotExact(reason) from exc
    except TypeError as exc:
        raise NotExact(str(exc) or str(orjson_error)) from exc
    return text


def _safe(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return safe_text(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            return f"[integer of about {int(value.bit_length() * 0.30103):,} digits omitted]"
        return wide(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth >= MAX_DEPTH and isinstance(value, (dict, list, tuple)):
        return f"[nested deeper than {MAX_DEPTH} levels omitted]"
    if isinstance(value, dict):
        return {safe_text(k if isinstance(k, str) else _key(k)): _safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(v, depth + 1) for v in value]
    return safe_text(_str(value))


def _key(key: Any) -> str:
    """An object key as text; integers too long to print get a label."""
    if isinstance(key, int) and not isinstance(key, bool) and key.bit_length() > _MAX_INT_BITS:
        return f"[integer of about {int(key.bit_length() * 0.30103):,} digits]"
    return _str(key)


def _str(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ raises is still rendered
        return f"<unprintable {type(value).__name__}>"


def safe_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, so that it encodes as UTF-8."""
    if text.isascii():  # no surrogate, told without a pass (the string knows it is ASCII)
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def beside_path(value: Any, path: tuple[str, ...], at: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """What sits beside the member at ``path``: the members of the objects along it other than its steps, in
    document order, each with where it is (``at`` prefixes those places)."""
    if not isinstance(value, dict) or not path:
        return []
    found: list[tuple[tuple[str, ...], Any]] = []
    for key, member in value.items():
        if key == path[0]:
            found += beside_path(member, path[1:], (*at, key))
        else:
            found.append(((*at, key), member))
    return found


def with_path(value: Any, path: tuple[str, ...], replacement: Any) -> Any:
    """A copy of ``value`` with the member at ``path`` replaced (only the objects along the path are copied)."""
    if not path:
        return replacement
    copy = dict(value)
    copy[path[0]] = with_path(value[path[0]], path[1:], replacement)
    return copy
