"""Prometheus metrics (``GET /metrics``; the list: docs/operations.md), safe under several workers.

Under gunicorn every worker writes its values to files in ``PROMETHEUS_MULTIPROC_DIR`` (set by
``deploy/gunicorn.conf.py``) and ``/metrics`` reports the sum over all of them; without it (tests,
a plain ``flask run``) the metrics are the process's own."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from service.games.registry import GAMES

REQUEST_LATENCY = Histogram(
    "referee_http_request_duration_seconds",
    "Time to answer a request, per operation (the route's endpoint).",
    ["operation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
REQUESTS = Counter(
    "referee_http_requests",
    "Requests answered, per operation, method and status code.",
    ["operation", "method", "status"],
)
STORE_ERRORS = Counter(
    "referee_store_errors",
    "Redis errors: unreachable or timed out (request), the rate limiter failing open (ratelimit), "
    "active-game bookkeeping (active), a change an app's stream missed (app_events).",
    ["kind"],
)
UNREPLICATED_WRITES = Counter(
    "referee_store_unreplicated_writes",
    "Writes that reached fewer replicas than REDIS_WAIT_REPLICAS: WAIT timed out, or the shard had no "
    "replica online to wait for.",
)
SIDELINE_SKIPPED = Counter(
    "referee_store_sideline_skipped",
    "Bookkeeping on another shard than the request's game (ratelimit, active) not tried: its node failed "
    "within the cooldown (service.storage.sidelines), so the request went on without it.",
    ["kind"],
)
QUEUE_TIMEOUTS = Counter(
    "referee_http_queue_timeouts",
    "Requests not served because they waited past REFEREE_QUEUE_TIMEOUT before the worker could start "
    "on them (answered 503 queue_timeout by the gunicorn worker, service.ops.serving).",
)
GAMES_CREATED = Counter("referee_games_created", "Games (gops) and tables (gofo) created.", ["kind"])
GAMES_FINISHED = Counter("referee_games_finished", "Games that reached their end.", ["kind"])
# An app's usage (service.api.apps), labelled by the app's name (chosen by the operator, never its key).
APP_REQUESTS = Counter("referee_app_requests", "Requests sent with an app's key, per app.", ["app"])
APP_CREATES = Counter("referee_app_creates", "Games and tables created with an app's key, per app.", ["app"])
APP_REFUSALS = Counter(
    "referee_app_refusals",
    "Requests with an app's key (current, rolled or revoked) answered with an error, per app and error code "
    "(rate_limited, app_key_revoked, ...).",
    ["app", "code"],
)
#: Live-update streams open now. The SSE code keeps it with :func:`stream_open`.
OPEN_STREAMS = Gauge(
    "referee_open_streams",
    "Live-update streams (SSE and long polls) open now.",
    ["kind"],
    multiprocess_mode="livesum",
)


@contextmanager
def stream_open(kind: str) -> Iterator[None]:
    """Count one open stream of ``kind`` for the ``with`` block."""
    gauge = OPEN_STREAMS.labels(kind=kind)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


class ActiveGamesCollector(Collector):
    """``referee_games_active{kind}``, read from the store at scrape time."""

    def __init__(self, store) -> None:
        self.store = store

    def collect(self):
        family = GaugeMetricFamily(
            "referee_games_active",
            "Games (gops) and tables (gofo) created within the idle TTL and not finished.",
            labels=["kind"],
        )
        for kind in GAMES:  # every game the registry lists
            try:
                count = self.store.active_count(kind)
            except Exception:  # noqa: BLE001 - a scrape never fails on the store
                STORE_ERRORS.labels(kind="active").inc()
                continue
            family.add_metric([kind], count)
        yield family


def exposition(store, multiprocess_dir: str | None) -> tuple[bytes, str]:
    """The text exposition of every metric and its content type: all workers' when
    ``multiprocess_dir`` (``PROMETHEUS_MULTIPROC_DIR``) is set, else this process's."""
    if multiprocess_dir:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=multiprocess_dir)
    else:
        from prometheus_client import REGISTRY as registry
    per_scrape = CollectorRegistry(auto_describe=False)
    per_scrape.register(ActiveGamesCollector(store))
    return generate_latest(registry) + generate_latest(per_scrape), CONTENT_TYPE_LATEST
