"""Live updates: ``GET …/events`` as Server-Sent Events and as a long poll (service/api/events.py).

In-process (Flask test client on the real Valkey): what a stream carries, resume with
``Last-Event-ID``, authorization, the long poll.  Against real gunicorn (gevent workers):

* two API processes on one Valkey: streams held by one get every move made through the other,
  each version once and in order, and resume across processes;
* secrecy the way tests/test_api_gofo.py checks the views: a seat's stream never carries another
  seat's hidden cards or unresolved reveal, the public stream none at all;
* 300 open streams while moves keep their latency (the 1,000-stream run: bench/streams.py).
"""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
import redis as redis_lib

from support.apps import set_settings
from support.client import FlaskHttp, GofoTable, GopsGame, LiveHttp, bearer, new_salt
from service.games import commitments
from service.storage import live
from service.storage.store import Change, Store
from support.sse_client import RawStream, parse, pump


def events_of(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    events, comments, rest = parse(response.get_data())
    assert rest == b""
    return events, comments


@pytest.fixture
def http(client):
    return FlaskHttp(client)


@pytest.fixture
def game(http):
    return GopsGame.create(http, {"profile": "classic"})


def commit(game: GopsGame, seat: int, card: int, salt: str) -> None:
    status, data = game.commit(seat, 1, [card], salt)
    assert status == 200, data


# ------------------------------------------------------------------ in-process


def test_first_event_is_the_callers_view_at_the_current_version(client, game):
    commit(game, 0, 5, new_salt())
    for token, path in ((None, game.base), (game.host_token, game.base),
                        (game.seat_tokens[1], f"{game.base}/seats/1")):
        events, _ = events_of(client.get(f"{game.base}/events?timeout=1", headers=bearer(token)))
        assert [(e.id, e.event) for e in events] == [("2", "state")]
        view = client.get(path, headers=bearer(token)).get_json()
        assert events[0].json() == view  # the same JSON the view endpoint returns to this caller
    assert "seat" not in events_of(client.get(f"{game.base}/events?timeout=1",
                                              headers=bearer(game.host_token)))[0][0].json()


def test_resume_sends_only_what_the_client_does_not_have(client, game):
    commit(game, 0, 5, new_salt())  # version 2
    path = f"{game.base}/events?timeout=1"
    assert events_of(client.get(path, headers={"Last-Event-ID": "2"}))[0] == []
    assert [e.id for e in events_of(client.get(path, headers={"Last-Event-ID": "1"}))[0]] == ["2"]
    # An id this game never had (ahead of it) is not a version the client has: it gets the current one.
    assert [e.id for e in events_of(client.get(path, headers={"Last-Event-ID": "99"}))[0]] == ["2"]
    for bad in ("x", "-1", "1.5", "1" * 16, "", "\xb2"):
        r = client.get(path, headers={"Last-Event-ID": bad})
        assert r.status_code == 422 and r.get_json()["code"] == "invalid_request", bad


def test_heartbeats_while_nothing_happens(app, client, game):
    # the suite's apps cap streams at 0.1 s (tests/conftest.py)
    set_settings(app, stream_max_seconds=1, stream_heartbeat_seconds=0.2)
    events, comments = events_of(client.get(f"{game.base}/events?timeout=1"))
    assert len(events) == 1 and comments.count("keep-alive") >= 2


def test_a_finished_game_ends_the_stream_and_a_resume_gets_204(app, client, game, http):
    # the suite's apps cap streams at 0.1 s (tests/conftest.py)
    set_settings(app, stream_max_seconds=300, stream_heartbeat_seconds=0.2)
    status, data = game.move(0, "resign")
    assert status == 200 and data["phase"] == "over"
    events, comments = events_of(client.get(f"{game.base}/events?timeout=30"))
    assert "keep-alive" not in comments  # ended after the final state, never waited for the timeout
    assert events[-1].json()["phase"] == "over"
    final = events[-1].id
    r = client.get(f"{game.base}/events", headers={"Last-Event-ID": final})
    assert r.status_code == 204 and r.get_data() == b""


def test_streams_are_authorized_like_the_views(client, game):
    r = client.get(f"{game.base}/events?timeout=1", headers=bearer("not-a-token"))
    assert r.status_code == 401 and r.get_json()["code"] == "invalid_token"
    r = client.get(f"{game.base}/events?timeout=1", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401 and r.get_json()["code"] == "missing_token"
    other = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    r = client.get(f"{game.base}/events?timeout=1", headers=bearer(other.seat_tokens[0]))
    assert r.status_code == 401  # a token of another game
    r = client.get("/v1/gops/games/nosuchgame/events?timeout=1")
    assert r.status_code == 404 and r.get_json()["code"] == "game_not_found"
    r = client.get("/v1/gofo/tables/nosuchtable/events?timeout=1")
    assert r.status_code == 404
    for query in ("timeout=0", "timeout=301", "timeout=x", "timeout=%2B5", "timeout=5.0", "wait_for_version=0",
                  "wait_for_version=%D9%A2"):
        r = client.get(f"{game.base}/events?{query}")
        assert r.status_code == 422 and r.get_json()["code"] == "invalid_request", query


def test_long_poll(app, client, game):
    set_settings(app, stream_max_seconds=300)  # the suite's apps cap streams at 0.1 s (tests/conftest.py)
    path = f"{game.base}/events"
    # Already there: answered at once, as JSON, the caller's view with its ETag.
    r = client.get(f"{path}?wait_for_version=1", headers=bearer(game.seat_tokens[0]))
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.get_json() == client.get(f"{game.base}/seats/0", headers=bearer(game.seat_tokens[0])).get_json()
    assert r.headers["ETag"] == '"v1"'
    # Not there by the timeout: the current view, or 304 when If-None-Match names it.
    r = client.get(f"{path}?wait_for_version=2&timeout=1")
    assert r.status_code == 200 and r.get_json()["version"] == 1
    r = client.get(f"{path}?wait_for_version=2&timeout=1", headers={"If-None-Match": '"v1"'})
    assert r.status_code == 304
    # A move made meanwhile answers the poll as soon as it is stored.
    salt = new_salt()

    def move_soon():
        time.sleep(0.5)
        with app.test_client() as other:
            c = commitments.bid_commitment(game.id, 1, 1, [3], salt)
            other.post(f"{game.base}/seats/1/commit", json={"round": 1, "commitment": c},
                       headers=bearer(game.seat_tokens[1]))

    def poll():
        answers.append(client.get(f"{path}?wait_for_version=2&timeout=300"))

    answers: list = []
    mover, poller = threading.Thread(target=move_soon), threading.Thread(target=poll, daemon=True)
    poller.start()
    mover.start()
    mover.join()
    poller.join(120)  # answered by the move, not by the poll's 300 s timeout
    assert answers, "the poll was not answered when the move was stored"
    r = answers[0]
    assert r.status_code == 200 and r.get_json()["version"] == 2


@pytest.mark.parametrize("sharded", [False, True])
def test_the_hub_listens_the_way_the_store_publishes(redis_url, redis_client, sharded):
    """Store.sharded_pubsub is the one switch: SPUBLISH reaches SSUBSCRIBE, PUBLISH reaches SUBSCRIBE."""
    client = redis_lib.Redis.from_url(redis_url)
    store = Store(client, prefix=f"hub-{uuid.uuid4().hex[:6]}", sharded_pubsub=sharded)
    matching, other = live.Hub(client, sharded=store.sharded_pubsub), live.Hub(client, sharded=not sharded)
    try:
        record = store.create("gops", "g1", {"n": 0}, [])
        channel = store.channel("gops", "g1")
        with matching.subscription(channel) as sub, other.subscription(channel) as deaf:
            assert sub.ready.is_set() and deaf.ready.is_set()
            store.save(record, Change({"n": 1}, []))
            assert sub.wait(5) and sub.latest == 2
            assert not deaf.wait(0.5)  # a shard channel and a classic channel are not the same channel
        assert matching.open_subscriptions() == 0
    finally:
        matching.stop()
        other.stop()
        client.close()


def test_the_app_hub_follows_the_store(app):
    store = app.extensions["referee_store"]
    assert live.hub_for(app).sharded is store.sharded_pubsub


# --------------------------------------------------------- two API processes


@pytest.fixture(scope="module")
def two_servers(redis_server, tmp_path_factory):
    """Two gunicorn processes (one gevent worker each) on the one Valkey, sharing a key prefix."""
    from support.servers import start_gunicorn, stop_gunicorn

    env = {"REFEREE_RATE_LIMIT_PER_MINUTE": "0", "REFEREE_CREATE_LIMIT_PER_HOUR": "0",
           "REFEREE_KEY_PREFIX": f"events-{uuid.uuid4().hex[:8]}", "GUNICORN_ACCESSLOG": ""}
    logs = tmp_path_factory.mktemp("events-gunicorn")
    started = []
    try:
        for name in ("a", "b"):
            started.append(start_gunicorn(redis_server.url, logs / f"{name}.log", workers=1, extra_env=env))
        yield [base for _, base in started]
    finally:
        for proc, _ in started:
            stop_gunicorn(proc)


def open_stream(base: str, path: str, token: str | None = None, **headers) -> RawStream:
    host, port = base.removeprefix("http://").split(":")
    return RawStream(host, int(port), path, {**bearer(token), **headers})


def wait_for(streams, version: int, timeout: float = 20) -> None:
    assert pump(streams, lambda: all(version in s.versions for s in streams), timeout), \
        [s.versions for s in streams]


@pytest.mark.servers
def test_moves_through_one_process_reach_streams_on_the_other(two_servers):
    a, b = two_servers
    game = GopsGame.create(LiveHttp(b), {"profile": "classic"})
    streams = [open_stream(a, f"{game.base}/events?timeout=120", token)
               for token in (None, game.host_token, *game.seat_tokens)]
    try:
        wait_for(streams, 1)
        salts = [new_salt(), new_salt()]
        moves = [lambda: game.commit(0, 1, [1], salts[0]), lambda: game.commit(1, 1, [13], salts[1]),
                 lambda: game.reveal(0, 1, [1], salts[0]), lambda: game.reveal(1, 1, [13], salts[1])]
        for version, move in enumerate(moves, start=2):
            status, data = move()
            assert status == 200, data
            wait_for(streams, version)
        for s in streams:
            assert s.status == 200 and s.response_headers["content-type"].startswith("text/event-stream")
            assert s.versions == [1, 2, 3, 4, 5]  # every version, once, in order
            assert {e.event for e in s.events} == {"state"}
        final = game.public()
        assert streams[0].events[-1].json() == final
        assert streams[2].events[-1].json() == game.seat_view(0)
        # Seat 0's reveal was its own until seat 1 revealed: at version 4 only its stream had it.
        at4 = {i: s.events[3].data for i, s in enumerate(streams)}
        assert salts[0] in at4[2]
        assert not [i for i in (0, 1, 3) if salts[0] in at4[i]]
        assert json.loads(at4[2])["my_reveal"]["cards"] == [1]
    finally:
        for s in streams:
            s.close()


@pytest.mark.servers
def test_resume_on_the_other_process_misses_nothing_and_repeats_nothing(two_servers):
    a, b = two_servers
    game = GopsGame.create(LiveHttp(a), {"profile": "classic"})
    first = open_stream(a, f"{game.base}/events?timeout=60", game.seat_tokens[0])
    wait_for([first], 1)
    first.close()  # the phone loses its connection...
    salts = [new_salt(), new_salt()]
    assert game.commit(0, 1, [7], salts[0])[0] == 200
    assert game.commit(1, 1, [8], salts[1])[0] == 200
    # ...and EventSource reconnects, here to the other process, with the last id it had.
    resumed = open_stream(b, f"{game.base}/events?timeout=60", game.seat_tokens[0], **{"Last-Event-ID": "1"})
    try:
        wait_for([resumed], 3)
        assert resumed.versions == [3]  # the current view has everything versions 2 and 3 changed
        assert resumed.events[0].json() == game.seat_view(0)
        assert game.reveal(0, 1, [7], salts[0])[0] == 200
        wait_for([resumed], 4)
        assert resumed.versions == [3, 4]
    finally:
        resumed.close()


def strip_draws(view: dict) -> dict:
    """The first-dealer draw uses a deck of its own (public): its cards are not the hand's."""
    return {**view, "table": {k: v for k, v in view["table"].items() if k != "draws"}}


@pytest.mark.servers
def test_gofo_streams_never_carry_a_card_the_caller_may_not_see(two_servers):
    a, b = two_servers
    table = GofoTable.create(LiveHttp(b), {"seats": 5})
    n = 5
    streams = {who: open_stream(a, f"{table.base}/events?timeout=120", token)
               for who, token in [("public", None), ("host", table.host_token),
                                  *[(seat, table.seat_tokens[seat]) for seat in range(n)]]}
    try:
        wait_for(list(streams.values()), 1)
        table.play("open", amount=1)
        table.play("enter", blind=False)
        table.play("enter", blind=True)
        table.play("decline")
        table.play("enter", blind=False)
        while table.hand()["phase"] in ("raising", "betting"):
            seat = table.to_act()
            table.play("pass" if "pass" in table.legal(seat) else "ver")
        version = table.public()["version"]
        wait_for(list(streams.values()), version)
        hands = {seat: table.seat_view(seat)["hand"]["my_cards"] for seat in range(n)}
        assert sum(len(cards) for cards in hands.values()) >= 6
        carried = {who: json.dumps([strip_draws(e.json()) for e in s.events]) for who, s in streams.items()}
        for seat, cards in hands.items():
            assert all(f'"{card}"' in carried[seat] for card in cards)  # its own stream shows them
            for who, text in carried.items():
                if who != seat:
                    leaked = [card for card in cards if f'"{card}"' in text]
                    assert not leaked, (who, seat, leaked)
        assert streams[2].events[-1].json() == table.seat_view(2)
        assert streams["host"].events[-1].json() == streams["public"].events[-1].json() == table.public()
    finally:
        for s in streams.values():
            s.close()


# ------------------------------------------------------------ many streams


def play_rounds(game: GopsGame, rounds: int) -> None:
    """Play ``rounds`` rounds (4 moves each) of ``game``: every move must be answered 200."""
    for _ in range(rounds):
        state = game.public()
        round_, game_id = state["round"], state["game_id"]
        salts = {seat: new_salt() for seat in (0, 1)}
        cards = {0: [state["hands"][0][0]], 1: [state["hands"][1][-1]]}
        for seat in (0, 1):
            status, data = game.commit(seat, round_, cards[seat], salts[seat], game_id=game_id)
            assert status == 200, data
        for seat in (0, 1):
            status, data = game.reveal(seat, round_, cards[seat], salts[seat])
            assert status == 200, data


@pytest.mark.slow
def test_300_open_streams_do_not_hold_up_moves(live_server):
    """With gthread 2×4 the 9th stream would already wait for a thread; gevent holds them all: every
    stream is served, and moves on the watched game and on another are answered while all are open."""
    http = LiveHttp(live_server)
    quiet, watched = (GopsGame.create(http, {"profile": "classic"}) for _ in range(2))
    # 300 streams on the watched game, from 10 client addresses (the per-client cap counts each).
    host, port = live_server.removeprefix("http://").split(":")
    audiences = [None, *watched.seat_tokens]  # spectators and both seats
    streams = [RawStream(host, int(port), f"{watched.base}/events?timeout=240", bearer(audiences[i % 3]),
                         source=f"127.0.1.{1 + i % 10}") for i in range(300)]
    stop = threading.Event()
    try:
        wait_for(streams, 1, timeout=60)
        pumping = threading.Thread(target=pump, args=(streams, stop.is_set, 300))
        pumping.start()
        try:
            play_rounds(watched, 3)
            play_rounds(quiet, 1)
        finally:
            stop.set()
            pumping.join()
        final = watched.public()["version"]
        assert final == 1 + 3 * 4
        wait_for(streams, final, timeout=60)
        for s in streams:  # each stream open all along: every version it saw in order, the last one too
            assert s.status == 200 and s.versions == sorted(set(s.versions)) and s.versions[-1] == final
    finally:
        for s in streams:
            s.close()
