"""Simultaneous requests against real gunicorn (2 workers × 4 threads) and a real Valkey.

Every move applies exactly once: simultaneous commits from different seats all
land, a round resolves once, a repeated request changes nothing, and two moves
decided on the same version cannot both apply.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.games import commitments
from support.client import GofoTable, GopsGame, LiveHttp, bearer, new_salt


def fire(calls):
    """Run every call at the same moment (a barrier releases them together)."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait()
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def http_for_thread(base):
    local = threading.local()

    def get():
        if not hasattr(local, "http"):
            local.http = LiveHttp(base, requests.Session())
        return local.http

    return get


@pytest.fixture
def live(live_server):
    return LiveHttp(live_server)


def test_all_seats_commit_and_reveal_at_once(live, live_server):
    table = GopsGame.create(live, {"options": {"players": 7}})
    start = table.public()
    game_id = start["game_id"]
    salts = {s: new_salt() for s in range(7)}
    bids = {s: [13 - s] for s in range(7)}
    per_thread = http_for_thread(live_server)

    def commit(seat):
        c = commitments.bid_commitment(game_id, 1, seat, bids[seat], salts[seat])
        return lambda: per_thread().post(f"{table.base}/seats/{seat}/commit", {"round": 1, "commitment": c}, table.seat_tokens[seat])

    results = fire([commit(s) for s in range(7)])
    assert [status for status, _ in results] == [200] * 7, results
    state = table.public()
    assert state["phase"] == "reveal" and state["committed"] == list(range(7))
    assert state["version"] == start["version"] + 7

    def reveal(seat):
        body = {"round": 1, "cards": bids[seat], "salt": salts[seat]}
        return lambda: per_thread().post(f"{table.base}/seats/{seat}/reveal", body, table.seat_tokens[seat])

    results = fire([reveal(s) for s in range(7)])
    assert [status for status, _ in results] == [200] * 7, results
    state = table.public()
    assert len(state["history"]) == 1 and state["history"][0]["winners"] == [0]
    assert state["round"] == 2 and state["version"] == start["version"] + 14
    assert all(len(h) == 12 for h in state["hands"])
    entries = table.transcript()["entries"]
    assert sum(1 for e in entries if e["action"]["type"] == "reveal") == 7


def test_same_reveal_sent_many_times_applies_once(live, live_server):
    table = GopsGame.create(live, {"profile": "classic"})
    salts = [new_salt(), new_salt()]
    assert table.commit(0, 1, [4], salts[0])[0] == 200
    assert table.commit(1, 1, [9], salts[1])[0] == 200
    assert table.reveal(0, 1, [4], salts[0])[0] == 200
    per_thread = http_for_thread(live_server)
    body = {"round": 1, "cards": [9], "salt": salts[1]}
    results = fire([lambda: per_thread().post(f"{table.base}/seats/1/reveal", body, table.seat_tokens[1])] * 8)
    assert all(status == 200 for status, _ in results), results
    state = table.public()
    assert len(state["history"]) == 1 and state["round"] == 2
    assert sum(1 for e in table.transcript()["entries"] if e["action"]["type"] == "reveal") == 2


def test_two_moves_on_one_version_cannot_both_apply(live, live_server):
    table = GopsGame.create(live, {"options": {"players": 3}})
    version = table.public()["version"]
    game_id = table.id
    per_thread = http_for_thread(live_server)

    def commit(seat):
        c = commitments.bid_commitment(game_id, 1, seat, [seat + 1], new_salt())
        body = {"round": 1, "commitment": c, "version": version}
        return lambda: per_thread().post(f"{table.base}/seats/{seat}/commit", body, table.seat_tokens[seat])

    results = fire([commit(s) for s in range(3)])
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 409, 409], results
    assert all(data["code"] == "stale_version" for status, data in results if status == 409)
    assert table.public()["version"] == version + 1


def test_many_games_at_once(live, live_server):
    per_thread = http_for_thread(live_server)

    def play():
        table = GopsGame.create(per_thread(), {"options": {"ranks": 4}})
        return table.play_to_end(lambda state, seat: [max(state["hands"][seat])] if seat == 0 else [min(state["hands"][seat])])

    finals = fire([play] * 8)
    # Bids 4v1, 3v2, 2v3, 1v4 never tie: every prize is awarded, each game separately.
    assert all(f["phase"] == "over" and sum(int(s) for s in f["game_result"]["scores"]) == 10 for f in finals)
    assert len({f["id"] for f in finals}) == 8


def test_simultaneous_retried_creates_make_one_game(live_server):
    def create():
        r = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic"},
                          headers={"Idempotency-Key": "same-key-for-all"}, timeout=30)
        return r.status_code, r.json()

    results = fire([create] * 6)
    assert [status for status, _ in results] == [201] * 6, results
    assert len({data["id"] for _, data in results}) == 1
    assert len({data["seat_tokens"][0] for _, data in results}) == 1


def test_gofo_one_move_at_a_time(live, live_server):
    """Every seat tries to act at once: only the seat whose turn it is moves, exactly once."""
    table = GofoTable.create(live, {"seats": 5})
    start = table.public()
    mano = start["hand"]["mano"]
    per_thread = http_for_thread(live_server)

    def open_for(seat):
        return lambda: per_thread().post(f"{table.base}/seats/{seat}/open", {"amount": 1}, table.seat_tokens[seat])

    results = fire([open_for(s) for s in range(5)] + [open_for(mano)] * 3)
    ok = [r for r in results if r[0] == 200]
    assert len(ok) >= 1 and all(status in (200, 409) for status, _ in results), results
    state = table.public()
    assert state["version"] == start["version"] + 1 and state["hand"]["committed"][mano] == 1
    refused = {data["code"] for status, data in results if status == 409}
    assert refused <= {"not_your_turn", "wrong_phase"}


def test_gofo_retried_move_with_idempotency_key_applies_once(live, live_server):
    table = GofoTable.create(live, {"seats": 3})
    start = table.public()
    mano = start["hand"]["mano"]

    def send():
        r = requests.post(f"{live_server}{table.base}/seats/{mano}/open", json={"amount": 2}, timeout=30,
                          headers={**bearer(table.seat_tokens[mano]), "Idempotency-Key": "open-once-4f0c9e1a7b3d"})
        return r.status_code, r.json()

    results = fire([send] * 6)
    assert [status for status, _ in results] == [200] * 6, results
    assert all(data == results[0][1] for _, data in results)
    assert table.public()["version"] == start["version"] + 1
