"""The store interface every spill backend implements, and the signed record format the shared backends keep.

A store saves a full original under a handle (an HMAC of the tool, its arguments and the content under the store's
secret), loads it back by handle, evicts it, and reports its size. Handles and cursors are signed with
``Store.secret``; a shared backend (Redis, object storage, a framework's store) derives that secret from a key the
workers share (hostshape/wayback/stores/secret.py) and keeps each record as ``MAGIC | kind | saved_at | tag | content``,
where the tag is an HMAC of the handle, kind, time and content, so a record planted or altered by whoever can write
to the backend, or a record of another secret or tenant, is never served.
"""

from __future__ import annotations

import abc
import contextlib
import hashlib
import hmac
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from hostshape.wayback.spill import HANDLE, SpillError
from hostshape.wayback.spill import _handle as spill_handle  # one handle formula for every backend

__all__ = [
    "HANDLE",
    "Saved",
    "SealedStore",
    "Sealer",
    "SpillError",
    "Store",
    "StoreStats",
    "open_record",
    "seal",
    "spill_handle",
]

MAGIC = b"HS1"
DEFAULT_SHARED_TTL_S = 24 * 3600.0  # how long a shared store keeps a result when the policy does not say
_HEADER = struct.Struct(">cQ")  # kind (b"j" JSON, b"t" text), saved_at in milliseconds
_TAG = 32


@dataclass(frozen=True)
class Saved:
    """A saved original: its ``handle``, where it is when that is a local file (``path``), and whether it is
    JSON."""

    handle: str
    path: str | None
    is_json: bool


@dataclass(frozen=True)
class StoreStats:
    """What a store holds: ``items`` results of ``bytes`` in all, against its bound ``max_bytes`` and expiry
    ``ttl_s`` (None: no expiry)."""

    backend: str
    items: int
    bytes: int
    max_bytes: int
    ttl_s: float | None


class Store(Protocol):
    """A spill backend. ``save`` raises SpillError when nothing could be saved (the store is down, full or unsafe);
    ``load`` returns None for an unknown, expired, evicted or forged handle and raises SpillError when the store
    cannot be reached; ``exists`` says whether it holds ``handle`` without reading the record where the backend
    can tell (raising as ``load`` does)."""

    backend: str

    @property
    def secret(self) -> bytes: ...

    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved: ...

    def load(self, handle: str) -> tuple[str, bool] | None: ...

    def exists(self, handle: str) -> bool: ...

    def evict(self, handle: str) -> bool: ...

    def stats(self) -> StoreStats: ...


class Sealer:
    """What every shared backend holds: the key it signs with, its bound and expiry, and sealing a save."""

    def __init__(self, key: bytes, max_bytes: int, ttl_s: float | None) -> None:
        self._key = key
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s if ttl_s is not None else DEFAULT_SHARED_TTL_S

    @property
    def secret(self) -> bytes:
        return self._key

    def _seal(self, tool: str | None, args: Any, text: str, is_json: bool) -> tuple[str, bytes]:
        """The handle and sealed record of a result; raises SpillError when the record is over the bound."""
        content = text.encode("utf-8", "replace")
        handle = spill_handle(self._key, tool, args, content)
        record = seal(self._key, handle, content, is_json=is_json)
        if len(record) > self.max_bytes:
            raise SpillError(f"the result ({len(record):,} bytes) is larger than the store's bound")
        return handle, record


class SealedStore(Sealer, abc.ABC):
    """A shared backend reached through a client library: ``save``, ``load`` and ``evict`` around its own
    ``_put``, ``_get`` and ``_delete``, with the client's errors turned into SpillError.

    ``place`` names the backend in those errors (``could not save to <place>: ...``); ``errors`` are the
    exceptions of its client that mean it could not be reached (any, by default: every client has its own)."""

    backend: str
    place: str
    errors: tuple[type[BaseException], ...] = (Exception,)

    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        handle, record = self._seal(tool, args, text, is_json)
        with self._failing("save to", detail=True):
            self._put(handle, record)
        return Saved(handle, None, is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        if not valid_handle(handle):
            return None
        with self._failing("read from"):
            record = self._get(handle)
        return None if record is None else open_record(self._key, handle, record, self.ttl_s)

    def exists(self, handle: str) -> bool:
        if not valid_handle(handle):
            return False
        with self._failing("read from"):
            return self._exists(handle)

    def evict(self, handle: str) -> bool:
        if not valid_handle(handle):
            return False
        with self._failing("evict from"):
            return self._delete(handle)

    def _exists(self, handle: str) -> bool:
        """Whether ``handle``'s record is held and unexpired; this default reads it (a backend that can tell from
        metadata says so without)."""
        record = self._get(handle)
        return record is not None and open_record(self._key, handle, record, self.ttl_s) is not None

    @abc.abstractmethod
    def _put(self, handle: str, record: bytes) -> None: ...

    @abc.abstractmethod
    def _get(self, handle: str) -> bytes | None: ...

    @abc.abstractmethod
    def _delete(self, handle: str) -> bool:
        """Delete ``handle``'s record; False when there was none."""

    @contextlib.contextmanager
    def _failing(self, verb: str, *, detail: bool = False) -> Iterator[None]:
        """Within this block the client's ``errors`` become SpillError("could not <verb> <place>: <type>"), with
        the error's message when ``detail``; a SpillError passes as it is."""
        try:
            yield
        except SpillError:
            raise
        except self.errors as exc:
            why = f"{type(exc).__name__}: {exc}" if detail else type(exc).__name__
            raise SpillError(f"could not {verb} {self.place}: {why}") from exc


def seal(secret: bytes, handle: str, content: bytes, *, is_json: bool, now: float | None = None) -> bytes:
    """The record kept for ``handle``: header, tag and content."""
    header = _HEADER.pack(b"j" if is_json else b"t", int((time.time() if now is None else now) * 1000))
    tag = hmac.new(secret, handle.encode() + header + content, hashlib.sha256).digest()
    return MAGIC + header + tag + content


def open_record(secret: bytes, handle: str, record: bytes, ttl_s: float | None) -> tuple[str, bool] | None:
    """The text and JSON-ness sealed in ``record`` for ``handle``; None when it is not ours, was altered, belongs to
    another handle, secret or tenant, or is older than ``ttl_s``."""
    start = len(MAGIC) + _HEADER.size
    if len(record) < start + _TAG or not record.startswith(MAGIC):
        return None
    header, tag, content = record[len(MAGIC) : start], record[start : start + _TAG], record[start + _TAG :]
    expected = hmac.new(secret, handle.encode() + header + content, hashlib.sha256).digest()
    if not hmac.compare_digest(tag, expected):
        return None
    kind, saved_ms = _HEADER.unpack(header)
    if ttl_s is not None and time.time() - saved_ms / 1000 > ttl_s:
        return None
    return content.decode("utf-8", "replace"), kind == b"j"


def saved_at(record: bytes) -> float:
    """When ``record`` was sealed (seconds since the epoch); 0 for a record that is not ours."""
    if not record.startswith(MAGIC) or len(record) < len(MAGIC) + _HEADER.size:
        return 0.0
    return float(_HEADER.unpack(record[len(MAGIC) : len(MAGIC) + _HEADER.size])[1]) / 1000


def valid_handle(handle: str) -> bool:
    return bool(HANDLE.fullmatch(handle or ""))
