"""What every fit shares: its result, the cursor maker type, and the last-resort answers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from hostshape.fit.budget import Limit
from hostshape.output.envelope import Facts, WayBack, last_resort_texts

CursorAt = Callable[[int], "str | None"]  # the cursor of the page starting at a record or character (None: none)


@dataclass(frozen=True)
class Fitted:
    """The final text and the facts its envelope reports."""

    text: str
    facts: Facts
    strategy: str


def no_cursor(offset: int) -> str | None:  # noqa: ARG001 - a CursorAt that makes none
    return None


def last_resort(is_json: bool, way: WayBack, limit: Limit, facts: Facts) -> Fitted:
    """The shortest answers that still say something was cut; the last one fits any budget of 1 token. Returns its
    own facts (``facts`` with ``truncated`` set); ``facts`` is not changed."""
    facts = dataclasses.replace(facts, truncated=True)
    options = last_resort_texts(is_json, way.handle)
    for text in options:
        if limit.fits(text):
            return Fitted(text, facts, "minimal")
    return Fitted(options[-1], facts, "minimal")
