"""Strings too long for any answer, cut to a prefix before the data fit: no step's time grows with one of them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hostshape.fit.budget import Limit
from hostshape.fit.rebuild import with_members
from hostshape.output.previews import clipped
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

LONGEST_FLOOR = 1 << 18  # characters a string keeps whatever the budget (text this long is cut by every answer)


def clip_long(value: Any, text: str, limit: Limit, *, json_text: bool = True) -> Any:
    """``value`` with every string longer than any answer within ``limit`` can hold (``limit.tokens *
    SURELY_OVER_CHARS_PER_TOKEN`` characters, and at least ``LONGEST_FLOOR``) cut to that many characters as a
    ``Clipped`` string, which every later cut reports at its full length (``output.previews``); the containers
    along the way are copied, ``value`` is not changed. Such a string is never shown whole (``Limit.fits`` refuses
    any longer text), so the answer cuts it as it would have; only the time it takes no longer grows with it.

    ``text`` is the text ``value`` was read from (a string's text is at least as long as the string): a value
    whose text is no longer than the cut is returned at once; so is one whose text is JSON (``json_text``: each
    string between quotes, as in JSON lines too) with no stretch that long free of unescaped quotes (``_may_hold``,
    at C speed). Any other text (CSV, whose doubled quotes are no JSON escapes) is walked. The walk is bounded
    as ``narrow_wide``'s is: within ``_STEPS`` members visited, into the first ``_DEEP_ITEMS`` members of each
    container, ``_MAX_DEPTH`` levels deep; the strings among later members are cut too."""
    longest = max(limit.tokens * SURELY_OVER_CHARS_PER_TOKEN, LONGEST_FLOOR)
    if len(text) <= longest or (json_text and not _may_hold(text, longest)):
        return value
    return _Walk(longest, _STEPS).visit(value, 0)


# A quote that follows any character but a backslash: unescaped, so it opens or closes a string. Found at C speed
# (the search runs from each literal quote; the look behind may read the character before the searched span).
_UNESCAPED_QUOTE = re.compile(r'"(?<=[^\\]")')


def _may_hold(text: str, longest: int) -> bool:
    """Whether ``text`` may hold a JSON string longer than ``longest`` characters. False is certain: such a string
    spans, between its quotes, a whole block of ``longest // 2`` characters aligned at a multiple of that, every
    quote inside it is escaped, and each block is found to hold a quote after a character other than a backslash.
    (A quote after an escaped backslash, as in ``"a\\\\"``, is not looked for: True is only "may".)"""
    if len(text) <= longest:
        return False
    block = max(1, longest // 2)
    return not all(
        _UNESCAPED_QUOTE.search(text, start, start + block) for start in range(0, len(text) - block + 1, block)
    )


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
        return with_members(item, changed)
