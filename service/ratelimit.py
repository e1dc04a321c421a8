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
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass

import redis
from flask import Flask, Response, current_app, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from . import metrics
from .api import problems

# INCR + PEXPIRE for each counter, atomically; stops at the first limit exceeded
# so a refused request is not also counted against the later limits.
# KEYS[i]: a counter; ARGV[2i-1]: its limit; ARGV[2i]: its window in ms.
# Returns {count1, ms_left1, count2, ms_left2, ...}.
_HIT = """
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local count = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if left < 0 then
    redis.call('PEXPIRE', key, window)
    left = window
  end
  out[#out + 1] = count
  out[#out + 1] = left
  if count > limit then break end
end
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


class RateLimiter:
    def __init__(self, app: Flask) -> None:
        self.store = app.extensions["referee_store"]
        self.redis: redis.Redis = self.store.redis
        self._hit = self.redis.register_script(_HIT)
        self._last_log = -math.inf

    def limits_for_request(self) -> list[Limit]:
        config = current_app.config
        limits = []
        per_minute = int(config.get("RATE_LIMIT_PER_MINUTE") or 0)
        if per_minute > 0:
            limits.append(Limit("req", per_minute, 60, f"{per_minute} requests per minute"))
        per_hour = int(config.get("CREATE_LIMIT_PER_HOUR") or 0)
        if per_hour > 0 and is_create_request(config.get("RATE_LIMIT_CREATE_ROUTES", ())):
            limits.append(Limit("create", per_hour, 3600, f"{per_hour} games created per hour"))
        return limits

    def key(self, client: str, limit: Limit) -> str:
        return self.store.rate_key(client, limit.name)

    def hit(self, client: str, limits: list[Limit]) -> list[Usage]:
        args: list[int] = []
        for limit in limits:
            args += [limit.limit, limit.window * 1000]
        result = self._hit(keys=[self.key(client, limit) for limit in limits], args=args)
        return [
            Usage(limit, int(result[2 * i]), max(1, math.ceil(int(result[2 * i + 1]) / 1000)))
            for i, limit in enumerate(limits[: len(result) // 2])
        ]

    def before_request(self) -> Response | None:
        if request.endpoint in EXEMPT_ENDPOINTS:
            return None
        limits = self.limits_for_request()
        if not limits:
            return None
        try:
            usages = self.hit(client_id(request.remote_addr), limits)
        except redis.exceptions.RedisError as error:
            metrics.STORE_ERRORS.labels(kind="ratelimit").inc()
            self._log_unavailable(error)
            return None  # fail open: no limit is better than no service
        exceeded = next((u for u in usages if u.exceeded), None)
        if exceeded is not None:
            response = problems.problem(
                429,
                "rate_limited",
                f"more than {exceeded.limit.what} from this client; retry in {exceeded.reset} s",
                retry_after=exceeded.reset,
            )
            response.headers["Retry-After"] = str(exceeded.reset)
            g.referee_rate_limit = exceeded
            return response
        g.referee_rate_limit = min(usages, key=lambda u: (u.remaining, -u.reset))
        return None

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


def _add_headers(response: Response) -> Response:
    usage: Usage | None = g.get("referee_rate_limit")
    if usage is not None:
        response.headers["RateLimit-Limit"] = str(usage.limit.limit)
        response.headers["RateLimit-Remaining"] = str(usage.remaining)
        response.headers["RateLimit-Reset"] = str(usage.reset)
    return response


def init_app(app: Flask) -> None:
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    if not app.config.get("RATE_LIMIT_ENABLED", not app.testing):
        return
    limiter = RateLimiter(app)
    app.extensions["referee_rate_limiter"] = limiter
    app.before_request(limiter.before_request)
    app.after_request(_add_headers)
