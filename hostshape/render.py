"""Compact, deterministic JSON: no spaces, non-ASCII kept as is, always valid and always UTF-8 encodable."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``; the same value always gives the same bytes.

    Values JSON cannot carry are made safe rather than refused: lone surrogates become U+FFFD, NaN and the
    infinities become strings, integers beyond 64 bits keep their digits (as numbers).
    """
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(_safe(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _safe(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(value) else value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {_safe(str(k)): _safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _safe(str(value))


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def safe_text(text: str) -> str:
    """``text`` with lone surrogates replaced, so that it encodes as UTF-8."""
    return text.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(text) else text
