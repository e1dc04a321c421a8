"""The Redis store: it owns every key the referee writes and every atomic update.

Layout (``P`` is the configured key prefix, ``K`` the kind: ``gops``, ``gofo``):

* ``P:K:{ID}`` – a hash with ``version`` (an integer, +1 per applied change) and
  ``doc`` (the JSON document: engine state, token hashes, timestamps);
* ``P:K:{ID}:log`` – a list of JSON transcript entries, one per applied change;
* ``P:K:{ID}:events`` – the pub/sub channel a change is announced on (live updates);
* ``P:idem:SCOPE:HASH`` – an Idempotency-Key's record (the encrypted first answer);
* ``P:rl:{CLIENT}:NAME`` – a client's rate-limit counter (service.ratelimit runs the Lua).

``{ID}`` is a Redis Cluster hash tag, so every key of one game lives in one
slot and the Lua scripts below may touch them together.

Every change goes through :meth:`Store.save`, a Lua compare-and-set on the
version: two concurrent requests can never both apply to the same version, and
the state, the transcript and the expiry change together or not at all.
:meth:`Store.transact` wraps it in the load–apply–save loop the HTTP layer uses;
a lost race is retried against the new state, so simultaneous moves by
different seats all apply, in some order, each exactly once.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable

import redis

from .errors import Busy, NotFound, StaleVersion

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'doc', ARGV[1])
for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
if #ARGV >= 3 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
return 1
"""

_SAVE = """
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return -1 end
if current ~= ARGV[1] then return -2 end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'version', version, 'doc', ARGV[2])
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], version)
return version
"""

_IDEMPOTENT_PUT = """
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""


@dataclass
class Record:
    """A stored document at one version."""

    kind: str
    id: str
    version: int
    doc: dict[str, Any]


@dataclass
class Change:
    """What a transition wants stored: the new document and its transcript entries."""

    doc: dict[str, Any]
    log: list[dict[str, Any]]
    finished: bool = False


class Store:
    #: How a saved change is announced on :meth:`channel`: ``SPUBLISH`` (sharded pub/sub, the
    #: channel lives on the game's own shard of a Redis Cluster) when True, else ``PUBLISH``.
    #: service.live subscribes with ``SSUBSCRIBE`` or ``SUBSCRIBE`` to match: this is the one switch.
    sharded_pubsub: bool = False

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "referee",
        finished_ttl: int = 7 * 86400,
        idle_ttl: int = 30 * 86400,
        sharded_pubsub: bool | None = None,
    ) -> None:
        if sharded_pubsub is not None:
            self.sharded_pubsub = sharded_pubsub
        self.redis = client
        self.prefix = prefix
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self._create = client.register_script(_CREATE)
        self._save = client.register_script(_SAVE.replace("'PUBLISH'", "'SPUBLISH'") if self.sharded_pubsub else _SAVE)
        self._idempotent_put = client.register_script(_IDEMPOTENT_PUT)

    # ------------------------------------------------------------------ keys

    def key(self, kind: str, id: str) -> str:
        return f"{self.prefix}:{kind}:{{{id}}}"

    def log_key(self, kind: str, id: str) -> str:
        return f"{self.key(kind, id)}:log"

    def channel(self, kind: str, id: str) -> str:
        return f"{self.key(kind, id)}:events"

    def rate_key(self, client: str, name: str) -> str:
        """A rate-limit counter of one client (``{client}`` is a hash tag: one slot per client)."""
        return f"{self.prefix}:rl:{{{client}}}:{name}"

    def idempotency_key(self, scope: str, key_hash: str) -> str:
        return f"{self.prefix}:idem:{scope}:{key_hash}"

    # ----------------------------------------------------------- operations

    def create(self, kind: str, id: str, doc: dict[str, Any], log: list[dict[str, Any]]) -> Record:
        created = self._create(
            keys=[self.key(kind, id), self.log_key(kind, id)],
            args=[_dump(doc), self.idle_ttl, *(_dump(e) for e in log)],
        )
        if not created:
            raise Busy(f"{kind} {id} already exists", code="id_collision")
        return Record(kind, id, 1, doc)

    def load(self, kind: str, id: str) -> Record:
        version, doc = self.redis.hmget(self.key(kind, id), ["version", "doc"])
        if version is None or doc is None:
            raise NotFound(f"no {kind} game with id {id!r} (never created, or expired)", code="game_not_found")
        return Record(kind, id, int(version), json.loads(doc))

    def transcript(self, kind: str, id: str) -> list[dict[str, Any]]:
        return [json.loads(e) for e in self.redis.lrange(self.log_key(kind, id), 0, -1)]

    def save(self, record: Record, change: Change) -> Record:
        """Store ``change`` on top of ``record``; StaleVersion if someone else was first."""
        ttl = self.finished_ttl if change.finished else self.idle_ttl
        result = self._save(
            keys=[self.key(record.kind, record.id), self.log_key(record.kind, record.id)],
            args=[
                record.version,
                _dump(change.doc),
                ttl,
                self.channel(record.kind, record.id),
                *(_dump(e) for e in change.log),
            ],
        )
        if result == -1:
            raise NotFound(f"{record.kind} {record.id} expired", code="game_not_found")
        if result == -2:
            raise StaleVersion(f"version {record.version} is no longer current")
        return Record(record.kind, record.id, int(result), change.doc)

    def transact(
        self,
        kind: str,
        id: str,
        transition: Callable[[Record], Change | None],
        expected_version: int | None = None,
        attempts: int = 50,
        pinned: bool = False,
    ) -> tuple[Record, bool]:
        """Load, apply ``transition``, save; retry when another writer was first.

        ``transition`` gets the current record and returns a :class:`Change`, or
        ``None`` when the request changes nothing (an exact repeat).  It raises
        a RefereeError to refuse; nothing is stored then.  With
        ``expected_version`` the caller insists on acting on that version:
        any other current version is a StaleVersion error, never a retry.
        ``pinned``: the transition itself checks the version it was decided on, so
        a lost race is not retried either (the retry would refuse it anyway).

        Returns the record now stored and whether this call changed it.
        """
        for attempt in range(attempts):
            record = self.load(kind, id)
            if expected_version is not None and record.version != expected_version:
                raise StaleVersion(
                    f"you acted on version {expected_version} but the current version is {record.version}",
                    current_version=record.version,
                )
            change = transition(record)
            if change is None:
                return record, False
            try:
                return self.save(record, change), True
            except StaleVersion:
                if expected_version is not None:
                    raise
                if pinned:  # re-run: the transition refuses with the current version
                    continue
                time.sleep(min(0.001 * (attempt + 1), 0.02))
        raise Busy(f"too many simultaneous changes to {kind} {id}; try again")

    def remember(self, scope: str, key_hash: str, value: str, ttl: int) -> str | None:
        """Store ``value`` under an idempotency key unless one is there; return the existing one."""
        existing = self._idempotent_put(keys=[self.idempotency_key(scope, key_hash)], args=[value, ttl])
        return existing.decode() if isinstance(existing, bytes) else existing

    def replace(self, scope: str, key_hash: str, value: str, ttl: int) -> None:
        self.redis.set(self.idempotency_key(scope, key_hash), value, ex=ttl)

    def forget(self, scope: str, key_hash: str) -> None:
        self.redis.delete(self.idempotency_key(scope, key_hash))

    def ping(self) -> bool:
        return bool(self.redis.ping())


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
