"""A logging level from an environment variable, where a typo must never stop the work it would only describe."""

from __future__ import annotations

import logging

__all__ = ["log_level"]


def log_level(value: str | None, default: int = logging.WARNING) -> tuple[int, str | None]:
    """The level ``value`` names (``"info"``, ``"DEBUG"``, ``"20"``), or ``default`` and a message saying why when
    it names none."""
    if value is None or not value.strip():
        return default, None
    name = value.strip().upper()
    if name.isdigit():
        return int(name), None
    level = logging.getLevelName(name)  # a number for a known name (getLevelNamesMapping is 3.11+)
    if not isinstance(level, int):
        known = ", ".join(n for n in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"))
        return default, f"unknown log level {value!r} (use one of {known}); using {logging.getLevelName(default)}"
    return level, None
