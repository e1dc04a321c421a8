"""Live updates: one Redis subscriber per process, fanned out to that process's open streams
(docs/architecture.md, "Live updates").

A :class:`Hub` holds one pub/sub connection for the whole process, on a client of its own (never
one of the requests'): each stream registers a :class:`Subscription` for its channel, and the hub's
listener thread (a greenlet under gevent) keeps the connection's channels equal to the watched ones
and wakes every subscription of a channel a message arrives on. A message only says "look again":
a woken stream reads the store, so a lost message costs latency, never correctness.
:class:`StreamSlots` keeps streams to their share of the worker's connections.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import redis

from service import config
from service.errors import TooManyStreams
from service.storage.records import text
from service.storage.redis_client import subscriber_client

log = logging.getLogger(__name__)


class Subscription:
    """One stream's interest in one channel: an event set whenever the channel may have news."""

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.ready = threading.Event()  # the hub's connection is subscribed to the channel
        self.latest = 0  # the highest version announced on the channel since we subscribed
        self.unknown = False  # news without a version (a reconnect, a bad message): read the store
        self._news = threading.Event()

    def notify(self, version: int | None = None) -> None:
        if version is None:
            self.unknown = True
        elif version > self.latest:
            self.latest = version
        self._news.set()

    def announced(self) -> int | None:
        """The version the news named, or None when the store must say (taken once)."""
        if self.unknown:
            self.unknown = False
            return None
        return self.latest or None

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for news; True if there was some (the flag is then cleared)."""
        if self._news.wait(timeout):
            self._news.clear()
            return True
        return False


class Hub:
    """The per-process fan-out from one Redis pub/sub connection to many subscriptions."""

    def __init__(self, client: redis.Redis, sharded: bool = False, poll: float = 0.05) -> None:
        self.client = client
        self.sharded = sharded
        self.poll = poll  # the longest a new channel waits for the listener to subscribe it
        self.idle_exit = 30.0  # seconds without any subscription before the listener lets go
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}
        self._confirmed: set[str] = set()  # channels Redis confirmed we are subscribed to
        self._dirty = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._stopping = False

    # -------------------------------------------------------------- streams

    @contextmanager
    def subscription(self, channel: str, ready_timeout: float = 2.0) -> Iterator[Subscription]:
        """Register for ``channel`` for the ``with`` block; wait (bounded) until it is live in Redis.

        After the wait a change saved by any process wakes the subscription; if the wait times out
        (Redis slow or away) the caller still works, by looking again at every heartbeat.
        """
        sub = Subscription(channel)
        with self._lock:
            self._subs.setdefault(channel, set()).add(sub)
            if channel in self._confirmed:
                sub.ready.set()
            else:
                self._dirty.set()
        self._ensure_listener()
        sub.ready.wait(ready_timeout)
        try:
            yield sub
        finally:
            with self._lock:
                subs = self._subs.get(channel)
                if subs is not None:
                    subs.discard(sub)
                    if not subs:
                        del self._subs[channel]
                        self._dirty.set()

    def open_subscriptions(self) -> int:
        """How many subscriptions are open (every one is closed when its stream ends)."""
        with self._lock:
            return sum(len(s) for s in self._subs.values())

    def stop(self, timeout: float = 2.0) -> None:
        """End the listener (a worker shutting down) and close its connection."""
        self._stopping = True
        self._dirty.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)

    # ------------------------------------------------------------ listener

    def _ensure_listener(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._confirmed.clear()
            self._thread = threading.Thread(target=self._run, name="referee-live-hub", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        backoff = 0.1
        while not self._stopping:
            pubsub = self.client.pubsub()
            try:
                if self._listen(pubsub) == "idle":
                    return
            except (redis.exceptions.RedisError, OSError) as error:
                # Lost connections, and on a cluster CLUSTERDOWN / MOVED answers during a failover:
                # reconnect, or the process's streams would wait for heartbeats to learn anything.
                log.warning("live updates: subscriber connection lost (%s); reconnecting", error)
                time.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                with self._lock:
                    self._confirmed.clear()
                    for subs in self._subs.values():  # anything may have happened meanwhile: look again
                        for sub in subs:
                            sub.ready.clear()
                            sub.notify()
                    self._dirty.set()
            finally:
                try:
                    pubsub.close()
                except Exception:  # pragma: no cover - closing a broken connection
                    pass

    def _listen(self, pubsub) -> str | None:
        """Serve subscriptions until stopped, or ``idle`` when none came for ``idle_exit`` seconds."""
        active: set[str] = set()  # channels we asked Redis for (confirmed or not)
        idle_since = time.monotonic()
        while not self._stopping:
            if self._dirty.is_set():
                self._dirty.clear()
                with self._lock:
                    wanted = set(self._subs)
                    gone = active - wanted
                    self._confirmed -= gone
                new, active = wanted - active, wanted
                if new:
                    (pubsub.ssubscribe if self.sharded else pubsub.subscribe)(*sorted(new))
                if gone:
                    (pubsub.sunsubscribe if self.sharded else pubsub.unsubscribe)(*sorted(gone))
            if not active:
                with self._lock:
                    if not self._subs and time.monotonic() - idle_since > self.idle_exit:
                        self._thread = None  # the next subscription starts a new listener
                        return "idle"
                self._dirty.wait(1.0)
                continue
            idle_since = time.monotonic()
            read = pubsub.get_sharded_message if self.sharded else pubsub.get_message
            message = read(timeout=self.poll)
            while message is not None:
                self._dispatch(message, active)
                message = read(timeout=0)

    def _dispatch(self, message: dict, active: set[str]) -> None:
        kind, channel = text(message.get("type")), text(message.get("channel"))
        with self._lock:
            subs = list(self._subs.get(channel, ()))
            if kind in ("subscribe", "ssubscribe") and channel in active:
                self._confirmed.add(channel)
                for sub in subs:
                    sub.ready.set()
            elif kind in ("message", "smessage"):
                try:
                    version = int(message.get("data"))
                except (TypeError, ValueError):
                    version = None
                for sub in subs:
                    sub.notify(version)


class StreamSlots:
    """How many streams and long polls this process holds open at once, and its limit (0: none):
    past it a stream is refused (:class:`TooManyStreams`), so moves and reads always find room."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> Callable[[], None]:
        """Take a slot, or raise ``TooManyStreams``; the function returned gives it back (once)."""
        with self._lock:
            if self.limit and self.open >= self.limit:
                raise TooManyStreams(f"this server holds {self.limit} streams already; retry shortly",
                                     retry_after=STREAMS_RETRY_AFTER)
            self.open += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            with self._lock:
                if not given_back:
                    given_back = True
                    self.open -= 1

        return give_back


STREAMS_RETRY_AFTER = 5  # seconds a refused stream is told to wait


def stream_limit(concurrency: int, share: float) -> int:
    """Streams one worker may hold: ``share`` of the connections it serves at once (0: no limit)."""
    return max(1, int(concurrency * share)) if concurrency > 0 and share > 0 else 0


_hubs: list[Hub] = []  # every hub of this process, for stop_all


def hub_for(app) -> Hub:
    """The app's hub (one per process; created on first use), on a Redis connection of its own."""
    hub = app.extensions.get("referee_live")
    if hub is None:
        store = app.extensions["referee_store"]
        settings = config.settings(app)
        client = subscriber_client(settings.store_url, settings.redis_timeout)
        hub = app.extensions.setdefault("referee_live", Hub(client, sharded=store.sharded_pubsub))
        if hub not in _hubs:
            _hubs.append(hub)
    return hub


def slots_for(app) -> StreamSlots:
    """The app's stream slots: its share (``STREAM_SHARE``) of the worker's concurrency."""
    slots = app.extensions.get("referee_stream_slots")
    if slots is None:
        settings = config.settings(app)
        limit = stream_limit(settings.worker_concurrency, settings.stream_share)
        slots = app.extensions.setdefault("referee_stream_slots", StreamSlots(limit))
    return slots


def stop_all() -> None:
    """Stop every hub of this process (gunicorn's worker calls it when it shuts down)."""
    for hub in list(_hubs):
        hub.stop()
