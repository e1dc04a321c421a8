"""What the store holds, read the store's way: tests never spell a Redis key name.

``dump`` and ``restore`` put a whole store back as it was (a scene built once, given to many tests).
``snapshot`` is the "state unchanged" oracle of every refusal test: every key
the referee wrote, with its type and value, except the rate limiter's counters
(they count every request by design).  ``stored`` and ``stored_doc`` read one
game's or table's record through :class:`service.storage.store.Store`'s own key names.
Both work with a client that decodes responses and with one that does not.
"""

from __future__ import annotations

from typing import Any

import redis

from service.storage.store import Store

PREFIX = "referee"  # the key prefix the test apps and servers use (the default)


def _bytes_client(client: redis.Redis) -> redis.Redis:
    """The same server, answering bytes: a finished game's archive is binary (service.storage.archive),
    which a client that decodes responses cannot read."""
    pool = client.connection_pool
    if not pool.connection_kwargs.get("decode_responses"):
        return client
    cached = _BYTES_CLIENTS.get(id(client))
    if cached is None or cached[0] is not client:
        binary = redis.Redis(connection_pool=redis.ConnectionPool(
            connection_class=pool.connection_class, **{**pool.connection_kwargs, "decode_responses": False}))
        cached = _BYTES_CLIENTS[id(client)] = (client, binary)
    return cached[1]


_BYTES_CLIENTS: dict[int, tuple[redis.Redis, redis.Redis]] = {}


def store(client: redis.Redis, prefix: str = PREFIX) -> Store:
    return Store(_bytes_client(client), prefix=prefix)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _maybe_text(value: bytes) -> str | bytes:
    try:
        return value.decode()
    except UnicodeDecodeError:
        return value


def bookkeeping_prefix(client: redis.Redis) -> str:
    """Where the rate limiter's counters live (``Store.rate_key`` without its client and name)."""
    return store(client).rate_key("", "").split("{", 1)[0]


def snapshot(client: redis.Redis) -> dict[Any, Any]:
    """Every stored key with its type and value (sorted where Redis has no order); TTLs and rate-limit
    counters excluded."""
    skip = bookkeeping_prefix(client)
    binary = _bytes_client(client)
    out: dict[Any, Any] = {}
    for key in client.scan_iter(count=1000):
        if _text(key).startswith(skip):
            continue
        kind = _text(client.type(key))
        if kind == "hash":  # read as bytes (a finished game's archive is binary), text kept as text
            raw = binary.hgetall(key)
            if binary is not client:
                raw = {_maybe_text(k): _maybe_text(v) for k, v in raw.items()}
            value: Any = sorted(raw.items())
        elif kind == "list":
            value = client.lrange(key, 0, -1)
        elif kind == "string":
            value = client.get(key)
        elif kind == "set":
            value = sorted(client.smembers(key))
        elif kind == "zset":
            value = client.zrange(key, 0, -1, withscores=True)
        else:  # pragma: no cover - the store writes no other type
            value = kind
        out[key] = (kind, value)
    return out


def dump(client: redis.Redis) -> list[tuple[bytes, int, bytes]]:
    """Every stored key as Redis serializes it (``DUMP``), with its time to live in ms (0: none):
    what :func:`restore` puts back, byte for byte, in a flushed store."""
    binary = _bytes_client(client)
    return [(key, max(0, binary.pttl(key)), binary.dump(key)) for key in binary.scan_iter(count=1000)]


def restore(client: redis.Redis, dumped: list[tuple[bytes, int, bytes]]) -> None:
    pipe = _bytes_client(client).pipeline(transaction=False)
    for key, ttl, payload in dumped:
        pipe.restore(key, ttl, payload, replace=True)
    pipe.execute()


def stored(client: redis.Redis, kind: str, id: str) -> tuple[dict[Any, Any], list[Any]]:
    """One game's (``kind`` ``gops``) or table's (``gofo``) stored hash and transcript log, raw
    (a finished game's hash holds its archive, as bytes, and its log is in it)."""
    s = store(client)
    fields, log = s.redis.hgetall(s.key(kind, id)), s.redis.lrange(s.log_key(kind, id), 0, -1)
    if s.redis is not client:  # a decoding client: text as text, an archive as bytes
        fields, log = {_maybe_text(k): _maybe_text(v) for k, v in fields.items()}, [_maybe_text(e) for e in log]
    return fields, log


def stored_doc(client: redis.Redis, kind: str, id: str) -> dict[str, Any]:
    """The stored document (engine state, token hashes...) of one game or table."""
    return store(client).load(kind, id).doc


def stored_version(client: redis.Redis, kind: str, id: str) -> int | None:
    version = client.hget(store(client).key(kind, id), "version")
    return None if version is None else int(version)


def logged_entries(client: redis.Redis, kind: str, id: str) -> list[dict[str, Any]]:
    """Every stored transcript entry, in stored order (from the archive once the game is over)."""
    return store(client).transcript(kind, id)


def logged_versions(client: redis.Redis, kind: str, id: str) -> list[int]:
    """The version of every transcript entry, in stored order."""
    return [e["version"] for e in logged_entries(client, kind, id)]


def count_records(client: redis.Redis, kind: str) -> int:
    """How many games (``gops``) or tables (``gofo``) are stored."""
    return sum(1 for _ in client.scan_iter(match=store(client).key(kind, "*"), count=1000))


def rate_key(client_id: str, name: str) -> str:
    """The rate limiter's counter of one client (``Store.rate_key``; glob characters allowed)."""
    return Store(redis.Redis(), prefix=PREFIX).rate_key(client_id, name)
