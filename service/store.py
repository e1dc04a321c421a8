"""The Redis store: it owns every key the referee writes and every atomic update.

Layout (``P`` is the configured key prefix, ``K`` the kind: ``gops``, ``gofo``):

* ``P:K:{ID}`` – a hash with ``version`` (an integer, +1 per applied change) and
  ``doc`` (the JSON document: engine state, token hashes, timestamps) — once the game is over,
  an archive of the document *and* the log instead (:mod:`service.archive`);
* ``P:K:{ID}:log`` – a list of JSON transcript entries, one per applied change (gone once the
  game is over and archived: its entries are in the archive);
* ``P:K:{ID}:events`` – the pub/sub channel a change is announced on (live updates);
* ``P:idem:SCOPE:HASH`` – a create's Idempotency-Key record (the encrypted first answer);
* ``P:K:{ID}:idem:HASH`` – a move's Idempotency-Key record (the encrypted first answer), written
  by the same Lua step as the move it answers (:class:`Answer`);
* ``P:rl:{CLIENT}:NAME`` – a client's rate-limit counter (service.ratelimit runs the Lua);
* ``P:active:K`` – a sorted set of unfinished games, scored by their untouched expiry
  (``referee_games_active``; written at creation and at the end only, never per move).

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

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import orjson
import redis

from . import archive, metrics
from .errors import Busy, NotFound, StaleVersion
from .redis_client import is_cluster, one_round_trip

log = logging.getLogger(__name__)

# KEYS: the game, its log, [the active set when ARGV[3] is not empty].  ARGV: 1 doc, 2 ttl,
# 3 the game's member of the active set to add ('' on a cluster, where that set is in another
# slot: a ZADD after), 4 its score, 5... log entries.  Returns 0 (the id is taken), 1 (stored)
# or 2 (stored, but the active set refused the ZADD: it is bookkeeping, pcall, so a failure there
# never fails the create).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'doc', ARGV[1])
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
if #ARGV >= 5 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
if ARGV[3] ~= '' then
  local added = redis.pcall('ZADD', KEYS[3], ARGV[4], ARGV[3])
  if type(added) ~= 'number' then return 2 end
end
return 1
"""

# KEYS: the game, its log, [the answer's key when ARGV[5] is not empty], [the active set when
# ARGV[7] is not empty].  ARGV: 1 version, 2 doc, 3 ttl, 4 channel, 5 answer, 6 its ttl,
# 7 the game's member of the active set to remove (a finishing change; one server only: on a
# cluster that set is in another slot), 8 '' or, when ARGV[2] is an archive of the document and
# the whole log, the length of the log it was made from (checked, then the log is deleted),
# 9... log entries.  Returns the new version, or {version, removed} when it removed the game from
# the active set; -1 / -2 / {-3, answer}.
_SAVE = """
local answer = nil
if ARGV[5] ~= '' then answer = KEYS[3] end
if answer then
  local answered = redis.call('GET', answer)
  if answered then return {-3, answered} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return -1 end
if current ~= ARGV[1] then return -2 end
local archived = ARGV[8] ~= ''
if archived and redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[8]) then return -2 end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'version', version, 'doc', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if archived then
  redis.call('DEL', KEYS[2])
else
  for i = 9, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if answer then redis.call('SET', answer, ARGV[5], 'EX', ARGV[6]) end
redis.call('PUBLISH', ARGV[4], version)
if ARGV[7] ~= '' then
  local removed = redis.pcall('ZREM', KEYS[#KEYS], ARGV[7])
  if type(removed) ~= 'number' then removed = -1 end
  return {version, removed}
end
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
    #: A finished game's log entries (the stored JSON bytes, restored from its archive when first
    #: read: :class:`service.archive.Log`); None while the log is a list of its own.
    archived: archive.Log | list[bytes] | None = None
    #: The game's state object of ``doc`` when the caller that made the record has it
    #: (:attr:`Change.state`); None when the record was read from Redis.  On a shared record
    #: (:meth:`Store.read`) the first reader that parses the state leaves it here for the others.
    state: Any = None
    #: Made by :meth:`Store.read`: other reads of the same stored bytes get this same object, so
    #: nothing may change it or anything it holds (its doc, its state).
    shared: bool = False
    #: A shared record's answers to views, serialized once (:func:`service.api.common.shared_view`):
    #: key (the seat and whatever of the clock the view shows) -> (ETag tag, JSON body). None on a
    #: record that is not shared (a move's own, or any record with the read cache off).
    views: dict[Any, tuple[str, bytes]] | None = None


@dataclass
class Answer:
    """An idempotent move's answer, stored by the very save that applies the move.

    ``render`` gives the value to store (the encrypted response) for the record the save would
    store; the key (``Store.answer_key``) shares the game's hash tag, so one Lua step writes
    both: a move is never applied without its answer, nor answered without being applied.
    """

    key_hash: str
    render: Callable[[Record], str]
    ttl: int


class AlreadyAnswered(Exception):
    """The save found an answer under its key: a request with the same key applied first."""

    def __init__(self, value: str) -> None:
        super().__init__("already answered")
        self.value = value


@dataclass
class Change:
    """What a transition wants stored: the new document and its transcript entries."""

    doc: dict[str, Any]
    log: list[dict[str, Any]]
    finished: bool = False
    #: The game's state object ``doc`` was written from, when the transition has it (opaque here:
    #: never stored, never read by the store). The saved :class:`Record` carries it on, so the
    #: answer's view is made from it instead of parsing the new document again.
    state: Any = None


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
        wait_replicas: int = 0,
        wait_timeout_ms: int = 500,
        read_cache_size: int = 256,
    ) -> None:
        if sharded_pubsub is not None:
            self.sharded_pubsub = sharded_pubsub
        self.redis = client
        self.prefix = prefix
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        # Durability on failover: after each write, WAIT for this many replicas (0: don't).
        self.wait_replicas = max(0, int(wait_replicas))
        self.wait_timeout_ms = max(1, int(wait_timeout_ms))  # WAIT n 0 would block forever
        self._create = client.register_script(_CREATE)
        self._save = client.register_script(_SAVE.replace("'PUBLISH'", "'SPUBLISH'") if self.sharded_pubsub else _SAVE)
        self._idempotent_put = client.register_script(_IDEMPOTENT_PUT)
        # Store.read: stored document bytes -> the shared Record parsed from them (oldest first).
        self.read_cache_size = max(0, int(read_cache_size))
        self._read_cache: dict[bytes, Record] = {}
        self._read_cache_lock = threading.Lock()

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

    # ----------------------------------------------------------- operations

    def create(self, kind: str, id: str, doc: dict[str, Any], log: list[dict[str, Any]]) -> Record:
        # The new game joins the active set in the same round trip, where one script may touch
        # both (one server; on a cluster the set is in another slot: a ZADD after).
        active = not is_cluster(self.redis)
        keys = [self.key(kind, id), self.log_key(kind, id)]
        if active:
            keys.append(self.active_key(kind))
        created = self._write(
            self._create,
            keys=keys,
            args=[_dump(doc), self.idle_ttl, id if active else "", time.time() + self.idle_ttl,
                  *(_dump(e) for e in log)],
        )
        if not created:
            raise Busy(f"{kind} {id} already exists", code="id_collision")
        if not active:
            self._track_active(kind, id, finished=False)
        else:
            metrics.GAMES_CREATED.labels(kind=kind).inc()
            if int(created) == 2:
                metrics.STORE_ERRORS.labels(kind="active").inc()
                logging.getLogger(__name__).warning("active-game bookkeeping failed for %s %s", kind, id)
        return Record(kind, id, 1, doc)

    #: Set by service.ratelimit: returns the current request's deferred rate-limit hit (an object
    #: with ``command()``, the hit as one command, and ``settle(reply)``), or None.  :meth:`load`
    #: sends it in the same round trip as its HMGET; every other operation settles it first
    #: (:meth:`_settle_deferred`), so nothing is written for a request the limiter refuses.
    deferred: Callable[[], Any] | None = None

    def _take_deferred(self) -> Any:
        return self.deferred() if self.deferred is not None else None

    def _settle_deferred(self) -> None:
        pending = self._take_deferred()
        if pending is not None:
            pending.run()

    def load(self, kind: str, id: str) -> Record:
        """The game's record, the caller's own: a move applies to it (and may change it)."""
        version, doc = self._fetch(kind, id)
        return self._record(kind, id, version, doc)

    def read(self, kind: str, id: str) -> Record:
        """The game's record for a request that only reads it (a view): a *shared* record.

        The same round trip as :meth:`load`; but a worker parses a stored document once, not once
        per read. Views are read far more often than games change (every phone at a table polls
        the table between two moves), and parsing the document and the game's state from it was
        ~8 % of a read's CPU. The record made from the stored bytes is kept (the last
        ``read_cache_size`` documents read) and handed to every later read of the very same
        bytes, with the state its first view parsed (:attr:`Record.state`). Keyed by the bytes
        themselves, it can never be stale: a game that changed is other bytes. Nothing may change
        a shared record (:attr:`Record.shared`); a move always gets its own (:meth:`load`). The
        record also keeps each view made of it, serialized (:attr:`Record.views`), for the next
        read of the same view: :func:`service.api.common.shared_view`. Only views actually read
        are kept: the public's and each seat's, a few KB each (two for a seat whose deadline
        passed), so at the default size some tens of MB per worker in the worst case.
        """
        version, doc = self._fetch(kind, id)
        if not self.read_cache_size:
            return self._record(kind, id, version, doc)
        cached = self._read_cache.get(doc)
        if cached is not None and cached.version == version and cached.id == id and cached.kind == kind:
            return cached
        record = self._record(kind, id, version, doc)
        record.shared, record.views = True, {}
        with self._read_cache_lock:
            cache = self._read_cache
            cache.pop(doc, None)
            cache[doc] = record
            while len(cache) > self.read_cache_size:
                del cache[next(iter(cache))]
        return record

    def _fetch(self, kind: str, id: str) -> tuple[int, bytes]:
        """The stored (version, document bytes) of a game; NotFound when there is none."""
        key = self.key(kind, id)
        pending = self._take_deferred()
        if pending is None:
            version, doc = self.redis.hmget(key, ["version", "doc"])
        else:  # the limiter's hit and this read: one round trip (never on a cluster: ratelimit)
            hit, read = one_round_trip(self.redis, pending.command(), ("HMGET", key, "version", "doc"))
            pending.settle(hit)  # raises the 429 when over a limit
            if isinstance(read, Exception):
                raise read
            version, doc = read
        if version is None or doc is None:
            raise NotFound(f"no {kind} game with id {id!r} (never created, or expired)", code="game_not_found")
        return int(version), doc

    @staticmethod
    def _record(kind: str, id: str, version: int, doc: bytes) -> Record:
        if archive.is_archive(doc):
            opened, entries = archive.open_archive(doc)
            return Record(kind, id, version, _load(opened), entries)
        return Record(kind, id, version, _load(doc))

    def transcript(self, kind: str, id: str, record: Record | None = None) -> list[dict[str, Any]]:
        """The game's log entries.  ``record``: the caller's load, whose archive (a finished game's)
        already holds them: no read then."""
        self._settle_deferred()
        if record is not None and record.archived is not None:
            return [_load(e) for e in record.archived]
        raw = self.redis.lrange(self.log_key(kind, id), 0, -1)
        if not raw:  # a stored game's log is never empty: the game was archived (or expired) since
            try:
                record = self.load(kind, id)
            except NotFound:
                return []
            raw = record.archived if record.archived is not None else []
        return [_load(e) for e in raw]

    def save(self, record: Record, change: Change, answer: Answer | None = None) -> Record:
        """Store ``change`` on top of ``record``; StaleVersion if someone else was first.

        With ``answer``, its record is written in the same step; AlreadyAnswered (nothing
        stored) when that key already holds one.
        """
        ttl = self.finished_ttl if change.finished else self.idle_ttl
        keys = [self.key(record.kind, record.id), self.log_key(record.kind, record.id)]
        # The document is written out before the answer is rendered: the answer's view is made
        # from change.state, which shares its never-changed records with change.doc.
        doc, entries, archived_from = _dump(change.doc), [_dump(e) for e in change.log], ""
        answered: list[Any] = ["", 0]
        if answer is not None:
            keys.append(self.answer_key(record.kind, record.id, answer.key_hash))
            answered = [answer.render(Record(record.kind, record.id, record.version + 1, change.doc,
                                             state=change.state)), answer.ttl]
        # The end of a game leaves the active set in the same round trip, where one script may
        # touch both (one server; on a cluster the set is in another slot: a ZREM after).
        inactive = change.finished and not is_cluster(self.redis)
        if inactive:
            keys.append(self.active_key(record.kind))
        if change.finished or record.archived is not None:
            # Over: read-only from now on, so the document and the whole log become one archive
            # (service.archive) — the one extra read of a game's life, on its final move.  The
            # script checks the log is still the one read (its version is checked anyway).
            if record.archived is not None:
                logged, archived_from = record.archived, 0
            else:
                self._settle_deferred()  # before any other operation, as always
                logged = self.redis.lrange(self.log_key(record.kind, record.id), 0, -1)
                archived_from = len(logged)
            kept = [*logged, *entries]
            doc, entries, ttl = archive.pack(doc, kept), [], self.finished_ttl
        result = self._write(
            self._save,
            keys=keys,
            args=[
                record.version,
                doc,
                ttl,
                self.channel(record.kind, record.id),
                *answered,
                record.id if inactive else "",
                archived_from,
                *entries,
            ],
        )
        if isinstance(result, list):
            if int(result[0]) == -3:
                raise AlreadyAnswered(_text(result[1]))
            result, removed = result
            if int(removed) == 1:
                metrics.GAMES_FINISHED.labels(kind=record.kind).inc()
            elif int(removed) < 0:
                metrics.STORE_ERRORS.labels(kind="active").inc()
        if result == -1:
            raise NotFound(f"{record.kind} {record.id} expired", code="game_not_found")
        if result == -2:
            raise StaleVersion(f"version {record.version} is no longer current")
        if change.finished and not inactive:
            self._track_active(record.kind, record.id, finished=True)
        return Record(record.kind, record.id, int(result), change.doc, kept if archived_from != "" else None,
                      change.state)

    def transact(
        self,
        kind: str,
        id: str,
        transition: Callable[[Record], Change | None],
        expected_version: int | None = None,
        attempts: int = 50,
        pinned: bool = False,
        answer: Answer | None = None,
        first: Record | None = None,
    ) -> tuple[Record, bool]:
        """Load, apply ``transition``, save; retry when another writer was first.

        ``transition`` gets the current record and returns a :class:`Change`, or
        ``None`` when the request changes nothing (an exact repeat).  It raises
        a RefereeError to refuse; nothing is stored then.  With
        ``expected_version`` the caller insists on acting on that version:
        any other current version is a StaleVersion error, never a retry.
        ``pinned``: the transition itself checks the version it was decided on, so
        a lost race is not retried either (the retry would refuse it anyway).

        ``answer``: stored with the change, atomically (:meth:`save`).

        ``first``: a record the caller has just loaded, used for the first attempt instead of
        loading again (a lost race reloads, as always).

        Returns the record now stored and whether this call changed it.
        """
        for attempt in range(attempts):
            if attempt == 0 and first is not None:
                record = first  # the caller's load (it authorized on it): no second read
            else:
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
                return self.save(record, change, answer), True
            except StaleVersion:
                if expected_version is not None:
                    raise
                if pinned:  # re-run: the transition refuses with the current version
                    continue
                time.sleep(min(0.001 * (attempt + 1), 0.02))
        raise Busy(f"too many simultaneous changes to {kind} {id}; try again")

    def remember(self, scope: str, key_hash: str, value: str, ttl: int) -> str | None:
        """Store ``value`` under an idempotency key unless one is there; return the existing one."""
        existing = self._write(self._idempotent_put, keys=[self.idempotency_key(scope, key_hash)], args=[value, ttl])
        return existing.decode() if isinstance(existing, bytes) else existing

    def replace(self, scope: str, key_hash: str, value: str, ttl: int) -> None:
        self._settle_deferred()
        key = self.idempotency_key(scope, key_hash)
        if self.wait_replicas:
            self._replicated(key, [("SET", key, value, "EX", ttl)])
        else:
            self.redis.set(key, value, ex=ttl)

    def forget(self, scope: str, key_hash: str) -> None:
        self._settle_deferred()
        self.redis.delete(self.idempotency_key(scope, key_hash))

    def recall_answer(self, kind: str, id: str, key_hash: str) -> str | None:
        """A move's stored idempotent answer, if any."""
        self._settle_deferred()
        value = self.redis.get(self.answer_key(kind, id, key_hash))
        return None if value is None else _text(value)

    def remember_answer(self, kind: str, id: str, key_hash: str, value: str, ttl: int) -> str | None:
        """Store the answer of a move that changed nothing, unless one is there; return that one."""
        existing = self._write(self._idempotent_put, keys=[self.answer_key(kind, id, key_hash)], args=[value, ttl])
        return None if existing is None else _text(existing)

    # ------------------------------------------------------ active games

    def active_key(self, kind: str) -> str:
        """A sorted set of the kind's unfinished games, scored by when they would expire untouched."""
        return f"{self.prefix}:active:{kind}"

    def _track_active(self, kind: str, id: str, finished: bool) -> None:
        """Bookkeeping for ``referee_games_active``: best effort, never fails the request.

        Two writes per game lifetime (created, finished), none per move, so the set is no
        hot key even on a cluster: a game counts as active from its creation until it
        finishes or until ``idle_ttl`` after its creation, whichever is first.
        """
        try:
            if finished:
                if self.redis.zrem(self.active_key(kind), id):
                    metrics.GAMES_FINISHED.labels(kind=kind).inc()
            else:
                metrics.GAMES_CREATED.labels(kind=kind).inc()  # counted even if the set below fails
                self.redis.zadd(self.active_key(kind), {id: time.time() + self.idle_ttl})
        except redis.exceptions.RedisError as error:
            metrics.STORE_ERRORS.labels(kind="active").inc()
            log.warning("active-game bookkeeping failed for %s %s: %s", kind, id, error)

    def active_count(self, kind: str) -> int:
        """Games of ``kind`` created within ``idle_ttl`` and not finished (drops the older ones)."""
        key = self.active_key(kind)
        now = time.time()
        self.redis.zremrangebyscore(key, "-inf", now)
        return int(self.redis.zcard(key))

    # ----------------------------------------------------------- durability

    def _write(self, script, keys: list[str], args: list[Any]):
        """Run a writing script; with ``wait_replicas`` also WAIT for replicas before returning."""
        self._settle_deferred()
        if not self.wait_replicas and is_cluster(self.redis):
            return script(keys=keys, args=args)
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        if self.wait_replicas:
            return self._replicated(keys[0], [command], script=script.script)
        # One server: the EVALSHA as one_round_trip sends it (~40 % fewer instructions than
        # through redis-py's command path), loading the script where the server has lost it.
        (reply,) = one_round_trip(self.redis, command)
        if isinstance(reply, redis.exceptions.NoScriptError):  # a restarted server: load it, run again
            self.redis.script_load(script.script)
            (reply,) = one_round_trip(self.redis, command)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def _node_client(self, key: str) -> redis.Redis:
        """The client of the server that holds ``key`` (the primary of its slot on a cluster)."""
        if not is_cluster(self.redis):
            return self.redis
        return self.redis.get_redis_connection(self.redis.get_node_from_key(key))

    def _client_at(self, host: str, port: int) -> redis.Redis:
        node = self.redis.get_node(host=host, port=port)
        if node is None:  # a node the slot map does not list yet
            self._refresh_topology()
            node = self.redis.get_node(host=host, port=port)
        if node is None:
            raise redis.exceptions.ClusterError(f"ASK redirect to an unknown node {host}:{port}")
        return self.redis.get_redis_connection(node)

    def _replicated(self, key: str, commands: list[tuple], script: str | None = None) -> Any:
        """Send ``commands`` then ``WAIT n timeout`` on one connection; the first command's reply.

        WAIT counts the replicas that have every write made *on this connection*, so the
        commands and the WAIT share a pipeline to the primary of ``key``'s slot.  On a cluster
        a MOVED / TRYAGAIN / CLUSTERDOWN reply (the slot moved, a failover is under way) means
        nothing ran: the topology is refreshed and the commands are sent again; an ASK reply (the
        slot is being migrated and these keys are on the importing node) sends them there, each
        after ASKING.  A reply from
        fewer replicas than asked (none reachable within the timeout) is counted
        (``referee_store_unreplicated_writes_total``) and logged, and the write stands: the
        game stays playable on a shard that lost its replica; for "refuse instead", run the
        servers with ``min-replicas-to-write 1``.  ``script``: the source of the EVALSHA sent, loaded
        on the node that answers NOSCRIPT (a new primary, an importing node) before sending again.
        """
        retryable = (redis.exceptions.TryAgainError, redis.exceptions.ClusterDownError)
        asked: tuple[str, int] | None = None  # an ASK redirect: the slot is migrating to that node
        for attempt in range(4):
            client = self._node_client(key) if asked is None else self._client_at(*asked)
            pipe = client.pipeline(transaction=False)
            for command in commands:
                if asked is not None:
                    pipe.execute_command("ASKING")  # valid for the next command only
                pipe.execute_command(*command)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
            try:
                replies = pipe.execute(raise_on_error=False)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                self._refresh_topology()
                raise
            if asked is not None:
                replies = [reply for i, reply in enumerate(replies[:-1]) if i % 2 == 1] + replies[-1:]
            first, acked = replies[0], replies[-1]
            if isinstance(first, redis.exceptions.NoScriptError) and script is not None and attempt < 3:
                client.script_load(script)  # not run: load it on the node that answered, run again
                continue
            if is_cluster(self.redis) and attempt < 3:
                if isinstance(first, redis.exceptions.AskError) and not isinstance(first, redis.exceptions.MovedError):
                    # The slot is being migrated and the keys are not (or no longer) here: this
                    # write goes to the importing node, announced with ASKING; the slot map stays.
                    asked = (first.host, first.port)
                    continue
                if isinstance(first, (*retryable, redis.exceptions.MovedError)):  # MOVED: the slot map changed
                    asked = None
                    self._refresh_topology()
                    time.sleep(0.05 * (attempt + 1))
                    continue
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            if int(acked) < self.wait_replicas:
                metrics.UNREPLICATED_WRITES.inc()
                log.warning("write to %s acknowledged by %s of %s replicas within %s ms",
                            key, acked, self.wait_replicas, self.wait_timeout_ms)
            return first
        raise AssertionError("unreachable")  # pragma: no cover

    def _refresh_topology(self) -> None:
        if is_cluster(self.redis):
            try:
                self.redis.nodes_manager.initialize()
            except Exception as error:  # noqa: BLE001 - the next command refreshes again
                log.info("cluster topology refresh failed: %s", error)

    def ping(self) -> bool:
        return bool(self.redis.ping())


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


# Stored documents and log entries: compact JSON with sorted keys, as they have always been
# written, as UTF-8 bytes (orjson: a 6.5 KB Gops document is encoded 5x and parsed 3x faster
# than by the json module, and to the same bytes). The text may differ
# from json.dumps' in ways that decode to the same values (non-ASCII as UTF-8, not \u escapes;
# 1e-05 written 0.00001): stored JSON is read back only by _load, and a document written by the
# json module loads the same. Integer keys become strings, as json.dumps made them.
_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _dump(value: Any) -> bytes:
    return orjson.dumps(value, option=_DUMP_OPTIONS)


_load = orjson.loads
