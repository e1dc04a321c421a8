"""The Redis store: it owns every key the referee writes and every atomic update.

Layout (``P`` is the configured key prefix, ``K`` the kind: ``gops``, ``gofo``):

* ``P:K:{ID}`` – a hash with ``version`` (an integer, +1 per applied change) and ``doc`` (the JSON
  document: engine state, token hashes, timestamps) — once the game is over, an archive of the
  document *and* the log instead (:mod:`service.storage.archive`);
* ``P:K:{ID}:log`` – a list of JSON transcript entries, one per applied change (gone once the game
  is over and archived: its entries are in the archive);
* ``P:K:{ID}:events`` – the pub/sub channel a change is announced on (live updates);
* ``P:K:{ID}:idem:HASH`` – a move's Idempotency-Key record (the encrypted first answer), written by
  the same script as the move it answers;
* ``P:idem:SCOPE:HASH`` – a create's Idempotency-Key record;
* ``P:rl:{CLIENT}:NAME`` – a client's rate-limit counter (service.api.ratelimit);
* ``P:active:K`` – a sorted set of unfinished games, scored by their untouched expiry
  (``referee_games_active``; written at creation and at the end only, never per move).

Apps' keys and their indexes of games are :mod:`service.storage.apps`'s (``P:apps``, ``P:appkey:*``,
``P:app:{NAME}:*``).

``{ID}`` is a Redis Cluster hash tag, so every key of one game lives in one slot and one script may
touch them together.

A move is a :meth:`fetch` (skipped on a record this worker kept: :meth:`latest`) and a :meth:`save`,
one compare-and-set script; its round trips: docs/architecture.md, "A move, from HTTP to Redis".
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import redis

from service.errors import Busy, NotFound
from service.ops import metrics
from service.storage import archive
from service.storage.cache import RecordCache
from service.storage.records import Change, Record, dump, load, record_from, text
from service.storage.redis_client import is_cluster
from service.storage.scripts import (ANSWERED, APPEND, CREATE, GONE, IDEMPOTENT_PUT, STALE, VETOED, Rider, SaveCall,
                                     StreamEntry, save_script)
from service.storage.sidelines import Sidelines
from service.storage.writes import Writes

__all__ = ["Change", "Record", "Rider", "Saved", "Store"]

logger = logging.getLogger(__name__)


@dataclass
class Saved:
    """What :meth:`Store.save` did: ``code`` is the new version (> 0, ``record`` is what is now
    stored) or one of :data:`~service.storage.scripts.GONE`, ``STALE`` (``current``: the game as it
    is now, when the save could read it), ``ANSWERED`` (``answered``: the answer already stored
    under the move's Idempotency-Key) or ``VETOED`` (by the save's rider: nothing stored)."""

    code: int
    record: Record | None = None
    current: Record | None = None
    answered: str | None = None


@dataclass(frozen=True)
class StoredAnswer:
    """An idempotent move's answer, sealed (service.api.idempotency), stored by the move's own save."""

    key_hash: str
    value: str
    ttl: int


class Store:
    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "referee",
        finished_ttl: int = 7 * 86400,
        idle_ttl: int = 30 * 86400,
        sharded_pubsub: bool = False,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 500,
        read_cache_size: int = 256,
        latest_size: int = 256,
    ) -> None:
        # A saved change is announced on :meth:`channel` with SPUBLISH (sharded pub/sub: the channel
        # lives on the game's shard) when True, else PUBLISH; service.storage.live subscribes to match.
        self.sharded_pubsub = sharded_pubsub
        self.redis = client
        self.cluster = is_cluster(client)  # decided once: each isinstance against RedisCluster is slow
        self.prefix = prefix
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self.writes = Writes(client, self.cluster, wait_replicas, wait_timeout_ms)
        # A cluster's bookkeeping on other shards than the game's (rate-limit counters, the active
        # set): bounded and fail-fast, so a failing shard delays no move of a game on another.
        self.sidelines = Sidelines(client) if self.cluster else None
        self.cache = RecordCache(read_cache_size, latest_size)
        self._create = client.register_script(CREATE)
        self._rider_lua: str | None = None  # what a save's rider runs (:meth:`carry`)
        self._save = self._save_script(None)
        self._idempotent_put = client.register_script(IDEMPOTENT_PUT)
        self._append = client.register_script(APPEND)

    @property
    def wait_replicas(self) -> int:
        return self.writes.wait_replicas

    @property
    def carries_riders(self) -> bool:
        """Whether a read or a save may carry a :class:`Rider` in its own round trip: on one server
        only (on a cluster the rider's keys may be on another shard than the game's)."""
        return not self.cluster

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

    def answer_key(self, kind: str, id: str, key_hash: str) -> str:
        """A move's idempotency record: under the game's hash tag, for the save script."""
        return f"{self.key(kind, id)}:idem:{key_hash}"

    def active_key(self, kind: str) -> str:
        """A sorted set of the kind's unfinished games, scored by when they would expire untouched."""
        return f"{self.prefix}:active:{kind}"

    # ----------------------------------------------------------- a game

    def create(self, kind: str, id: str, doc: dict[str, Any], log: list[dict[str, Any]],
               entry: StreamEntry | None = None) -> Record:
        # The new game joins the active set in the same script where one script may touch both
        # (one server; on a cluster the set is on another shard: a ZADD after).
        joins = not self.cluster
        keys = [self.key(kind, id), self.log_key(kind, id)] + ([self.active_key(kind)] if joins else [])
        stored = dump(doc)
        created = self.writes.run(self._create, keys, [stored, self.idle_ttl, id if joins else "",
                                                       time.time() + self.idle_ttl, *(dump(e) for e in log)])
        if not created:
            raise Busy(f"{kind} {id} already exists", code="id_collision")
        self.cache.note(kind, id, 1, stored)
        if entry is not None:
            self.append(entry, 1)
        if not joins:
            self._track_active(kind, id, finished=False)
        else:
            metrics.GAMES_CREATED.labels(kind=kind).inc()
            if int(created) == 2:
                metrics.STORE_ERRORS.labels(kind="active").inc()
                logger.warning("active-game bookkeeping failed for %s %s", kind, id)
        return Record(kind, id, 1, doc)

    def fetch(self, kind: str, id: str, shared: bool = False, rider: Rider | None = None) -> Record | None:
        """The game's record, or None when there is no such game (:func:`not_found` says so).
        ``rider``: sent first in the same round trip (:meth:`_riding`).

        ``shared``: for a request that only reads the game (a view) — the record every read of the
        same stored bytes shares (:meth:`RecordCache.shared`: nothing may change it); else a record
        of the caller's own, which a move applies to."""
        version, stored = self._riding(rider, "HMGET", self.key(kind, id), "version", "doc")
        if version is None or stored is None:
            return None
        version = int(version)
        self.cache.note(kind, id, version, None if archive.is_archive(stored) else stored)
        return self.cache.shared(kind, id, version, stored) if shared else record_from(kind, id, version, stored)

    def load(self, kind: str, id: str) -> Record:
        """The game's record, the caller's own."""
        return self.fetch(kind, id) or not_found(kind, id)

    def read(self, kind: str, id: str) -> Record:
        """The game's record for a request that only reads it: a shared record (:meth:`fetch`)."""
        return self.fetch(kind, id, shared=True) or not_found(kind, id)

    def latest(self, kind: str, id: str) -> Record | None:
        """The newest record of the game this worker saved or read, if any: a guess a move may be
        tried on without a fetch (:meth:`RecordCache.latest`). The save checks it is current."""
        return self.cache.latest(kind, id)

    def keep(self, record: Record) -> None:
        """Leave a record :meth:`save` stored for the next move on the game here (its answer is sent)."""
        self.cache.keep(record)

    def drop_latest(self, kind: str, id: str) -> None:
        self.cache.forget(kind, id)

    def transcript(self, kind: str, id: str, record: Record | None = None) -> list[dict[str, Any]]:
        """The game's log entries. ``record``: the caller's record, whose archive (a finished game's)
        already holds them: no read then."""
        if record is not None and record.archived is not None:
            return [load(e) for e in record.archived]
        raw = self.redis.lrange(self.log_key(kind, id), 0, -1)
        if not raw:  # a stored game's log is never empty: the game was archived (or expired) since
            try:
                record = self.load(kind, id)
            except NotFound:
                return []
            raw = record.archived if record.archived is not None else []
        return [load(e) for e in raw]

    def save(self, record: Record, change: Change, answer: StoredAnswer | None = None,
             entry: StreamEntry | None = None, rider: Rider | None = None) -> Saved:
        """Store ``change`` on top of ``record`` if ``record`` is still the game as stored (its version,
        and for a kept record its very bytes), with ``answer`` in the same step; see :class:`Saved`.

        ``entry``: an entry for an app's stream, added with the new version: by the save script on
        one server (announced there too), else right after it (:meth:`append`).

        ``rider`` (:attr:`carries_riders`): run first by the save script itself, and nothing is
        stored if it vetoes the save."""
        kind, id = record.kind, record.id
        call = SaveCall(
            game_key=self.key(kind, id),
            log_key=self.log_key(kind, id),
            version=record.version,
            doc=dump(change.doc),
            ttl=self.finished_ttl if change.finished else self.idle_ttl,
            # with WAIT the new version is announced after it (below), never before it is durable
            channel="" if self.wait_replicas else self.channel(kind, id),
            entries=[dump(e) for e in change.log],
            fingerprint=record.fingerprint or "",
            rider=rider,
        )
        if answer is not None:
            call.answer_key = self.answer_key(kind, id, answer.key_hash)
            call.answer_value, call.answer_ttl = answer.value, answer.ttl
        if change.finished and not self.cluster:  # the game leaves the active set in the same step
            call.active_key, call.active_member = self.active_key(kind), id
        if entry is not None and not self.cluster and not self.wait_replicas:  # (else announced after the WAIT)
            call.entry, entry = entry, None
        archived = None
        if change.finished or record.archived is not None:
            # Over: read-only from now on, so the document and the whole log become one archive —
            # the one extra read of a game's life, on its final move (the script checks the log is
            # still the one read; its version is checked anyway).
            if record.archived is not None:
                logged, call.archived_from = record.archived, 0
            else:
                logged = self.redis.lrange(self.log_key(kind, id), 0, -1)
                call.archived_from = len(logged)
            archived = [*logged, *call.entries]
            call.doc, call.entries, call.ttl = archive.pack(call.doc, archived), [], self.finished_ttl
        if rider is not None and rider.lua != self._rider_lua:
            raise ValueError("a save's rider must run the Lua the store carries (Store.carry)")
        reply = self.writes.run(self._save, call.keys(), call.args())
        code, extra = int(reply[0]), reply[1]
        if rider is not None:  # a string: the error that kept the rider from running
            rider.reply = redis.exceptions.ResponseError(text(reply[2])) if isinstance(reply[2], (bytes, str)) else reply[2]
        if code == ANSWERED:
            return Saved(code, answered=text(extra))
        if code == GONE:
            self.cache.forget(kind, id)
            return Saved(code)
        if code == STALE:
            current = None
            if len(reply) > 3 and reply[3] is not None and int(extra) > 0:
                current = record_from(kind, id, int(extra), reply[3])
                # the game as it is now, even at a lower version than the one kept here (Redis lost
                # acknowledged writes): it replaces whatever is kept
                self.cache.note(kind, id, int(extra), None if current.archived is not None else reply[3], current=True)
            return Saved(code, current=current)
        if code == VETOED:
            return Saved(code)
        if int(extra) == 1:
            metrics.GAMES_FINISHED.labels(kind=kind).inc()
        elif int(extra) == -1:
            metrics.STORE_ERRORS.labels(kind="active").inc()
        if change.finished and self.cluster:
            self._track_active(kind, id, finished=True)
        if self.wait_replicas:
            self.writes.announce(self.channel(kind, id), code, self.sharded_pubsub)
        if entry is not None:
            self.append(entry, code)
        self.cache.note(kind, id, code, None if archived is not None else call.doc)
        return Saved(code, record=Record(kind, id, code, change.doc, archived, change.state))

    def carry(self, rider_lua: str) -> None:
        """Let saves carry riders of this Lua (:class:`Rider`): one save script, with or without a
        rider, so a server loads one script only."""
        self._rider_lua, self._save = rider_lua, self._save_script(rider_lua)

    def _save_script(self, rider_lua: str | None) -> Any:
        source = save_script(rider_lua)
        return self.redis.register_script(source.replace("'PUBLISH'", "'SPUBLISH'") if self.sharded_pubsub else source)

    def _riding(self, rider: Rider | None, *command: Any) -> Any:
        """``command``'s reply, with ``rider`` sent first in the same round trip (one pipeline);
        ``rider.reply`` is its reply, or the error it met (the caller decides what that means)."""
        if rider is None:
            return self.redis.execute_command(*command)
        pipe = self.redis.pipeline(transaction=False)
        pipe.execute_command(*rider.command())
        pipe.execute_command(*command)
        rider.reply, reply = pipe.execute(raise_on_error=False)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def append(self, entry: StreamEntry, version: int) -> None:
        """Add ``entry`` (at ``version``) to its stream on its own, after the game's write (a create,
        or a save on a cluster or with WAIT). If that fails the game's change stands and the stream
        lacks it: counted (``app_events``) and logged, never the request's failure."""
        args = [entry.maxlen, entry.channel, "SPUBLISH" if self.sharded_pubsub else "PUBLISH",
                version, entry.game, entry.id, entry.change, entry.actions]
        try:
            self.writes.run(self._append, [entry.stream], args)
        except redis.exceptions.RedisError as error:
            metrics.STORE_ERRORS.labels(kind="app_events").inc()
            logger.warning("the %s of %s %s v%s is not on %s: %s", entry.change, entry.game, entry.id, version,
                           entry.stream, error)

    # ------------------------------------------------------ idempotency records

    def remember(self, scope: str, key_hash: str, value: str, ttl: int) -> str | None:
        """Store ``value`` under an idempotency key unless one is there; return the existing one."""
        return self._put_once(self.idempotency_key(scope, key_hash), value, ttl)

    def replace(self, scope: str, key_hash: str, value: str, ttl: int) -> None:
        key = self.idempotency_key(scope, key_hash)
        if self.wait_replicas:
            self.writes.replicated(key, ("SET", key, value, "EX", ttl))
        else:
            self.redis.set(key, value, ex=ttl)

    def forget(self, scope: str, key_hash: str) -> None:
        self.redis.delete(self.idempotency_key(scope, key_hash))

    def recall_answer(self, kind: str, id: str, key_hash: str, rider: Rider | None = None) -> str | None:
        """A move's stored idempotent answer, if any (``rider``: :meth:`_riding`)."""
        value = self._riding(rider, "GET", self.answer_key(kind, id, key_hash))
        return None if value is None else text(value)

    def remember_answer(self, kind: str, id: str, key_hash: str, value: str, ttl: int) -> str | None:
        """Store the answer of a move that changed nothing, unless one is there; return that one."""
        return self._put_once(self.answer_key(kind, id, key_hash), value, ttl)

    def _put_once(self, key: str, value: str, ttl: int) -> str | None:
        existing = self.writes.run(self._idempotent_put, [key], [value, ttl])
        return None if existing is None else text(existing)

    # ------------------------------------------------------ active games

    def _track_active(self, kind: str, id: str, finished: bool) -> None:
        """Bookkeeping for ``referee_games_active`` on a cluster, best effort: never fails the request.
        Two writes per game (created, finished), none per move; the set lives on one shard, usually
        not the game's, so it is written through :attr:`sidelines`."""
        key = self.active_key(kind)
        if not finished:
            metrics.GAMES_CREATED.labels(kind=kind).inc()  # counted even if the set below fails
        command = ("ZREM", key, id) if finished else ("ZADD", key, time.time() + self.idle_ttl, id)
        try:
            changed = self.sidelines.execute("active", key, *command)
            if finished and changed:
                metrics.GAMES_FINISHED.labels(kind=kind).inc()
        except redis.exceptions.RedisError as error:
            metrics.STORE_ERRORS.labels(kind="active").inc()
            logger.warning("active-game bookkeeping failed for %s %s: %s", kind, id, error)

    def active_count(self, kind: str) -> int:
        """Games of ``kind`` created within ``idle_ttl`` and not finished (drops the older ones)."""
        key = self.active_key(kind)
        self.redis.zremrangebyscore(key, "-inf", time.time())
        return int(self.redis.zcard(key))

    def summaries(self, games: list[tuple[str, str]]) -> list[tuple[int, bool] | None]:
        """For each (kind, id): its version and whether it is over (archived), or None when it is not
        stored (expired); one pipeline (on a cluster, one round trip per shard)."""
        if not games:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for kind, id in games:
            pipe.hmget(self.key(kind, id), ["version", "doc"])
        return [None if version is None or stored is None else (int(version), archive.is_archive(stored))
                for version, stored in pipe.execute()]

    def ping(self) -> bool:
        return bool(self.redis.ping())


def not_found(kind: str, id: str) -> Record:
    """Raise the 404 of a game that is not stored (never created, or expired)."""
    raise NotFound(f"no {kind} game with id {id!r} (never created, or expired)", code="game_not_found")

