"""One Flask app for many tests: the ``app`` fixture of tests/conftest.py hands the same app to test
after test (building one costs about 0.3 s, most of it flask-smorest writing the spec), and puts back,
after each test, everything of it a test may change.

What an app keeps between requests, and how a test leaves it as built:

* ``app.config``: restored to what it was when the app was built;
* ``app.extensions``: what a test's requests added lazily (the live hub, the stream slots, the event
  cache) is dropped, a hub stopped; what was replaced is put back (the settings, when a test set
  ``stream_max_seconds`` or a limit for itself: :func:`set_settings`);
* the store: its attributes as built, a new read cache (records of games a flushed store no longer
  has) and no replica counts;
* its routes, hooks, error handlers and WSGI middleware: a test may add its own (Flask allows that
  again before each test); then the app is thrown away and the next test gets a new one.

The store itself is flushed before each test by the ``redis_client`` fixture, so rate-limit
counters, idempotency keys and games never outlive their test.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from flask import Flask

from service import config
from service.storage.cache import RecordCache


def set_settings(app: Flask, **changes: Any) -> None:
    """Change some of ``app``'s settings (``stream_max_seconds=300``) for the rest of a test: the
    lent app gets its own back afterwards (:class:`SharedApp`)."""
    app.extensions["referee_settings"] = dataclasses.replace(config.settings(app), **changes)


def _shape(app: Flask) -> tuple:
    """What a test cannot take back once it added it: routes, hooks, handlers, middleware. (Flask's
    registries are defaultdicts that a lookup fills with empty entries: only what is in them counts.)"""

    def hooks(registry: dict) -> tuple:
        return tuple(sorted((repr(key), len(funcs)) for key, funcs in registry.items() if funcs))

    return (
        tuple(sorted(rule.rule + " " + rule.endpoint for rule in app.url_map.iter_rules())),
        tuple(sorted(app.view_functions)),
        tuple(sorted(app.blueprints)),
        hooks(app.before_request_funcs),
        hooks(app.after_request_funcs),
        hooks(app.teardown_request_funcs),
        hooks(app.url_value_preprocessors),
        hooks(app.url_default_functions),
        hooks(app.template_context_processors),
        tuple(sorted((repr(name), repr(code), repr(kind))
                     for name, by_code in app.error_handler_spec.items()
                     for code, by_kind in by_code.items() for kind in by_kind)),
        len(app.teardown_appcontext_funcs),
        id(app.wsgi_app),
    )


class SharedApp:
    """Builds the app on first use (``build()``), then lends it out again and again (:meth:`lend`,
    :meth:`give_back`)."""

    def __init__(self, build: Callable[[], Flask]) -> None:
        self.build = build
        self.app: Flask | None = None
        self.builds = 0

    def lend(self) -> Flask:
        if self.app is None:
            self.app = self.build()
            self.builds += 1
            self._built = _Snapshot(self.app)
        app = self.app
        # Flask refuses new routes and hooks once an app served a request; a test that adds its own
        # gets them on this app (and the app is not lent again: give_back sees its shape changed).
        app._got_first_request = False
        return app

    def give_back(self) -> None:
        app = self.app
        if app is None:
            return
        if _shape(app) != self._built.shape:
            self._built.restore(app)  # stops what the test started (hubs)
            self.app = None
            return
        self._built.restore(app)

    def close(self) -> None:
        if self.app is not None:
            self._built.restore(self.app)
            self.app = None


class _Snapshot:
    """An app as built: its config, extensions, store and shape."""

    def __init__(self, app: Flask) -> None:
        self.shape = _shape(app)
        self.config = dict(app.config)
        self.extensions = dict(app.extensions)
        store = app.extensions.get("referee_store")
        self.store = store
        self.store_attributes = dict(vars(store)) if store is not None else {}
        self.writes_attributes = dict(vars(store.writes)) if store is not None else {}
        self.cache_sizes = (store.cache.shared_size, store.cache.latest_size) if store is not None else None

    def restore(self, app: Flask) -> None:
        app.config.clear()
        app.config.update(self.config)
        for name in list(app.extensions):
            if name not in self.extensions or app.extensions[name] is not self.extensions[name]:
                _stop(app.extensions.pop(name))
        app.extensions.update(self.extensions)
        store = self.store
        if store is not None:
            vars(store).clear()
            vars(store).update(self.store_attributes)
            writes = store.writes
            vars(writes).clear()
            vars(writes).update(self.writes_attributes)
            writes._replicas_online = {}
            store.cache = RecordCache(*self.cache_sizes)


def _stop(extension: Any) -> None:
    """A live hub a test's stream started (service.storage.live.Hub) ends with the test."""
    from service.storage.live import Hub

    if isinstance(extension, Hub):
        extension.stop()
