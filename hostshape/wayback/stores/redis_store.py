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

from hostshape.wayback.stores.base import Saved, SpillError, StoreStats, open_record, seal, spill_handle, valid_handle

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


class RedisStore:
    """Spilled results in one Redis database, under the namespace of the derived key ``secret``."""

    backend = "redis"

    def __init__(self, url: str, secret: bytes, namespace: str, max_bytes: int, ttl_s: float) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:
            raise SpillError("a redis:// spill store needs redis-py: pip install 'hostshape[redis]'") from exc
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._client: Any = redis.Redis.from_url(
            url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S, retry=Retry(NoBackoff(), 0)
        )
        self._save = self._client.register_script(_SAVE)
        self._evict = self._client.register_script(_EVICT)
        self._secret = secret
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        tag = f"hostshape:{{{namespace}}}"
        self._prefix = f"{tag}:r:"
        self._keys = [f"{tag}:index", f"{tag}:sizes", f"{tag}:total"]

    @property
    def secret(self) -> bytes:
        return self._secret

    def save(self, tool: str | None, args: Any, text: str, *, is_json: bool) -> Saved:
        content = text.encode("utf-8", "replace")
        handle = spill_handle(self._secret, tool, args, content)
        record = seal(self._secret, handle, content, is_json=is_json)
        if len(record) > self.max_bytes:
            raise SpillError(f"the result ({len(record):,} bytes) is larger than the store's bound")
        now_ms = int(time.time() * 1000)
        ttl_ms = max(1, int(self.ttl_s * 1000))
        try:
            self._save(
                keys=[self._prefix + handle, *self._keys],
                args=[handle, record, ttl_ms, now_ms, self.max_bytes, self._prefix],
            )
        except self._errors as exc:
            raise SpillError(f"could not save to Redis: {type(exc).__name__}: {exc}") from exc
        return Saved(handle, None, is_json)

    def load(self, handle: str) -> tuple[str, bool] | None:
        if not valid_handle(handle):
            return None
        try:
            record = self._client.get(self._prefix + handle)
        except self._errors as exc:
            raise SpillError(f"could not read from Redis: {type(exc).__name__}") from exc
        return None if record is None else open_record(self._secret, handle, bytes(record), self.ttl_s)

    def evict(self, handle: str) -> bool:
        if not valid_handle(handle):
            return False
        try:
            return bool(self._evict(keys=[self._prefix + handle, *self._keys], args=[handle]))
        except self._errors as exc:
            raise SpillError(f"could not evict from Redis: {type(exc).__name__}") from exc

    def stats(self) -> StoreStats:
        try:
            items = int(self._client.zcard(self._keys[0]))
            total = int(self._client.get(self._keys[2]) or 0)
        except self._errors as exc:
            raise SpillError(f"could not read from Redis: {type(exc).__name__}") from exc
        return StoreStats(self.backend, items, total, self.max_bytes, self.ttl_s)
