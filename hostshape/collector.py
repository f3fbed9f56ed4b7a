"""The cyclic garbage collector paused while one shaping runs, then set back as it was.

A shaping allocates containers by the thousand (the parsed document, its shrunk records, index rows), and each
allocation counts towards the collector's next run; the full collections that sets off traverse every container
the process holds: the parsed document, and in a host process the host's whole heap, so the time would grow with
the input and the heap, not the budget. What a shaping builds and drops is freed by reference counting (its
values hold no cycles); any cycle it leaves (a caught exception's traceback) is collected at the next run after."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the collector disabled, and enable it again after (also when the body raises) if it was
    enabled before; when it was already disabled (by the host, or an enclosing pause), nothing changes. Each
    pause that disabled it enables it when it ends, so no pause outlasts the call that made it. (The collector is
    the process's: another thread that disables it while a shaping runs finds it enabled again when the shaping
    ends, as with the parse's own pause, input/parse.py ``_paused``.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
