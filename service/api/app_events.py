"""``GET /v1/apps/me/events``: one stream of every change of every game an app created, as
Server-Sent Events (docs/client-guide.md#for-apps).

Each event is one entry of the app's Redis Stream (service.storage.apps: added by the store with
each change of one of its games, :func:`service.api.apps.stream_entry`): ``id:`` the entry's id, ``event:``
``created``, ``state`` (a new version) or ``finished``, ``data:`` ``{"game", "id", "version",
"href", "actions"}`` (``actions``: who did what in the change, ``[{"by", "type"}]``, as every public
transcript shows it). The stream lives in Redis, so a client that reconnects with ``Last-Event-ID`` to any API
process gets every entry after that id, once. Woken by the app's pub/sub channel (the process's one
subscriber, service.storage.live); at every heartbeat it also reads the stream, so a lost
announcement costs at most one heartbeat.
"""

from __future__ import annotations

import json
import re
import time
from typing import Iterator

import marshmallow as ma
import redis
from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import fields, validate

from service import config
from service.api import apps, common
from service.api.events import RETRY_MS, STORE_RETRY_SECONDS, STREAM_CONTENT_TYPE, TIMEOUT_LIMIT
from service.errors import InvalidAction, Unauthorized
from service.games.registry import GAMES
from service.ops import metrics
from service.ops.serving import FINISH_WRITES_BY
from service.storage import live
from service.storage.apps import Apps

ENTRY_ID = re.compile(r"^[0-9]{1,20}-[0-9]{1,20}$")
BATCH = 100  # entries read from the app's stream at a time

blp = common.Blueprint("app_events", __name__, url_prefix="/v1/apps",
                       description=f"Apps: one stream of every change of every game created with the app's key "
                                   f"(the {apps.HEADER} header).")


class AppEventsQuerySchema(ma.Schema):
    timeout = fields.Integer(validate=validate.Range(min=1, max=TIMEOUT_LIMIT), metadata={
        "description": "Seconds the stream may last, at most the server's maximum (REFEREE_STREAM_MAX_SECONDS)."})


LAST_EVENT_ID_PARAMETER = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "schema": {"type": "string", "pattern": ENTRY_ID.pattern},
    "description": "The id of the last event the client has (EventSource sends it when it reconnects): "
    "the stream goes on from the next one. Without it, the stream starts with the next change.",
    "example": "1765065600123-0",
}

EVENT_SCHEMA = {
    "type": "object",
    "required": ["event", "id", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["created", "state", "finished", "reset"]},
        "id": {"type": "string", "pattern": ENTRY_ID.pattern, "description": "Resume after it (Last-Event-ID)."},
        "data": {"type": "string", "description": 'JSON: {"game", "id", "version", "href", "actions"} of the '
                 'game that changed, actions being who did what in the change ([{"by": "seat:0", "type": '
                 '"commit"}], never a bid or a card); for reset, {"reason": "trimmed"}: events after '
                 'Last-Event-ID may no longer be kept.'},
        "retry": {"type": "integer"},
    },
}


@blp.route("/me/events")
class AppEvents(MethodView):
    @blp.doc(operationId="watchAppGames", summary="Watch every game your app created, on one stream",
             security=[{"appKey": []}], parameters=[LAST_EVENT_ID_PARAMETER],
             responses={200: {"description": "The event stream.", "content": {STREAM_CONTENT_TYPE: {
                 "schema": EVENT_SCHEMA,
                 "example": 'retry: 2000\n\nid: 1765065600123-0\nevent: state\ndata: {"game": "gops", '
                            '"id": "Xk3_9fQa2LmZ", "version": 4, "href": "/v1/gops/games/Xk3_9fQa2LmZ", '
                            '"actions": [{"by": "seat:1", "type": "commit"}]}\n\n'}}}})
    @blp.arguments(AppEventsQuerySchema, location="query", as_kwargs=True)
    @common.error_responses("app")
    def get(self, timeout: int | None = None):
        """Every change of every game (and table) created with your app's key, as it happens: one
        event when a game is created, one per new version, one when it finishes.

        An event names the game, its version and who did what (``actions``), not its view: read
        the view (``href``) or that game's own stream when you need it. Reconnect with ``Last-Event-ID`` (EventSource does) to
        any server to get every event after it, once; if it is older than the stream keeps (the
        newest 10,000 events), the first event is ``reset``: list your games again."""
        app = apps.current()
        if app is None:
            raise Unauthorized(f"send your app's {apps.HEADER} header", code="app_key_required")
        raw = request.headers.get("Last-Event-ID")
        if raw is not None and not ENTRY_ID.fullmatch(raw):
            raise InvalidAction("Last-Event-ID is not an id of this stream (like 1765065600123-0)",
                                code="invalid_cursor")
        store = apps.apps()
        oldest_kept, newest = store.position(app.name)
        if raw is not None and _before(newest, raw):
            raw = None  # not an id of this stream: the client has nothing of it
        reset = raw is not None and _before(raw, oldest_kept)  # entries after it may be gone
        after = newest if raw is None else raw
        settings = config.settings(current_app)
        maximum = settings.stream_max_seconds
        seconds = min(float(timeout or maximum), maximum)
        give_back = live.slots_for(current_app).take()  # past the worker's share: 503 too_many_streams
        stream = _stream(store, live.hub_for(current_app), app.name, after, reset, seconds,
                         settings.stream_heartbeat_seconds, request.environ.get(FINISH_WRITES_BY))
        response = Response(stream, mimetype=STREAM_CONTENT_TYPE,
                            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        response.call_on_close(give_back)
        return response


def _before(entry: str, other: str) -> bool:
    """Whether the stream id ``entry`` comes before ``other``."""
    a, b = entry.split("-"), other.split("-")
    return (int(a[0]), int(a[1])) < (int(b[0]), int(b[1]))


def _event(entry: str, fields: dict[str, str]) -> str:
    kind, id = fields["game"], fields["id"]
    collection = GAMES[kind].collection if kind in GAMES else kind
    data = {"game": kind, "id": id, "version": int(fields["version"]), "href": f"/v1/{kind}/{collection}/{id}",
            "actions": json.loads(fields.get("actions") or "[]")}
    return f"id: {entry}\nevent: {fields['change']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _stream(store: Apps, hub: live.Hub, name: str, after: str, reset: bool, timeout: float, heartbeat: float,
            finish_writes_by=None) -> Iterator[str]:
    """The events after ``after``, then each new one as it is announced, until ``timeout``."""
    deadline = time.monotonic() + timeout
    if finish_writes_by is not None:
        finish_writes_by(deadline)
    with metrics.stream_open("app"), hub.subscription(store.channel(name)) as sub:
        yield f"retry: {RETRY_MS}\n\n"
        if reset:
            yield f"id: {after}\nevent: reset\ndata: {json.dumps({'reason': 'trimmed'})}\n\n"
        while True:
            try:
                entries = store.events_after(name, after, BATCH)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                entries = None  # the store is away: keep the stream, look again in a second
            for entry, fields in entries or ():
                yield _event(entry, fields)
                after = entry
            if entries and len(entries) == BATCH:
                continue  # more are waiting
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            wait = min(heartbeat if entries is not None else STORE_RETRY_SECONDS, remaining)
            if not sub.wait(wait):
                yield ": keep-alive\n\n"

