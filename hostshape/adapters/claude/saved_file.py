"""Reading the file Claude Code saved an over-limit result to, safely: only this session's ``tool-results`` folder,
only a regular file of bounded size that this user owns and that has no other name (no symlink, no hard link)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Largest saved file the rescue will read.
RESCUE_MAX_BYTES = 32 * 1024 * 1024


def saved_result_path(notice_path: str, transcript_path: str) -> Path | None:
    """The file named in an overflow notice, if it lies directly in this session's ``tool-results`` folder.

    The folder is ``transcript_path`` without ``.jsonl`` plus ``/tool-results`` (Claude Code 2.1.332, docs/hosts.md).
    Returns None for a relative path, a path outside that folder (after resolving every symlink of its parents), or
    a name that is itself a symlink or not a regular file. Does not read the file.
    """
    if not notice_path or not transcript_path or not transcript_path.endswith(".jsonl"):
        return None
    path = Path(notice_path)
    if not path.is_absolute():
        return None
    folder = Path(transcript_path[: -len(".jsonl")]) / "tool-results"
    try:
        if os.path.realpath(path.parent) != os.path.realpath(folder):
            return None
        info = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):  # lstat: a symlink is S_ISLNK, never S_ISREG
        return None
    return path


def read_saved_result(notice_path: str, transcript_path: str, *, max_bytes: int = RESCUE_MAX_BYTES) -> str | None:
    """The text of a file Claude Code saved an oversized result to, or None when it must be left alone.

    Reads only what ``saved_result_path`` accepts, opened without following symlinks, checked again on the open
    descriptor: a regular file with exactly one link (a hard link could name a file from anywhere), owned by this
    user, at most ``max_bytes`` long (a larger file is not read at all). Never raises.
    """
    path = saved_result_path(notice_path, transcript_path)
    if path is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes or info.st_nlink != 1:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            return None
        return data.decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)
