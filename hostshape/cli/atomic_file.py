"""Replace a user's file without following planted links or changing who may read it.

``replace_file(path, data, backup=...)`` writes ``data`` to a new file in the folder of the file ``path`` names
(created with ``O_CREAT | O_EXCL | O_NOFOLLOW``), gives it the old file's owner, group and mode, fsyncs it and renames
it over the old file; the backup is written the same way. Both go through folders opened once, each checked to
still hold the file that was read. A symbolic link at ``path`` is kept: its target is
updated (dotfile managers link config files). A symbolic link at the backup's path is refused: nobody asked to
write where it points.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["UnsafePath", "read_backup", "read_bytes", "replace_file"]


class UnsafePath(OSError):
    """A path that hostshape will not write through (a symbolic link or not a regular file)."""


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file at ``path`` (a link at ``path`` is followed: that is the file the user named);
    UnsafePath for anything else, told without blocking (opening a FIFO waits for a writer)."""
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise UnsafePath(f"{path} is not a regular file")
        return f.read()


def read_backup(path: Path) -> bytes | None:
    """The bytes of the backup at ``path``, None when there is none; UnsafePath when it is a link or not a file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePath(f"{path} is a symbolic link; hostshape does not read or write through it") from exc
        raise
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise UnsafePath(f"{path} is not a regular file")
        return f.read()


def replace_file(path: Path, data: bytes, *, backup: Path, old: bytes) -> Path:
    """Save ``old`` at ``backup`` and ``data`` at ``path`` (at its target when ``path`` is a link), each atomically
    and with the owner, group and mode of the file being replaced. Returns the file written (the link's target).

    ``old`` is what was read at ``path``. Each folder is opened once and every step goes through that open folder,
    after checking that it still holds that file (its target's folder the regular file of those bytes, the backup's
    folder ``path`` reading them): a folder on the way swapped for a link after the file was read (under sudo, by
    the owner of a folder above it) is never written into.

    Raises UnsafePath, before writing anything, when ``backup`` is a symbolic link or not a regular file, when
    ``path`` is not a regular file, or when it no longer holds ``old``."""
    target = Path(os.path.realpath(path))
    with _folder(target.parent) as folder, _folder(backup.absolute().parent) as backup_folder:
        st = os.stat(target.name, dir_fd=folder, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(f"{path} is not a regular file")
        _check_holds(folder, target.name, old, path, follow=False)
        if backup.absolute().parent == path.absolute().parent:
            _check_holds(backup_folder, path.name, old, path, follow=True)
        _check_backup(backup, backup_folder)
        _write_new(backup_folder, backup.name, old, st)
        _write_new(folder, target.name, data, st)
    return target


@contextlib.contextmanager
def _folder(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def _check_holds(folder: int, name: str, old: bytes, path: Path, *, follow: bool) -> None:
    """Raise UnsafePath unless ``name`` in ``folder`` reads ``old`` (through a link there when ``follow``)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError as exc:
        raise UnsafePath(f"{path} changed while hostshape was rewriting it ({exc.strerror}): retry") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode) or f.read(len(old) + 1) != old:
            raise UnsafePath(f"{path} changed while hostshape was rewriting it: retry")


def _check_backup(backup: Path, folder: int) -> None:
    try:
        st = os.stat(backup.name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(
            f"{backup} is a symbolic link (was it planted?); hostshape does not write through it: remove it and retry"
        )
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{backup} exists and is not a regular file: remove it and retry")


def _write_new(folder: int, name: str, data: bytes, like: os.stat_result) -> None:
    """Write ``data`` to a fresh temporary file in ``folder`` and rename it over ``name`` there (a rename replaces
    a directory entry, it never follows a link there)."""
    temp = f".{name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            _keep_owner(f.fileno(), like)
            os.fchmod(f.fileno(), stat.S_IMODE(like.st_mode))
            os.fsync(f.fileno())
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)
        raise
    with contextlib.suppress(OSError):  # not every platform can fsync a folder
        os.fsync(folder)


def _keep_owner(fd: int, like: os.stat_result) -> None:
    """Give the new file the old one's owner and group (run under sudo, the user's file stays the user's)."""
    if (like.st_uid, like.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, like.st_uid, like.st_gid)
    except PermissionError:
        with contextlib.suppress(PermissionError):  # not root: keep the group at least, if we are in it
            os.fchown(fd, -1, like.st_gid)
        if os.fstat(fd).st_uid != like.st_uid:
            raise UnsafePath(
                f"the file belongs to uid {like.st_uid}; rewriting it as uid {os.geteuid()} would change its owner: "
                "run the command as its owner"
            ) from None
