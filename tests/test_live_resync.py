"""A stream told "something may have happened" without a version (the hub reconnected after losing
its Redis connection: messages may have been lost) reads the store at once, not at the next
heartbeat; and the per-process event cache stays bounded."""

from __future__ import annotations

import contextlib
import threading

from support.client import FlaskHttp, GopsGame, new_salt
from service.storage import live
from service.api import events


class SilentHub:
    """A hub that hears nothing by itself: the test says when news arrives, and of what version."""

    def __init__(self) -> None:
        self.sub = live.Subscription("test")

    @contextlib.contextmanager
    def subscription(self, channel: str):
        yield self.sub


def test_subscription_news_without_a_version_means_read_the_store():
    sub = live.Subscription("c")
    sub.notify(3)
    assert sub.wait(0) and sub.announced() == 3
    sub.notify()  # a reconnect
    assert sub.wait(0) and sub.announced() is None  # once...
    assert sub.announced() == 3  # ...then the announced version again


def test_a_reconnect_makes_the_stream_reload_at_once(app, client):
    game = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    store, hub = app.extensions["referee_store"], SilentHub()
    with app.test_request_context():
        record = store.load("gops", game.id)
        viewer = events._gops_viewer(record, None)
        stream = events._stream(store, hub, events.EventCache(), "test", "gops", game.id, viewer, None,
                                timeout=60, heartbeat=30)
        assert next(stream).startswith("retry:")
        assert next(stream).startswith(f"id: {record.version}\n")
        hub.sub.notify(record.version)  # the announcement of the version the client already has
        status, data = game.commit(0, 1, [5], new_salt())  # heard by nobody: the "lost" message
        assert status == 200, data
        threading.Timer(0.2, hub.sub.notify).start()  # the hub reconnects: news without a version
        # The new version comes next, not after a heartbeat (": keep-alive", then the store's version).
        event = next(stream)
        assert event.startswith(f"id: {record.version + 1}\n"), event
        stream.close()


def test_the_event_cache_bounds_its_locks(app, client):
    cache = events.EventCache(size=2)
    store = app.extensions["referee_store"]
    games = [GopsGame.create(FlaskHttp(client), {"profile": "classic"}) for _ in range(3)]
    with app.test_request_context():
        failing = events.Viewer("public", lambda r: 1 / 0, None, lambda d: False, lambda d: "")
        for n in range(10):
            try:
                cache.event(store, "gops", f"{games[0].id}", events.Viewer(f"seat:{n}", failing.build, None,
                                                                            failing.finished, failing.etag_tag), None)
            except ZeroDivisionError:
                pass
        assert len(cache._locks) <= 2 * cache.size + 1
