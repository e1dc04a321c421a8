"""The request path of a move: how many Redis round trips, and views sent as built.

* **Round trips**, counted by bench's TCP proxy between the app and a real Valkey
  (``bench.redis_counts.CountingProxy``: one round trip each time the client starts sending after
  it last received): a commit, a reveal and a Gofo move cost 1 on a worker that made or read the
  game's last change (the save's EVALSHA, whose script counts the rate limiter's hit too, applied
  to the record the worker kept: ``Store.latest``), else 2 (the HMGET that authorizes, with the
  limiter's hit in the same pipeline; the save's EVALSHA), a view 1.  A game's final move costs
  exactly one more, its log's LRANGE: the save archives the finished game (service.storage.archive),
  document and log in one compressed value.  A create costs 2: the limiter's hit, then one script
  that stores the game and adds it to the active set.
* **Serialization**: views are sent as the observers build them, not dumped through their
  marshmallow schemas (``views.dumped``).  Every view of real played games of both kinds
  (public, seat, every move's answer, over and under way, several Gops profiles, matches) is
  dumped here by marshmallow through the schema its operation documents, and the bytes must be
  the ones sent.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is not an installed package

from bench.redis_counts import CountingProxy, Counter_, open_gofo, play_gofo_hand, play_gops  # noqa: E402
from service.api import views  # noqa: E402
from service.config import settings  # noqa: E402
from service.web.app import create_app  # noqa: E402
from support.client import bearer


def _port(url: str) -> int:
    return redis.Redis.from_url(url).connection_pool.connection_kwargs["port"]


@pytest.fixture(params=[256, 0], ids=["latest", "no-latest"])
def counted(request, redis_url, redis_client):
    """(counter, client, latest): the referee with its rate limiter on, through a counting proxy;
    each worker keeps its games' latest records (``LATEST_RECORDS``) or not (0)."""
    direct = redis.Redis.from_url(redis_url)
    with CountingProxy(_port(redis_url)) as proxy:
        app = create_app({"REDIS_URL": proxy.url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                          "RATE_LIMIT_PER_MINUTE": 10**9, "CREATE_LIMIT_PER_HOUR": 10**9,
                          "LATEST_RECORDS": request.param})
        client = app.test_client()
        rng = random.Random(9)
        play_gops(client, rng, rounds=1)  # warm up: connections, script loading
        play_gofo_hand(client, open_gofo(client), rng)
        yield Counter_(proxy, direct), client, request.param > 0
    direct.close()


def _final_move_apart(measure, moves: int = 2 * 13):
    """``measure`` with the last reveal of a whole 2-player 13-round game labelled on its own."""
    reveals = iter(range(1, 10**6))

    def labelled(label, fn):
        if label == "gops_reveal" and next(reveals) % moves == 0:
            label = "gops_final_reveal"
        return measure(label, fn)
    return labelled


def test_a_move_is_one_round_trip_on_the_latest_record_else_two(counted):
    counter, client, latest = counted
    rng = random.Random(1)
    play_gops(client, rng, _final_move_apart(counter.measure))
    table = open_gofo(client, counter.measure)
    play_gofo_hand(client, table, rng, counter.measure)
    summary = counter.summary()
    for label in ("gops_commit", "gops_reveal", "gofo_move"):
        entry = summary[label]
        if latest:
            # The worker made or read the game's last change: the move is applied to that record
            # and one script counts the limiter's hit and saves it if the version is still current.
            assert entry["round_trips_max"] == 1, (label, entry)
            assert entry["typical_client_commands"] == ["EVALSHA"], (label, entry)
        else:
            # The limiter's script and the HMGET go together; then the save.
            assert entry["round_trips_max"] == 2, (label, entry)
            assert entry["typical_client_commands"] == ["EVALSHA", "HMGET", "EVALSHA"], (label, entry)
    # The move that ends the game reads the log once more, to archive it with the document (the
    # limiter's hit rides in the save's script when no HMGET carried it).
    final = summary["gops_final_reveal"]
    if latest:
        assert final["requests"] == 1 and final["round_trips_max"] == 2, final
        assert final["typical_client_commands"] == ["LRANGE", "EVALSHA"], final
    else:
        assert final["requests"] == 1 and final["round_trips_max"] == 3, final
        assert final["typical_client_commands"] == ["EVALSHA", "HMGET", "LRANGE", "EVALSHA"], final
    for label in ("gops_public_view", "gops_seat_view", "gofo_seat_view"):
        assert summary[label]["round_trips_max"] == 1, (label, summary[label])
        assert summary[label]["typical_client_commands"] == ["EVALSHA", "HMGET"], (label, summary[label])
    # A create: the limiter's hit, then one script that stores the game and adds it to the active set.
    for label in ("gops_create", "gofo_create"):
        assert summary[label]["round_trips_max"] == 2, (label, summary[label])
        assert summary[label]["typical_client_commands"] == ["EVALSHA", "EVALSHA"], (label, summary[label])


def test_a_create_joins_the_active_set_in_its_script_and_survives_a_broken_set(app, client, redis_client):
    """The active set is bookkeeping: a create whose ZADD fails (the key holds a string) is still a
    201, counted as a store error; once the set is repaired the next create joins it again."""
    from service.ops import metrics

    import time

    store = app.extensions["referee_store"]
    active = store.active_key("gops")
    created = client.post("/v1/gops/games", json={"profile": "classic"})
    assert created.status_code == 201
    first = created.get_json()["id"]
    assert redis_client.zrange(active, 0, -1) == [first]
    # scored by when the game would expire untouched
    assert abs(redis_client.zscore(active, first) - (time.time() + store.idle_ttl)) < 60
    errors = metrics.STORE_ERRORS.labels(kind="active")._value.get()
    redis_client.delete(active)
    redis_client.set(active, "not a sorted set")
    broken = client.post("/v1/gops/games", json={"profile": "classic"})
    assert broken.status_code == 201
    assert client.get(f"/v1/gops/games/{broken.get_json()['id']}").status_code == 200
    assert metrics.STORE_ERRORS.labels(kind="active")._value.get() == errors + 1
    assert redis_client.get(active) == "not a sorted set"  # the script wrote nothing else there
    redis_client.delete(active)
    repaired = client.post("/v1/gops/games", json={"profile": "classic"})
    assert repaired.status_code == 201
    assert redis_client.zrange(active, 0, -1) == [repaired.get_json()["id"]]
    assert metrics.STORE_ERRORS.labels(kind="active")._value.get() == errors + 1


def test_without_the_rate_limiter_a_move_is_the_load_and_the_save(redis_url, redis_client):
    direct = redis.Redis.from_url(redis_url)
    with CountingProxy(_port(redis_url)) as proxy:
        client = create_app({"REDIS_URL": proxy.url, "TESTING": True, "LATEST_RECORDS": 0}).test_client()
        rng = random.Random(2)
        play_gops(client, rng, rounds=1)
        counter = Counter_(proxy, direct)
        play_gops(client, rng, counter.measure, rounds=3)
        summary = counter.summary()
    direct.close()
    for label in ("gops_commit", "gops_reveal"):
        assert summary[label]["round_trips_max"] == 2, summary[label]
        assert summary[label]["typical_client_commands"] == ["HMGET", "EVALSHA"], summary[label]


def test_a_refused_move_writes_nothing_and_costs_one_round_trip(redis_url, redis_client):
    """Over the limit, the deferred hit refuses with the usual 429 before anything is stored."""
    direct = redis.Redis.from_url(redis_url)
    with CountingProxy(_port(redis_url)) as proxy:
        app = create_app({"REDIS_URL": proxy.url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                          "RATE_LIMIT_PER_MINUTE": 3, "CREATE_LIMIT_PER_HOUR": 0})
        client = app.test_client()
        created = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
        gid, token = created["id"], created["seat_tokens"][0]
        body = {"round": 1, "commitment": "0" * 64}
        path = f"/v1/gops/games/{gid}/seats/0/commit"
        headers = bearer(token)
        assert client.get(f"/v1/gops/games/{gid}").status_code == 200
        assert client.post(path, json=body, headers=headers).status_code == 200  # the 3rd request
        counter = Counter_(proxy, direct)
        response = counter.measure("refused", lambda: client.post(path, json=body, headers=headers))
        assert response.status_code == 429 and response.get_json()["code"] == "rate_limited"
        assert response.headers["Retry-After"] == response.headers["RateLimit-Reset"]
        store = app.extensions["referee_store"]
        assert direct.hget(store.key("gops", gid), "version") == b"2"  # nothing applied
        # A body the schema refuses never reaches the store: the limiter still counts and refuses it.
        invalid = client.post(path, json={"round": "x"}, headers=headers)
        assert invalid.status_code == 429 and invalid.headers["X-Content-Type-Options"] == "nosniff"
        assert invalid.headers["Cache-Control"] == "no-store"
    direct.close()
    assert counter.summary()["refused"]["round_trips"] == 1


# ------------------------------------------------------------------- serialization


def test_views_are_sent_exactly_as_their_schemas_would_dump_them(redis_url, redis_client, monkeypatch):
    """Every view of real games, as sent and as marshmallow dumps it: the same bytes.

    The app does not check its views itself here (``CHECK_VIEWS`` off, as when serving), so what is
    compared is exactly what a served app sends."""
    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "CHECK_VIEWS": False})
    client = app.test_client()
    seen: list[tuple[str, object, dict]] = []
    sent = views.dumped

    def spy(data, schema):
        from flask import request

        seen.append((request.endpoint, schema, data))
        return sent(data, schema)

    monkeypatch.setattr(views, "dumped", spy)
    rng = random.Random(3)
    for _ in range(2):
        play_gops(client, rng)
    for body in ({"profile": "standard", "options": {"players": 3}, "match": {"format": "best_of", "games": 3}},
                 {"profile": "classic", "match": {"format": "cumulative", "games": 2}},
                 {"profile": "standard", "options": {"resolution": "split", "deadline_seconds": 60}}):
        # other rules: 3 seats, matches, a deadline, a resignation
        created = client.post("/v1/gops/games", json=body)
        assert created.status_code == 201, created.get_json()
        game = created.get_json()
        auth = bearer(game['seat_tokens'][0])
        assert client.get(f"/v1/gops/games/{game['id']}").status_code == 200
        assert client.get(f"/v1/gops/games/{game['id']}/seats/0", headers=auth).status_code == 200
        assert client.post(f"/v1/gops/games/{game['id']}/seats/0/resign", json={}, headers=auth).status_code == 200
        assert client.get(f"/v1/gops/games/{game['id']}").status_code == 200
    table = open_gofo(client)
    for _ in range(3):
        play_gofo_hand(client, table, rng)
    tid = table["id"]
    assert client.get(f"/v1/gofo/tables/{tid}").status_code == 200
    for seat, token in enumerate(table["tokens"]):
        assert client.get(f"/v1/gofo/tables/{tid}/seats/{seat}", headers=bearer(token)).status_code == 200

    endpoints = {endpoint for endpoint, _, _ in seen}
    assert endpoints >= {"gops.Game", "gops.SeatView", "gops.CommitBid", "gops.RevealBid", "gops.ResignSeat",
                         "gofo.TableView", "gofo.SeatView"}, endpoints
    assert len({e for e in endpoints if e.startswith("gofo.")}) >= 5, endpoints  # several Gofo moves
    assert len(seen) > 150
    with app.app_context():
        for endpoint, schema, data in seen:
            schema = schema() if isinstance(schema, type) else schema  # a view names its schema's class
            assert app.json.body(data) == app.json.body(schema.dump(data)), endpoint  # as sent


@pytest.mark.parametrize("drift, found", [
    (lambda view: {**view, "secret_note": "x"}, "/secret_note: not declared by the schema"),
    (lambda view: {**view, "round": float(view["round"])}, "/round: float"),
    (lambda view: {**view, "hands": [[True] + h[1:] for h in view["hands"]]}, "/hands/0/0: bool"),
])
def test_a_view_out_of_its_schema_s_shape_is_a_500_where_views_are_checked(redis_url, monkeypatch, caplog, drift, found):
    """With CHECK_VIEWS (every app and gunicorn the tests make) a view that is not exactly what its
    schema dumps it to (an undeclared field, 1.0 for 1, true for 1) is refused: a 500 and the
    difference in the log. Without it, it would have been sent as built. (A required field left
    out is the schemathesis run's to find: a dump does not add it either.)"""
    from service.games.gops import referee

    built = referee.view
    monkeypatch.setattr(referee, "view", lambda *args, **kwargs: drift(built(*args, **kwargs)))
    for check, status in ((True, 500), (False, 200)):
        app = create_app({"REDIS_URL": redis_url, "TESTING": True, "CHECK_VIEWS": check})
        client = app.test_client()
        created = client.post("/v1/gops/games", json={"profile": "classic"})
        assert created.status_code == 201  # a create's answer is marshmallow's own dump
        gid, token = created.get_json()["id"], created.get_json()["seat_tokens"][0]
        caplog.clear()
        for path, headers in ((f"/v1/gops/games/{gid}", {}),
                              (f"/v1/gops/games/{gid}/seats/0", bearer(token))):
            answer = client.get(path, headers=headers)
            assert answer.status_code == status, (check, path, answer.get_json())
            if check:
                assert answer.mimetype == "application/problem+json"
                assert found in caplog.text
        if not check and "secret_note" in found:
            assert answer.get_json()["secret_note"] == "x"


def test_served_apps_do_not_check_views_and_test_apps_do(redis_url, monkeypatch):
    """CHECK_VIEWS follows TESTING unless set: REFEREE_CHECK_VIEWS=1 / 0 overrides either way."""
    monkeypatch.delenv("REFEREE_CHECK_VIEWS", raising=False)
    assert settings(create_app({"REDIS_URL": redis_url})).check_views is False
    assert settings(create_app({"REDIS_URL": redis_url, "TESTING": True})).check_views is True
    monkeypatch.setenv("REFEREE_CHECK_VIEWS", "1")
    assert settings(create_app({"REDIS_URL": redis_url})).check_views is True
    monkeypatch.setenv("REFEREE_CHECK_VIEWS", "0")
    assert settings(create_app({"REDIS_URL": redis_url, "TESTING": True})).check_views is False


def test_no_schema_is_built_per_request(redis_url, monkeypatch):
    """Building a marshmallow Schema deep-copies every declared field: once per schema, never
    per request (views built theirs per request, webargs a body's: ~40 % of a read)."""
    import marshmallow

    app = create_app({"REDIS_URL": redis_url, "TESTING": True})
    client = app.test_client()
    play_gops(client, random.Random(5), rounds=2)  # every kind of request once: what is kept gets built
    # Views are checked here (CHECK_VIEWS): a schema's instance is made at its first view,
    # so the views of another table come first.
    warm = open_gofo(client)
    client.get(f"/v1/gofo/tables/{warm['id']}")
    client.get(f"/v1/gofo/tables/{warm['id']}/seats/0", headers=bearer(warm['tokens'][0]))
    table = open_gofo(client)
    built: list[str] = []
    original = marshmallow.Schema.__init__

    def counting(self, *args, **kwargs):
        built.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(marshmallow.Schema, "__init__", counting)
    per_request: dict[str, list[str]] = {}

    def measure(label, send):
        before = len(built)
        response = send()
        per_request.setdefault(label, []).extend(built[before:])
        return response

    play_gops(client, random.Random(6), measure)
    measure("gofo_public_view", lambda: client.get(f"/v1/gofo/tables/{table['id']}"))
    measure("gofo_seat_view", lambda: client.get(f"/v1/gofo/tables/{table['id']}/seats/0",
                                                 headers=bearer(table['tokens'][0])))
    per_request.pop("gops_create")  # a create's 201 answer is dumped by marshmallow (not a move, not a read)
    assert set(per_request) >= {"gops_commit", "gops_reveal", "gops_public_view", "gops_seat_view"}
    assert {label: names for label, names in per_request.items() if names} == {}
