"""The way back across machines: which spill store a policy uses, and the store a host lends for one call.

``open_store(policy)`` picks the backend by URL: ``Policy.spill_url`` (TOML ``[spill] url``), else
``$HOSTSHAPE_SPILL_URL``, else the local folder (``spill_dir``, exactly as before). ``redis://``, ``rediss://``
and ``unix://`` go to Redis (redis_store.py), a path or ``file://`` to a local folder, anything else to object
storage (objects.py). Every backend signs with a key derived from the workers' shared secret and the tenant
(secret.py), so a handle made by one worker is served by any other with the same URL and secret, and by no one
else.

An adapter whose framework has its own store (ADK's artifact service, LangGraph's ``BaseStore``) lends it for one
call with ``with using(store): ...``: ``shape`` and ``hostshape_read`` inside that block save to and read from it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from hostshape.policy import Policy
from hostshape.wayback.spill import SpillError, SpillStore, default_dir, store_for
from hostshape.wayback.stores.base import Saved, Store, StoreStats, valid_handle
from hostshape.wayback.stores.secret import SECRET_ENV, derive, namespace, shared_secret

__all__ = [
    "URL_ENV",
    "LocalStore",
    "Saved",
    "SpillError",
    "Store",
    "StoreStats",
    "open_store",
    "page",
    "signing_key",
    "unsaved_reason",
    "using",
]

URL_ENV = "HOSTSHAPE_SPILL_URL"
REDIS_SCHEMES = ("redis", "rediss", "unix")

_lent: ContextVar[Store | None] = ContextVar("hostshape_lent_store", default=None)
_opened: dict[tuple[Any, ...], Store] = {}
_opened_lock = threading.Lock()


@contextlib.contextmanager
def using(store: Store) -> Iterator[Store]:
    """Within this block (this thread or task), ``open_store`` answers ``store`` whatever the policy says."""
    token = _lent.set(store)
    try:
        yield store
    finally:
        _lent.reset(token)


def page(store: Store, handle: str, query: str | None = None, cursor: str | None = None, *, policy: Policy) -> str:
    """One budgeted page of ``handle`` read from ``store`` (``hostshape_read`` over this store). Never raises."""
    from hostshape.wayback.retrieve import read

    with using(store):
        return read(handle, query=query, cursor=cursor, policy=policy)


def open_store(policy: Policy) -> Store:
    """The store ``policy`` saves to and reads from. Raises SpillError when it cannot be opened (a bad URL or
    secret, a missing client library); the caller then answers without a way back, with a note."""
    lent = _lent.get()
    if lent is not None:
        return lent
    url = policy.spill_url or os.environ.get(URL_ENV) or None
    scheme = urlsplit(url).scheme if url else ""
    local = url is None or scheme in ("", "file")
    directory = _local_dir(url) if url and local else policy.spill_dir
    if local and policy.spill_secret_file is None and not os.environ.get(SECRET_ENV) and policy.spill_tenant is None:
        return LocalStore(store_for(directory, policy.spill_max_bytes), policy.spill_ttl_s)  # the default, as before
    key, space = signing_key(policy, directory)
    ttl = policy.spill_ttl_s
    cache_key = (url, str(directory), policy.spill_max_bytes, ttl, space)
    with _opened_lock:
        if cache_key not in _opened:
            _opened[cache_key] = _open(url, scheme, local, directory, key, space, policy.spill_max_bytes, ttl)
        return _opened[cache_key]


def signing_key(policy: Policy, directory: Path | None = None) -> tuple[bytes, str]:
    """The key a shared store of ``policy`` signs with, and the namespace its records live under: derived from
    the workers' secret and the tenant; without a shared secret, from this machine's spill folder secret (handles
    are then valid on this machine only). Raises SpillError for an unusable secret."""
    master = shared_secret(policy.spill_secret_file)
    if master is None:
        master = store_for(directory or policy.spill_dir, policy.spill_max_bytes).secret
    key = derive(master, policy.spill_tenant)
    return key, namespace(key)


def unsaved_reason(policy: Policy) -> str:
    """The envelope's words for a result that could not be saved."""
    if _lent.get() is not None or policy.spill_url or os.environ.get(URL_ENV):
        return "the spill store could not save it"
    return "the spill folder is not usable"


def _open(
    url: str | None,
    scheme: str,
    local: bool,
    directory: Path | None,
    key: bytes,
    space: str,
    max_bytes: int,
    ttl_s: float | None,
) -> Store:
    if local:
        return LocalStore(SpillStore((directory or default_dir()) / space, max_bytes, secret=key), ttl_s)
    assert url is not None
    if scheme in REDIS_SCHEMES:
        from hostshape.wayback.stores.redis_store import RedisStore

        return RedisStore(url, key, space, max_bytes, ttl_s)
    from hostshape.wayback.stores.objects import ObjectStore

    return ObjectStore(url, key, space, max_bytes, ttl_s)


def _local_dir(url: str) -> Path:
    parts = urlsplit(url)
    return Path(os.path.expanduser(unquote(parts.path) if parts.scheme == "file" else url))


class LocalStore:
    """The local spill folder (hostshape/spill.py, with all its checks) as a ``Store``; ``ttl_s`` is checked on
    load against the file's time."""

    backend = "local"

    def __init__(self, folder: SpillStore, ttl_s: float | None = None) -> None:
        self.folder = folder
        self.ttl_s = ttl_s

    @property
    def secret(self) -> bytes:
        return self.folder.secret

    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        saved = self.folder.save(tool, args, text, is_json=is_json)
        return Saved(saved.handle, str(saved.path), saved.is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        if self.ttl_s is not None and self._expired(handle):
            self.folder.evict(handle)
            return None
        return self.folder.load(handle)

    def exists(self, handle: str) -> bool:
        return not (self.ttl_s is not None and self._expired(handle)) and self.folder.exists(handle)

    def evict(self, handle: str) -> bool:
        return self.folder.evict(handle)

    def stats(self) -> StoreStats:
        items, size = self.folder.usage()
        return StoreStats(self.backend, items, size, self.folder.max_bytes, self.ttl_s)

    def _expired(self, handle: str) -> bool:
        if not valid_handle(handle):
            return False
        for suffix in ("json", "txt"):
            try:
                age = time.time() - (self.folder.directory / f"{handle}.{suffix}").stat(follow_symlinks=False).st_mtime
            except (OSError, ValueError):
                continue
            return self.ttl_s is not None and age > self.ttl_s
        return False
