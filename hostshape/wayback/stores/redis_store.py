"""Redis backend (``redis://``, ``rediss://``, ``unix://`` URLs), through redis-py: ``pip install 'hostshape[redis]'``.

Each result is one key ``hostshape:{<namespace>}:r:<handle>`` holding a sealed record (hostshape/wayback/stores/base.py)
with Redis' own expiry (``PX``). The bound is kept by one Lua script run atomically per save: it records the
record's size in a hash and its time in a sorted set, drops entries whose time to live has passed, then evicts the
oldest records until the namespace is within ``max_bytes``. All keys of a namespace share one hash tag, so the script
also runs on Redis Cluster. Timeouts are short and there is no retry loop: a Redis that is down costs one failed
connection, and the caller answers within the budget with a note.
"""

from __future__ import annotations

import time
from typing import Any

from hostshape.wayback.stores.base import SealedStore, SpillError, StoreStats

TIMEOUT_S = 2.0

# KEYS: record, index (zset handle -> saved_at ms), sizes (hash handle -> bytes), total (bytes)
# ARGV: handle, record, ttl_ms, now_ms, max_bytes, record key prefix
_SAVE = """
local handle, record, ttl, now, bound, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), ARGV[6]
local function forget(h)
  local size = tonumber(redis.call('HGET', KEYS[3], h) or '0')
  redis.call('ZREM', KEYS[2], h)
  redis.call('HDEL', KEYS[3], h)
  redis.call('DECRBY', KEYS[4], size)
end
if redis.call('HEXISTS', KEYS[3], handle) == 1 then forget(handle) end
redis.call('SET', KEYS[1], record, 'PX', ttl)
redis.call('ZADD', KEYS[2], now, handle)
redis.call('HSET', KEYS[3], handle, string.len(record))
local total = redis.call('INCRBY', KEYS[4], string.len(record))
for _, h in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl)) do
  forget(h)
end
local evicted = 0
total = tonumber(redis.call('GET', KEYS[4]))
while total > bound do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 or oldest[1] == handle then break end
  redis.call('DEL', prefix .. oldest[1])
  forget(oldest[1])
  evicted = evicted + 1
  total = tonumber(redis.call('GET', KEYS[4]))
end
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
return evicted
"""

# KEYS: record, index, sizes, total; ARGV: handle
_EVICT = """
local found = redis.call('DEL', KEYS[1])
local size = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('DECRBY', KEYS[4], size)
return found
"""


class RedisStore(SealedStore):
    """Spilled results in one Redis database, under the namespace of the derived key ``secret``."""

    backend = "redis"
    place = "Redis"

    def __init__(self, url: str, secret: bytes, namespace: str, max_bytes: int, ttl_s: float | None) -> None:
        super().__init__(secret, max_bytes, ttl_s)
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:
            raise SpillError("a redis:// spill store needs redis-py: pip install 'hostshape[redis]'") from exc
        self.errors = (redis.RedisError, OSError)
        self._client: Any = redis.Redis.from_url(
            url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S, retry=Retry(NoBackoff(), 0)
        )
        self._save = self._client.register_script(_SAVE)
        self._evict = self._client.register_script(_EVICT)
        tag = f"hostshape:{{{namespace}}}"
        self._prefix = f"{tag}:r:"
        self._keys = [f"{tag}:index", f"{tag}:sizes", f"{tag}:total"]

    def _put(self, handle: str, record: bytes) -> None:
        now_ms = int(time.time() * 1000)
        ttl_ms = max(1, int(self.ttl_s * 1000))
        args: list[bytes | str | int] = [handle, record, ttl_ms, now_ms, self.max_bytes, self._prefix]
        self._save(keys=[self._prefix + handle, *self._keys], args=args)

    def _get(self, handle: str) -> bytes | None:
        record = self._client.get(self._prefix + handle)
        return None if record is None else bytes(record)

    def _exists(self, handle: str) -> bool:
        return bool(self._client.exists(self._prefix + handle))  # Redis expires the key itself (PX)

    def _delete(self, handle: str) -> bool:
        return bool(self._evict(keys=[self._prefix + handle, *self._keys], args=[handle]))

    def stats(self) -> StoreStats:
        with self._failing("read from"):
            items = int(self._client.zcard(self._keys[0]))
            total = int(self._client.get(self._keys[2]) or 0)
        return StoreStats(self.backend, items, total, self.max_bytes, self.ttl_s)
