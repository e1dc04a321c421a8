"""The Flask application factory."""

from __future__ import annotations

import dataclasses
import hmac
import http
import json
from typing import Any, Callable

import redis
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask import Flask, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge
from werkzeug.wsgi import get_content_length

from service import __version__, config
from service.web import cors, docs, json_body, play
from service.api import app_events, app_games, apps, ratelimit
from service.web.bodylimit import BodyLimit
from service.web.security_headers import SecurityHeaders
from service.api import converters, problems
from service.api.common import PARSED_BODY
from service.errors import RefereeError, StoreBusy
from service.web.json_provider import JSONProvider
from service.storage.store import Store
from service.ops import logs, metrics
from service.storage.redis_client import is_cluster, make_client, pool_exhausted, pool_size

API_DESCRIPTION = """\
A referee for card games as a service: it deals, keeps secrets, validates every
move, resolves rounds and keeps a transcript anyone can re-verify.

* Create a game and keep the tokens it returns: one per seat, one for the host.
  Send them as `Authorization: Bearer <token>`.
* Bids are secret: commit `sha256("gops-bid-v1|<game_id>|<round>|<seat>|<cards>|<salt>")`,
  then reveal the cards and salt once every seat has committed.
* Every state has a `version`; poll with `If-None-Match` (304 when unchanged),
  and send `version` with a move to refuse it if the game has moved on.
* Every error is `application/problem+json` with a stable `code`.
"""


class _NullableRefConverter(OpenAPIConverter):
    """Nullable nested objects as ``{"allOf": [{"$ref": X}], "nullable": true}`` (OpenAPI 3.0).

    apispec's default for ``Nested(..., allow_none=True)`` is an ``anyOf`` whose
    first branch accepts any object: openapi-python-client then parses a real
    result as an untyped bag and typescript-fetch drops the ``null``.  This form
    gives both generators ``X | None`` (tests/test_sdk_clients.py proves it).
    """

    def field2nullable(self, field, ret):
        if field.allow_none and self.openapi_version.major == 3 and self.openapi_version.minor == 0:
            if "$ref" in ret:
                return {"allOf": [{"$ref": ret.pop("$ref")}], "nullable": True}
            if "allOf" in ret:  # a Nested with a description is already wrapped in allOf
                return {"nullable": True}
        return super().field2nullable(field, ret)


class _MarshmallowPlugin(MarshmallowPlugin):
    Converter = _NullableRefConverter


class RefereeApi(Api):
    """flask-smorest's Api with RFC 9457 problem+json errors, documented as such."""

    ERROR_SCHEMA = problems.ProblemSchema

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, problems.PROBLEM_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, problems.PROBLEM_CONTENT_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def handle_http_exception(self, error: HTTPException):
        return problems.from_http_exception(error)

    def _openapi_json(self):
        """/openapi.json, naming the server it was fetched from (service.web.docs.served_spec)."""
        body = json.dumps(docs.served_spec(self.spec.to_dict()), indent=2)  # ASCII: YAML tools read it too
        return self._app.response_class(body, mimetype="application/json")


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


#: (operation, method, status) -> that request's latency histogram and counter (the labelled
#: children prometheus_client would look up, validate and lock for on every request).
_REQUEST_METRICS: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def _observe(response, seconds: float) -> None:
    """Request metrics; labels are bounded (route endpoints, known methods, status codes)."""
    req = request._get_current_object()
    key = (req.endpoint or "unmatched", req.method if req.method in _METHODS else "other", response.status_code)
    children = _REQUEST_METRICS.get(key)
    if children is None:
        operation, method, status = key
        children = _REQUEST_METRICS[key] = (
            metrics.REQUEST_LATENCY.labels(operation=operation),
            metrics.REQUESTS.labels(operation=operation, method=method, status=str(status)),
        )
    latency, count = children
    latency.observe(seconds)
    count.inc()


class RefereeFlask(Flask):
    """Flask, remembering which functions are plain (not coroutines).

    Flask asks ``inspect.iscoroutinefunction`` of every hook and view on every request (about
    fifteen times a move); the answer never changes for a function, so it is kept. Its JSON
    responses are encoded by orjson (:mod:`service.web.json_provider`).
    """

    json_provider_class = JSONProvider
    _plain: set[Callable] = set()

    def ensure_sync(self, func: Callable) -> Callable:
        if func in self._plain:
            return func
        wrapped = super().ensure_sync(func)
        if wrapped is func:
            try:
                self._plain.add(func)
            except TypeError:  # unhashable callable: ask every time
                pass
        return wrapped


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """The app on the settings the environment gives (:mod:`service.config`), with ``overrides``:
    Flask's own keys (``TESTING``) and settings named as their field in capitals (``KEY_PREFIX``);
    any other name is a KeyError. The settings are then read as attributes: ``config.settings(app)``."""
    app = RefereeFlask(__name__)
    app.url_map.merge_slashes = False  # /games//x is a 404, not a redirect to another resource
    settings = _configure(app, overrides or {})
    _open_store(app, settings)
    # Request ids, JSON request log lines and request metrics: the first before- and last
    # after-request hook, so every response (errors, 429s, 404s) gets an X-Request-Id.
    logs.init_app(app, on_response=_observe)
    _register_api(app)
    _handle_errors(app)
    # A chunked body gets a Content-Length too (past the limit: limit + 1), so every body is measured.
    app.wsgi_app = BodyLimit(app.wsgi_app, lambda: config.settings(app).max_body_bytes)
    # nosniff, no-referrer, DENY on every response, no-store under /v1/ (service.web.security_headers).
    app.wsgi_app = SecurityHeaders(app.wsgi_app)
    _accept_json_only(app)
    _serve_probes(app, settings)
    return app


def _configure(app: Flask, overrides: dict[str, Any]) -> config.Settings:
    """The spec's and the docs' Flask settings, then the caller's ``overrides`` (:func:`create_app`);
    the app's settings, resolved (``app.extensions["referee_settings"]``)."""
    app.config.update(
        API_TITLE="Card-game referee",
        API_VERSION=__version__,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL=docs.SWAGGER_UI_URL,  # served by the service itself (service/web/docs.py)
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no badge fetched from validator.swagger.io
        OPENAPI_REDOC_PATH="/redoc",
        OPENAPI_REDOC_URL=docs.REDOC_URL,
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION},
            "servers": docs.COMMITTED_SERVERS,  # served: the origin it was fetched from
            "components": {
                "securitySchemes": {
                    "bearerAuth": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "The seat or host token returned once when the game was created.",
                    },
                    "appKey": {
                        "type": "apiKey",
                        "in": "header",
                        "name": "Referee-App-Key",
                        "description": "An app's key, issued by the referee's operator (`python -m service.apps`): "
                        "its own rate limits, and the games it creates are listed under /v1/apps/me/games.",
                    },
                }
            },
        },
    )
    app.config.update({name: value for name, value in overrides.items() if name in app.config})
    settings = config.load().overridden({name: value for name, value in overrides.items() if name not in app.config})
    settings = dataclasses.replace(
        settings,
        check_views=app.testing if settings.check_views is None else settings.check_views,
        rate_limit_enabled=not app.testing if settings.rate_limit_enabled is None else settings.rate_limit_enabled,
    )
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes  # what Flask itself reads
    app.extensions["referee_settings"] = settings
    return settings


def _open_store(app: Flask, settings: config.Settings) -> None:
    """The game store on the configured Redis or Valkey (``app.extensions["referee_store"]``)."""
    # One server (redis://) or a Redis Cluster (redis+cluster://h:p,h:p): service.storage.redis_client.
    client = make_client(settings.store_url, timeout=settings.redis_timeout,
                         max_connections=pool_size(settings.worker_concurrency, settings.redis_max_connections),
                         pool_timeout=settings.redis_pool_timeout)
    cluster = is_cluster(client)
    wait_replicas = settings.redis_wait_replicas
    app.extensions["referee_store"] = Store(
        client,
        prefix=settings.key_prefix,
        finished_ttl=settings.finished_game_ttl,
        idle_ttl=settings.idle_game_ttl,
        sharded_pubsub=cluster,  # SPUBLISH on a cluster: the channel lives in the game's slot
        wait_replicas=(1 if cluster else 0) if wait_replicas is None or wait_replicas < 0 else wait_replicas,
        wait_timeout_ms=settings.redis_wait_timeout_ms,
        read_cache_size=settings.read_cache_size,
        latest_size=settings.latest_records,
    )


def _register_api(app: Flask) -> None:
    """The API: every game's routes (the registry's order is the spec's), live updates, rate limits,
    CORS, the docs UI and ``/play``."""
    api = RefereeApi(app, spec_kwargs={"marshmallow_plugin": _MarshmallowPlugin()})
    from service.api.gofo_schemas import CARD_COMPONENT, card_ref
    from service.api.gops_schemas import variants_ref
    from service.api import generic
    from service.api.events import blp as events_blp
    from service.games.registry import GAMES

    api.spec.components.schema("Card", CARD_COMPONENT)
    api.ma_plugin.converter.add_attribute_function(card_ref)
    api.ma_plugin.converter.add_attribute_function(variants_ref)

    converters.register(app, api)  # <seat:seat>, before any route uses it
    for game in GAMES.values():  # every game the registry lists, in its order (and so in the spec)
        api.register_blueprint(game.load_blueprint() or generic.blueprint_for(game))
    # every game's create counts against the create limit
    creates = [f"POST /v1/{game.name}/{game.collection}" for game in GAMES.values()]
    settings = config.settings(app)
    app.extensions["referee_settings"] = dataclasses.replace(settings, rate_limit_create_routes=tuple(
        dict.fromkeys([*settings.rate_limit_create_routes, *creates])))
    api.register_blueprint(events_blp)  # live updates (service.storage.live): GET .../events
    api.register_blueprint(app_games.blp)  # GET /v1/apps/me/games
    api.register_blueprint(app_events.blp)  # GET /v1/apps/me/events
    apps.init_app(app)  # the request's app key: before the rate limiter, which counts it by its app
    ratelimit.init_app(app)
    apps.init_checks(app)  # refusing a bad key (counted by the address first), per-app metrics
    cors.init_app(app)
    docs.init_app(app)
    play.init_app(app)  # /play: the mobile web client (service/web/play/), outside the spec



def _handle_errors(app: Flask) -> None:
    """Every error as application/problem+json: a refusal by its code, the store down as 503, a bug as 500."""
    @app.errorhandler(RefereeError)
    def _referee_error(error: RefereeError):
        return problems.from_referee_error(error)

    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    @app.errorhandler(redis.exceptions.ClusterError)  # CLUSTERDOWN, MASTERDOWN: a failover under way
    @app.errorhandler(redis.exceptions.TryAgainError)
    @app.errorhandler(redis.exceptions.RedisClusterException)  # no node reachable, slot not covered
    def _redis_down(error: Exception):
        if pool_exhausted(error):  # Redis may be fine: this worker's connections stayed busy too long
            app.logger.warning("no redis connection free within REFEREE_REDIS_POOL_TIMEOUT")
            return problems.from_referee_error(StoreBusy(
                "every connection to the game store stayed busy; retry shortly", retry_after=1))
        metrics.STORE_ERRORS.labels(kind="request").inc()
        app.logger.error("redis unavailable: %s", error)
        return problems.problem(503, "store_unavailable", "the game store is unreachable; try again shortly")

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return problems.from_http_exception(error)
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return problems.from_http_exception(InternalServerError())



def _accept_json_only(app: Flask) -> None:
    """A body past the size limit is never read; one sent is JSON, parsed once."""

    @app.before_request
    def _json_only():
        req = request._get_current_object()
        environ = req.environ
        # Every body has a Content-Length here (BodyLimit gives a chunked one its own): no
        # header, no body to measure (werkzeug's parse of it and the limit's lookup are skipped).
        if environ.get("CONTENT_LENGTH"):
            limit = config.settings(app).max_body_bytes
            if limit is not None and (get_content_length(environ) or 0) > limit:
                raise RequestEntityTooLarge()  # whatever the method: a body past the limit is never read
        if req.method in ("POST", "PUT", "PATCH"):
            body = req.get_data(cache=True)
            if not body:
                return None
            if not req.is_json:
                return problems.problem(415, "unsupported_media_type", "send the body as application/json")
            try:  # what webargs would let through as a 500: absurd nesting, 5000-digit numbers;
                # parsed once: webargs' parser takes it from here (service.api.common.Blueprint)
                environ[PARSED_BODY] = json_body.parse(body)
            except json_body.DuplicateKey as error:
                key = json.dumps(error.key)
                key = key if len(key) <= 64 else key[:60] + "…\""
                return problems.problem(400, "duplicate_key", f"the request body holds the key {key} more than once "
                                        "in one object: send each key once")
            except json_body.MalformedJSON:
                return problems.problem(400, "malformed_json", "the request body is not valid JSON")
        return None



def _serve_probes(app: Flask, settings: config.Settings) -> None:
    """``/healthz``, ``/readyz`` and ``/metrics``."""

    @app.get("/healthz")
    def _health():
        """Liveness: the process answers. Never touches the store (a store outage is not a reason to restart)."""
        return {"status": "ok"}

    @app.get("/readyz")
    def _ready():
        """Readiness: the store answers PING (every primary, on a cluster); else 503 store_unavailable."""
        store: Store = app.extensions["referee_store"]
        store.ping()  # a ConnectionError/TimeoutError/cluster error becomes the 503 above
        return {"status": "ready"}

    @app.get("/metrics")
    def _metrics():
        """Prometheus text exposition (service.ops.metrics); behind REFEREE_METRICS_TOKEN when set."""
        token = config.settings(app).metrics_token
        if token:
            sent = request.headers.get("Authorization", "")
            if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
                return problems.problem(401, "unauthorized", "send the metrics token as a Bearer token")
        body, content_type = metrics.exposition(app.extensions["referee_store"], settings.metrics_dir)
        return app.response_class(body, content_type=content_type, headers={"Cache-Control": "no-store"})

