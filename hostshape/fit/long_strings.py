"""Strings too long for any answer, cut to a prefix before the data fit: no step's time grows with one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hostshape.fit.budget import Limit
from hostshape.output.previews import clipped
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

LONGEST_FLOOR = 1 << 18  # characters a string keeps whatever the budget (text this long is cut by every answer)


def clip_long(value: Any, text_chars: int, limit: Limit) -> Any:
    """``value`` with every string longer than any answer within ``limit`` can hold (``limit.tokens *
    SURELY_OVER_CHARS_PER_TOKEN`` characters, and at least ``LONGEST_FLOOR``) cut to that many characters as a
    ``Clipped`` string, which every later cut reports at its full length (``output.previews``); the containers
    along the way are copied, ``value`` is not changed. Such a string is never shown whole (``Limit.fits`` refuses
    any longer text), so the answer cuts it as it would have; only the time it takes no longer grows with it.

    A value whose JSON text (``text_chars`` long) is no longer than that is returned at once. The walk is bounded
    as ``narrow_wide``'s is: within ``_STEPS`` members visited, into the first ``_DEEP_ITEMS`` members of each
    container, ``_MAX_DEPTH`` levels deep; the strings among later members are cut too."""
    longest = max(limit.tokens * SURELY_OVER_CHARS_PER_TOKEN, LONGEST_FLOOR)
    if text_chars <= longest:
        return value
    return _Walk(longest, _STEPS).visit(value, 0)


_STEPS = 20_000
_DEEP_ITEMS = 64
_MAX_DEPTH = 64


@dataclass
class _Walk:
    longest: int
    steps: int

    def visit(self, item: Any, depth: int) -> Any:
        if isinstance(item, str):
            return clipped(item, self.longest)
        if depth > _MAX_DEPTH or not isinstance(item, (dict, list)):
            return item
        changed: dict[Any, Any] = {}
        members = item.items() if isinstance(item, dict) else enumerate(item)
        for at, (key, member) in enumerate(members):
            self.steps -= 1
            if self.steps <= 0:
                break
            if isinstance(member, str) or (at < _DEEP_ITEMS and isinstance(member, (dict, list))):
                new = self.visit(member, depth + 1)
                if new is not member:
                    changed[key] = new
        if not changed:
            return item
        if isinstance(item, dict):
            return {k: changed.get(k, v) for k, v in item.items()}
        out = list(item)
        for index, new in changed.items():
            out[index] = new
        return out
