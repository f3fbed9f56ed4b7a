"""The spill store: full originals saved privately so that what the budget cut can be retrieved.

Layout: one folder per store (mode 0700, owned by the current user, never a symlink) holding a random secret
(``.secret``, 0600) and one file per result (``<handle>.json`` or ``.txt``, 0600). Every file the store reads
must be a regular file owned by this user, with one link and no group/other permissions; anything else (planted
while the folder was open to others) is ignored, then replaced or evicted. A handle is an HMAC of the
tool, its arguments and the content under that secret: the same call with the same result gives the same handle
and is written once; another user sharing the parent folder can neither list the folder nor guess a handle.
Files are written to a temporary name and renamed into place, so concurrent writers never see half a file.
The folder's total size is bounded; the least recently written (or reissued) files are evicted first.

A folder named for the store (``[spill] dir``) that already holds files other than a store's (a project folder,
say) is never taken over, chmodded or written into: the store lives in its subfolder ``hostshape-spill``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import logging
import os
import re
import secrets
import stat
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostshape.output.render import dumps

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: dead temporary files are then found by age only
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("hostshape")

HANDLE = re.compile(r"^hs_[0-9a-f]{24}$")
_SECRET = ".secret"
# Temporary files of a save in progress (``_write_atomically``) or of the secret's creation.
_TEMP = re.compile(r"^\.(?:hs_[0-9a-f]{24}\.(?:json|txt)|secret)\.[0-9a-f]{16}\.tmp$")
# A temporary file is a dead writer's leftover when no writer holds its lock and it is older than this (a live
# writer takes the lock right after creating it), or in any case when it is older than STALE_TEMP_S.
DEAD_TEMP_S = 2.0
STALE_TEMP_S = 3600.0


class SpillError(OSError):
    """The store's folder is unsafe or unwritable; nothing was saved."""


@dataclass(frozen=True)
class Saved:
    """A saved original: its ``handle``, its file ``path`` and whether it is JSON."""

    handle: str
    path: Path
    is_json: bool


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/hostshape/spill`` (``~/.cache`` when unset or relative: the XDG Base Directory spec says
    a relative path there is invalid and must be ignored), or a per-user temp folder without a home."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        base = os.path.join(tempfile.gettempdir(), f"hostshape-{os.geteuid()}")
    return Path(base) / "hostshape" / "spill"


_stores: dict[tuple[str, int], SpillStore] = {}
_stores_lock = threading.Lock()


def store_for(directory: Path | None, max_bytes: int) -> SpillStore:
    """The process-wide store for ``directory`` (default_dir() when None)."""
    key = (str(directory or default_dir()), max_bytes)
    with _stores_lock:
        if key not in _stores:
            _stores[key] = SpillStore(Path(key[0]), max_bytes)
        return _stores[key]


class SpillStore:
    """Save and load full results by handle. Thread-safe; safe across processes sharing the folder.

    The folder is opened once and every file operation goes through that open folder (``dir_fd``), so a folder
    swapped for a symlink after first use is never followed.
    """

    def __init__(self, directory: Path, max_bytes: int, *, secret: bytes | None = None) -> None:
        """``secret``: a key shared by several workers (hostshape/wayback/stores) instead of the folder's own
        ``.secret``."""
        self.directory = _store_folder(directory)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._given_secret = secret
        self._secret: bytes | None = None
        self._fd: int | None = None

    # -- the folder and its secret -------------------------------------------------------------------------
    def _ensure(self) -> tuple[int, bytes]:
        with self._lock:
            if self._fd is not None and os.fstat(self._fd).st_nlink == 0:  # the folder was deleted: start anew
                os.close(self._fd)
                self._fd = None
            if self._fd is None or self._secret is None:
                _check_ancestors(self.directory)
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
                fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
                try:
                    _check_private_dir(fd, self.directory)
                    self._secret = self._given_secret or _read_or_create_secret(fd)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
            return self._fd, self._secret

    @property
    def secret(self) -> bytes:
        """The store's random key (created on first use)."""
        return self._ensure()[1]

    def handle_for(self, tool: str | None, args: Any, content: bytes) -> str:
        """The handle of ``content`` returned by ``tool`` called with ``args``."""
        return _handle(self.secret, tool, args, content)

    # -- save / load ---------------------------------------------------------------------------------------
    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        """Save ``text`` (once per handle) and return where it is. Raises SpillError when the folder is unsafe."""
        try:
            fd, secret = self._ensure()
            content = text.encode("utf-8", "replace")
            handle = _handle(secret, tool, args, content)
            name = f"{handle}.{'json' if is_json else 'txt'}"
            if not _is_ours(name, fd):  # absent, or planted by someone else: (re)written by us
                _write_atomically(name, content, fd)
                self._evict(keep=name, fd=fd)
            else:  # reissued: now the most recently written, so that eviction takes older handles first
                with contextlib.suppress(FileNotFoundError):
                    os.utime(name, dir_fd=fd, follow_symlinks=False)
        except OSError as exc:
            raise SpillError(f"could not save to {self.directory}: {exc}") from exc
        return Saved(handle, self.directory / name, is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        """The saved text and whether it is JSON, or None for an unknown, evicted or malformed handle."""
        if not HANDLE.fullmatch(handle or ""):
            return None
        fd, _ = self._ensure()
        for suffix, is_json in (("json", True), ("txt", False)):
            try:
                file_fd = os.open(f"{handle}.{suffix}", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue
            with os.fdopen(file_fd, "rb") as f:
                if not _trusted(os.fstat(f.fileno())):
                    return None
                return f.read().decode("utf-8", "replace"), is_json
        return None

    def exists(self, handle: str) -> bool:
        """True when ``load(handle)`` would find the result, told from the file's metadata without reading it."""
        if not HANDLE.fullmatch(handle or ""):
            return False
        fd, _ = self._ensure()
        for suffix in ("json", "txt"):
            try:
                st = os.stat(f"{handle}.{suffix}", dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            return _trusted(st)  # a link is no regular file: refused as load refuses it
        return False

    def evict(self, handle: str) -> bool:
        """Delete the saved result ``handle``; True when there was one."""
        if not HANDLE.fullmatch(handle or ""):
            return False
        fd, _ = self._ensure()
        found = False
        for suffix in ("json", "txt"):
            name = f"{handle}.{suffix}"
            if _is_ours(name, fd):
                _unlink(name, fd)
                found = True
        return found

    def usage(self) -> tuple[int, int]:
        """How many results the folder holds and their total size in bytes."""
        fd, _ = self._ensure()
        items = size = 0
        with os.scandir(self.directory) as it:
            for entry in it:
                if HANDLE.fullmatch(entry.name.rsplit(".", 1)[0]) and _is_ours(entry.name, fd):
                    items += 1
                    size += os.stat(entry.name, dir_fd=fd, follow_symlinks=False).st_size
        return items, size

    def _evict(self, keep: str, fd: int) -> None:
        """Delete the least recently written files until the folder is within ``max_bytes``; a dead writer's
        temporary files and files that are not ours go first, and live writers' temporary files count towards
        the bound. Files that another process evicts at the same time are simply skipped."""
        entries = []
        total = 0
        now = time.time()
        with os.scandir(self.directory) as it:
            names = [e.name for e in it if HANDLE.fullmatch(e.name.rsplit(".", 1)[0]) or _TEMP.match(e.name)]
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if _TEMP.match(name):
                if _is_dead_temp(name, st, fd, now):
                    _unlink(name, fd)
                else:
                    total += st.st_size
                continue
            if not _trusted(st):
                _unlink(name, fd)
                continue
            entries.append((st.st_mtime_ns, name, st.st_size))
        total += sum(size for _, _, size in entries)
        for _, name, size in sorted(entries):
            if total <= self.max_bytes:
                break
            if name == keep:
                continue
            _unlink(name, fd)
            total -= size


def _store_folder(directory: Path) -> Path:
    """``directory``, or its subfolder ``hostshape-spill`` when ``directory`` holds anything but a store's files."""
    if os.path.islink(directory):  # refused on first use (_ensure opens it with O_NOFOLLOW)
        return directory
    try:
        with os.scandir(directory) as it:
            foreign = any(
                e.name != _SECRET and not HANDLE.fullmatch(e.name.rsplit(".", 1)[0]) and not _TEMP.match(e.name)
                for e in it
            )
    except OSError:  # absent (created on first use), a link or not a folder (refused on first use)
        return directory
    return directory / "hostshape-spill" if foreign else directory


def _trusted(st: os.stat_result, *, links: bool = True) -> bool:
    """A file the store may read: a regular file it wrote (owned by this user, private, and with ``links`` one
    link: a result file is only ever renamed into place, while the secret briefly has two as it is created)."""
    return (
        stat.S_ISREG(st.st_mode)
        and st.st_uid == os.geteuid()
        and not st.st_mode & 0o077
        and (st.st_nlink == 1 or not links)
    )


def _is_ours(name: str, fd: int) -> bool:
    try:
        return _trusted(os.stat(name, dir_fd=fd, follow_symlinks=False))
    except FileNotFoundError:
        return False


def _is_dead_temp(name: str, st: os.stat_result, fd: int, now: float) -> bool:
    """True when the temporary file ``name`` belongs to no live writer (see DEAD_TEMP_S)."""
    age = now - st.st_mtime
    if age > STALE_TEMP_S or st.st_uid != os.geteuid() or not stat.S_ISREG(st.st_mode):
        return True
    if age < DEAD_TEMP_S or fcntl is None:
        return False
    try:
        temp_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return False
    try:
        fcntl.flock(temp_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # a writer holds it
    finally:
        os.close(temp_fd)
    return True


def _unlink(name: str, fd: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=fd)


def _handle(secret: bytes, tool: str | None, args: Any, content: bytes) -> str:
    digest = hashlib.sha256(content).digest()
    message = b"\0".join([(tool or "").encode("utf-8", "replace"), dumps(args).encode(), digest])
    return "hs_" + hmac.new(secret, message, hashlib.sha256).hexdigest()[:24]


def _check_ancestors(directory: Path) -> None:
    """Refuse a folder under a parent that another user owns, or that anyone may write to without the sticky
    bit (whoever can rename inside a parent can swap the folder)."""
    for parent in directory.absolute().parents:
        try:
            st = os.stat(parent)
        except FileNotFoundError:
            continue
        if st.st_uid not in (0, os.geteuid()):
            raise SpillError(f"{parent} belongs to another user")
        if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
            raise SpillError(f"{parent} is writable by every user")


def _check_private_dir(fd: int, directory: Path) -> None:
    st = os.fstat(fd)
    if not stat.S_ISDIR(st.st_mode):
        raise SpillError(f"{directory} is not a real folder")
    if st.st_uid != os.geteuid():
        raise SpillError(f"{directory} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(fd, 0o700)


def _read_or_create_secret(fd: int) -> bytes:
    """The folder's secret; created complete and then linked into place, so concurrent openers agree on it. A
    ``.secret`` that this user did not write privately (another user's, a link, readable by others) is
    replaced: whoever planted it could predict handles and forge cursors."""
    try:
        return _read_secret(fd)
    except FileNotFoundError:
        pass
    tmp = f".secret.{secrets.token_hex(8)}.tmp"
    tmp_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
    with os.fdopen(tmp_fd, "wb") as f:
        f.write(secrets.token_bytes(32))
    try:
        os.link(tmp, _SECRET, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp, dir_fd=fd)
    return _read_secret(fd)


def _read_secret(fd: int) -> bytes:
    """The secret, or FileNotFoundError when there is none or an untrusted one was just removed."""
    try:
        secret_fd = os.open(_SECRET, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a symlink planted as .secret
            _remove_untrusted_secret(fd, None)
            raise FileNotFoundError(_SECRET) from exc
        raise
    with os.fdopen(secret_fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not _trusted(st, links=False):
            _remove_untrusted_secret(fd, st)
            raise FileNotFoundError(_SECRET)
        data = f.read(33)
    if len(data) != 32:
        raise SpillError("the spill folder's .secret is not a hostshape secret")
    return data


def _remove_untrusted_secret(fd: int, seen: os.stat_result | None) -> None:
    """Remove the ``.secret`` entry found untrusted (only that one: not a good secret another opener has put in
    its place meanwhile)."""
    try:
        now = os.stat(_SECRET, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    planted_link = seen is None and stat.S_ISLNK(now.st_mode)
    if planted_link or (seen is not None and (now.st_ino, now.st_dev) == (seen.st_ino, seen.st_dev)):
        log.warning("hostshape: replacing an untrusted %s in the spill folder", _SECRET)
        _unlink(_SECRET, fd)


def _write_atomically(name: str, content: bytes, fd: int) -> None:
    """Write to a temporary name under an exclusive lock (so eviction can tell a live writer from a dead one),
    then rename into place."""
    tmp = f".{name}.{secrets.token_hex(8)}.tmp"
    file_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
    try:
        if fcntl is not None:
            fcntl.flock(file_fd, fcntl.LOCK_EX)
        with os.fdopen(file_fd, "wb") as f:
            f.write(content)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=fd)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise
        raise
