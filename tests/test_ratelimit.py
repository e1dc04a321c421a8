"""Per-client rate limits (service.api.ratelimit): shared through Redis, 429 problem+json, fail open.

Every test builds its own app with ``RATE_LIMIT_ENABLED`` and low limits: a
``TESTING`` app (the suite's ``app`` fixture) counts nothing, since single
property tests send thousands of requests and hundreds of creates.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid

import pytest
import requests
from support.servers import start_gunicorn, stop_gunicorn

from service import config
from service.api import ratelimit
from support.store import rate_key
from support.client import bearer
from service.web.app import create_app

CREATE = "/v1/gops/games"
MISSING = "/v1/gops/games/no-such-game"


@pytest.fixture
def make_app(redis_url, redis_client):
    def make(**overrides):
        settings = {"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True}
        settings.update(overrides)
        return create_app(settings)

    return make


def rl_headers(response):
    return {k: response.headers.get(k) for k in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")}


def assert_rate_limited(response, limit, api=True):
    assert response.status_code == 429
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate_limited" and body["status"] == 429
    assert body["type"].endswith("/rate_limited")
    retry = response.headers["Retry-After"]
    assert retry.isdigit() and 1 <= int(retry) <= 3600
    assert body["retry_after"] == int(retry)
    assert response.headers["RateLimit-Limit"] == str(limit)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert response.headers["RateLimit-Reset"] == retry
    # Still a normal API response otherwise.
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    if api:
        assert response.headers["Cache-Control"] == "no-store"


# -------------------------------------------------------------- configuration


def test_defaults_and_environment(monkeypatch):
    for name in ("REFEREE_RATE_LIMIT_PER_MINUTE", "REFEREE_CREATE_LIMIT_PER_HOUR",
                 "REFEREE_TRUSTED_PROXIES", "REFEREE_CORS_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    settings = config.load()
    assert settings.rate_limit_per_minute == 1200
    assert settings.create_limit_per_hour == 120
    assert settings.trusted_proxies == 0
    assert settings.cors_origins == ""
    assert "POST /v1/gops/games" in settings.rate_limit_create_routes
    assert "POST /v1/gofo/tables" in settings.rate_limit_create_routes
    monkeypatch.setenv("REFEREE_RATE_LIMIT_PER_MINUTE", "7")
    monkeypatch.setenv("REFEREE_CREATE_LIMIT_PER_HOUR", "0")
    monkeypatch.setenv("REFEREE_TRUSTED_PROXIES", "2")
    settings = config.load()
    assert (settings.rate_limit_per_minute, settings.create_limit_per_hour, settings.trusted_proxies) == (7, 0, 2)


def test_create_routes_match_real_routes(make_app):
    """Every configured create route that exists names a real POST rule (a typo would silently not count)."""
    app = make_app()
    rules = {f"{m} {r.rule}" for r in app.url_map.iter_rules() for m in r.methods}
    assert {"POST /v1/gops/games", "POST /v1/gofo/tables"} <= set(config.settings(app).rate_limit_create_routes)
    for route in config.settings(app).rate_limit_create_routes:
        assert route in rules


def test_on_by_default_off_in_test_apps(redis_url, redis_client, client):
    """A served app limits with the defaults; a TESTING app (the suite's ``app`` fixture) counts nothing."""
    response = create_app({"REDIS_URL": redis_url}).test_client().get(MISSING)
    assert response.headers["RateLimit-Limit"] == "1200" and response.headers["RateLimit-Remaining"] == "1199"
    redis_client.flushdb()
    response = client.get(MISSING)
    assert response.status_code == 404 and "RateLimit-Limit" not in response.headers
    assert redis_client.keys("*") == []


# ------------------------------------------------------------ requests/minute


def test_headers_on_normal_responses_and_429_when_exceeded(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=5).test_client()
    seen = []
    for i in range(5):
        response = client.get(MISSING)
        assert response.status_code == 404  # problem responses carry the headers too
        headers = rl_headers(response)
        assert headers["RateLimit-Limit"] == "5"
        assert headers["RateLimit-Remaining"] == str(4 - i)
        assert 1 <= int(headers["RateLimit-Reset"]) <= 60
        seen.append(headers)
    response = client.get(MISSING)
    assert_rate_limited(response, 5)
    assert "5 requests per minute" in response.get_json()["detail"]
    # Refused requests stay refused, whatever the route.
    assert_rate_limited(client.post(CREATE, json={}), 5)
    assert_rate_limited(client.get("/openapi.json"), 5, api=False)


def test_counter_key_uses_store_prefix_and_expires(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=5, KEY_PREFIX="custom-prefix").test_client()
    client.get(MISSING)
    keys = redis_client.keys("*")
    assert keys == ["custom-prefix:rl:{127.0.0.1}:req"]
    assert redis_client.get(keys[0]) == "1"
    assert 0 < redis_client.pttl(keys[0]) <= 60_000


def test_window_end_lets_the_client_back_in(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=2).test_client()
    client.get(MISSING), client.get(MISSING)
    assert client.get(MISSING).status_code == 429
    redis_client.pexpire(rate_key("127.0.0.1", "req"), 1)  # fast-forward to the window's end
    time.sleep(0.05)
    response = client.get(MISSING)
    assert response.status_code == 404 and response.headers["RateLimit-Remaining"] == "1"


def test_each_client_has_its_own_counter(make_app):
    client = make_app(RATE_LIMIT_PER_MINUTE=2).test_client()
    for _ in range(2):
        assert client.get(MISSING, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 404
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 429
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 404
    # IPv6 is counted per /64: another address of the same network shares the counter.
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "2001:db8::1"}).status_code == 404
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "2001:db8::2"}).status_code == 404
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "2001:db8::ffff"}).status_code == 429
    assert client.get(MISSING, environ_base={"REMOTE_ADDR": "2001:db8:0:1::1"}).status_code == 404


def test_forwarded_for_is_ignored_without_trusted_proxies(make_app):
    client = make_app(RATE_LIMIT_PER_MINUTE=2).test_client()
    for i in range(2):
        assert client.get(MISSING, headers={"X-Forwarded-For": f"10.9.9.{i}"}).status_code == 404
    # Spoofing X-Forwarded-For does not buy a fresh counter.
    assert client.get(MISSING, headers={"X-Forwarded-For": "10.9.9.99"}).status_code == 429


def test_trusted_proxies_take_the_client_from_forwarded_for(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=2, TRUSTED_PROXIES=1).test_client()
    for _ in range(2):
        assert client.get(MISSING, headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 404
    assert client.get(MISSING, headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 429
    # Only the address our one proxy appended counts: a client-written left part is ignored.
    assert client.get(MISSING, headers={"X-Forwarded-For": "1.1.1.1, 203.0.113.7"}).status_code == 429
    assert client.get(MISSING, headers={"X-Forwarded-For": "203.0.113.8"}).status_code == 404
    assert set(redis_client.keys("*")) == {rate_key("203.0.113.7", "req"), rate_key("203.0.113.8", "req")}


def test_two_trusted_proxies(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=5, TRUSTED_PROXIES=2).test_client()
    client.get(MISSING, headers={"X-Forwarded-For": "6.6.6.6, 198.51.100.1, 10.0.0.5"})
    assert redis_client.keys("*") == [rate_key("198.51.100.1", "req")]


def test_health_check_is_not_limited(make_app):
    client = make_app(RATE_LIMIT_PER_MINUTE=1).test_client()
    for _ in range(5):
        response = client.get("/healthz")
        assert response.status_code == 200 and "RateLimit-Limit" not in response.headers


def test_zero_disables_the_limits(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=0, CREATE_LIMIT_PER_HOUR=0).test_client()
    for _ in range(30):
        response = client.get(MISSING)
        assert response.status_code == 404 and "RateLimit-Limit" not in response.headers
    for _ in range(3):
        assert client.post(CREATE, json={"profile": "classic"}).status_code == 201
    assert not redis_client.keys(rate_key("*", "*"))


def test_many_threads_at_once_get_exactly_the_limit(make_app):
    """The count is atomic: 8 threads x 10 requests against a limit of 25 let exactly 25 through."""
    app = make_app(RATE_LIMIT_PER_MINUTE=25)
    statuses: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def worker():
        client = app.test_client()
        start.wait()
        for _ in range(10):
            status = client.get(MISSING).status_code
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(404) == 25 and statuses.count(429) == 55


def test_processes_share_the_counts(make_app):
    """Two apps (as two API processes) on one Redis count the same client together."""
    first, second = make_app(RATE_LIMIT_PER_MINUTE=4).test_client(), make_app(RATE_LIMIT_PER_MINUTE=4).test_client()
    assert [first.get(MISSING).status_code, second.get(MISSING).status_code,
            first.get(MISSING).status_code, second.get(MISSING).status_code] == [404] * 4
    assert second.get(MISSING).status_code == 429
    assert first.get(MISSING).status_code == 429


# -------------------------------------------------------------- creates/hour


def test_games_created_per_hour(make_app):
    client = make_app(RATE_LIMIT_PER_MINUTE=100, CREATE_LIMIT_PER_HOUR=2).test_client()
    for i in range(2):
        response = client.post(CREATE, json={"profile": "classic"})
        assert response.status_code == 201
        # The create limit is the closer one to running out, so it is the one reported.
        assert response.headers["RateLimit-Limit"] == "2"
        assert response.headers["RateLimit-Remaining"] == str(1 - i)
        assert 3500 <= int(response.headers["RateLimit-Reset"]) <= 3600
    game = response.get_json()
    response = client.post(CREATE, json={"profile": "classic"})
    assert_rate_limited(response, 2)
    assert "2 games created per hour" in response.get_json()["detail"]
    assert 3500 <= int(response.headers["Retry-After"]) <= 3600
    # Everything else still works: reads and moves are not creates.
    response = client.get(f"{CREATE}/{game['id']}")
    assert response.status_code == 200 and response.headers["RateLimit-Limit"] == "100"
    response = client.post(f"{CREATE}/{game['id']}/seats/0/resign", json={},
                           headers=bearer(game['seat_tokens'][0]))
    assert response.status_code == 200
    # Another client may still create.
    assert client.post(CREATE, json={"profile": "classic"}, environ_base={"REMOTE_ADDR": "10.1.1.1"}).status_code == 201


def test_gops_games_and_gofo_tables_share_the_create_limit(make_app):
    """Create attempts count, whatever the answer (a refused body still costs the server work)."""
    client = make_app(RATE_LIMIT_PER_MINUTE=100, CREATE_LIMIT_PER_HOUR=3).test_client()
    assert client.post(CREATE, json={"profile": "classic"}).status_code == 201
    first = client.post("/v1/gofo/tables", json={})
    assert first.status_code != 429 and first.headers["RateLimit-Limit"] == "3"
    assert first.headers["RateLimit-Remaining"] == "1"
    assert client.post(CREATE, json={"profile": "nope"}).status_code == 422
    assert_rate_limited(client.post("/v1/gofo/tables", json={}), 3)
    assert_rate_limited(client.post(CREATE, json={"profile": "classic"}), 3)


def test_a_request_refused_per_minute_does_not_count_as_a_create(make_app, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=1, CREATE_LIMIT_PER_HOUR=5).test_client()
    assert client.get(MISSING).status_code == 404
    assert client.post(CREATE, json={"profile": "classic"}).status_code == 429
    assert redis_client.get(rate_key("127.0.0.1", "create")) is None


def test_create_routes_are_configurable(make_app):
    client = make_app(CREATE_LIMIT_PER_HOUR=1, RATE_LIMIT_CREATE_ROUTES=(
        "POST /v1/gops/games", "POST /v1/gops/games/<string:game_id>/seats/<seat:seat>/resign")).test_client()
    game = client.post(CREATE, json={"profile": "classic"}).get_json()
    response = client.post(f"{CREATE}/{game['id']}/seats/0/resign", json={},
                           headers=bearer(game['seat_tokens'][0]))
    assert_rate_limited(response, 1)


# ---------------------------------------------------------------- fail open


def test_redis_down_fails_open(caplog):
    from service.storage.embedded import free_port

    app = create_app({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "TESTING": True, "RATE_LIMIT_ENABLED": True,
                      "RATE_LIMIT_PER_MINUTE": 1, "CREATE_LIMIT_PER_HOUR": 1})
    client = app.test_client()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            response = client.get("/openapi.json")  # needs no store: served, unlimited
            assert response.status_code == 200 and "RateLimit-Limit" not in response.headers
        response = client.post(CREATE, json={"profile": "classic"})
    # The store itself is down: a 503 problem, never a 500 from the limiter.
    assert response.status_code == 503 and response.get_json()["code"] == "store_unavailable"
    warnings = [r for r in caplog.records if "rate limits not enforced" in r.getMessage()]
    assert len(warnings) == 1  # logged, but not once per request


# ------------------------------------------------------------------ identity


@pytest.mark.parametrize("address,expected", [
    ("203.0.113.9", "203.0.113.9"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("::ffff:198.51.100.3", "198.51.100.3"),
    ("::1", "::/64"),
    (None, "unknown"),
    ("", "unknown"),
])
def test_client_id(address, expected):
    assert ratelimit.client_id(address) == expected


def test_client_id_of_garbage_is_bounded_and_brace_free():
    ident = ratelimit.client_id("{evil}" + "x" * 5000)
    assert ident.startswith("x-") and len(ident) == 34 and "{" not in ident and "}" not in ident


# -------------------------------------------------------------- live gunicorn


@pytest.mark.servers
@pytest.mark.slow
def test_gunicorn_workers_share_the_limit(redis_server, tmp_path):
    """Two gunicorn workers, fresh connections (so both workers answer): the limit is global."""
    prefix = f"rltest-{uuid.uuid4().hex[:8]}"
    proc, base = start_gunicorn(redis_server.url, tmp_path / "gunicorn.log", workers=2, extra_env={
        "REFEREE_RATE_LIMIT_PER_MINUTE": "20", "REFEREE_KEY_PREFIX": prefix})
    try:
        # start_gunicorn polled /openapi.json until it answered: those requests counted too.
        import redis

        counter = redis.Redis.from_url(redis_server.url, decode_responses=True)
        key = f"{prefix}:rl:{{127.0.0.1}}:req"
        counter.delete(key)
        statuses = [requests.get(base + MISSING, headers={"Connection": "close"}, timeout=10).status_code
                    for _ in range(30)]
        assert statuses == [404] * 20 + [429] * 10
        response = requests.get(base + MISSING, timeout=10)
        assert response.headers["Content-Type"] == "application/problem+json"
        assert int(response.headers["Retry-After"]) >= 1
        counter.delete(key)
        counter.close()
    finally:
        stop_gunicorn(proc)


def test_behind_a_tls_proxy_the_served_spec_names_https(make_app):
    """TLS ends at the proxy (deploy/nginx.conf sends X-Forwarded-Proto): the served spec's server
    must be the https origin the client used, and without a trusted proxy the header is ignored."""
    proxied = make_app(TRUSTED_PROXIES=1, RATE_LIMIT_ENABLED=False).test_client()
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9", "Host": "referee.example"}
    servers = proxied.get("/openapi.json", headers=headers).get_json()["servers"]
    assert [s["url"] for s in servers] == ["https://referee.example"]
    direct = make_app(RATE_LIMIT_ENABLED=False).test_client()
    servers = direct.get("/openapi.json", headers=headers).get_json()["servers"]
    assert [s["url"] for s in servers] == ["http://referee.example"]


def test_a_refused_asset_is_a_fresh_429_no_cache_may_keep(make_app):
    """Docs and /play assets are served with a year-long max-age: over the limit, the answer is a 429
    that says no-store and keeps none of the file's caching or range headers (a cache must not hand
    one client's refusal to everyone for a year), and the file is not served first."""
    client = make_app(RATE_LIMIT_PER_MINUTE=2).test_client()
    asset = "/docs/assets/swagger-ui-dist@5.35.0/LICENSE"
    for _ in range(2):
        served = client.get(asset)
        assert served.status_code == 200 and "immutable" in served.headers["Cache-Control"]
    refused = client.get(asset, headers={"Range": "bytes=0-10"})
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.headers["Cache-Control"] == "no-store"
    for name in ("Expires", "Last-Modified", "Content-Range", "Accept-Ranges", "ETag"):
        assert name not in refused.headers, name
    assert refused.get_json()["code"] == "rate_limited"


def test_a_move_refused_by_its_schema_and_the_limit_is_a_no_store_429(make_app):
    client = make_app(RATE_LIMIT_PER_MINUTE=2).test_client()
    created = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    token = created["seat_tokens"][0]
    path = f"/v1/gops/games/{created['id']}/seats/0/commit"
    assert client.post(path, json={"round": "x"}, headers=bearer(token)).status_code == 422
    refused = client.post(path, json={"round": "x"}, headers=bearer(token))
    assert refused.status_code == 429 and refused.headers["Cache-Control"] == "no-store"


@pytest.mark.servers
def test_counters_stay_out_of_the_append_only_file(valkey_factory, tmp_path):
    """The limiter's counters are never written to disk (REPL_NONE, module docstring): a read of a
    game writes nothing durable, so it never waits for an fsync; a restarted server has forgotten
    every counter, and kept the game."""
    data_dir = tmp_path / "aof"
    server = valkey_factory(data_dir=data_dir)  # appendonly yes, appendfsync always
    app = create_app({"REDIS_URL": server.url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                      "RATE_LIMIT_PER_MINUTE": 50, "KEY_PREFIX": "aof"})
    client = app.test_client()
    created = client.post(CREATE, json={"profile": "classic"})
    assert created.status_code == 201
    game = f"{CREATE}/{created.get_json()['id']}"
    for i in range(3):
        response = client.get(game)
        assert response.status_code == 200
        assert response.headers["RateLimit-Remaining"] == str(50 - 2 - i)  # the create counted too
    assert client.get(MISSING).status_code == 404
    # A move on the game this worker read last: its save's own script counts the hit, and what that
    # script writes after the counters (the move) is on disk, the counters still are not.
    token = created.get_json()["seat_tokens"][0]
    moved = client.post(f"{game}/seats/0/commit", json={"round": 1, "commitment": "ab" * 32},
                        headers=bearer(token))
    assert moved.status_code == 200 and moved.headers["RateLimit-Remaining"] == str(50 - 6)
    import redis

    direct = redis.Redis.from_url(server.url, decode_responses=True)
    counter = "aof:rl:{127.0.0.1}:req"
    assert direct.get(counter) == "6" and 0 < direct.pttl(counter) <= 60_000
    aof = b"".join(path.read_bytes() for path in sorted(data_dir.rglob("*.aof")))
    assert created.get_json()["id"].encode() in aof  # the game is on disk: the file is the right one
    assert ("ab" * 32).encode() in aof  # and so is the move
    assert b":rl:" not in aof
    direct.close()
    server.stop()
    restarted = valkey_factory(port=server.port, data_dir=data_dir)
    again = create_app({"REDIS_URL": restarted.url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                        "RATE_LIMIT_PER_MINUTE": 50, "KEY_PREFIX": "aof"}).test_client()
    response = again.get(game)
    assert response.status_code == 200  # the game survived the restart
    assert response.headers["RateLimit-Remaining"] == "49"  # its counter did not: a fresh window
