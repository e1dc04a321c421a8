"""The referee's configuration: every environment variable it reads, read here and nowhere else.

:class:`Settings` is the table (each field: its variable, type, default and what it does), from
which ``docs/configuration.md`` is generated (``python -m service.config --markdown
docs/configuration.md``). :func:`load` reads the environment into a frozen ``Settings``; a value
that cannot be used stops the start with a :class:`ConfigError` naming the variable. The only
writes to the environment: :func:`set_for_workers` (gunicorn's configuration, for its workers)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import urlsplit

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# "METHOD rule" of every route that creates a game or table (one more string per new one).
RATE_LIMIT_CREATE_ROUTES = ("POST /v1/gops/games", "POST /v1/gofo/tables")
# What gunicorn's configuration tells the workers through their environment (set_for_workers):
# their prometheus-client's directory, and to their app the requests each serves at once.
SET_FOR_WORKERS = frozenset({"PROMETHEUS_MULTIPROC_DIR", "REFEREE_WORKER_CONCURRENCY"})


class ConfigError(ValueError):
    """A variable whose value cannot be used; the message names the variable and the value."""

    def __init__(self, variable: str, value: str, expected: str) -> None:
        super().__init__(f"{variable}={value!r} is not valid: expected {expected}")
        self.variable = variable
        self.value = value


# ---------------------------------------------------------------------------------- value types

@dataclass(frozen=True)
class Kind:
    """How a variable's text becomes a value: ``parse`` raises ValueError when it cannot."""

    name: str  # what the table says of the type, e.g. "integer ≥ 0"
    parse: Callable[[str], Any]


def _accepted(value: Any, usable: bool) -> Any:
    if not usable:
        raise ValueError(value)
    return value


def integer(minimum: int = 0, maximum: int | None = None) -> Kind:
    name = f"integer {minimum}–{maximum}" if maximum is not None else f"integer ≥ {minimum}"
    return Kind(name, lambda text: _accepted(
        value := int(text), value >= minimum and (maximum is None or value <= maximum)))


SECONDS = Kind("seconds > 0", lambda text: _accepted(value := float(text), 0 < value < float("inf")))
FRACTION = Kind("number 0–1", lambda text: _accepted(value := float(text), 0 <= value <= 1))
FLAG = Kind("0 or 1", lambda text: _accepted(text.strip(), text.strip() in ("0", "1")) == "1")
TEXT = Kind("text", str)


def choice(*options: str) -> Kind:
    return Kind("one of " + ", ".join(options),
                lambda text: _accepted(text.strip().lower(), text.strip().lower() in options))


def redis_url() -> Kind:
    schemes = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")

    def usable(parts) -> bool:
        scheme = parts.scheme.lower()
        return scheme in schemes and bool(parts.path if scheme == "unix" else parts.netloc)

    return Kind(", ".join(f"{scheme}://" for scheme in schemes[:-1]) + f" or {schemes[-1]}:// URL",
                lambda text: _accepted(text.strip(), usable(urlsplit(text.strip()))))


def origin() -> Kind:
    def usable(parts) -> bool:
        return parts.scheme in ("http", "https") and bool(parts.netloc) and not parts.query and not parts.fragment

    return Kind("http(s) origin", lambda text: _accepted(text.strip(), usable(urlsplit(text.strip()))).rstrip("/"))


def for_the_app(default: Any, *, what: str) -> Any:
    """A field of :class:`Settings` no environment variable sets: the app factory or a test's
    ``create_app`` overrides set it (not in docs/configuration.md)."""
    return field(default=default, metadata={"variable": None, "what": what})


def variable(name: str, kind: Kind, default: Any, *, example: str, what: str,
             shown_default: str | None = None, empty_is_unset: bool = True) -> Any:
    """A field of :class:`Settings`: the variable ``name``, read as ``kind``, ``default`` when unset."""
    return field(default=default, metadata={
        "variable": name, "kind": kind, "what": what, "example": example,
        "shown_default": shown_default, "empty_is_unset": empty_is_unset})


# ------------------------------------------------------------------------------------- settings

SECTIONS = {  # the first field of each section of the table, and the section's title
    "redis_url": "Store",
    "max_body_bytes": "HTTP API",
    "metrics_token": "Logs and metrics",
    "host": "Serving (gunicorn)",
    "worker_concurrency": "Set by the server or the system (never set by hand)",
}


@dataclass(frozen=True)
class Settings:
    """Every environment variable the referee reads, as typed values."""

    # Store
    redis_url: str | None = variable("REDIS_URL", redis_url(), None, example="redis://valkey:6379/0",
        shown_default=f"embedded Valkey (`make run`), else `{DEFAULT_REDIS_URL}`",
        what="Where game state lives: `redis://host:port/db` one server, "
             "`redis+cluster://h:p,h:p,…` a cluster. Unset, `make run` starts an embedded Valkey.")
    redis_timeout: float = variable("REFEREE_REDIS_TIMEOUT", SECONDS, 1.0, example="2.5",
        what="Seconds to wait for Redis before answering `503 store_unavailable` (a request never "
             "hangs).")
    redis_max_connections: int = variable("REFEREE_REDIS_MAX_CONNECTIONS", integer(1), 100, example="50",
        what="Redis connections each worker holds at most (per node on a cluster): one per request "
             "it serves at once, up to this.")
    redis_pool_timeout: float = variable("REFEREE_REDIS_POOL_TIMEOUT", SECONDS, 5.0, example="2",
        what="Seconds a request waits for a free Redis connection before `503 store_busy` (with "
             "`Retry-After`).")
    redis_wait_replicas: int | None = variable("REFEREE_REDIS_WAIT_REPLICAS", integer(0), None, example="1",
        shown_default="`1` on a cluster, `0` on one server",
        what="After each write, `WAIT` until this many replicas have it (no acknowledged move lost "
             "on a failover).")
    redis_wait_timeout_ms: int = variable("REFEREE_REDIS_WAIT_TIMEOUT_MS", integer(0), 500, example="1000",
        what="The longest that `WAIT` may take, in ms (then the write stands, counted as "
             "unreplicated).")
    key_prefix: str = variable("REFEREE_KEY_PREFIX", TEXT, "referee", example="referee-staging",
        what="Prefix of every key the store writes (lets several deployments share a Redis).")
    finished_game_ttl: int = variable("REFEREE_FINISHED_GAME_TTL", integer(1), 7 * 86400, example="86400",
        shown_default="`604800` (7 days)",
        what="Seconds a finished game stays readable (state, transcript).")
    idle_game_ttl: int = variable("REFEREE_IDLE_GAME_TTL", integer(1), 30 * 86400, example="604800",
        shown_default="`2592000` (30 days)",
        what="Seconds after which a game nobody has touched is abandoned and expires.")
    read_cache_size: int = variable("REFEREE_READ_CACHE_SIZE", integer(0), 256, example="1024",
        what="Stored documents each worker keeps parsed for views (`0`: none).")
    latest_records: int = variable("REFEREE_LATEST_RECORDS", integer(0), 256, example="1024",
        what="Games whose latest stored bytes each worker keeps, so that a move on a game it saved "
             "or read last is one Redis round trip, not two (`0`: every move reads its game first).")
    data_dir: str = variable("REFEREE_DATA_DIR", TEXT, "data/valkey", example="/var/lib/referee",
        what="Where `make run`'s embedded Valkey keeps its append-only file (used only when "
             "`REDIS_URL` is unset).")

    # HTTP API
    max_body_bytes: int = variable("REFEREE_MAX_BODY_BYTES", integer(0), 16 * 1024, example="32768",
        what="Largest request body accepted, in bytes (larger: `413`), declared or chunked.")
    rate_limit_per_minute: int = variable("REFEREE_RATE_LIMIT_PER_MINUTE", integer(0), 1200, example="600",
        what="Requests per minute per client, every route but `/healthz`, all API processes "
             "together (through Redis; `0`: off).")
    create_limit_per_hour: int = variable("REFEREE_CREATE_LIMIT_PER_HOUR", integer(0), 120, example="30",
        what="Games (and Gofo tables) created per hour per client (`0`: off). A request with an "
             "app's key counts against that app's own limits instead (`python -m service.apps`).")
    app_keys_required_for_creates: bool = variable("REFEREE_APP_KEYS_REQUIRED_FOR_CREATES", FLAG, False,
        example="1",
        what="`1`: only a request with an app's `Referee-App-Key` may create a game or table "
             "(`401 app_key_required` without one; `/play` then cannot create); `0`: anyone may.")
    trusted_proxies: int = variable("REFEREE_TRUSTED_PROXIES", integer(0), 0, example="1",
        what="Reverse proxies in front of the app: the client is taken from `X-Forwarded-For` and "
             "the scheme from `X-Forwarded-Proto` (`0`: the peer address).")
    cors_origins: str = variable("REFEREE_CORS_ORIGINS", TEXT, "", example="https://play.example.org",
        what="Origins browsers may call the API from, comma-separated, or `*` (empty: CORS off).")
    public_url: str | None = variable("REFEREE_PUBLIC_URL", origin(), None, example="http://192.168.1.20:8000",
        what="The origin other phones reach this server at: `/play`'s join links name it (unset: "
             "the origin the page was loaded from).")
    check_views: bool | None = variable("REFEREE_CHECK_VIEWS", FLAG, None, example="1",
        shown_default="`0` (on in test apps)",
        what="`1`: hold every view sent to its schema's dump, byte for byte (a difference is a "
             "`500` and a log line); for tests and staging, it costs a dump per view.")
    stream_max_seconds: float = variable("REFEREE_STREAM_MAX_SECONDS", SECONDS, 300.0, example="120",
        what="The longest an event stream or long poll lasts, in seconds.")
    stream_heartbeat_seconds: float = variable("REFEREE_STREAM_HEARTBEAT_SECONDS", SECONDS, 15.0, example="5",
        what="Seconds between the `: keep-alive` comments of an event stream (`/play` counts a stream "
             "silent for twice this and 5 s as dead, and connects again).")
    long_poll_default_seconds: float = variable("REFEREE_LONG_POLL_DEFAULT_SECONDS", SECONDS, 30.0,
        example="20",
        what="How long a long poll without `?timeout=` waits, in seconds (at most "
             "`REFEREE_STREAM_MAX_SECONDS`).")
    stream_share: float = variable("REFEREE_STREAM_SHARE", FRACTION, 0.75, example="0.5",
        what="The share of a worker's connections that streams and long polls may hold, past it "
             "`503 too_many_streams`, so moves and reads always find room (`0`: no limit).")

    # Logs and metrics
    metrics_token: str = variable("REFEREE_METRICS_TOKEN", TEXT, "", example="s3cret-scrape-token",
        what="When set, `GET /metrics` needs `Authorization: Bearer <token>` (empty: open; block "
             "it at the proxy).")
    access_log: bool = variable("REFEREE_ACCESS_LOG", FLAG, True, example="0",
        what="One JSON `request` log line per request (`0`: off).")
    metrics_dir: str | None = variable("PROMETHEUS_MULTIPROC_DIR", TEXT, None, example="/tmp/referee-metrics",
        shown_default="a fresh temporary directory (under gunicorn)",
        what="Where gunicorn's workers keep their metric values, emptied at start; also read by "
             "prometheus-client itself.")

    # Serving (gunicorn)
    host: str = variable("HOST", TEXT, "127.0.0.1", example="0.0.0.0",
        what="Address to listen on (`0.0.0.0`: every interface, e.g. for phones on the LAN).")
    port: int = variable("PORT", integer(0, 65535), 8000, example="8080",
        what="Port to listen on.")
    web_concurrency: int = variable("WEB_CONCURRENCY", integer(1), 2, example="4",
        what="gunicorn worker processes.")
    worker_class: str = variable("GUNICORN_WORKER_CLASS", TEXT, "service.ops.serving.Worker",
        example="gthread",
        what="gunicorn worker class: the default is gevent with a body deadline and a per-client "
             "connection cap; `gthread` serves with threads (`GUNICORN_THREADS` each).")
    worker_connections: int = variable("GUNICORN_WORKER_CONNECTIONS", integer(1), 1000, example="2000",
        what="Open connections per worker (gevent).")
    threads: int = variable("GUNICORN_THREADS", integer(1), 4, example="8",
        what="Threads per worker (`gthread` only).")
    timeout: int = variable("GUNICORN_TIMEOUT", integer(0), 30, example="60",
        what="Seconds of silence after which gunicorn restarts a worker.")
    graceful_timeout: int = variable("GUNICORN_GRACEFUL_TIMEOUT", integer(0), 20, example="30",
        what="Seconds a stopping worker has to finish its requests.")
    keepalive: int = variable("GUNICORN_KEEPALIVE", integer(0), 5, example="10",
        what="Seconds within which a request's headers must arrive; an idle keep-alive connection "
             "is closed after as long.")
    reuse_port: bool = variable("GUNICORN_REUSE_PORT", FLAG, True, example="0",
        what="Each worker listens on a socket of its own (`SO_REUSEPORT`), so the kernel spreads "
             "connections over the workers (`0`: one shared socket).")
    loglevel: str = variable("GUNICORN_LOGLEVEL", choice("debug", "info", "warning", "error", "critical"), "info", example="warning",
        what="Level of gunicorn's own log lines.")
    gunicorn_accesslog: str | None = variable("GUNICORN_ACCESSLOG", TEXT, None, example="-",
        shown_default="off",
        what="gunicorn's own access log (`-`: stdout), besides the app's `request` lines.")
    forwarded_allow_ips: str = variable("FORWARDED_ALLOW_IPS", TEXT, "127.0.0.1,::1", example="10.0.0.1",
        empty_is_unset=False,
        what="Proxies gunicorn trusts for `X-Forwarded-*`, comma-separated (empty: none).")
    body_timeout: float = variable("REFEREE_BODY_TIMEOUT", SECONDS, 10.0, example="5",
        what="Seconds a request body may take to arrive (then `408 request_timeout`, connection "
             "closed).")
    queue_timeout: float = variable("REFEREE_QUEUE_TIMEOUT", SECONDS, 10.0, example="5",
        what="Seconds a whole request may wait, from when its last byte reached the server to when the "
             "worker starts on it; past it the request is not served: `503 queue_timeout` with "
             "`Retry-After`, connection closed (gevent worker on Linux TCP: the kernel tells when the "
             "bytes arrived, the listen backlog included).")
    max_connections_per_client: int = variable("REFEREE_MAX_CONNECTIONS_PER_CLIENT", integer(0), 100, example="20",
        what="Open connections per client address (IPv6: per /64) in each worker, then `429 "
             "too_many_connections` (`0`: off; off behind `REFEREE_TRUSTED_PROXIES`).")

    # Set by other programs
    worker_concurrency: int = variable("REFEREE_WORKER_CONCURRENCY", integer(0), 0, example="1000",
        what="Set by `deploy/gunicorn.conf.py` in each worker: the requests it serves at once "
             "(gevent's connections, gthread's threads), which size its Redis pool and its share "
             "of streams (`0`: unknown).")
    listen_fds: str | None = variable("LISTEN_FDS", TEXT, None, example="1",
        what="Set by systemd when it hands over the listening sockets: the workers then share them.")
    gunicorn_fd: str | None = variable("GUNICORN_FD", TEXT, None, example="3,4",
        what="Set by gunicorn for a re-executed master (`USR2`): the workers then share its "
             "sockets.")

    # Set by the app factory, or by tests (no environment variable)
    rate_limit_enabled: bool | None = for_the_app(None, what="Whether the rate limiter runs (None: unless testing).")
    rate_limit_create_routes: tuple[str, ...] = for_the_app(RATE_LIMIT_CREATE_ROUTES,
        what="\"METHOD rule\" of each route counted against the create limit (the app adds every game's create).")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """The settings ``environ`` gives; a :class:`ConfigError` for the first unusable value."""
        values = {}
        for spec in variables():
            name, kind = spec.metadata["variable"], spec.metadata["kind"]
            raw = environ.get(name)
            if raw is None or (raw == "" and spec.metadata["empty_is_unset"]):
                continue
            try:
                values[spec.name] = kind.parse(raw)
            except ValueError:
                raise ConfigError(name, raw, kind.name) from None
        return cls(**values)

    @property
    def sockets_handed_over(self) -> bool:
        """Whether the listening sockets come from systemd or a previous gunicorn master."""
        return bool(self.listen_fds) or self.gunicorn_fd is not None

    @property
    def store_url(self) -> str:
        """Where the app's store is: ``REDIS_URL``, else the default server."""
        return self.redis_url or DEFAULT_REDIS_URL

    def overridden(self, overrides: Mapping[str, Any]) -> Settings:
        """These settings with ``overrides``, each named as its field in capitals (``{"KEY_PREFIX":
        "t"}``, as ``create_app`` takes them); a name no field has is a :class:`KeyError`."""
        names = {spec.name for spec in dataclasses.fields(self)}
        changes = {}
        for name, value in overrides.items():
            if name.lower() not in names:
                raise KeyError(f"{name} is not a setting (service.config.Settings)")
            changes[name.lower()] = value
        return dataclasses.replace(self, **changes)


def variables() -> list[dataclasses.Field]:
    """The fields of :class:`Settings` an environment variable sets (docs/configuration.md's rows)."""
    return [spec for spec in dataclasses.fields(Settings) if spec.metadata["variable"] is not None]


def settings(app: Any) -> Settings:
    """The settings of a Flask app (``create_app`` resolved them: read them as attributes)."""
    return app.extensions["referee_settings"]


def load() -> Settings:
    """The settings the environment of this process gives (:class:`ConfigError` if one is unusable)."""
    return Settings.from_environ(os.environ)


def set_for_workers(name: str, value: str) -> None:
    """Set one of :data:`SET_FOR_WORKERS` for this process and the processes it starts (gunicorn's
    configuration, for its workers: their libraries and their app read it)."""
    if name not in SET_FOR_WORKERS:
        raise KeyError(f"{name} is not a variable the server sets for its workers")
    os.environ[name] = value


def child_environment(**changes: str) -> dict[str, str]:
    """The environment of a child process: this process's, with ``changes``."""
    return {**os.environ, **changes}


# --------------------------------------------------------------------------- the generated page

PAGE_HEAD = """\
# Configuration

The referee is configured by environment variables only. Every variable it reads is below; the
table is generated from `service/config.py` (`python -m service.config --markdown
docs/configuration.md`), and a test fails when the code reads a variable that is not in it.

* **Unset or empty** means the default (except `FORWARDED_ALLOW_IPS`, where empty trusts no proxy).
* **A value that cannot be used stops the start**: the server exits with a message naming the
  variable, its value and what it expects, e.g.
  `REFEREE_RATE_LIMIT_PER_MINUTE='lots' is not valid: expected integer ≥ 0`.
  Check a configuration without starting anything: `python -m service.config --check`.
* Values are read once, when the process starts: change one, then restart.

For example, a server for phones on the LAN, with a lower create limit:

```sh
HOST=0.0.0.0 REFEREE_PUBLIC_URL=http://192.168.1.20:8000 REFEREE_CREATE_LIMIT_PER_HOUR=30 make run
```
"""


def _shown_default(spec: dataclasses.Field) -> str:
    if spec.metadata["shown_default"] is not None:
        return spec.metadata["shown_default"]
    value = spec.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if value == "":
        return "empty"
    if isinstance(value, float):
        return f"`{value:g}`"
    return f"`{value}`"


def _sections() -> Iterator[tuple[str, list[dataclasses.Field]]]:
    title, rows = None, []
    for spec in variables():
        if spec.name in SECTIONS:
            if title is not None:
                yield title, rows
            title, rows = SECTIONS[spec.name], []
        rows.append(spec)
    yield title, rows


def markdown() -> str:
    """``docs/configuration.md``: the page head, then one table per section of :class:`Settings`."""
    parts = [PAGE_HEAD]
    for title, rows in _sections():
        parts.append(f"\n## {title}\n\n| variable | what it does | type | default | example |\n|---|---|---|---|---|\n")
        for spec in rows:
            meta = spec.metadata
            parts.append(f"| `{meta['variable']}` | {meta['what']} | {meta['kind'].name} | "
                         f"{_shown_default(spec)} | `{meta['example']}` |\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.config", description=__doc__.split("\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--markdown", nargs="?", const="-", metavar="PATH",
                        help="write the table of variables (docs/configuration.md) to PATH, or stdout")
    action.add_argument("--check", action="store_true",
                        help="read the environment as the server would; exit 1 naming an unusable value")
    args = parser.parse_args(argv)
    if args.check:
        try:
            load()
        except ConfigError as error:
            print(f"configuration: {error}", file=sys.stderr)
            return 1
        print("configuration: every variable set is usable")
        return 0
    page = markdown()
    if args.markdown == "-":
        sys.stdout.write(page)
    else:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
