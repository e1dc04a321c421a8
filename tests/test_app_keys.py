"""Apps as clients (service.api.apps, service.storage.apps, ``python -m service.apps``): keys issued,
rolled and revoked by the operator, each with its own limits across API processes, refused precisely
when wrong, its usage on /metrics; and the app's own list of games, stable while games are created.

The "across" tests run two gunicorn servers (one worker each) on the suite's Valkey."""

from __future__ import annotations

import http.client
import io
import json
import threading
from urllib.parse import urlsplit

import pytest
import requests
from support.client import bearer
from support.servers import start_gunicorn, stop_gunicorn
from support.store import snapshot

from service import apps as cli
from service.web.app import create_app

CREATE = "/v1/gops/games"
MISSING = "/v1/gops/games/no-such-game"
LIST = "/v1/apps/me/games"
ADDRESS_LIMIT = 8  # the servers' per-address limit (requests per minute)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


@pytest.fixture
def operator(redis_url, redis_client, monkeypatch):
    """``python -m service.apps`` against the suite's Valkey: issue(name, *options) -> the key."""
    monkeypatch.setenv("REDIS_URL", redis_url)

    def issue(name: str, *options: str) -> str:
        status, printed = run("issue", name, *options)
        assert status == 0, printed
        return printed.split()[-1]

    return issue


def get_from(source: str, base: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict, dict]:
    """GET from another loopback address than the tests' usual 127.0.0.1 (a client of its own, as
    the per-address limits see it: nothing else ever counted against it); (status, headers, body)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
    finally:
        connection.close()


def key(k: str) -> dict[str, str]:
    return {"Referee-App-Key": k}


@pytest.fixture
def make_app(redis_url, redis_client):
    def make(**overrides):
        return create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True, **overrides})

    return make


@pytest.fixture(scope="module")
def two_apis(redis_server, tmp_path_factory):
    logs = tmp_path_factory.mktemp("apis")
    env = {"REFEREE_RATE_LIMIT_PER_MINUTE": str(ADDRESS_LIMIT), "REFEREE_CREATE_LIMIT_PER_HOUR": "1000"}
    started = []
    try:
        for i in range(2):
            started.append(start_gunicorn(redis_server.url, logs / f"api{i}.log", workers=1, extra_env=env))
        yield [base for _, base in started]
    finally:
        for proc, _ in started:
            stop_gunicorn(proc)


# ------------------------------------------------------------------ the operator


def test_issue_list_roll_revoke(operator, redis_client):
    first = operator("acme", "--requests-per-minute", "600", "--creates-per-hour", "50",
                     "--origin", "https://games.acme.example")
    assert first.startswith("rk_") and len(first) > 40
    assert run("issue", "acme")[0] == 1  # a name is issued once
    status, listed = run("list")
    assert status == 0 and listed.startswith("acme ")
    assert "requests-per-minute=600" in listed and "creates-per-hour=50" in listed
    assert "origins=https://games.acme.example" in listed and "games=0" in listed
    # Only the key's hash is stored: the key itself is nowhere in Redis.
    assert not any(first in str(redis_client.dump(k)) for k in redis_client.keys("*"))
    status, rolled = run("roll", "acme")
    second = rolled.split()[-1]
    assert status == 0 and second.startswith("rk_") and second != first
    status, changed = run("limits", "acme", "--creates-per-hour", "7")
    assert status == 0 and "creates-per-hour=7" in changed and "requests-per-minute=600" in changed
    assert run("revoke", "acme")[0] == 0
    assert run("list") == (0, "acme  revoked  games=0\n")
    # A revoked app is revoked for good, and its name is never another app's (nor its games).
    for argv in (["revoke", "acme"], ["roll", "acme"], ["limits", "acme", "--creates-per-hour", "1"],
                 ["issue", "acme"], ["roll", "nobody"]):
        assert run(*argv)[0] == 1, argv


def test_a_bad_name_or_limit_is_a_usage_error(operator):
    for argv in (["issue", "Bad Name"], ["issue", "ok", "--requests-per-minute", "-1"],
                 ["issue", "ok", "--origin", "not-an-origin"]):
        with pytest.raises(SystemExit) as exit:
            run(*argv)
        assert exit.value.code == 2
    assert run("list") == (0, "")


# -------------------------------------------------------------- limits per key


@pytest.mark.servers
def test_a_keys_limits_hold_across_two_api_processes(two_apis, operator):
    one, two = two_apis
    k = key(operator("acme", "--requests-per-minute", "12", "--creates-per-minute", "2"))
    statuses = [get_from("127.0.0.2", (one, two)[i % 2], MISSING, k)[0] for i in range(12)]
    # 12 requests from one address: past the address's 8, but the key's own limit is what counts.
    assert statuses == [404] * 12
    for base in (one, two):
        status, headers, body = get_from("127.0.0.2", base, MISSING, k)
        assert status == 429 and body["code"] == "rate_limited"
        assert "12 requests per minute from this app" in body["detail"]
        assert headers["RateLimit-Limit"] == "12" and headers["Retry-After"].isdigit()
    # The address's own counter was untouched by the keyed requests: keyless requests go on.
    status, headers, _ = get_from("127.0.0.2", one, MISSING)
    assert status == 404 and headers["RateLimit-Limit"] == str(ADDRESS_LIMIT)
    assert headers["RateLimit-Remaining"] == str(ADDRESS_LIMIT - 1)


@pytest.mark.servers
def test_a_keys_create_limits_hold_across_two_api_processes(two_apis, operator):
    one, two = two_apis
    k = key(operator("acme", "--creates-per-minute", "2"))
    assert requests.post(one + CREATE, json={}, headers=k, timeout=10).status_code == 201
    assert requests.post(two + CREATE, json={}, headers=k, timeout=10).status_code == 201
    for base in (one, two):
        refused = requests.post(base + "/v1/gofo/tables", json={}, headers=k, timeout=10)
        assert refused.status_code == 429 and "2 games created per minute from this app" in refused.json()["detail"]
    # Reads are not creates, and the app has no request limit: they go on.
    assert requests.get(two + MISSING, headers=k, timeout=10).status_code == 404


@pytest.mark.servers
def test_keyless_limits_are_unchanged(two_apis, operator):
    one, two = two_apis
    operator("acme", "--requests-per-minute", "100")
    statuses = [get_from("127.0.0.3", (one, two)[i % 2], MISSING)[0] for i in range(ADDRESS_LIMIT + 1)]
    assert statuses == [404] * ADDRESS_LIMIT + [429]
    assert "from this client" in get_from("127.0.0.3", two, MISSING)[2]["detail"]


@pytest.mark.servers
def test_a_revoked_or_rolled_key_is_refused_everywhere_at_once(two_apis, operator):
    one, two = two_apis
    first = operator("acme")
    for base in (one, two):
        assert requests.get(base + LIST, headers=key(first), timeout=10).status_code == 200
    status, printed = run("roll", "acme")
    second = printed.split()[-1]
    for base in (one, two):
        status, headers, body = get_from("127.0.0.4", base, LIST, key(first))
        assert status == 401 and body["code"] == "app_key_rolled"
        assert headers["Content-Type"] == "application/problem+json"
        assert requests.get(base + LIST, headers=key(second), timeout=10).status_code == 200
    assert run("revoke", "acme")[0] == 0
    # (A refused key is counted against the address: these stay within its 8.)
    for base, k, code in ((one, second, "app_key_revoked"), (two, second, "app_key_revoked"),
                          (one, first, "app_key_rolled"), (two, "rk_never-issued", "invalid_app_key")):
        status, _, body = get_from("127.0.0.4", base, MISSING, key(k))
        assert status == 401 and body["code"] == code, (k, body)


def test_a_wrong_key_is_refused_and_counted_against_its_address(make_app, operator, redis_client):
    client = make_app(RATE_LIMIT_PER_MINUTE=3).test_client()
    before = snapshot(redis_client)
    for _ in range(3):
        response = client.post(CREATE, json={}, headers=key("rk_guess"))
        assert response.status_code == 401 and response.get_json()["code"] == "invalid_app_key"
    for bad in ("", "x" * 300, "rk_another-guess"):
        response = client.post(CREATE, json={}, headers=key(bad))
        assert response.status_code == 429  # guessing keys costs the address its requests
    assert snapshot(redis_client) == before


def test_creates_may_require_a_key(make_app, operator, redis_client):
    k = key(operator("acme"))
    client = make_app(APP_KEYS_REQUIRED_FOR_CREATES=True).test_client()
    before = snapshot(redis_client)
    for path in (CREATE, "/v1/gofo/tables"):
        refused = client.post(path, json={})
        assert refused.status_code == 401 and refused.get_json()["code"] == "app_key_required"
    assert snapshot(redis_client) == before
    game = client.post(CREATE, json={}, headers=k).get_json()
    # Playing needs no key: a seat's token is enough.
    moved = client.post(f"{CREATE}/{game['id']}/seats/0/resign", json={}, headers=bearer(game["seat_tokens"][0]))
    assert moved.status_code == 200
    # Not required (the default): /play on a LAN creates without one.
    assert make_app().test_client().post(CREATE, json={}).status_code == 201


def test_a_key_with_origins_is_refused_from_another_origin(make_app, operator):
    k = key(operator("acme", "--origin", "https://games.acme.example"))
    client = make_app().test_client()
    assert client.get(LIST, headers={**k, "Origin": "https://games.acme.example"}).status_code == 200
    assert client.get(LIST, headers=k).status_code == 200  # a server sends no Origin
    refused = client.get(LIST, headers={**k, "Origin": "https://evil.example"})
    assert refused.status_code == 403 and refused.get_json()["code"] == "app_origin_not_allowed"


def test_usage_on_metrics_is_labelled_by_the_apps_name_never_its_key(make_app, operator):
    secret = operator("acme", "--creates-per-minute", "1")
    client = make_app().test_client()
    assert client.post(CREATE, json={}, headers=key(secret)).status_code == 201
    assert client.post(CREATE, json={}, headers=key(secret)).status_code == 429
    run("revoke", "acme")
    assert client.get(MISSING, headers=key(secret)).status_code == 401
    text = client.get("/metrics").get_data(as_text=True)
    assert secret not in text and secret[3:15] not in text

    def value(line: str) -> float:
        return sum(float(row.split()[-1]) for row in text.splitlines() if row.startswith(line + " "))

    assert value('referee_app_requests_total{app="acme"}') >= 2
    assert value('referee_app_creates_total{app="acme"}') >= 1
    assert value('referee_app_refusals_total{app="acme",code="rate_limited"}') >= 1
    assert value('referee_app_refusals_total{app="acme",code="app_key_revoked"}') >= 1


def test_a_creates_idempotency_key_is_scoped_to_the_app(make_app, operator):
    acme, other = key(operator("acme")), key(operator("other"))
    client = make_app().test_client()
    once = {"Idempotency-Key": "5f0e9a4c-3d2b-4e1f-9a8b-7c6d5e4f3a2b"}
    first = client.post(CREATE, json={}, headers={**acme, **once}).get_json()
    assert client.post(CREATE, json={}, headers={**acme, **once}).get_json()["id"] == first["id"]
    # Another app with the same key gets a game of its own, not acme's tokens.
    assert client.post(CREATE, json={}, headers={**other, **once}).get_json()["id"] != first["id"]


# --------------------------------------------------------------- an app's games


def ids(page: dict) -> list[str]:
    return [game["id"] for game in page["games"]]


def test_an_apps_games_newest_first_filtered(make_app, operator, redis_client):
    acme, other = key(operator("acme")), key(operator("other"))
    client = make_app().test_client()
    made = []
    for i in range(3):
        made.append(("gops", client.post(CREATE, json={}, headers=acme).get_json()))
        made.append(("gofo", client.post("/v1/gofo/tables", json={}, headers=acme).get_json()))
    client.post(CREATE, json={}, headers=other)
    client.post(CREATE, json={})  # keyless: nobody's
    finished = made[0][1]
    client.post(f"{CREATE}/{finished['id']}/seats/0/resign", json={}, headers=bearer(finished["seat_tokens"][0]))

    page = client.get(LIST, headers=acme).get_json()
    assert ids(page) == [game["id"] for _, game in reversed(made)] and page["next_cursor"] is None
    newest = page["games"][0]
    assert newest == {"game": "gofo", "id": made[-1][1]["id"], "created": newest["created"], "state": "waiting",
                      "version": 1, "href": f"/v1/gofo/tables/{made[-1][1]['id']}"}
    assert client.get(newest["href"]).status_code == 200
    assert ids(client.get(LIST + "?game=gops", headers=acme).get_json()) == \
        [game["id"] for kind, game in reversed(made) if kind == "gops"]
    assert ids(client.get(LIST + "?state=finished", headers=acme).get_json()) == [finished["id"]]
    waiting = client.get(LIST + "?state=waiting&game=gops", headers=acme).get_json()
    assert ids(waiting) == [game["id"] for kind, game in reversed(made) if kind == "gops"][:-1]
    created = [game["created"] for game in page["games"]]
    middle = client.get(f"{LIST}?since={created[3]}&until={created[1]}", headers=acme).get_json()
    assert ids(middle) == ids(page)[2:4]
    assert len(ids(client.get(LIST, headers=other).get_json())) == 1


def test_listing_refuses_what_it_cannot_use(make_app, operator, redis_client):
    acme = key(operator("acme"))
    client = make_app().test_client()
    refused = client.get(LIST)
    assert refused.status_code == 401 and refused.get_json()["code"] == "app_key_required"
    for query in ("cursor=bm90LWEtY3Vyc29y", "cursor=%%%", "limit=0", "limit=101", "game=chess", "state=over"):
        refused = client.get(f"{LIST}?{query}", headers=acme)
        assert refused.status_code == 422, query
        assert refused.get_json()["code"] in ("invalid_cursor", "invalid_request")


def test_pages_hold_while_games_are_created(make_app, operator):
    """Paging through an app's games while other requests of the app create more: every game that
    existed when the listing began is seen once, in order, and none twice."""
    acme = key(operator("acme"))
    app = make_app()
    client = app.test_client()
    before = [client.post(CREATE if i % 3 else "/v1/gofo/tables", json={}, headers=acme).get_json()["id"]
              for i in range(40)]
    stop = threading.Event()
    during: list[str] = []

    def create_more() -> None:
        creator = app.test_client()
        while not stop.is_set() and len(during) < 200:
            during.append(creator.post(CREATE, json={}, headers=acme).get_json()["id"])

    thread = threading.Thread(target=create_more)
    thread.start()
    try:
        seen, cursor, pages = [], None, 0
        while True:
            page = client.get(LIST + "?limit=7" + (f"&cursor={cursor}" if cursor else ""), headers=acme).get_json()
            seen += page["games"]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
    finally:
        stop.set()
        thread.join()
    assert during and pages >= 6
    order = [(game["created"], game["game"], game["id"]) for game in seen]
    assert order == sorted(order, reverse=True) and len(set(order)) == len(order)
    listed = [game["id"] for game in seen]
    assert [id for id in listed if id in before] == list(reversed(before))
    assert set(listed) <= set(before) | set(during)


def test_a_refused_create_with_a_key_leaves_the_store_as_it_was(make_app, operator, redis_client):
    acme = key(operator("acme"))
    client = make_app().test_client()
    before = snapshot(redis_client)
    for path, body in ((CREATE, {"profile": "nope"}), (CREATE, {"names": ["a", "b", "c"]}),
                       ("/v1/gofo/tables", {"seats": 99}), ("/v1/gofo/tables", {"bots": [{"seat": 9, "level": 1}]})):
        refused = client.post(path, json=body, headers=acme)
        assert refused.status_code == 422, (path, body, refused.get_json())
    assert snapshot(redis_client) == before
    assert client.get(LIST, headers=acme).get_json() == {"games": [], "next_cursor": None}
