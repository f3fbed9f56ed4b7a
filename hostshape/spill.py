"""The spill store: full originals saved privately so that what the budget cut can be retrieved.

Layout: one folder per store (mode 0700, owned by the current user, never a symlink) holding a random secret
(``.secret``, 0600) and one file per result (``<handle>.json`` or ``.txt``, 0600). A handle is an HMAC of the
tool, its arguments and the content under that secret: the same call with the same result gives the same handle
and is written once; another user sharing the parent folder can neither list the folder nor guess a handle.
Files are written to a temporary name and renamed into place, so concurrent writers never see half a file.
The folder's total size is bounded; the least recently written files are evicted first.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import re
import secrets
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostshape.render import dumps

HANDLE = re.compile(r"^hs_[0-9a-f]{24}$")
_SECRET = ".secret"


class SpillError(OSError):
    """The store's folder is unsafe or unwritable; nothing was saved."""


@dataclass(frozen=True)
class Saved:
    """A saved original: its ``handle``, its file ``path`` and whether it is JSON."""

    handle: str
    path: Path
    is_json: bool


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/hostshape/spill`` (``~/.cache`` when unset), or a per-user temp folder without a home."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache"))
    if not base or base.startswith("~"):
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

    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
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
                    self._secret = _read_or_create_secret(fd)
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
            if not _is_regular(name, fd):
                _write_atomically(name, content, fd)
                self._evict(keep=name, fd=fd)
        except OSError as exc:
            raise SpillError(f"could not save to {self.directory}: {exc}") from exc
        return Saved(handle, self.directory / name, is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        """The saved text and whether it is JSON, or None for an unknown, evicted or malformed handle."""
        if not HANDLE.match(handle or ""):
            return None
        fd, _ = self._ensure()
        for suffix, is_json in (("json", True), ("txt", False)):
            try:
                file_fd = os.open(f"{handle}.{suffix}", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue
            with os.fdopen(file_fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return None
                return f.read().decode("utf-8", "replace"), is_json
        return None

    def _evict(self, keep: str, fd: int) -> None:
        """Delete the least recently written files until the folder is within ``max_bytes``. Files that another
        process evicts at the same time are simply skipped."""
        entries = []
        with os.scandir(self.directory) as it:
            names = [e.name for e in it if HANDLE.match(e.name.rsplit(".", 1)[0])]
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode):
                entries.append((st.st_mtime_ns, name, st.st_size))
        total = sum(size for _, _, size in entries)
        for _, name, size in sorted(entries):
            if total <= self.max_bytes:
                break
            if name == keep:
                continue
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            total -= size


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
    """The folder's secret; created complete and then linked into place, so concurrent openers agree on it."""
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
    secret_fd = os.open(_SECRET, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
    with os.fdopen(secret_fd, "rb") as f:
        data = f.read()
    if len(data) != 32:
        raise SpillError("the spill folder's .secret is not a hostshape secret")
    return data


def _is_regular(name: str, fd: int) -> bool:
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def _write_atomically(name: str, content: bytes, fd: int) -> None:
    tmp = f".{name}.{secrets.token_hex(8)}.tmp"
    file_fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
    try:
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
