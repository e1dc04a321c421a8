"""Per-client rate limits, shared by every API process through Redis (docs/security.md#limits).

Two fixed-window limits from the app's settings (:mod:`service.config`; ``0`` turns one off):
``rate_limit_per_minute`` on every route but the probes and ``/metrics``, and
``create_limit_per_hour`` on the routes ``rate_limit_create_routes`` lists (``"POST /v1/gops/games"``:
the app factory lists every game's create). One Lua script increments every counter a request is
subject to, so all processes share the counts. Over a limit: 429 ``rate_limited`` with
``Retry-After``; otherwise ``RateLimit-*`` headers for the limit closest to running out.
``rate_limit_enabled`` (no environment variable) defaults to ``not app.testing``.

The client is ``request.remote_addr`` (behind ``TRUSTED_PROXIES`` proxies: werkzeug's ``ProxyFix``),
IPv6 per /64. Keys ``P:rl:{CLIENT}:req`` and ``:create``: one hash-tagged slot per client. A request
with an app's key (service.api.apps) is the app's instead, ``app.NAME``, with the app's own limits
(:func:`use_own_limits`: ``req``, ``req-hour``, ``create``, ``create-hour``), whatever its address.

**Fail open**: if Redis cannot be reached the request goes through (a warning is logged); on a
cluster the hit goes to the client's shard within a small budget (:mod:`service.storage.sidelines`),
so a failing shard never delays a move of a game on a healthy one.

**Counters are not durable** (``REPL_NONE``: never in the append-only file or on replicas): a
restart or failover starts every client on a fresh window, at worst one window more. In exchange a
read writes nothing durable and never waits for an fsync (with ``appendfsync always`` the hit and a
view's read cost about a third of the CPU and round trip of durable counters).

**One round trip fewer**: on a route that names a game, the hit is a :class:`Hit` that rides
(:class:`~service.storage.scripts.Rider`) in the request's first store command (:func:`carried`): in
the read's pipeline, or inside the save script, which stores nothing over a limit. A request that
never reaches the store is counted at its end. Not on a cluster (the counters and the game live on
different shards): there the hit goes first, alone. What it buys is latency, not CPU: a move on a
worker that kept the game is 1 round trip instead of 2, a view 1 instead of 2 (bench/README.md,
"Redis per request"); the round trip saved was 85 µs on loopback (362 vs 279 µs for the hit and a
read apart or in one pipeline, redis-py to a local Valkey, medians of 7 × 3,000) and is more on a
network, while the worker's CPU it saves is 8–15 µs, 1–2 % of a ~900 µs move.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import redis
from flask import Flask, Response, current_app, g, has_request_context, request
from werkzeug.middleware.proxy_fix import ProxyFix

from service import config
from service.api import problems
from service.ops import metrics

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
    """Over a limit, found by a hit a store command carried: answered with :attr:`response` (the 429)."""

    def __init__(self, response: Response) -> None:
        super().__init__("rate limited")
        self.response = response


#: A client's hit, in Lua, as a rider (:class:`~service.storage.scripts.Rider`): INCR + PEXPIRE each
#: of ``n`` counters (``keys[k0]`` on; their limit and window in ms at ``argv[a0]``, ``argv[a0 + 1]``,
#: ...), atomically; it stops at the first limit exceeded, so a refused request is not also counted
#: against the later limits. Returns {count1, ms_left1, count2, ms_left2, ...} and whether a limit
#: was exceeded (the save it rides in then stores nothing). REPL_NONE: the counters are neither
#: written to the append-only file nor sent to replicas ("Counters are not durable" above).
HIT_LUA = """
local function rider(keys, k0, n, argv, a0, m)
  redis.set_repl(redis.REPL_NONE)
  local out = {}
  local over = false
  for i = 0, n - 1 do
    local key = keys[k0 + i]
    local limit = tonumber(argv[a0 + 2 * i])
    local window = tonumber(argv[a0 + 2 * i + 1])
    local count = redis.call('INCR', key)
    local left = redis.call('PTTL', key)
    if left < 0 then
      redis.call('PEXPIRE', key, window)
      left = window
    end
    out[#out + 1] = count
    out[#out + 1] = left
    if count > limit then
      over = true
      break
    end
  end
  redis.set_repl(redis.REPL_ALL)
  return out, over
end
"""

#: The hit on its own: KEYS the counters, ARGV each one's limit and window in ms.
HIT = HIT_LUA + """
local out = rider(KEYS, 1, #KEYS, ARGV, 1, #ARGV)
return out
"""

_NOT_SENT = object()  # a hit's reply before any store command carried it


class Hit:
    """This request's hit, not counted yet: the limits it counts against and the counters, to ride in
    the request's first store command (:func:`carried`; a :class:`~service.storage.scripts.Rider`)."""

    lua = HIT_LUA

    def __init__(self, limiter: RateLimiter, limits: list[Limit], keys: tuple[str, ...]) -> None:
        self.limiter = limiter
        self.limits = limits
        self.keys = keys
        self.args = tuple(n for limit in limits for n in (limit.limit, limit.window * 1000))
        self.reply: Any = _NOT_SENT

    def command(self) -> tuple:
        return ("EVALSHA", self.limiter.script.sha, len(self.keys), *self.keys, *self.args)


class RateLimiter:
    def __init__(self, app: Flask) -> None:
        self.store = app.extensions["referee_store"]
        self.script = self.store.redis.register_script(HIT)
        self._last_log = -math.inf

    def limits_for_request(self) -> list[Limit]:
        settings = config.settings(current_app)
        req = request._get_current_object()
        route = None if req.url_rule is None else f"{req.method} {req.url_rule.rule}"
        own = g.get("referee_rate_own")
        if own is not None:  # an app's: its own limits
            _, requests, creates = own
            return [*requests, *creates] if route in settings.rate_limit_create_routes else list(requests)
        limits = []
        per_minute = settings.rate_limit_per_minute
        if per_minute > 0:
            limits.append(Limit("req", per_minute, 60, f"{per_minute} requests per minute"))
        per_hour = settings.create_limit_per_hour
        if per_hour > 0 and route in settings.rate_limit_create_routes:
            limits.append(Limit("create", per_hour, 3600, f"{per_hour} games created per hour"))
        return limits

    @staticmethod
    def usages(limits: list[Limit], result) -> list[Usage]:
        return [
            Usage(limit, int(result[2 * i]), max(1, math.ceil(int(result[2 * i + 1]) / 1000)))
            for i, limit in enumerate(limits[: len(result) // 2])
        ]

    def hit(self, client: str, limits: list[Limit]) -> Hit:
        return Hit(self, limits, tuple(self.store.rate_key(client, limit.name) for limit in limits))

    def count(self, hit: Hit) -> Any:
        """Count ``hit`` now, on its own: the counters' reply (raises a RedisError when they cannot be
        counted; on a cluster through the store's sidelines, within their small budget)."""
        sidelines = self.store.sidelines
        if sidelines is None:
            return self.script(keys=list(hit.keys), args=list(hit.args))
        try:
            return sidelines.execute("ratelimit", hit.keys[0], *hit.command())
        except redis.exceptions.NoScriptError:
            sidelines.execute("ratelimit", hit.keys[0], "SCRIPT", "LOAD", self.script.script)
            return sidelines.execute("ratelimit", hit.keys[0], *hit.command())

    def unavailable(self, error: Exception) -> None:
        """Fail open: no limit is better than no service (logged at most once a minute)."""
        metrics.STORE_ERRORS.labels(kind="ratelimit").inc()
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_SECONDS:
            self._last_log = now
            current_app.logger.warning("rate limits not enforced, redis unavailable: %s", error)

    def apply(self, usages: list[Usage], raise_refusal: bool = False) -> Response | None:
        """Note the usage for the headers; the 429 when over a limit (raised as Refused if asked)."""
        exceeded = next((u for u in usages if u.exceeded), None)
        if exceeded is None:
            g.referee_rate_limit = min(usages, key=lambda u: (u.remaining, -u.reset))
            return None
        response = problems.problem(
            429,
            "rate_limited",
            f"more than {exceeded.limit.what} from this {'app' if g.get('referee_rate_own') else 'client'}; "
            f"retry in {exceeded.reset} s",
            retry_after=exceeded.reset,
        )
        response.headers["Cache-Control"] = "no-store"  # a refusal is for this client, now
        g.referee_rate_limit = exceeded
        if raise_refusal:
            raise Refused(response)
        return response

    def before_request(self) -> Response | None:
        req = request._get_current_object()
        if req.endpoint in EXEMPT_ENDPOINTS:
            return None
        limits = self.limits_for_request()
        if not limits:
            return None
        hit = self.hit(current_client(), limits)
        if self.store.carries_riders and _names_a_game(req.view_args):  # a store command carries it
            g.referee_rate_pending = hit
            return None
        try:
            reply = self.count(hit)
        except redis.exceptions.RedisError as error:
            self.unavailable(error)
            return None
        return self.apply(self.usages(limits, reply))

    def after_request(self, response: Response) -> Response:
        """A pending hit no store command carried (the view never ran): count it now."""
        if g.get("referee_rate_pending") is not None:
            try:
                settle(g.pop("referee_rate_pending"))
            except Refused as refused:  # answer 429 instead, keeping the headers set so far
                _become(response, refused.response)
        return _add_headers(response)


T = TypeVar("T")


def carried(send: Callable[[Hit | None], T]) -> T:
    """What ``send`` answers: a store command given this request's hit to carry (:class:`Hit`) if it
    is still to be counted, else None; then the hit's reply is applied (:func:`settle`: the
    RateLimit headers, or :class:`Refused`, the 429, over a limit)."""
    hit = g.pop("referee_rate_pending", None) if has_request_context() else None
    answer = send(hit)
    if hit is not None:
        settle(hit)
    return answer


def settle(hit: Hit) -> None:
    """Apply the counters' reply to ``hit``: the RateLimit headers, or :class:`Refused` (the 429)
    over a limit. A hit no command carried is counted now, on its own, and so is one whose script
    the server had lost (restarted); the limiter fails open when the counters cannot be counted."""
    limiter, reply = hit.limiter, hit.reply
    if reply is _NOT_SENT or isinstance(reply, redis.exceptions.NoScriptError):
        try:
            reply = limiter.count(hit)
        except redis.exceptions.RedisError as error:
            reply = error
    if isinstance(reply, Exception):
        limiter.unavailable(reply)
        return
    limiter.apply(limiter.usages(hit.limits, reply), raise_refusal=True)


def use_own_limits(client: str, requests: list[Limit], creates: list[Limit]) -> None:
    """Count the current request as ``client``'s, against ``requests`` (and on a create route also
    ``creates``) instead of its address's limits (service.api.apps, for a request with a key)."""
    g.referee_rate_own = (client, requests, creates)


def current_client() -> str:
    """Who the current request is counted as: its app (:func:`use_own_limits`), else its address."""
    own = g.get("referee_rate_own")
    return own[0] if own is not None else client_id(request.remote_addr)


@functools.lru_cache(maxsize=4096)  # a pure function of the address, asked on every request
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
    settings = config.settings(app)
    proxies = settings.trusted_proxies
    if proxies > 0:
        # The client from X-Forwarded-For, the scheme from X-Forwarded-Proto (TLS ends at the proxy:
        # the served spec's server and the docs' links must say https).
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]
    if not settings.rate_limit_enabled:
        return
    limiter = RateLimiter(app)
    app.extensions["referee_store"].carry(HIT_LUA)  # saves may carry a hit (Hit)
    app.extensions["referee_rate_limiter"] = limiter
    app.before_request(limiter.before_request)
    app.after_request(limiter.after_request)
    app.register_error_handler(Refused, lambda refused: refused.response)
