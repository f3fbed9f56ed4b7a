"""Shared affixes: the start and end every value of an index column has in common (an ARN's account and type, a
URL's host and path, a key's constant prefix), stated once so each row shows only the part that varies.

The encoding is lossless: a cell of a column named in ``shared`` is ``start + cell + end``; a null cell stays null.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SHARED_LEAST = 10  # characters a column's values must share (start and end together) to be stated once
SHARED_SHARE = 0.3  # ... and at least this share of their mean length: short values keep their own text
_STATEMENT = 8  # characters the statement costs beyond the affixes themselves (the column's name, quotes, commas)


def common_affixes(values: Sequence[str]) -> tuple[str, str]:
    """The longest start and end every one of ``values`` has, not overlapping in the shortest (a value equal to
    the start and end joined has an empty middle)."""
    if not values:
        return "", ""
    start = _common_start(values)
    shortest = min(len(v) for v in values)
    end = _common_start([v[::-1] for v in values])[::-1][: max(0, shortest - len(start))]
    return start, end


def _common_start(values: Sequence[str]) -> str:
    """The longest start, character by character, that every one of ``values`` has."""
    first, last = min(values), max(values)  # the sorted extremes differ first where any two do
    n = 0
    while n < len(first) and first[n] == last[n]:
        n += 1
    return first[:n]


def shared_affixes(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, tuple[str, str]]:
    """The columns of an index (``columns``, its ``rows``) whose string cells share a start and end worth stating
    once: at least ``SHARED_LEAST`` characters and ``SHARED_SHARE`` of their mean length, saving more characters
    over the rows than the statement costs. Columns holding anything but strings and nulls are left as they are."""
    out: dict[str, tuple[str, str]] = {}
    if len(rows) < 2:
        return out
    for i, name in enumerate(columns):
        cells = [row[i] for row in rows if i < len(row) and row[i] is not None]
        if len(cells) < 2 or not all(isinstance(c, str) for c in cells):
            continue
        start, end = common_affixes(cells)
        shared = len(start) + len(end)
        mean = sum(len(c) for c in cells) / len(cells)
        saved = shared * (len(cells) - 1) - len(name) - _STATEMENT
        if shared >= SHARED_LEAST and shared >= mean * SHARED_SHARE and saved > 0:
            out[name] = (start, end)
    return out


def stripped(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], shared: dict[str, tuple[str, str]]
) -> list[list[Any]]:
    """``rows`` with each cell of a column in ``shared`` shown without its start and end."""
    cut = {i: (len(shared[c][0]), len(shared[c][1])) for i, c in enumerate(columns) if c in shared}
    if not cut:
        return [list(row) for row in rows]
    out = []
    for row in rows:
        row = list(row)
        for i, (head, tail) in cut.items():
            if i < len(row) and isinstance(row[i], str):
                row[i] = row[i][head : len(row[i]) - tail]
        out.append(row)
    return out


def restored(columns: Sequence[str], rows: Sequence[Sequence[Any]], shared: dict[str, Any]) -> list[list[Any]]:
    """The inverse of ``stripped``: each string cell of a column in ``shared`` (``[start, end]``) with them back."""
    at = {i: shared[c] for i, c in enumerate(columns) if c in shared}
    out = []
    for row in rows:
        row = list(row)
        for i, (start, end) in at.items():
            if i < len(row) and isinstance(row[i], str):
                row[i] = f"{start}{row[i]}{end}"
        out.append(row)
    return out
