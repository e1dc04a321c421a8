"""The Lua the store runs, and the one builder of what the save script takes.

Every change to a game is one ``EVALSHA`` of :func:`save_script`: a compare-and-set on the game's
version (and, for a record a worker kept, on the stored bytes themselves) that writes the document,
its transcript entries and an idempotent move's answer together, or none of them, after a caller's
:class:`Rider` (another script, run first in the same step, which may veto the save). What the
script buys: a move's write is one round trip however much it writes, and nothing interleaves with
its check; the same check with WATCH and MULTI/EXEC takes a round trip more (the WATCH), and a lost
race a read more (the script hands back the document as it is now). :class:`SaveCall` names each
thing the script takes; :meth:`SaveCall.keys` and :meth:`SaveCall.args` lay them out in the order
the script's first lines read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

#: Creates a game: KEYS the game, its log[, the active set]; ARGV 1 doc, 2 ttl, 3 the game's member
#: of the active set ('' when that set is on another shard: written after, through the sidelines),
#: 4 its score, 5... log entries. Returns 0 (the id is taken), 1 (stored) or 2 (stored, but the
#: active set refused the ZADD: bookkeeping, so a failure there never fails the create).
CREATE = """
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

# Reply codes of the save script (first element of its reply).
GONE, STALE, ANSWERED, VETOED = -1, -2, -3, -4

#: Saves one change of a game, after its rider (a Lua function ``rider(keys, k0, n, argv, a0, m)``
#: defined before it: :func:`save_script`, run on the ``n`` keys from ``keys[k0]`` and the ``m``
#: arguments from ``argv[a0]``, returning its reply and whether the save must not happen); what it
#: takes is :class:`SaveCall`'s to lay out. Returns {code, extra, rider's reply[, doc]}:
#:   code > 0: stored, ``code`` the new version; extra 1 / 0 / -1 when it removed the game from the
#:     active set / did not / could not (-9: not asked);
#:   GONE: no such game (expired);
#:   STALE: another change came first, or the stored document is not the bytes the change was made
#:     on (extra the current version, doc the current document; extra 0 when the log was not the one
#:     archived);
#:   ANSWERED: the idempotent move's answer is already stored (extra: that answer);
#:   VETOED: the rider vetoed the save (nothing stored).
#: The rider's reply is what it returned ({} without one), or the error it raised (a string: the
#: save goes on without it).
SAVE = """
local version_on, doc, ttl, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local answer_value, answer_ttl = ARGV[5], ARGV[6]
local active_member, archived_from, fingerprint = ARGV[7], ARGV[8], ARGV[9]
local stream_maxlen, stream_channel = ARGV[10], ARGV[11]
local has_rider, rider_keys, rider_args = ARGV[16] ~= '', tonumber(ARGV[16]), tonumber(ARGV[17])  -- '': no rider
local first_entry = 18 + rider_args
local n = 3
local answer_key, active_key, stream_key = nil, nil, nil
if answer_value ~= '' then answer_key = KEYS[n]; n = n + 1 end
if active_member ~= '' then active_key = KEYS[n]; n = n + 1 end
if stream_maxlen ~= '' then stream_key = KEYS[n]; n = n + 1 end

local ridden = {}
if has_rider then
  local ok, out, veto = pcall(rider, KEYS, n, rider_keys, ARGV, 18, rider_args)
  if not ok then
    pcall(redis.set_repl, redis.REPL_ALL)  -- a rider that failed may have left replication off
    if type(out) == 'table' and out.err then ridden = out.err else ridden = tostring(out) end
  else
    ridden = out
    if veto then return {-4, 0, ridden} end
  end
end
if answer_key then
  local answered = redis.call('GET', answer_key)
  if answered then return {-3, answered, ridden} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {-1, 0, ridden} end
if current ~= version_on then return {-2, tonumber(current), ridden, redis.call('HGET', KEYS[1], 'doc')} end
if fingerprint ~= '' then
  local stored = redis.call('HGET', KEYS[1], 'doc')
  if not stored or redis.sha1hex(stored) ~= fingerprint then return {-2, tonumber(current), ridden, stored} end
end
local archived = archived_from ~= ''
if archived and redis.call('LLEN', KEYS[2]) ~= tonumber(archived_from) then return {-2, 0, ridden} end

local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'version', version, 'doc', doc)
redis.call('EXPIRE', KEYS[1], ttl)
if archived then
  redis.call('DEL', KEYS[2])
else
  for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  redis.call('EXPIRE', KEYS[2], ttl)
end
if answer_key then redis.call('SET', answer_key, answer_value, 'EX', answer_ttl) end
if channel ~= '' then redis.call('PUBLISH', channel, version) end
if stream_key then
  local entry = redis.call('XADD', stream_key, 'MAXLEN', '~', stream_maxlen, '*', 'version', version,
                           'game', ARGV[12], 'id', ARGV[13], 'change', ARGV[14], 'actions', ARGV[15])
  redis.call('PUBLISH', stream_channel, entry)
end
local removed = -9
if active_key then
  removed = redis.pcall('ZREM', active_key, active_member)
  if type(removed) ~= 'number' then removed = -1 end
end
return {version, removed, ridden}
"""

#: Adds an entry to a stream and announces its id (an app's stream of changes, service.storage.apps:
#: when the save above could not carry it). KEYS the stream; ARGV maxlen, the channel, 'PUBLISH' or
#: 'SPUBLISH', the version, the game, its id, the change, its actions. Returns the entry's id.
APPEND = """
local entry = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'version', ARGV[4],
                         'game', ARGV[5], 'id', ARGV[6], 'change', ARGV[7], 'actions', ARGV[8])
redis.call(ARGV[3], ARGV[2], entry)
return entry
"""

#: Stores a value under an idempotency key unless one is there; returns the one there, or nil.
IDEMPOTENT_PUT = """
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""


class Rider(Protocol):
    """Another script a caller sends in the same round trip as a store command, run before it: in a
    pipeline on its own (:meth:`command`), or inside the save script, where it may veto the save
    (:attr:`lua`). The store does not know what it is for (the rate limiter's hit, in
    service.api.ratelimit); it sets :attr:`reply` to what the rider answered, or to the error that
    kept it from running."""

    #: Defines ``local function rider(keys, k0, n, argv, a0, m)`` (:data:`SAVE`).
    lua: str
    keys: tuple[str, ...]
    args: tuple
    reply: Any

    def command(self) -> tuple:
        """The rider on its own, as one command of a pipeline (an ``EVALSHA``)."""
        ...


def save_script(rider_lua: str | None = None) -> str:
    """The save script that runs a rider of ``rider_lua`` (a :class:`Rider`'s) first when given one;
    None: a save script that is never given a rider."""
    return (rider_lua or "") + SAVE


@dataclass(frozen=True)
class StreamEntry:
    """An entry to add to a stream with a game's change (an app's stream of its games' changes,
    service.storage.apps): the stream, its bound, the channel announcing it, and what it says (the
    version is the change's own, added by the script)."""

    stream: str
    maxlen: int
    channel: str
    game: str
    id: str
    change: str  # created, state or finished
    actions: str = "[]"  # JSON: who did what (the public part of the change's transcript entries)


@dataclass
class SaveCall:
    """What one run of :data:`SAVE` takes, by name."""

    game_key: str
    log_key: str
    #: The version the change was decided on (compared with the stored one).
    version: int
    doc: bytes
    ttl: int
    #: Where the new version is announced; '' when the caller announces it after its WAIT.
    channel: str
    entries: list[bytes] = field(default_factory=list)
    #: An idempotent move's answer, stored with the change (key, sealed value, seconds kept).
    answer_key: str | None = None
    answer_value: str = ""
    answer_ttl: int = 0
    #: A finishing change on one server: the game leaves the set of active games in the same step.
    active_key: str | None = None
    active_member: str = ""
    #: A finishing change: the document is an archive of the whole log, which had this many entries
    #: (checked, then the log is deleted).
    archived_from: int | None = None
    #: The SHA-1 of the stored bytes a kept record was made from (checked as well as the version).
    fingerprint: str = ""
    #: A caller's script run first, which may veto the save (its keys and arguments; its Lua is the script's).
    rider: Rider | None = None
    #: An entry for an app's stream, added and announced (PUBLISH) with the change, on one server.
    entry: StreamEntry | None = None

    def keys(self) -> list[str]:
        keys = [self.game_key, self.log_key]
        if self.answer_key is not None:
            keys.append(self.answer_key)
        if self.active_key is not None:
            keys.append(self.active_key)
        if self.entry is not None:
            keys.append(self.entry.stream)
        if self.rider is not None:
            keys += self.rider.keys
        return keys

    def args(self) -> list:
        rider = self.rider
        return [
            self.version, self.doc, self.ttl, self.channel,
            self.answer_value if self.answer_key is not None else "", self.answer_ttl,
            self.active_member if self.active_key is not None else "",
            "" if self.archived_from is None else self.archived_from,
            self.fingerprint,
            *(("", "", "", "", "", "") if self.entry is None else
              (self.entry.maxlen, self.entry.channel, self.entry.game, self.entry.id, self.entry.change,
               self.entry.actions)),
            "" if rider is None else len(rider.keys), 0 if rider is None else len(rider.args),
            *(() if rider is None else rider.args),
            *self.entries,
        ]
