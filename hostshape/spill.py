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
    """Save and load full results by handle. Thread-safe; safe across processes sharing the folder."""

    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._secret: bytes | None = None

    # -- the folder and its secret -------------------------------------------------------------------------
    def _ensure(self) -> bytes:
        with self._lock:
            if self._secret is None:
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
                _check_private_dir(self.directory)
                self._secret = _read_or_create_secret(self.directory / _SECRET)
            return self._secret

    @property
    def secret(self) -> bytes:
        """The store's random key (created on first use)."""
        return self._ensure()

    def handle_for(self, tool: str | None, args: Any, content: bytes) -> str:
        """The handle of ``content`` returned by ``tool`` called with ``args``."""
        digest = hashlib.sha256(content).digest()
        message = b"\0".join([(tool or "").encode("utf-8", "replace"), dumps(args).encode(), digest])
        return "hs_" + hmac.new(self.secret, message, hashlib.sha256).hexdigest()[:24]

    # -- save / load ---------------------------------------------------------------------------------------
    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        """Save ``text`` (once per handle) and return where it is. Raises SpillError when the folder is unsafe."""
        content = text.encode("utf-8", "replace")
        handle = self.handle_for(tool, args, content)
        path = self.directory / f"{handle}.{'json' if is_json else 'txt'}"
        try:
            if not _is_regular(path):
                _write_atomically(path, content)
                self._evict(keep=path)
        except OSError as exc:
            raise SpillError(f"could not save to {self.directory}: {exc}") from exc
        return Saved(handle, path, is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        """The saved text and whether it is JSON, or None for an unknown, evicted or malformed handle."""
        if not HANDLE.match(handle or ""):
            return None
        self._ensure()
        for suffix, is_json in (("json", True), ("txt", False)):
            try:
                fd = os.open(self.directory / f"{handle}.{suffix}", os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return None
                return f.read().decode("utf-8", "replace"), is_json
        return None

    def _evict(self, keep: Path) -> None:
        entries = []
        with os.scandir(self.directory) as it:
            for entry in it:
                if HANDLE.match(entry.name.rsplit(".", 1)[0]) and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    entries.append((st.st_mtime_ns, entry.name, st.st_size))
        total = sum(size for _, _, size in entries)
        for _, name, size in sorted(entries):
            if total <= self.max_bytes:
                break
            if name == keep.name:
                continue
            try:
                os.unlink(self.directory / name)
                total -= size
            except FileNotFoundError:
                pass


def _check_private_dir(directory: Path) -> None:
    st = os.lstat(directory)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise SpillError(f"{directory} is not a real folder")
    if st.st_uid != os.geteuid():
        raise SpillError(f"{directory} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(directory, 0o700)


def _read_or_create_secret(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            data = f.read()
        if len(data) == 32:
            return data
        raise SpillError(f"{path} is not a hostshape secret") from None
    secret = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as f:
        f.write(secret)
    return secret


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _write_atomically(path: Path, content: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise
        raise
