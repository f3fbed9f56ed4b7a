"""Object storage backend: any fsspec URL (``memory://``, ``gs://`` with gcsfs, ``s3://`` with s3fs, ...), and
``s3://``, ``gs://``, ``az://`` through obstore when it is installed (``pip install 'hostshape[s3]'``: obstore's
clients need no botocore). Credentials and endpoints come from the usual environment (``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``, ``GOOGLE_APPLICATION_CREDENTIALS``, ...), as the client library reads them.

Each result is one object ``<url>/<namespace>/<handle>`` holding a sealed record (hostshape/wayback/stores/base.py); its
time to live is checked on every load (object stores have no per-object expiry; add a bucket lifecycle rule to
delete old objects too). After each save the namespace is listed once and expired or, oldest first, excess records
are deleted until it is within ``max_bytes``.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import time
from collections.abc import Iterator
from typing import Any, Protocol
from urllib.parse import urlsplit

from hostshape.wayback.stores.base import SealedStore, SpillError, StoreStats, valid_handle

TIMEOUT_S = 2.0
OBSTORE_SCHEMES = ("s3", "s3a", "gs", "az", "abfs", "abfss", "azure")


class Blobs(Protocol):
    """Named byte strings under one prefix."""

    def put(self, name: str, data: bytes) -> None: ...
    def get(self, name: str) -> bytes | None: ...
    def modified(self, name: str) -> float | None: ...  # seconds (0 when unknown); None when there is no such object
    def delete(self, name: str) -> None: ...
    def listing(self) -> Iterator[tuple[str, int, float]]: ...  # name, size, modified (seconds; 0 when unknown)


class FsspecBlobs:
    def __init__(self, url: str, namespace: str) -> None:
        try:
            import fsspec
        except ImportError as exc:
            raise SpillError(
                f"a {urlsplit(url).scheme}:// spill store needs fsspec: pip install 'hostshape[s3]'"
            ) from exc
        try:
            self._fs, root = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise SpillError(f"no fsspec filesystem for {urlsplit(url).scheme}://: {exc}") from exc
        self._dir = f"{root.rstrip('/')}/{namespace}"

    def put(self, name: str, data: bytes) -> None:
        self._fs.pipe_file(f"{self._dir}/{name}", data)

    def get(self, name: str) -> bytes | None:
        try:
            return bytes(self._fs.cat_file(f"{self._dir}/{name}"))
        except FileNotFoundError:
            return None

    def modified(self, name: str) -> float | None:
        try:
            return _when(self._fs.info(f"{self._dir}/{name}"))
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._fs.rm_file(f"{self._dir}/{name}")

    def listing(self) -> Iterator[tuple[str, int, float]]:
        try:
            entries = self._fs.ls(self._dir, detail=True)
        except FileNotFoundError:
            return
        for info in entries:
            if info.get("type") != "directory":
                yield str(info["name"]).rsplit("/", 1)[-1], int(info.get("size") or 0), _when(info)


class ObstoreBlobs:
    def __init__(self, url: str, namespace: str) -> None:
        import obstore
        from obstore import store

        open_url: Any = store.from_url  # one call for every scheme (its overloads are per scheme)
        self._obstore = obstore
        try:  # short timeouts, one retry: a store that is down costs seconds, not the client's default 3 minutes
            self._store = open_url(
                url,
                client_options=_client_options(),
                retry_config={"max_retries": 1, "retry_timeout": datetime.timedelta(seconds=4 * TIMEOUT_S)},
            )
        except Exception as exc:  # noqa: BLE001 - obstore raises its own error types for a bad URL or config
            raise SpillError(f"cannot open {urlsplit(url).scheme}:// with obstore: {exc}") from exc
        self._dir = namespace

    def put(self, name: str, data: bytes) -> None:
        self._obstore.put(self._store, f"{self._dir}/{name}", data)

    def get(self, name: str) -> bytes | None:
        try:
            return bytes(self._obstore.get(self._store, f"{self._dir}/{name}").bytes())
        except FileNotFoundError:
            return None

    def modified(self, name: str) -> float | None:
        try:
            return _when(dict(self._obstore.head(self._store, f"{self._dir}/{name}")))
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._obstore.delete(self._store, f"{self._dir}/{name}")

    def listing(self) -> Iterator[tuple[str, int, float]]:
        for batch in self._obstore.list(self._store, self._dir):
            for meta in batch:
                yield str(meta["path"]).rsplit("/", 1)[-1], int(meta["size"]), _when(meta)


def _client_options() -> dict[str, Any]:
    """obstore's client options: short timeouts, and plain HTTP when the environment allows it (options given here
    replace the ones obstore reads from the environment, ``AWS_ALLOW_HTTP`` among them)."""
    options: dict[str, Any] = {"connect_timeout": f"{TIMEOUT_S:g}s", "timeout": f"{4 * TIMEOUT_S:g}s"}
    if any(
        os.environ.get(v, "").lower() in ("1", "true") for v in ("AWS_ALLOW_HTTP", "AZURE_ALLOW_HTTP", "ALLOW_HTTP")
    ):
        options["allow_http"] = True
    return options


def blobs_for(url: str, namespace: str) -> Blobs:
    """obstore for the clouds it speaks when it is installed, fsspec for everything else."""
    if urlsplit(url).scheme in OBSTORE_SCHEMES:
        try:
            import obstore  # noqa: F401
        except ImportError:
            pass
        else:
            return ObstoreBlobs(url, namespace)
    return FsspecBlobs(url, namespace)


class ObjectStore(SealedStore):
    """Spilled results as objects under ``url``, in the namespace of the derived key ``secret``."""

    backend = "objects"
    place = "object storage"

    def __init__(self, url: str, secret: bytes, namespace: str, max_bytes: int, ttl_s: float | None) -> None:
        super().__init__(secret, max_bytes, ttl_s)
        self._blobs = blobs_for(url, namespace)

    def _put(self, handle: str, record: bytes) -> None:
        self._blobs.put(handle, record)
        self._keep_bound(handle)

    def _get(self, handle: str) -> bytes | None:
        return self._blobs.get(handle)

    def _exists(self, handle: str) -> bool:
        modified = self._blobs.modified(handle)  # the object's metadata: a HEAD, not its content
        # Stores keep that time in whole seconds (S3's Last-Modified), a second earlier than the record's own:
        # held until a second past its time to live, when a load would find it expired.
        return modified is not None and not (modified and time.time() - modified > self.ttl_s + 1)

    def _delete(self, handle: str) -> bool:
        if self._blobs.get(handle) is None:
            return False
        self._blobs.delete(handle)
        return True

    def stats(self) -> StoreStats:
        with self._failing("list"):
            entries = [e for e in self._blobs.listing() if valid_handle(e[0])]
        return StoreStats(self.backend, len(entries), sum(e[1] for e in entries), self.max_bytes, self.ttl_s)

    def _keep_bound(self, keep: str) -> None:
        """Delete expired records, then the oldest, until the namespace is within ``max_bytes``."""
        now = time.time()
        entries = []
        for name, size, modified in self._blobs.listing():
            if not valid_handle(name):
                continue
            if name != keep and modified and now - modified > self.ttl_s:
                self._blobs.delete(name)
                continue
            entries.append((modified, name, size))
        total = sum(size for _, _, size in entries)
        for _, name, size in sorted(entries):
            if total <= self.max_bytes:
                break
            if name != keep:
                self._blobs.delete(name)
                total -= size


def _when(info: dict[str, Any]) -> float:
    """An object's modification time in seconds from a listing entry (each filesystem names it its own way)."""
    for key in ("last_modified", "LastModified", "mtime", "updated", "created", "timeCreated"):
        value = info.get(key)
        if isinstance(value, datetime.datetime):
            return value.timestamp()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return 0.0
