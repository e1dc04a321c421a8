"""Apps as clients: the ``Referee-App-Key`` header, its limits and metrics, and an app's games.

A request may carry an app's key (issued by the operator: ``python -m service.apps``; stored by
:mod:`service.storage.apps`) beside a seat's ``Authorization`` token. Three request hooks:

1. :func:`identify` (before the rate limiter): the key's app, one ``GET``; the rate limiter then
   counts the request against the app's own limits (:func:`current`) instead of its address's.
   A key that is not one (unknown, rolled, revoked) is counted against the address as if it were
   absent, and
2. :func:`enforce` (after the rate limiter) refuses it: ``401`` ``invalid_app_key``,
   ``app_key_rolled``, ``app_key_revoked``; a key used from a browser ``Origin`` the app does not
   list: ``403`` ``app_origin_not_allowed``; a create without a key when
   ``REFEREE_APP_KEYS_REQUIRED_FOR_CREATES``: ``401`` ``app_key_required``.
3. :func:`count` (after the response): per-app requests, creates and refusals by code on
   ``/metrics``, labelled by the app's name (never its key).

A game created with a key belongs to its app (``doc["app"]``, and the app's index,
:func:`note_game`): ``GET /v1/apps/me/games`` lists them (:mod:`service.api.app_games`).
"""

from __future__ import annotations

import json

from flask import Flask, current_app, g, has_request_context, request

from service import config
from service.api import auth, ratelimit
from service.errors import Forbidden, Unauthorized
from service.ops import metrics
from service.storage.apps import App, Apps
from service.storage.scripts import StreamEntry

HEADER = "Referee-App-Key"
MAX_KEY_LENGTH = 256


# --------------------------------------------------------------------- the key


def apps() -> Apps:
    return current_app.extensions["referee_apps"]


def current() -> App | None:
    """The app whose key this request carries, if it carries a current one."""
    return g.get("referee_app") if has_request_context() else None


def identify() -> None:
    """Find the app of the presented key (module docstring, 1); a refusal is kept for :func:`enforce`."""
    key = request.headers.get(HEADER)
    if key is None:
        return
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii():
        g.referee_app_refusal = Unauthorized(f"the {HEADER} is not a key this referee issued",
                                             code="invalid_app_key")
        return
    found = apps().presented(auth.token_hash(key.strip()))
    if found.app is not None:
        g.referee_app = app = found.app
        limits = app.limits
        ratelimit.use_own_limits(f"app.{app.name}", _limits(
            ("req", limits.requests_per_minute, 60, "requests per minute"),
            ("req-hour", limits.requests_per_hour, 3600, "requests per hour"),
        ), _limits(
            ("create", limits.creates_per_minute, 60, "games created per minute"),
            ("create-hour", limits.creates_per_hour, 3600, "games created per hour"),
        ))
        return
    g.referee_app_name = found.name  # for the refusals metric of a rolled or revoked key
    if found.ended is None:
        g.referee_app_refusal = Unauthorized(f"the {HEADER} is not a key this referee issued",
                                             code="invalid_app_key")
    elif found.ended == "rolled":
        g.referee_app_refusal = Unauthorized(f"this {HEADER} was rolled: use the app's new key",
                                             code="app_key_rolled")
    else:
        g.referee_app_refusal = Unauthorized(f"this {HEADER} was revoked by the operator",
                                             code="app_key_revoked")


def _limits(*rows: tuple[str, int, int, str]) -> list[ratelimit.Limit]:
    """The rate limiter's limits of (counter, count, window in seconds, what is counted); 0: off."""
    return [ratelimit.Limit(name, count, window, f"{count} {what}") for name, count, window, what in rows if count > 0]


def enforce() -> None:
    """Refuse what :func:`identify` found wrong, a key from an origin its app does not list, and a
    keyless create when keys are required (module docstring, 2)."""
    refusal = g.pop("referee_app_refusal", None)
    if refusal is not None:
        raise refusal
    app = current()
    if app is not None:
        origin = request.headers.get("Origin")
        if app.origins and origin is not None and origin not in app.origins:
            raise Forbidden(f"app {app.name!r} does not list the origin {origin!r}", code="app_origin_not_allowed")
    elif config.settings(current_app).app_keys_required_for_creates and is_create():
        raise Unauthorized(f"this referee creates games only for apps: send the app's {HEADER} header",
                           code="app_key_required")


def is_create() -> bool:
    rule = request.url_rule
    return rule is not None and f"{request.method} {rule.rule}" in config.settings(current_app).rate_limit_create_routes


def count(response):
    """Per-app usage on /metrics (module docstring, 3)."""
    app = current()
    name = app.name if app is not None else g.get("referee_app_name")
    if name is None:
        return response
    if app is not None:
        metrics.APP_REQUESTS.labels(app=name).inc()
        if response.status_code == 201 and is_create():
            metrics.APP_CREATES.labels(app=name).inc()
    if response.status_code >= 400:
        metrics.APP_REFUSALS.labels(app=name, code=g.get("referee_problem_code") or str(response.status_code)).inc()
    return response


def note_game(kind: str, id: str, created: float) -> str | None:
    """Index a game being created for the request's app, if it has one: the app's name (stored in
    the game's document), else None."""
    app = current()
    if app is None:
        return None
    apps().add_game(app.name, kind, id, created)
    return app.name


def stream_entry(kind: str, id: str, doc: dict, change: str, entries: list[dict]) -> StreamEntry | None:
    """The entry a change of a game (``created``, ``state``: a new version, or ``finished``) adds to
    its app's stream, if an app created it (the store adds it with the change): what changed is
    who did what, from the change's transcript ``entries`` — each one's ``by`` and its action's
    ``type``, which every public transcript shows (never an action's content: a bid, a card)."""
    name = doc.get("app")
    if name is None:
        return None
    actions = [{"by": e["by"], "type": e["action"]["type"]} for e in entries]
    return apps().entry(name, kind, id, change, json.dumps(actions, separators=(",", ":")))


# ------------------------------------------------------------------------ wiring


def init_app(app: Flask) -> None:
    """The store of apps and :func:`identify`, before the rate limiter's hooks: call this first,
    then :func:`ratelimit.init_app`, then :func:`init_checks`."""
    store = app.extensions["referee_store"]
    settings = config.settings(app)
    app.extensions["referee_apps"] = Apps(store.redis, settings.key_prefix,
                                          keep_seconds=settings.idle_game_ttl + settings.finished_game_ttl,
                                          sharded_pubsub=store.sharded_pubsub)
    app.before_request(identify)


def init_checks(app: Flask) -> None:
    """:func:`enforce` and :func:`count`, after the rate limiter's hooks (its 429 is counted too)."""
    app.before_request(enforce)
    app.after_request(count)
