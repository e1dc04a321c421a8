"""Apps, as the store keeps them: their keys (hashed), their limits, and the index of their games.

An *app* is a server that creates games for its players (docs/client-guide.md#for-apps). The
operator issues it a key (``python -m service.apps``); only the key's SHA-256 is stored. Layout
(``P`` the key prefix, ``NAME`` the app's name, ``H`` a key's SHA-256):

* ``P:apps`` – a hash, NAME → the app as JSON (:class:`App`: its limits, origins, current key's
  hash, when it was issued, last rolled, revoked): what ``list`` shows. A revoked app stays, so its
  name is never issued again (its games, its list and its stream are never another app's);
* ``P:appkey:H`` – what a presented key is, as JSON: the app it opens (name, limits, origins), or,
  once rolled or revoked, only ``{"name", "ended": "rolled" | "revoked", "at"}`` (kept, so the
  refusal can say which; never expires: a few bytes per key ever issued);
* ``P:app:{NAME}:games:K`` – the app's games of kind ``K``: a sorted set whose members all score
  0, so that Redis orders them by the member itself, ``CREATED:K:ID`` (``CREATED`` the creation
  time in ms, 15 digits): newest first by creation time, ties by kind and id. A page's cursor is
  the last member sent; the next page starts strictly below it, so games created meanwhile (newer)
  never shift a page;
* ``P:app:{NAME}:events`` – the app's stream: a Redis Stream of every change of its games (fields
  ``game``, ``id``, ``version``, ``change``: ``created``, ``state`` or ``finished``, ``actions``), at most
  :data:`EVENTS_MAXLEN` entries (approximately: ``XADD MAXLEN ~``), the entry ids resuming a
  connection (``Last-Event-ID``); each entry is announced on ``P:app:{NAME}:live`` (pub/sub, sharded on a
  cluster) so that the processes holding the app's stream read it at once. The store adds an entry
  (:meth:`entry`) in the game's save script on one server, right after it on a cluster or with
  WAIT (:meth:`service.storage.store.Store.append`).

``{NAME}`` is a hash tag: every key of one app shares one slot of a cluster.

A request with a key costs one ``GET`` (``P:appkey:H``), so a revoked or rolled key is refused by
every API process at once. The game's own document names its app (``doc["app"]``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

import redis

from service.storage.scripts import StreamEntry

#: An app's name: what metrics are labelled with and keys are tagged by.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
#: The most entries an app's stream keeps (trimmed approximately, by whole nodes of the stream): what a
#: client reconnecting with an older Last-Event-ID finds gone (it is told: an event ``reset``).
EVENTS_MAXLEN = 10_000
#: A member of an app's games: creation time in ms, kind, id.
MEMBER_PATTERN = re.compile(r"^[0-9]{15}:[a-z][a-z0-9]{0,19}:[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Limits:
    """An app's own limits, all API processes together (``0``: that one is off)."""

    requests_per_minute: int = 0
    requests_per_hour: int = 0
    creates_per_minute: int = 0
    creates_per_hour: int = 0


@dataclass(frozen=True)
class App:
    """An app as the store keeps it (never its key: only the key's hash)."""

    name: str
    limits: Limits
    origins: tuple[str, ...] = ()
    key_hash: str = ""
    issued: float = 0.0
    rolled: float | None = None
    revoked: float | None = None

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "origins": list(self.origins)}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | bytes) -> App:
        data = json.loads(raw)
        return cls(data["name"], Limits(**data["limits"]), tuple(data.get("origins", ())),
                   data.get("key_hash", ""), data.get("issued", 0.0), data.get("rolled"), data.get("revoked"))


@dataclass(frozen=True)
class Presented:
    """What a presented key turned out to be: ``app`` (a current key), or the name of the app whose
    key it was and how that key ``ended`` (``rolled``/``revoked``); both None: no such key."""

    app: App | None = None
    name: str | None = None
    ended: str | None = None


@dataclass(frozen=True)
class Listed:
    """One game of an app, as its index holds it."""

    kind: str
    id: str
    created: float  # Unix seconds (ms precision)
    member: str = field(repr=False, default="")


class AppExists(Exception):
    pass


class NoSuchApp(Exception):
    pass


class AppRevoked(Exception):
    pass


class Apps:
    """The apps' records and indexes in one Redis (one server or a cluster)."""

    def __init__(self, client: redis.Redis, prefix: str = "referee", keep_seconds: int = 31 * 86400,
                 sharded_pubsub: bool = False) -> None:
        self.redis = client
        self.prefix = prefix
        self.sharded_pubsub = sharded_pubsub
        #: How long an app's game stays in its index: a game nobody touches expires by then.
        self.keep_seconds = keep_seconds

    # ------------------------------------------------------------------ keys

    def registry_key(self) -> str:
        return f"{self.prefix}:apps"

    def lookup_key(self, key_hash: str) -> str:
        return f"{self.prefix}:appkey:{key_hash}"

    def games_key(self, name: str, kind: str) -> str:
        return f"{self.prefix}:app:{{{name}}}:games:{kind}"

    def events_key(self, name: str) -> str:
        return f"{self.prefix}:app:{{{name}}}:events"

    def channel(self, name: str) -> str:
        return f"{self.prefix}:app:{{{name}}}:live"

    # -------------------------------------------------- the operator's commands

    def issue(self, app: App) -> App:
        """Store a new app under its key's hash; :class:`AppExists` if the name is taken."""
        if not self.redis.hsetnx(self.registry_key(), app.name, app.to_json()):
            raise AppExists(app.name)
        self.redis.set(self.lookup_key(app.key_hash), app.to_json())
        return app

    def get(self, name: str, revoked: bool = False) -> App:
        """The app named ``name``: :class:`NoSuchApp`, or :class:`AppRevoked` unless ``revoked``."""
        raw = self.redis.hget(self.registry_key(), name)
        if raw is None:
            raise NoSuchApp(name)
        app = App.from_json(raw)
        if app.revoked is not None and not revoked:
            raise AppRevoked(name)
        return app

    def all(self) -> list[App]:
        return sorted((App.from_json(raw) for raw in self.redis.hvals(self.registry_key())), key=lambda a: a.name)

    def roll(self, name: str, key_hash: str, at: float) -> App:
        """Give the app a new key (``key_hash``); its old key is refused from now on."""
        old = self.get(name)
        new = App(old.name, old.limits, old.origins, key_hash, old.issued, at)
        self.redis.set(self.lookup_key(key_hash), new.to_json())
        self.redis.hset(self.registry_key(), name, new.to_json())
        self._end(old, "rolled", at)
        return new

    def update(self, name: str, limits: Limits | None = None, origins: Iterable[str] | None = None) -> App:
        """Change an app's limits or origins: its key keeps working, with them, at once."""
        old = self.get(name)
        new = App(old.name, limits or old.limits, old.origins if origins is None else tuple(origins),
                  old.key_hash, old.issued, old.rolled)
        self.redis.set(self.lookup_key(new.key_hash), new.to_json())
        self.redis.hset(self.registry_key(), name, new.to_json())
        return new

    def revoke(self, name: str, at: float) -> App:
        """End the app's key (refused from now on), for good: the app stays revoked, its name taken."""
        app = self.get(name)
        self._end(app, "revoked", at)
        revoked = dataclasses.replace(app, revoked=at)
        self.redis.hset(self.registry_key(), name, revoked.to_json())
        return revoked

    def _end(self, app: App, how: str, at: float) -> None:
        self.redis.set(self.lookup_key(app.key_hash), json.dumps({"name": app.name, "ended": how, "at": at}))

    # ------------------------------------------------------ a request's key

    def presented(self, key_hash: str) -> Presented:
        """What the key with this hash is (one GET)."""
        raw = self.redis.get(self.lookup_key(key_hash))
        if raw is None:
            return Presented()
        data = json.loads(raw)
        if "ended" in data:
            return Presented(name=data["name"], ended=data["ended"])
        return Presented(app=App.from_json(raw), name=data["name"])

    # ------------------------------------------------------- an app's games

    @staticmethod
    def member(kind: str, id: str, created: float) -> str:
        return f"{round(created * 1000):015d}:{kind}:{id}"

    def add_game(self, name: str, kind: str, id: str, created: float) -> None:
        """Index a game the app is creating (before it is stored: a create that fails after leaves a
        member the listing skips and drops). Members older than :attr:`keep_seconds` go at the same
        time, so the index holds at most what could still be stored."""
        key = self.games_key(name, kind)
        oldest = f"({round((created - self.keep_seconds) * 1000):015d}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(key, {self.member(kind, id, created): 0})
        pipe.zremrangebylex(key, "-", oldest)
        pipe.expire(key, self.keep_seconds)
        pipe.execute()

    def page(self, name: str, kinds: Iterable[str], below: str | None, count: int,
             since: float | None = None, until: float | None = None) -> list[Listed]:
        """Up to ``count`` of the app's games of ``kinds``, newest first, strictly below the member
        ``below`` (a cursor) and created within [``since``, ``until``)."""
        top = "+" if below is None else f"({below}"
        if until is not None:
            bound = f"({round(until * 1000):015d}"
            if top == "+" or bound < top:
                top = bound
        bottom = "-" if since is None else f"[{round(since * 1000):015d}"
        pipe = self.redis.pipeline(transaction=False)
        for kind in kinds:
            pipe.zrevrangebylex(self.games_key(name, kind), top, bottom, start=0, num=count)
        members = sorted((m.decode() if isinstance(m, bytes) else m for ms in pipe.execute() for m in ms),
                         reverse=True)[:count]
        return [listed(m) for m in members]

    def count_games(self, name: str, kinds: Iterable[str]) -> int:
        """How many games of ``kinds`` the app's index holds."""
        pipe = self.redis.pipeline(transaction=False)
        for kind in kinds:
            pipe.zcard(self.games_key(name, kind))
        return sum(int(n) for n in pipe.execute())

    def drop_games(self, name: str, gone: list[Listed]) -> None:
        """Forget games that are no longer stored (expired)."""
        if not gone:
            return
        pipe = self.redis.pipeline(transaction=False)
        for game in gone:
            pipe.zrem(self.games_key(name, game.kind), game.member)
        pipe.execute()


    # ------------------------------------------------------- an app's stream

    def entry(self, name: str, kind: str, id: str, change: str, actions: str) -> StreamEntry:
        """The entry of a change of one of the app's games, for the store to add to its stream."""
        return StreamEntry(self.events_key(name), EVENTS_MAXLEN, self.channel(name), kind, id, change, actions)

    def events_after(self, name: str, after: str | None, count: int = 100) -> list[tuple[str, dict[str, str]]]:
        """Up to ``count`` entries of the app's stream after the id ``after`` (None: from the first)."""
        low = "-" if after is None else f"({after}"
        return [(_text(entry), {_text(k): _text(v) for k, v in fields.items()})
                for entry, fields in self.redis.xrange(self.events_key(name), low, "+", count=count)]

    def position(self, name: str) -> tuple[str, str]:
        """The id of the oldest entry the app's stream keeps if it ever trimmed any ("0-0": it
        holds every entry ever added), and of the newest entry ever added ("0-0": none)."""
        try:
            info = self.redis.xinfo_stream(self.events_key(name))
        except redis.exceptions.ResponseError:  # no such key: no events yet
            return "0-0", "0-0"
        first = info.get("first-entry")
        trimmed = int(info["entries-added"]) > int(info["length"])
        return (_text(first[0]) if trimmed and first else "0-0"), _text(info["last-generated-id"])


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def listed(member: str) -> Listed:
    created, kind, id = member.split(":", 2)
    return Listed(kind, id, int(created) / 1000, member)


def now() -> float:
    return round(time.time(), 3)
