"""A list of evenly spaced times or numbers told in a few words: its first, its last, the step and how many.

Used where a list stated once for every record (a series' shared timestamps in the envelope's ``same``) has no
room to be shown: the model keeps the times of the values it reads. A list shown by its head and tail (the shrink's
middle marker between them) is told from both ends; the step must hold at both and agree with the count.
"""

from __future__ import annotations

import itertools
import math
from datetime import datetime, timezone
from typing import Any

from hostshape.output.envelope import hidden_in_middle, middle_marker
from hostshape.output.render import dumps

_MAX_TIME_CHARS = 40  # a longer string is no date-time


def told(value: Any) -> Any:
    """``value`` shortened when it is a list of 3 or more: ``"120 values from A to B, every 60 s"`` when evenly
    spaced, else its first and last item with a marker for those between; any other value as it is."""
    if not isinstance(value, list) or len(value) < 3:
        return value
    marker = next((i for i, item in enumerate(value) if hidden_in_middle(item) is not None), None)
    runs = [value] if marker is None else [value[:marker], value[marker + 1 :]]
    count = sum(map(len, runs)) + (0 if marker is None else hidden_in_middle(value[marker]) or 0)
    first, last = runs[0][0] if runs[0] else None, runs[-1][-1] if runs[-1] else None
    step = _step(runs, count)
    if step is not None:
        return f"{count} values from {first} to {last}, every {step}"
    return [first, middle_marker(count - 2), last] if first is not None and last is not None else value


def _step(runs: list[list[Any]], count: int) -> str | None:
    """The one step between consecutive items of every run, when the first and last item are that many steps apart
    (``count`` items in all); None when the items are not numbers or date-times, or not evenly spaced."""
    points: list[list[float]] = []
    for run in runs:
        told_run = [_point(item) for item in run]
        if len(told_run) < 2 or None in told_run:
            return None
        points.append([p for p in told_run if p is not None])
    gaps = [b - a for run in points for a, b in itertools.pairwise(run)]
    gap = gaps[0]
    if gap <= 0 or not all(math.isclose(g, gap, rel_tol=1e-9) for g in gaps):
        return None
    if not math.isclose(points[-1][-1] - points[0][0], gap * (count - 1), rel_tol=1e-9):
        return None
    said = str(int(gap)) if gap.is_integer() else f"{gap:g}"
    return f"{said} s" if isinstance(runs[0][0], str) else said


def _point(item: Any) -> float | None:
    """A number as itself, a date-time string as its POSIX seconds; None for anything else."""
    if isinstance(item, bool):
        return None
    if isinstance(item, (int, float)):
        try:
            number = float(item)
        except OverflowError:  # an integer past a float's range
            return None
        return number if math.isfinite(number) else None
    if isinstance(item, str) and 10 <= len(item) <= _MAX_TIME_CHARS and item[:4].isdigit():
        try:
            moment = datetime.fromisoformat(item)
        except ValueError:
            return None
        return (moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)).timestamp()
    return None


def kept_once(same: dict[str, Any], chars: int) -> dict[str, Any]:
    """The lists of 3 or more items in ``same`` (a series' shared times) that still fit in ``chars`` characters of
    compact JSON, as they are or else told (``told``), in order; the others are left out (a compacted envelope names
    them)."""
    out: dict[str, Any] = {}
    for name, value in same.items():
        if not isinstance(value, list) or len(value) < 3:
            continue
        for form in (value, told(value)):
            size = len(dumps(form)) + len(str(name)) + 4
            if size <= chars:
                out[name] = form
                chars -= size
                break
    return out
