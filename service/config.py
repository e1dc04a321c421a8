"""Configuration, read from the environment in one place.

Every setting can be overridden by a dict passed to ``create_app`` (tests do).
"""

from __future__ import annotations

import os
from typing import Any


def _int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def from_environment() -> dict[str, Any]:
    return {
        # Where game state lives.  `make run` starts an embedded Valkey when unset.
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        # Seconds to wait for Redis before answering 503 store_unavailable (never hang a request).
        "REDIS_TIMEOUT": float(os.environ.get("REFEREE_REDIS_TIMEOUT") or 1.0),
        # Redis connections each worker holds at most (per node on a cluster): the worker's
        # concurrency, capped by this (service.storage.redis_client.pool_size).
        "REDIS_MAX_CONNECTIONS": _int("REFEREE_REDIS_MAX_CONNECTIONS", 100),
        # Seconds a request waits for a free Redis connection before 503 store_busy (Retry-After).
        "REDIS_POOL_TIMEOUT": float(os.environ.get("REFEREE_REDIS_POOL_TIMEOUT") or 5.0),
        # Requests one worker serves at once, set by the server for each worker it starts
        # (deploy/gunicorn.conf.py: gevent's worker_connections, gthread's threads); 0: unknown.
        "WORKER_CONCURRENCY": _int("REFEREE_WORKER_CONCURRENCY", 0),
        # The share of a worker's connections that streams and long polls may hold; past it
        # 503 too_many_streams (Retry-After), so moves and reads always find room.
        "STREAM_SHARE": float(os.environ.get("REFEREE_STREAM_SHARE") or 0.75),
        # After each write, WAIT until this many replicas have it (no acknowledged move lost on a
        # failover); unset: 1 for a cluster URL (redis+cluster://...), 0 for one server.
        "REDIS_WAIT_REPLICAS": _int("REFEREE_REDIS_WAIT_REPLICAS", -1),
        # How long that WAIT may take, in ms (then the write stands, counted as unreplicated).
        "REDIS_WAIT_TIMEOUT_MS": _int("REFEREE_REDIS_WAIT_TIMEOUT_MS", 500),
        # GET /metrics needs "Authorization: Bearer <this>" when set; empty: open (block it at the proxy).
        "METRICS_TOKEN": os.environ.get("REFEREE_METRICS_TOKEN", ""),
        # One JSON "request" log line per request (service.ops.logs); 0 turns it off.
        "ACCESS_LOG": _int("REFEREE_ACCESS_LOG", 1) != 0,
        # Prefix of every key the store writes (lets several deployments share a Redis).
        "KEY_PREFIX": os.environ.get("REFEREE_KEY_PREFIX", "referee"),
        # A finished game stays readable (state, transcript) this long, in seconds.
        "FINISHED_GAME_TTL": _int("REFEREE_FINISHED_GAME_TTL", 7 * 86400),
        # A game nobody has touched for this long is abandoned and expires.
        "IDLE_GAME_TTL": _int("REFEREE_IDLE_GAME_TTL", 30 * 86400),
        # Stored documents each worker keeps parsed for views (service.storage.store.Store.read); 0: none.
        "READ_CACHE_SIZE": _int("REFEREE_READ_CACHE_SIZE", 256),
        # Games whose latest stored bytes each worker keeps, so that a move on a game it saved or
        # read last is one round trip, not two (service.storage.store.Store.latest); 0: none.
        "LATEST_RECORDS": _int("REFEREE_LATEST_RECORDS", 256),
        # Largest request body accepted, in bytes (larger: 413 problem+json).
        "MAX_CONTENT_LENGTH": _int("REFEREE_MAX_BODY_BYTES", 16 * 1024),
        # Rate limits per client (service.api.ratelimit), shared by all API processes through Redis; 0 = off.
        # Requests per minute, every route but /healthz.
        "RATE_LIMIT_PER_MINUTE": _int("REFEREE_RATE_LIMIT_PER_MINUTE", 1200),
        # Create requests per hour, on the routes below.
        "CREATE_LIMIT_PER_HOUR": _int("REFEREE_CREATE_LIMIT_PER_HOUR", 120),
        # "METHOD rule" of every route that creates a game or table (one more string per new one).
        "RATE_LIMIT_CREATE_ROUTES": ("POST /v1/gops/games", "POST /v1/gofo/tables"),
        # Reverse proxies in front of the app: the client is taken from X-Forwarded-For (ProxyFix x_for=N).
        "TRUSTED_PROXIES": _int("REFEREE_TRUSTED_PROXIES", 0),
        # Check every view sent against its schema's dump (service.api.common.dumped): 1 or 0;
        # unset: on in a TESTING app (the test suite), off when serving.
        "CHECK_VIEWS": None if os.environ.get("REFEREE_CHECK_VIEWS", "") == "" else _int("REFEREE_CHECK_VIEWS", 0) != 0,
        # Origins allowed to call the API from a browser (CORS), comma-separated, or *; empty = CORS off.
        "CORS_ORIGINS": os.environ.get("REFEREE_CORS_ORIGINS", ""),
    }
