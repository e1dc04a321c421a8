"""Per-client rate limits, shared by every API process through Redis.

Two limits, both read from ``app.config`` (see :mod:`service.config`; ``0``
turns a limit off):

* ``RATE_LIMIT_PER_MINUTE`` – requests per minute per client (every route but
  ``/healthz``, ``/readyz`` and ``/metrics``);
* ``CREATE_LIMIT_PER_HOUR`` – create requests per hour per client, counted on
  the routes listed in ``RATE_LIMIT_CREATE_ROUTES`` (``"POST /v1/gops/games"``,
  ``"POST /v1/gofo/tables"``: method plus the route's rule, so a new create
  endpoint is one more string there).

Each limit is a fixed window counter: the first request of a client starts a
window of 60 s (or 3600 s); one Lua script increments every counter the request
is subject to and starts their windows, atomically, so any number of API
processes share the same counts.  A request over a limit is refused with 429
``rate_limited`` and ``Retry-After``; every other response carries
``RateLimit-Limit`` / ``RateLimit-Remaining`` / ``RateLimit-Reset`` for the
limit closest to running out.

The client is ``request.remote_addr``.  Behind N reverse proxies set
``TRUSTED_PROXIES`` (``REFEREE_TRUSTED_PROXIES``) to N: the app is then wrapped
in werkzeug's ``ProxyFix(x_for=N)`` and the client is the address the outermost
trusted proxy saw.  IPv6 clients are counted per /64 (one subscriber's
network), IPv4 clients per address.

Keys: ``P:rl:{CLIENT}:req`` and ``P:rl:{CLIENT}:create`` under the store's
prefix ``P`` (``{CLIENT}`` is a hash tag: one slot per client, so the one script
that touches both runs unchanged on a Redis Cluster).

``RATE_LIMIT_ENABLED`` (config only) switches the limiter as a whole; it
defaults to ``not app.testing``, so test apps built with ``TESTING=True`` count
nothing unless they ask for it.

If Redis cannot be reached the limiter lets the request through (fail open)
and logs a warning; it never turns a request into a 500.

**Counters are not durable**: the script marks its writes ``REPL_NONE``, so they stay
in the server's memory and never reach its append-only file or its replicas. A server that
restarts, or a replica promoted in a failover, starts every client on a fresh window: at worst a
client gets one more window's worth of requests, the same as if its window had just ended (a
rewrite of the append-only file copies the counters of that moment, with their expiry: they end
as they would have). In
exchange a request that only reads a game writes nothing durable, and with the embedded server's
``appendfsync always`` (and any server's) it no longer waits for an fsync of a counter: measured
through ``bench/``'s Valkey, the limiter's hit plus a view's HMGET cost the server 56–64 µs of CPU
instead of 175–223 µs, and the round trip 172–196 µs instead of 450–610 µs.

**One round trip fewer**: on a request that names a game or table in its path (every
move and every view) the limiter's script is not sent on its own.  It is deferred
(``Store.deferred``) and sent by the request's first store read, in one round trip with its HMGET
(``Store.load``, or the LRANGE of a game's final move); if that hit is over a limit, the read
raises and the answer is the same 429.  A move that reads nothing first (applied to the worker's
latest record of its game: ``Store.latest``) sends it inside its save: the save's script runs the
same Lua (``service.storage.store.RATE_HIT``) before it writes anything, and stores nothing when the hit is
over a limit — one round trip for the whole move.  Any other store operation (a write above all)
sends the deferred hit first, alone, so nothing is written for a refused request; a request that
ends without touching the store (a 422 from body validation) sends it at the end and, over the
limit, is answered 429 instead.  Not on a Redis Cluster: the counter and the game live in
different slots (shards), so there the hit goes alone, before the request, as everywhere else.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass

import redis
from flask import Flask, Response, current_app, g, has_request_context, request
from werkzeug.middleware.proxy_fix import ProxyFix

from service.ops import metrics
from service.storage.redis_client import is_cluster
from service.storage.store import RATE_HIT
from service.api import problems

# INCR + PEXPIRE for each counter, atomically (service.storage.store.RATE_HIT: a move's save runs the
# same Lua when it carries the request's deferred hit). KEYS[i]: a counter; ARGV[2i-1]: its limit;
# ARGV[2i]: its window in ms. Returns {count1, ms_left1, count2, ms_left2, ...}, stopping at the
# first limit exceeded. REPL_NONE: see "Counters are not durable" above.
_HIT = RATE_HIT + """
local out = rate_hit(KEYS, 1, #KEYS, ARGV, 1)
return out
"""

# Probes and scrapes are never limited (a load balancer or Prometheus polls from one address).
EXEMPT_ENDPOINTS = frozenset({"_health", "_ready", "_metrics", "static"})
LOG_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class Limit:
    name: str  # the key suffix
    limit: int
    window: int  # seconds
    what: str  # for the problem detail


@dataclass(frozen=True)
class Usage:
    limit: Limit
    count: int
    reset: int  # whole seconds until the window ends (>= 1)

    @property
    def remaining(self) -> int:
        return max(0, self.limit.limit - self.count)

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit.limit


class Refused(Exception):
    """Over a limit, found by a deferred hit: answered with :attr:`response` (the usual 429)."""

    def __init__(self, response: Response) -> None:
        super().__init__("rate limited")
        self.response = response


class _Deferred:
    """The current request's hit, not sent yet (module docstring): ``Store.load`` sends it."""

    def __init__(self, limiter: RateLimiter, client: str, limits: list[Limit]) -> None:
        self.limiter, self.client, self.limits = limiter, client, limits

    def keys(self) -> list[str]:
        """The counters the hit increments."""
        return [self.limiter.key(self.client, limit) for limit in self.limits]

    def arguments(self) -> list[int]:
        """Each counter's limit and window in ms (the script's arguments)."""
        return self.limiter.arguments(self.limits)

    def command(self) -> tuple:
        """The hit as one command (EVALSHA of the limiter's script), for the store to send."""
        keys = self.keys()
        return ("EVALSHA", self.limiter._hit.sha, len(keys), *keys, *self.arguments())

    def settle(self, reply) -> None:
        """Apply the hit's reply (raises :class:`Refused` over a limit)."""
        if isinstance(reply, redis.exceptions.NoScriptError):  # a restarted server: load it, hit again
            self.run()
            return
        if isinstance(reply, Exception):
            self.limiter.unavailable(reply)
            return
        self.limiter.apply(self.limiter.usages(self.limits, reply), raise_refusal=True)

    def run(self) -> None:
        """Send the hit on its own (raises :class:`Refused` over a limit)."""
        try:
            usages = self.limiter.hit(self.client, self.limits)
        except redis.exceptions.RedisError as error:
            self.limiter.unavailable(error)
            return
        self.limiter.apply(usages, raise_refusal=True)


class RateLimiter:
    def __init__(self, app: Flask) -> None:
        self.store = app.extensions["referee_store"]
        self.redis: redis.Redis = self.store.redis
        self._hit = self.redis.register_script(_HIT)
        self._last_log = -math.inf
        self._limits: dict[tuple, list[Limit]] = {}
        self.defer = not is_cluster(self.redis)
        if self.defer:
            self.store.deferred = self.take_deferred

    def limits_for_request(self) -> list[Limit]:
        """The limits of this request, made once per route, method and configured limits."""
        config = current_app.config
        req = request._get_current_object()
        rule = req.url_rule
        routes = config.get("RATE_LIMIT_CREATE_ROUTES", ())
        key = (config.get("RATE_LIMIT_PER_MINUTE"), config.get("CREATE_LIMIT_PER_HOUR"),
               routes if isinstance(routes, (tuple, frozenset)) else tuple(routes),
               None if rule is None else rule.rule, req.method)
        limits = self._limits.get(key)
        if limits is None:
            limits = []
            per_minute = int(key[0] or 0)
            if per_minute > 0:
                limits.append(Limit("req", per_minute, 60, f"{per_minute} requests per minute"))
            per_hour = int(key[1] or 0)
            if per_hour > 0 and is_create_request(key[2]):
                limits.append(Limit("create", per_hour, 3600, f"{per_hour} games created per hour"))
            if len(self._limits) < 1024:  # bounded: routes x methods x configurations
                self._limits[key] = limits
        return limits

    def key(self, client: str, limit: Limit) -> str:
        return self.store.rate_key(client, limit.name)

    @staticmethod
    def arguments(limits: list[Limit]) -> list[int]:
        args: list[int] = []
        for limit in limits:
            args += [limit.limit, limit.window * 1000]
        return args

    @staticmethod
    def usages(limits: list[Limit], result) -> list[Usage]:
        return [
            Usage(limit, int(result[2 * i]), max(1, math.ceil(int(result[2 * i + 1]) / 1000)))
            for i, limit in enumerate(limits[: len(result) // 2])
        ]

    def hit(self, client: str, limits: list[Limit]) -> list[Usage]:
        result = self._hit(keys=[self.key(client, limit) for limit in limits], args=self.arguments(limits))
        return self.usages(limits, result)

    def unavailable(self, error: Exception) -> None:
        """Fail open: no limit is better than no service."""
        metrics.STORE_ERRORS.labels(kind="ratelimit").inc()
        self._log_unavailable(error)

    def apply(self, usages: list[Usage], raise_refusal: bool = False) -> Response | None:
        """Note the usage for the headers; the 429 when over a limit (raised as Refused if asked)."""
        exceeded = next((u for u in usages if u.exceeded), None)
        if exceeded is None:
            g.referee_rate_limit = min(usages, key=lambda u: (u.remaining, -u.reset))
            return None
        response = problems.problem(
            429,
            "rate_limited",
            f"more than {exceeded.limit.what} from this client; retry in {exceeded.reset} s",
            retry_after=exceeded.reset,
        )
        response.headers["Retry-After"] = str(exceeded.reset)
        response.headers["Cache-Control"] = "no-store"  # a refusal is for this client, now
        g.referee_rate_limit = exceeded
        if raise_refusal:
            raise Refused(response)
        return response

    def take_deferred(self) -> _Deferred | None:
        """The current request's deferred hit, once (``Store.deferred``)."""
        if not has_request_context():
            return None
        return g.pop("referee_rate_deferred", None)

    def before_request(self) -> Response | None:
        req = request._get_current_object()
        if req.endpoint in EXEMPT_ENDPOINTS:
            return None
        limits = self.limits_for_request()
        if not limits:
            return None
        client = client_id(req.remote_addr)
        if self.defer and _names_a_game(req.view_args):  # its first read of the game sends the hit
            g.referee_rate_deferred = _Deferred(self, client, limits)
            return None
        try:
            usages = self.hit(client, limits)
        except redis.exceptions.RedisError as error:
            self.unavailable(error)
            return None
        return self.apply(usages)

    def after_request(self, response: Response) -> Response:
        """A deferred hit no store operation sent (the view never ran): send it now."""
        pending = g.pop("referee_rate_deferred", None)
        if pending is not None:
            try:
                pending.run()
            except Refused as refused:  # answer 429 instead, keeping the headers set so far
                _become(response, refused.response)
        return _add_headers(response)

    def _log_unavailable(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_SECONDS:
            self._last_log = now
            current_app.logger.warning("rate limits not enforced, redis unavailable: %s", error)


def is_create_request(routes) -> bool:
    rule = request.url_rule
    return rule is not None and f"{request.method} {rule.rule}" in set(routes)


def client_id(remote_addr: str | None) -> str:
    """The rate-limit identity of an address: IPv4 as is, IPv6 per /64."""
    if not remote_addr:
        return "unknown"
    return _client_id(remote_addr)


@functools.lru_cache(maxsize=4096)  # a pure function of the address, asked on every request
def _client_id(remote_addr: str) -> str:
    try:
        address = ipaddress.ip_address(remote_addr.strip())
    except ValueError:
        # Not an address (a misconfigured proxy, a unix socket): a bounded, brace-free key.
        return "x-" + hashlib.sha256(remote_addr.encode("utf-8", "replace")).hexdigest()[:32]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _names_a_game(view_args: dict | None) -> bool:
    """A route of one game or table (``game_id``/``table_id``): the view reads it from the store, so
    the hit can ride in that read.  Other routes with parameters (docs and /play assets) never read
    the store: they are counted before they run, so a refused one is never served."""
    return bool(view_args) and ("game_id" in view_args or "table_id" in view_args)


# What a refused response must not keep of the one it replaces: validators, redirects, replays, and
# anything that would let a cache store the refusal (a year-long max-age on an asset).
_DROPPED = ("ETag", "WWW-Authenticate", "Location", "Idempotent-Replayed", "Content-Encoding", "Cache-Control",
            "Expires", "Last-Modified", "Content-Range", "Accept-Ranges", "Content-Disposition", "Vary")


def _become(response: Response, refusal: Response) -> None:
    """Turn ``response`` into ``refusal`` in place (after-request hooks have already run on it)."""
    for name in _DROPPED:
        response.headers.pop(name, None)
    response.headers["Cache-Control"] = "no-store"
    response.status_code = refusal.status_code
    response.set_data(refusal.get_data())
    response.headers["Content-Type"] = refusal.headers["Content-Type"]
    response.headers["Retry-After"] = refusal.headers["Retry-After"]


def _add_headers(response: Response) -> Response:
    usage: Usage | None = g.get("referee_rate_limit")
    if usage is not None:  # set once, here only: appended, no search for each first
        headers = response.headers
        headers.add("RateLimit-Limit", str(usage.limit.limit))
        headers.add("RateLimit-Remaining", str(usage.remaining))
        headers.add("RateLimit-Reset", str(usage.reset))
    return response


def init_app(app: Flask) -> None:
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        # The client from X-Forwarded-For, the scheme from X-Forwarded-Proto (TLS ends at the proxy:
        # the served spec's server and the docs' links must say https).
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]
    if not app.config.get("RATE_LIMIT_ENABLED", not app.testing):
        return
    limiter = RateLimiter(app)
    app.extensions["referee_rate_limiter"] = limiter
    app.before_request(limiter.before_request)
    app.after_request(limiter.after_request)
    app.register_error_handler(Refused, lambda refused: refused.response)
