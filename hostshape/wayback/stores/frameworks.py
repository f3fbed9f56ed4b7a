"""The frameworks' own stores as spill stores: LangGraph's ``BaseStore`` and ADK's artifact service.

Both keep sealed records (base.py) signed with the key of ``signing_key(policy)``, so handles and cursors follow
the same rules as every other backend. An adapter lends one for a call with ``hostshape.wayback.stores.using(...)``.

- ``LangGraphStore`` calls the store's synchronous ``get``/``put``/``delete`` (langgraph/store/base/__init__.py:756,
  866) under the namespace ``("hostshape", <namespace>)``, with ``index=False`` (a spilled result is not for semantic
  search) and the store's own expiry where it has one (``supports_ttl``, in minutes).
- ``Staged`` is for services that are only async (ADK's ``BaseArtifactService``, artifacts/base_artifact_service.py:
  91,126): ``shape`` and ``read`` are synchronous, so the adapter loads the record a read needs before the call
  (``preload``) and saves what a shape staged after it (``pending``), awaiting the service itself.

A framework store's retention is the framework's: hostshape refuses a single result over ``spill_max_bytes`` and
checks the time to live on every load, but does not list and evict the store's other entries.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from hostshape.policy import Policy
from hostshape.wayback.stores.base import Saved, SealedStore, Sealer, SpillError, StoreStats, open_record

NAMESPACE_ROOT = "hostshape"
ARTIFACT_PREFIX = "hostshape-"
ARTIFACT_MIME = "application/vnd.hostshape.record"


def artifact_name(handle: str) -> str:
    """The artifact filename a handle's record is saved under."""
    return ARTIFACT_PREFIX + handle


class LangGraphStore(SealedStore):
    """A LangGraph ``BaseStore`` (``InMemoryStore``, ``PostgresStore``, ``RedisStore``, ...) as a spill store."""

    backend = "langgraph"
    place = "the LangGraph store"

    def __init__(self, store: Any, key: bytes, space: str, max_bytes: int, ttl_s: float | None) -> None:
        super().__init__(key, max_bytes, ttl_s)
        self._store = store
        self._namespace = (NAMESPACE_ROOT, space)

    def _put(self, handle: str, record: bytes) -> None:
        options: dict[str, Any] = {"index": False}
        if getattr(self._store, "supports_ttl", False):
            options["ttl"] = math.ceil(self.ttl_s / 60)  # BaseStore.put takes minutes
        self._store.put(self._namespace, handle, {"record": base64.b64encode(record).decode()}, **options)

    def _get(self, handle: str) -> bytes | None:
        item = self._store.get(self._namespace, handle)
        return _decoded(item.value.get("record") if item is not None and isinstance(item.value, dict) else None)

    # ``_exists`` is SealedStore's, which reads the item: a BaseStore has no lighter lookup than ``get``, which
    # returns the whole item (langgraph/store/base/__init__.py:756, BaseStore, langgraph-checkpoint 4.3.2).

    def _delete(self, handle: str) -> bool:
        if self.load(handle) is None:  # expired or not ours: left to the store's own retention
            return False
        self._store.delete(self._namespace, handle)
        return True

    def stats(self) -> StoreStats:
        """The first 10,000 entries' count and size (a BaseStore has no cheaper way to count)."""
        with self._failing("read from"):
            items = self._store.search(self._namespace, limit=10_000)
        size = sum(len(str(i.value.get("record", ""))) * 3 // 4 for i in items if isinstance(i.value, dict))
        return StoreStats(self.backend, len(items), size, self.max_bytes, self.ttl_s)


class Staged(Sealer):
    """Records staged for an async service: ``pending`` to save after the call, ``preload`` to read during it."""

    backend = "staged"

    def __init__(self, key: bytes, max_bytes: int, ttl_s: float | None) -> None:
        super().__init__(key, max_bytes, ttl_s)
        self.pending: dict[str, bytes] = {}
        self._loaded: dict[str, bytes | None] = {}
        self._unreachable: str | None = None

    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        if self._unreachable is not None:
            raise SpillError(self._unreachable)
        handle, record = self._seal(tool, args, text, is_json)
        self.pending[handle] = record
        return Saved(handle, None, is_json)

    def preload(self, handle: str, record: bytes | None) -> None:
        """What the service holds for ``handle`` (None: nothing)."""
        self._loaded[handle] = record

    def unreachable(self, why: str) -> None:
        """The service failed: loads and saves raise SpillError(``why``) from now on."""
        self._unreachable = why

    def load(self, handle: str) -> tuple[str, bool] | None:
        if self._unreachable is not None:
            raise SpillError(self._unreachable)
        record = self.pending.get(handle) or self._loaded.get(handle)
        return None if record is None else open_record(self._key, handle, record, self.ttl_s)

    def exists(self, handle: str) -> bool:
        return self.load(handle) is not None  # the record is in memory already (preloaded or pending)

    def evict(self, handle: str) -> bool:
        return self.pending.pop(handle, None) is not None

    def stats(self) -> StoreStats:
        return StoreStats(
            self.backend, len(self.pending), sum(map(len, self.pending.values())), self.max_bytes, self.ttl_s
        )


def _decoded(value: Any) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return None


def langgraph_store(policy: Policy, store: Any) -> LangGraphStore:
    """``store`` (a LangGraph ``BaseStore``) as the spill store of ``policy``. Raises SpillError for an unusable
    secret."""
    from hostshape.wayback.stores import signing_key

    key, space = signing_key(policy)
    return LangGraphStore(store, key, space, policy.spill_max_bytes, policy.spill_ttl_s)


def staged(policy: Policy) -> Staged:
    """An empty ``Staged`` store for ``policy``'s key. Raises SpillError for an unusable secret."""
    from hostshape.wayback.stores import signing_key

    key, _ = signing_key(policy)
    return Staged(key, policy.spill_max_bytes, policy.spill_ttl_s)
