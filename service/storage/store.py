"""The Redis store: it owns every key the referee writes and every atomic update.

Layout (``P`` is the configured key prefix, ``K`` the kind: ``gops``, ``gofo``):

* ``P:K:{ID}`` – a hash with ``version`` (an integer, +1 per applied change) and
  ``doc`` (the JSON document: engine state, token hashes, timestamps) — once the game is over,
  an archive of the document *and* the log instead (:mod:`service.storage.archive`);
* ``P:K:{ID}:log`` – a list of JSON transcript entries, one per applied change (gone once the
  game is over and archived: its entries are in the archive);
* ``P:K:{ID}:events`` – the pub/sub channel a change is announced on (live updates);
* ``P:idem:SCOPE:HASH`` – a create's Idempotency-Key record (the encrypted first answer);
* ``P:K:{ID}:idem:HASH`` – a move's Idempotency-Key record (the encrypted first answer), written
  by the same Lua step as the move it answers (:class:`Answer`);
* ``P:rl:{CLIENT}:NAME`` – a client's rate-limit counter (service.api.ratelimit runs the Lua);
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

A worker remembers the stored bytes of the games it last saved or read (:meth:`Store.latest`), so
a move on such a game skips the read: it is applied to that record, and the save's compare-and-set
is what tells whether the record was still current (if not, the save's reply carries the current
record, and the move is applied again to it). One round trip per move on the worker that made or
read the game's last change, two on any other.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import orjson
import redis

from service.storage import archive
from service.storage.sidelines import Sidelines
from service.ops import metrics
from service.errors import Busy, NotFound, StaleVersion
from service.storage.redis_client import is_cluster, one_round_trip

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

# A client's rate-limit hit (service.api.ratelimit): INCR + PEXPIRE each of ``n`` counters (``keys[k0]``
# on; their limit and window in ms at ``argv[a0]``, ``argv[a0 + 1]``, ...), atomically; stops at the
# first limit exceeded so a refused request is not also counted against the later limits.  Returns
# {count1, ms_left1, count2, ms_left2, ...} and whether a limit was exceeded.  REPL_NONE: the
# counters are neither written to the append-only file nor sent to replicas (service.api.ratelimit,
# "Counters are not durable"); what the script writes after it is replicated as usual.  The
# limiter's own script and a move's save (below) both run it: one definition.
RATE_HIT = """
local function rate_hit(keys, k0, n, argv, a0)
  redis.set_repl(redis.REPL_NONE)
  local out = {}
  local over = false
  for i = 0, n - 1 do
    local key = keys[k0 + i]
    local limit = tonumber(argv[a0 + 2 * i])
    local window = tonumber(argv[a0 + 2 * i + 1])
    local count = redis.call('INCR', key)
    local left = redis.call('PTTL', key)
    if left < 0 then
      redis.call('PEXPIRE', key, window)
      left = window
    end
    out[#out + 1] = count
    out[#out + 1] = left
    if count > limit then
      over = true
      break
    end
  end
  redis.set_repl(redis.REPL_ALL)
  return out, over
end
"""

# KEYS: the game, its log, [the answer's key when ARGV[5] is not empty], [the active set when
# ARGV[7] is not empty], [ARGV[10] rate-limit counters].  ARGV: 1 version, 2 doc, 3 ttl,
# 4 the channel to announce the new version on ('' when the caller announces it after its WAIT),
# 5 answer, 6 its ttl, 7 the game's member of the active set to remove (a finishing
# change; one server only: on a cluster that set is in another slot), 8 '' or, when ARGV[2] is an
# archive of the document and the whole log, the length of the log it was made from (checked, then
# the log is deleted), 9 '' or the SHA-1 (hex) of the document bytes the change was made on (a
# worker's kept record, Store.latest: checked as well as the version, since after Redis lost
# acknowledged writes a version number may come back with other content), 10 the number of
# rate-limit counters (the request's deferred hit, counted here first: service.api.ratelimit; 0 when
# it was sent before), 11... each counter's limit and window, then the log entries.
# Returns {code, extra, hit[, doc]}: code the new version and extra 1 / 0 / -1 when it removed the
# game from the active set / did not / could not (-9: not asked); -1 no game; -2 another change
# came first, or the stored document is not the one the change was made on (extra the current
# version, doc the current document; extra 0 when the log was not the one archived); -3 answered
# (extra the stored answer); -4 over a rate limit (nothing stored).  hit: the counters' replies
# ({} when there were none), or the error that kept them from being counted (a string: the
# limiter fails open).
_SAVE = RATE_HIT + """
local n = 3
local answer, active = nil, nil
if ARGV[5] ~= '' then answer = KEYS[n]; n = n + 1 end
if ARGV[7] ~= '' then active = KEYS[n]; n = n + 1 end
local counters = tonumber(ARGV[10])
local hit = {}
if counters > 0 then
  local ok, out, over = pcall(rate_hit, KEYS, n, counters, ARGV, 11)
  if not ok then
    pcall(redis.set_repl, redis.REPL_ALL)
    if type(out) == 'table' and out.err then hit = out.err else hit = tostring(out) end
  else
    hit = out
    if over then return {-4, 0, hit} end
  end
end
if answer then
  local answered = redis.call('GET', answer)
  if answered then return {-3, answered, hit} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {-1, 0, hit} end
if current ~= ARGV[1] then return {-2, tonumber(current), hit, redis.call('HGET', KEYS[1], 'doc')} end
if ARGV[9] ~= '' then
  local stored = redis.call('HGET', KEYS[1], 'doc')
  if not stored or redis.sha1hex(stored) ~= ARGV[9] then return {-2, tonumber(current), hit, stored} end
end
local archived = ARGV[8] ~= ''
if archived and redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[8]) then return {-2, 0, hit} end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'version', version, 'doc', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if archived then
  redis.call('DEL', KEYS[2])
else
  for i = 11 + 2 * counters, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if answer then redis.call('SET', answer, ARGV[5], 'EX', ARGV[6]) end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], version) end
local removed = -9
if active then
  removed = redis.pcall('ZREM', active, ARGV[7])
  if type(removed) ~= 'number' then removed = -1 end
end
return {version, removed, hit}
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
    #: read: :class:`service.storage.archive.Log`); None while the log is a list of its own.
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
    #: Made by :meth:`Store.save` (what it stored, as it stored it): the only records
    #: :meth:`Store.keep` takes.
    saved: bool = False
    #: The SHA-1 (hex) of the stored bytes this record was made from, when it is a worker's kept
    #: guess (:meth:`Store.latest`): a save on it checks the stored document is still those bytes,
    #: not only that the version number is still the same.
    fingerprint: str | None = None


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
    #: service.storage.live subscribes with ``SSUBSCRIBE`` or ``SUBSCRIBE`` to match: this is the one switch.
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
        latest_size: int = 256,
    ) -> None:
        if sharded_pubsub is not None:
            self.sharded_pubsub = sharded_pubsub
        self.redis = client
        # Decided once: redis-py's RedisCluster is a typing.Protocol, and an isinstance against it
        # costs ~0.5 µs (a move asked it up to 4 times).
        self.cluster = is_cluster(client)
        self.prefix = prefix
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        # Durability on failover: after each write, WAIT for this many replicas (0: don't).
        self.wait_replicas = max(0, int(wait_replicas))
        self.wait_timeout_ms = max(1, int(wait_timeout_ms))  # WAIT n 0 would block forever
        # (host, port) of a primary -> (replicas it had online, time.monotonic() of that count):
        # a shard with none online is written without a WAIT that could only time out.
        self._replicas_online: dict[tuple[str, int], tuple[int, float]] = {}
        # A cluster's bookkeeping on other shards (rate-limit counters, the active set): bounded
        # and fail-fast, so a failing shard delays no move of a game on another.
        self.sidelines = Sidelines(client) if self.cluster else None
        self._create = client.register_script(_CREATE)
        self._save = client.register_script(_SAVE.replace("'PUBLISH'", "'SPUBLISH'") if self.sharded_pubsub else _SAVE)
        self._idempotent_put = client.register_script(_IDEMPOTENT_PUT)
        # Store.read: stored document bytes -> the shared Record parsed from them (oldest first).
        self.read_cache_size = max(0, int(read_cache_size))
        self._read_cache: dict[bytes, Record] = {}
        self._read_cache_lock = threading.Lock()
        # Store.latest: (kind, id) -> [version, stored bytes, the record this worker saved there with
        # its state object, handed to one move only (Store.keep), or None].
        self.latest_size = max(0, int(latest_size))
        self._latest: dict[tuple[str, str], list[Any]] = {}

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
        active = not self.cluster
        keys = [self.key(kind, id), self.log_key(kind, id)]
        if active:
            keys.append(self.active_key(kind))
        stored = _dump(doc)
        created = self._write(
            self._create,
            keys=keys,
            args=[stored, self.idle_ttl, id if active else "", time.time() + self.idle_ttl,
                  *(_dump(e) for e in log)],
        )
        if not created:
            raise Busy(f"{kind} {id} already exists", code="id_collision")
        self._note(kind, id, 1, stored)
        if not active:
            self._track_active(kind, id, finished=False)
        else:
            metrics.GAMES_CREATED.labels(kind=kind).inc()
            if int(created) == 2:
                metrics.STORE_ERRORS.labels(kind="active").inc()
                logging.getLogger(__name__).warning("active-game bookkeeping failed for %s %s", kind, id)
        return Record(kind, id, 1, doc)

    #: Set by service.api.ratelimit: returns the current request's deferred rate-limit hit (an object
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
        self._note(kind, id, version, None if archive.is_archive(doc) else doc)
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
        self._note(kind, id, version, None if archive.is_archive(doc) else doc)
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

    def _read_log(self, kind: str, id: str) -> list[bytes]:
        """The game's log entries, with the request's deferred rate-limit hit in the same round trip
        (raising its 429 when over a limit) where it is still pending."""
        key = self.log_key(kind, id)
        pending = self._take_deferred()
        if pending is None:
            return self.redis.lrange(key, 0, -1)
        hit, logged = one_round_trip(self.redis, pending.command(), ("LRANGE", key, 0, -1))
        pending.settle(hit)
        if isinstance(logged, Exception):
            raise logged
        return logged

    @staticmethod
    def _record(kind: str, id: str, version: int, doc: bytes) -> Record:
        if archive.is_archive(doc):
            opened, entries = archive.open_archive(doc)
            return Record(kind, id, version, _load(opened), entries)
        return Record(kind, id, version, _load(doc))

    # ------------------------------------------------------------ the latest record

    def latest(self, kind: str, id: str) -> Record | None:
        """The newest record of the game this worker has saved or read, if it still has one: what a
        move may be tried on without reading the game first (one round trip instead of two).

        It may be stale (another worker, or another request here, has changed the game since), so
        it is only ever a guess: the save's compare-and-set on the version (:meth:`save`) refuses
        it when it is not current — the version, and the stored bytes too (:attr:`Record.fingerprint`:
        after a failover that lost acknowledged writes a version number may come back with other
        content) — and then hands back the current record in the same reply. A
        move must not take a refusal from it either (service.api.common.act tries once more on a
        record it reads). Each call returns a record of its own, nothing one move does to it can
        reach another: the record a move saved here with its state object (:meth:`keep`), to the
        first caller only, and the state is that caller's to change; else one parsed from the
        stored bytes, as :meth:`load` parses it (``state`` None). Bounded: the last
        ``latest_size`` games.
        """
        if not self.latest_size:
            return None
        with self._read_cache_lock:
            kept = self._latest.get((kind, id))
            if kept is None:
                return None
            version, doc, owned = kept
            kept[2] = None
        record = owned if owned is not None else self._record(kind, id, version, doc)
        record.fingerprint = hashlib.sha1(doc).hexdigest()
        return record

    def keep(self, record: Record) -> None:
        """Leave ``record``, which :meth:`save` returned and whose state object nothing will read or
        change any more (its answer is serialized), for the next move on the game here to apply to
        in place (:meth:`latest`): no parse of the document and the state per move. Only while it is
        still the version remembered as the game's latest."""
        if not record.saved or record.state is None or record.archived is not None:
            return
        with self._read_cache_lock:
            kept = self._latest.get((record.kind, record.id))
            if kept is not None and kept[0] == record.version:
                kept[2] = record

    def _note(self, kind: str, id: str, version: int, doc: bytes | None, current: bool = False) -> None:
        """Remember the stored bytes of the game at ``version`` as its latest here, unless newer ones
        (a read that overtook a save) or these very bytes are remembered; the same version with
        other bytes replaces them (Redis lost acknowledged writes and the version number came back
        with other content). ``current``: the bytes are known to be the game's as it is now (a
        save's script read them), and replace whatever is remembered. ``doc`` None (a finished
        game, which no move changes) forgets the game."""
        if not self.latest_size:
            return
        key = (kind, id)
        with self._read_cache_lock:
            latest = self._latest
            known = latest.pop(key, None)
            if doc is None:
                return
            kept = known is not None and not current and (
                known[0] > version or (known[0] == version and known[1] == doc))
            latest[key] = known if kept else [version, doc, None]
            while len(latest) > self.latest_size:
                del latest[next(iter(latest))]

    def drop_latest(self, kind: str, id: str) -> None:
        """Forget the game's latest record here (it led a move astray, or the game is gone)."""
        with self._read_cache_lock:
            self._latest.pop((kind, id), None)

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
        """Store ``change`` on top of ``record``; StaleVersion if someone else was first (its
        ``current``: the record now stored, when the save could read it in the same step).

        With ``answer``, its record is written in the same step; AlreadyAnswered (nothing
        stored) when that key already holds one.  The request's deferred rate-limit hit, if it is
        still pending (a move on a record the worker already had: :meth:`latest`), is counted by
        the same script before anything is written: one round trip, and nothing stored for a
        request over a limit.
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
        inactive = change.finished and not self.cluster
        if inactive:
            keys.append(self.active_key(record.kind))
        if change.finished or record.archived is not None:
            # Over: read-only from now on, so the document and the whole log become one archive
            # (service.storage.archive) — the one extra read of a game's life, on its final move.  The
            # script checks the log is still the one read (its version is checked anyway).
            if record.archived is not None:
                logged, archived_from = record.archived, 0
            else:
                logged = self._read_log(record.kind, record.id)
                archived_from = len(logged)
            kept = [*logged, *entries]
            doc, entries, ttl = archive.pack(doc, kept), [], self.finished_ttl
        # The deferred hit rides in this script where one script may touch the counters too (one
        # server, no WAIT): else it is sent first, on its own, as before any other write.
        pending = None
        if not self.wait_replicas and not self.cluster:
            pending = self._take_deferred()
        counted: list[Any] = [0]
        if pending is not None:
            counter_keys, limits = pending.keys(), pending.arguments()
            keys += counter_keys
            counted = [len(counter_keys), *limits]
        reply = self._write(
            self._save,
            keys=keys,
            args=[
                record.version,
                doc,
                ttl,
                "" if self.wait_replicas else self.channel(record.kind, record.id),
                *answered,
                record.id if inactive else "",
                archived_from,
                record.fingerprint or "",
                *counted,
                *entries,
            ],
            settled=pending is not None,
        )
        code, extra, hit = int(reply[0]), reply[1], reply[2]
        if pending is not None:
            # the limiter's reply first: over a limit raises its 429 (the script stored nothing)
            pending.settle(redis.exceptions.ResponseError(_text(hit)) if isinstance(hit, (bytes, str)) else hit)
        if code == -4:  # pragma: no cover - settle() has raised the 429 for this reply
            raise RuntimeError("a refused rate-limit hit was not raised")
        if code == -3:
            raise AlreadyAnswered(_text(extra))
        if code == -1:
            self.drop_latest(record.kind, record.id)
            raise NotFound(f"{record.kind} {record.id} expired", code="game_not_found")
        if code == -2:
            stale = StaleVersion(f"version {record.version} is no longer current")
            if len(reply) > 3 and reply[3] is not None and int(extra) > 0:
                stale.current = self._record(record.kind, record.id, int(extra), reply[3])
                # what the save read back is the game as it is, even at a lower version than the one
                # kept here (Redis lost acknowledged writes): it replaces whatever is kept
                self._note(record.kind, record.id, int(extra), None if stale.current.archived is not None else reply[3],
                           current=True)
            raise stale
        removed = int(extra)
        if removed == 1:
            metrics.GAMES_FINISHED.labels(kind=record.kind).inc()
        elif removed == -1:
            metrics.STORE_ERRORS.labels(kind="active").inc()
        if change.finished and not inactive:
            self._track_active(record.kind, record.id, finished=True)
        if self.wait_replicas:
            # Announced only now that the WAIT is over: a stream never hears of a version before the
            # move that made it is acknowledged (as durable as the answer says).
            self._announce(record.kind, record.id, code)
        saved = Record(record.kind, record.id, code, change.doc, kept if archived_from != "" else None,
                       change.state, saved=True)
        self._note(record.kind, record.id, code, None if archived_from != "" else doc)
        return saved

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

        ``first``: a record the caller has just loaded, or the worker's latest record of the game
        (:meth:`latest`), used for the first attempt instead of loading; a lost race (the save
        found another version) retries on the record the save read back, in the same round trip.

        Returns the record now stored and whether this call changed it.
        """
        current: Record | None = first  # the caller's load (it authorized on it): no second read
        for attempt in range(attempts):
            if current is not None:
                record, current = current, None
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
            except StaleVersion as stale:
                current = getattr(stale, "current", None)  # the save read it: no load to retry on
                if expected_version is not None and (current is None or current.version != expected_version):
                    raise  # (the same version: the record was a kept guess with other content)
                if pinned:  # re-run: the transition refuses with the current version
                    continue
                if current is None or attempt > 0:  # a first try on a kept, stale record: no race yet
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
        finishes or until ``idle_ttl`` after its creation, whichever is first. On a cluster the
        set lives on one shard, usually not the game's: written through :attr:`sidelines`, so
        while that shard fails a create or a final move goes on without it.
        """
        key = self.active_key(kind)
        if not finished:
            metrics.GAMES_CREATED.labels(kind=kind).inc()  # counted even if the set below fails
        command = ("ZREM", key, id) if finished else ("ZADD", key, time.time() + self.idle_ttl, id)
        try:
            if self.sidelines is not None:  # the set is on another shard: bounded, fail-fast
                changed = self.sidelines.execute("active", key, *command)
            else:
                changed = self.redis.execute_command(*command)
            if finished and changed:
                metrics.GAMES_FINISHED.labels(kind=kind).inc()
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

    def _write(self, script, keys: list[str], args: list[Any], settled: bool = False):
        """Run a writing script; with ``wait_replicas`` also WAIT for replicas before returning.
        ``settled``: the caller has taken care of the request's deferred rate-limit hit."""
        if not settled:
            self._settle_deferred()
        if not self.wait_replicas and self.cluster:
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
        if not self.cluster:
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

        A primary with no replica online (:meth:`_replicas_to_wait`) is written without a WAIT:
        WAIT would hold every write for the whole timeout and still count none. Such writes are
        counted as unreplicated too.
        """
        retryable = (redis.exceptions.TryAgainError, redis.exceptions.ClusterDownError)
        asked: tuple[str, int] | None = None  # an ASK redirect: the slot is migrating to that node
        for attempt in range(4):
            client = self._node_client(key) if asked is None else self._client_at(*asked)
            wanted = self._replicas_to_wait(client)
            pipe = client.pipeline(transaction=False)
            for command in commands:
                if asked is not None:
                    pipe.execute_command("ASKING")  # valid for the next command only
                pipe.execute_command(*command)
            if wanted:
                pipe.execute_command("WAIT", wanted, self.wait_timeout_ms)
            try:
                replies = pipe.execute(raise_on_error=False)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                self._refresh_topology()
                raise
            acked = replies.pop() if wanted else 0
            if asked is not None:
                replies = [reply for i, reply in enumerate(replies) if i % 2 == 1]
            first = replies[0]
            if isinstance(first, redis.exceptions.NoScriptError) and script is not None and attempt < 3:
                client.script_load(script)  # not run: load it on the node that answered, run again
                continue
            if self.cluster and attempt < 3:
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
                if wanted:
                    log.warning("write to %s acknowledged by %s of %s replicas within %s ms",
                                key, acked, wanted, self.wait_timeout_ms)
                    if int(acked) < wanted:  # a replica went away? count them again now
                        self._replicas_to_wait(client, recount=True)
            return first
        raise AssertionError("unreachable")  # pragma: no cover

    #: While a primary is known to have fewer replicas online than ``wait_replicas``, how often (s)
    #: a write asks it again (``ROLE``: one more round trip, at most this often per primary).
    REPLICA_RECOUNT_SECONDS = 1.0

    def _replicas_to_wait(self, client: redis.Redis, recount: bool = False) -> int:
        """How many replicas a write on ``client``'s server should WAIT for: ``wait_replicas``, or
        fewer while that primary has fewer online (``ROLE``, asked at the first write and then at
        most every :attr:`REPLICA_RECOUNT_SECONDS` while it is short; ``recount``: now)."""
        kwargs = client.connection_pool.connection_kwargs
        address = (kwargs.get("host", ""), int(kwargs.get("port", 0) or 0))
        known = self._replicas_online.get(address)
        now = time.monotonic()
        if recount or known is None or (known[0] < self.wait_replicas
                                         and now - known[1] >= self.REPLICA_RECOUNT_SECONDS):
            try:
                role = client.execute_command("ROLE")
                online = len(role[2]) if _text(role[0]) == "master" else self.wait_replicas
            except redis.exceptions.RedisError:  # the write itself will say what is wrong
                online = self.wait_replicas
            if known is not None and (online == 0) != (known[0] == 0):
                log.warning("%s:%s has %s replicas online (wanted %s)%s", *address, online, self.wait_replicas,
                            "; writes go on without WAIT" if online == 0 else "")
            known = self._replicas_online[address] = (online, now)
        return min(self.wait_replicas, known[0])

    def _announce(self, kind: str, id: str, version: int) -> None:
        """Publish a saved version on the game's channel (after a WAIT; else the save script does)."""
        channel = self.channel(kind, id)
        try:
            if self.sharded_pubsub:
                self._node_client(channel).execute_command("SPUBLISH", channel, version)
            else:
                self._node_client(channel).execute_command("PUBLISH", channel, version)
        except redis.exceptions.RedisError as error:  # the move stands; streams catch up on their next read
            metrics.STORE_ERRORS.labels(kind="request").inc()
            log.warning("announcing %s %s version %s failed: %s", kind, id, version, error)

    def _refresh_topology(self) -> None:
        if self.cluster:
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
