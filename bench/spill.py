"""The bench's spill folder: one fixed path with a fixed secret, so that handles, cursors and the hint's path (all
in the model's text, all counted) are the same on every run and every checkout.

A random folder or secret moves token counts by a few per answer, and a cell by a row now and then. The saved
files are named by an HMAC of their content under the secret, so runs at the same time write the same files.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

SECRET = bytes(range(32, 64))  # the bench's own, not a user's: what it guards is the corpus


def fixed_spill(name: str) -> str:
    """The spill folder ``name`` of this user's bench runs, made (with its secret) when missing."""
    spill = Path(tempfile.gettempdir()) / f"hostshape-bench-{os.geteuid()}" / name / "spill"
    spill.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = spill / ".secret"
    if not secret.exists():  # written whole beside it, then linked in: a run at the same time reads all or none
        fd, tmp = tempfile.mkstemp(dir=spill.parent)
        try:
            os.write(fd, SECRET)
            os.close(fd)
            os.link(tmp, secret)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    return str(spill)
