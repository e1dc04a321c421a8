"""Live updates: ``GET …/events`` of a game or table, as Server-Sent Events or a long poll.

Authorized like the views (a seat's token: that seat's view; the host's or none: the public view;
any other token: 401). Each event is the caller's whole view at one version (``id:`` the version),
so a client that missed versions has everything with the next one; the contract (resume with
``Last-Event-ID``, keep-alives, when a stream ends, 204): docs/client-guide.md#live-updates.
Fed by the store's pub/sub announcement of every saved change (service.storage.live), so a move
made through any API process reaches a stream held by any other.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import partial
from http import HTTPStatus
from typing import Any, Callable, Iterator

import marshmallow as ma
import redis
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from service import config
from service.storage import live
from service.ops import metrics
from service.ops.serving import FINISH_WRITES_BY
from service.errors import NotFound
from service.games.gofo import referee as gofo_referee
from service.games.gops import referee as gops_referee
from service.storage.store import Record, Store
from service.api import common, views
from service.api.problems import problem
from service.api import gofo as gofo_api
from service.api import gops as gops_api
from service.api.gofo_schemas import GofoSeatViewSchema, GofoTableSchema
from service.api.gops_schemas import GopsGameSchema, GopsSeatViewSchema

STREAM_CONTENT_TYPE = "text/event-stream"
TIMEOUT_LIMIT = 300  # the largest ?timeout= a client may ask for
RETRY_MS = 2000  # the reconnection delay the stream suggests to EventSource
STORE_RETRY_SECONDS = 1.0  # a stream whose store is away looks again this often

blp = Blueprint(
    "events",
    __name__,
    description="Live updates: every new version of a game or table pushed as Server-Sent Events, "
    "or a long poll for clients that cannot hold a stream.",
)




class EventsQuerySchema(ma.Schema):
    @ma.pre_load
    def _digits_only(self, data, **kwargs):
        """A query integer is plain ASCII digits ("+5", " 5", "5.0", "٥" are refused)."""
        for name in ("timeout", "wait_for_version"):
            value = data.get(name) if hasattr(data, "get") else None
            if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 12):
                raise ma.ValidationError({name: ["Not a valid integer."]})
        return data

    timeout = fields.Integer(
        strict=False, validate=validate.Range(min=1, max=TIMEOUT_LIMIT),
        metadata={"description": "Seconds the stream (or long poll) may last, at most the server's "
                  "maximum (REFEREE_STREAM_MAX_SECONDS, 300 by default). Stream default: the maximum; "
                  "long poll default: 30."})
    wait_for_version = fields.Integer(
        strict=False, validate=validate.Range(min=1),
        metadata={"description": "Long poll instead of a stream: answer (application/json, the view) "
                  "as soon as the version is at least this, or with the current view after the timeout."})


LAST_EVENT_ID_PARAMETER = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]{1,15}$"},
    "description": "The last version the client has (EventSource sends the last `id:` when it "
    "reconnects): the stream starts with the first newer version.",
    "example": "7",
}
IF_NONE_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": "Long poll: the ETag you have; after the timeout, 304 instead of that same view.",
}


@dataclass(frozen=True)
class Viewer:
    """What one caller may see of one game: how to build and dump its view of a record.

    ``key`` names the audience (``public`` or ``seat:N``): every stream of one audience on one game
    gets the same events, so the process builds each version's event once per audience.
    """

    key: str
    build: Callable[[Record], dict[str, Any]]
    schema: type[ma.Schema]
    finished: Callable[[dict[str, Any]], bool]
    etag_tag: Callable[[dict[str, Any]], str]


def viewers(view: Callable[..., dict[str, Any]], public: Any, seat_schema: Any,
            finished: Callable[[dict[str, Any]], bool], etag_tag: Callable[[dict[str, Any]], str]):
    """The viewer of a game for a caller (``who``: ``seat:N``, ``host`` or None), from its
    ``view(record, seat=None)``, its views' schemas, when it is over, and a seat view's ETag tag."""

    def viewer(record: Record, who: str | None) -> Viewer:
        if who is not None and who.startswith("seat:"):
            seat = int(who[5:])
            return Viewer(who, lambda r: view(r, seat), seat_schema, finished, etag_tag)
        return Viewer("public", view, public, finished, lambda data: "")

    return viewer


_gops_viewer = viewers(partial(common.view, gops_referee), GopsGameSchema, GopsSeatViewSchema,
                       lambda data: data["phase"] == "over", gops_referee.etag_tag)
_gofo_viewer = viewers(partial(common.view, gofo_referee), GofoTableSchema, GofoSeatViewSchema,
                       lambda data: False, gofo_referee.etag_tag)  # a table never ends


@dataclass(frozen=True)
class Event:
    version: int
    text: str  # the whole event, framed
    finished: bool
    read: int = 0  # when the store read that found this version began (EventCache's ticks)


class EventCache:
    """The latest event built for each (game, audience) in this process, shared by its streams.

    A move wakes every stream of the game at once; the first to ask for the new version loads the
    record and builds the event, the others (waiting on the same lock) reuse it: one load and one
    view per audience per version, whatever the number of streams.  So does news without a
    version (the hub reconnected: every stream asks the store at once): a stream reuses the event
    of a read that began after it asked, so one read answers all the streams waiting for it.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._events: OrderedDict[tuple[str, str, str], Event] = OrderedDict()
        self._locks: dict[tuple[str, str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self._ticks = itertools.count(1)  # orders the asks and the reads

    def event(self, store: Store, kind: str, id: str, viewer: Viewer, at_least: int | None) -> Event:
        """The event of the current version: a cached one if it is at least ``at_least``, or, with
        ``at_least`` None (the store must say), if the read that found it began after this call."""
        asked = next(self._ticks)
        key = (kind, id, viewer.key)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
            if len(self._locks) > 2 * self.size:  # keys whose build failed never got an event: drop
                for stale in [k for k in self._locks if k not in self._events and k != key][: self.size]:
                    self._locks.pop(stale, None)
        with lock:
            cached = self._events.get(key)
            if cached is not None and (cached.version >= at_least if at_least is not None else cached.read > asked):
                return cached
            read = next(self._ticks)
            record = store.read(kind, id)
            if cached is not None and cached.version == record.version:
                event = replace(cached, read=read)
            else:
                data = viewer.build(record)
                event = Event(record.version, _event(record.version, views.schema_dump(viewer.schema, data)),
                              viewer.finished(data), read)
            with self._guard:
                if cached is None or event.version >= cached.version:
                    self._events[key] = event
                    self._events.move_to_end(key)
                while len(self._events) > self.size:
                    old, _ = self._events.popitem(last=False)
                    self._locks.pop(old, None)
            return event


def _caller(record: Record) -> str | None:
    """``seat:N``, ``host``, or None (no token: a spectator). A token not of this game: 401."""
    presented = common.bearer_hash()
    if presented is None and not request.headers.get("Authorization"):
        return None
    return common.identify(record.doc["auth"], presented)


def serve(kind: str, id: str, query: dict[str, Any],
           make_viewer: Callable[[Record, str | None], Viewer]) -> Response:
    store = common.store()
    record = common.fetched(kind, id)
    viewer = make_viewer(record, _caller(record))
    raw = request.headers.get("Last-Event-ID")
    if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 15):
        return problem(422, "invalid_request", "the request does not match the operation's schema",
                       errors={"Last-Event-ID": ["must be a version (a non-negative integer)"]})
    last = None if raw is None else int(raw)
    settings = config.settings(current_app)
    maximum = settings.stream_max_seconds
    hub = live.hub_for(current_app)
    channel = store.channel(kind, id)
    if query.get("wait_for_version") is not None:
        timeout = min(float(query.get("timeout") or settings.long_poll_default_seconds), maximum)
        give_back = live.slots_for(current_app).take()  # past the worker's share: 503 too_many_streams
        try:
            return _long_poll(store, hub, channel, record, viewer, query["wait_for_version"], timeout)
        finally:
            give_back()
    timeout = min(float(query.get("timeout") or maximum), maximum)
    if last is not None and last > record.version:
        last = None  # not a version of this game: the client has nothing of it
    if last == record.version and viewer.finished(viewer.build(record)):
        return Response(status=204)
    give_back = live.slots_for(current_app).take()  # past the worker's share: 503 too_many_streams
    cache = current_app.extensions.setdefault("referee_events", EventCache())
    stream = _stream(store, hub, cache, channel, kind, id, viewer, last, timeout,
                     settings.stream_heartbeat_seconds, request.environ.get(FINISH_WRITES_BY))
    response = Response(stream, mimetype=STREAM_CONTENT_TYPE,
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    response.call_on_close(give_back)  # the server closes every response it was given, sent or not
    return response


def _long_poll(store: Store, hub: live.Hub, channel: str, record: Record, viewer: Viewer,
               wanted: int, timeout: float) -> Response:
    deadline = time.monotonic() + timeout
    if record.version < wanted:
        with metrics.stream_open(record.kind), hub.subscription(channel) as sub:
            while True:
                record = store.read(record.kind, record.id)
                remaining = deadline - time.monotonic()
                if record.version >= wanted or remaining <= 0:
                    break
                sub.wait(remaining)
    data = viewer.build(record)
    return views.conditional(data, record.version, viewer.schema, viewer.etag_tag(data))


def _event(version: int, payload: dict[str, Any]) -> str:
    return f"id: {version}\nevent: state\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


def _stream(store: Store, hub: live.Hub, cache: EventCache, channel: str, kind: str, id: str,
            viewer: Viewer, last: int | None, timeout: float, heartbeat: float,
            finish_writes_by: Callable[[float], None] | None = None) -> Iterator[str]:
    """The event stream: runs after the response headers are sent, so it ends rather than raise.

    It sends the current version at once (unless the client has it), then waits: a message on the
    channel (a new version) wakes it; at every heartbeat it also asks the store for the version, so
    a message lost while the hub reconnected costs at most one heartbeat.  While the store is
    unreachable the stream stays open (keep-alive lines) and looks again every second.

    The deadline holds for the writes too (``finish_writes_by``, offered by the server): an event the
    client is not taking (its buffers full, never read) is not waited for past it.
    """
    deadline = time.monotonic() + timeout
    if finish_writes_by is not None:
        finish_writes_by(deadline)
    sent = last
    with metrics.stream_open(kind), hub.subscription(channel) as sub:
        yield f"retry: {RETRY_MS}\n\n"
        wanted: int | None = None  # None: read the store; else the version announced
        while True:
            try:
                if wanted is None or sent is None or wanted > sent:
                    event = cache.event(store, kind, id, viewer, wanted)
                    if sent is None or event.version > sent:
                        yield event.text
                        sent = event.version
                        if event.finished:
                            return
            except NotFound:
                return  # the game expired
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                # The store is away (a failover): keep the stream and look again in a second.
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                sub.wait(min(STORE_RETRY_SECONDS, remaining))
                wanted = None
                yield ": keep-alive\n\n"  # also tells a dead client from a live one
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if sub.wait(min(heartbeat, remaining)):
                wanted = sub.announced()  # None after a reconnect: anything may have happened
            elif deadline - time.monotonic() > 0:
                yield ": keep-alive\n\n"
                wanted = _stored_version(store, kind, id)
            else:
                return


def _stored_version(store: Store, kind: str, id: str) -> int | None:
    try:
        version = store.redis.hget(store.key(kind, id), "version")
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        return None
    return int(version) if version is not None else None


# One event of the stream, as SSE readers (and OpenAPI 3.2's itemSchema) see it; in OpenAPI 3.0 the
# schema of a text/event-stream response describes each event.
EVENT_SCHEMA = {
    "type": "object",
    "required": ["event", "id", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["state"]},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The version the event shows."},
        "data": {"type": "string", "description": "The caller's view at that version, as JSON: exactly "
                 "what the view endpoint returns to the same caller."},
        "retry": {"type": "integer", "description": "Milliseconds EventSource waits before reconnecting."},
    },
}


def _documented(blp: Blueprint, operation_id: str, summary: str, views: tuple[str, str]):
    """The spec of an events operation: an SSE stream or, with wait_for_version, the caller's view."""
    public, seat = (f"#/components/schemas/{name}" for name in views)
    responses = {
        200: {
            "description": "The event stream; with `wait_for_version`, the caller's view (a seat's "
            "token: that seat's view; otherwise the public view).",
            "content": {
                STREAM_CONTENT_TYPE: {
                    "schema": EVENT_SCHEMA,
                    "example": 'retry: 2000\n\nid: 7\nevent: state\ndata: {"version": 7, ...}\n\n: keep-alive\n\n',
                },
                "application/json": {"schema": {"anyOf": [{"$ref": seat}, {"$ref": public}]}},
            },
        },
        204: {"description": "The game is over and the client already has its final version "
              "(`Last-Event-ID`): nothing more will come (EventSource stops reconnecting)."},
    }

    def decorate(func):
        for status in (304, 401, 404, 422, 429, 503):
            func = blp.alt_response(status, response=HTTPStatus(status).name)(func)
        func = blp.arguments(EventsQuerySchema, location="query", as_kwargs=True)(func)
        return blp.doc(operationId=operation_id, summary=summary, responses=responses,
                       parameters=[LAST_EVENT_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
                       security=[{}, {"bearerAuth": []}])(func)

    return decorate


@blp.route("/v1/gops/games/<string:game_id>/events", tags=["gops"])
class GopsEvents(MethodView):
    @_documented(blp, "watchGopsGame", "Watch a game: its new versions as Server-Sent Events, or a long poll",
                 ("GopsGame", "GopsSeatView"))
    def get(self, game_id: str, **query: Any):
        """Every new version of the game as it happens, as the caller may see it.

        Send a seat's token to get that seat's view (its own unresolved reveal, its legal actions),
        none (or the host's) for the public view. Each event is `id: <version>`, `event: state`,
        `data: <the view JSON>`; reconnect with `Last-Event-ID` to resume. With `wait_for_version`
        the answer is one view (JSON) instead, as soon as the game reaches that version.
        """
        return serve(gops_api.KIND, game_id, query, _gops_viewer)


@blp.route("/v1/gofo/tables/<string:table_id>/events", tags=["gofo"])
class GofoEvents(MethodView):
    @_documented(blp, "watchGofoTable", "Watch a table: its new versions as Server-Sent Events, or a long poll",
                 ("GofoTable", "GofoSeatView"))
    def get(self, table_id: str, **query: Any):
        """Every new version of the table as it happens, as the caller may see it.

        Send a seat's token to get that seat's view (its cards, its legal actions), none (or the
        host's) for the public view: never a hidden card. Each event is `id: <version>`,
        `event: state`, `data: <the view JSON>`; reconnect with `Last-Event-ID` to resume. With
        `wait_for_version` the answer is one view (JSON) instead, as soon as the table reaches that
        version.
        """
        return serve(gofo_api.KIND, table_id, query, _gofo_viewer)
