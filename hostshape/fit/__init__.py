"""Fit: the largest faithful view of a value or a text that, rendered with its envelope, fits the limit.

- ``fit_data`` (records.py): as many whole records as fit, the rest as a compact index of their identifiers (and
  titles where they fit); record text is previewed only as far as needed. A value with no record list, or one
  record larger than the limit, goes to ``fit_object`` (objects.py): largest members cut first, identifiers last.
- ``fit_text`` (text.py): prose cleaned of noise and cut at a paragraph or line boundary.

Choices are steered by estimated tokens; the text returned is always counted exactly, and ``last_resort`` makes
the cap absolute.
"""

from hostshape.fit._base import CursorAt, Fitted, last_resort, no_cursor
from hostshape.fit.long_strings import clip_long
from hostshape.fit.objects import fit_object, narrow_wide
from hostshape.fit.records import fit_data
from hostshape.fit.text import clean, fit_text

__all__ = [
    "CursorAt",
    "Fitted",
    "clean",
    "clip_long",
    "fit_data",
    "fit_object",
    "fit_text",
    "last_resort",
    "narrow_wide",
    "no_cursor",
]
