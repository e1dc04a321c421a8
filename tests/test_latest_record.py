"""A move tried on the worker's latest record of its game (``Store.latest``).

A worker keeps the stored bytes of each game it last saved or read. A move on such a game is
applied to that record and saved by one script that also counts the rate limiter's hit: one round
trip. The record may be stale — another worker (here: another app on the same Valkey) changed the
game since — and then no answer may come from it:

* the save's compare-and-set refuses it and hands back the current record in the same reply; the
  move is applied again to that one (two round trips, the same as a move that reads first);
* a refusal or an exact repeat decided on it is decided again on a record read from the store;
* over a rate limit nothing is stored; with the limiter's counter unusable the move still goes
  through (the limiter fails open, as everywhere).

Each worker is a ``create_app`` of its own, with its own counting proxy (bench's), so the round
trips counted are that worker's.
"""

from __future__ import annotations

import random
import secrets
import sys
from pathlib import Path

import pytest
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is not an installed package

from bench.http import bid_commitment, gofo_choice  # noqa: E402
from bench.redis_counts import CountingProxy, Counter_  # noqa: E402
from service.ops import metrics  # noqa: E402
from service.web.app import create_app  # noqa: E402
from service.verify import verify  # noqa: E402
from support.client import bearer  # noqa: E402

GAMES = "/v1/gops/games"


def _port(url: str) -> int:
    return redis.Redis.from_url(url).connection_pool.connection_kwargs["port"]


class Worker:
    """One app (one worker's memory) behind its own counting proxy."""

    def __init__(self, proxy: CountingProxy, direct: redis.Redis, **config) -> None:
        self.app = create_app({"REDIS_URL": proxy.url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                               "RATE_LIMIT_PER_MINUTE": 10**9, "CREATE_LIMIT_PER_HOUR": 10**9, **config})
        self.client = self.app.test_client()
        self.counter = Counter_(proxy, direct)
        self.store = self.app.extensions["referee_store"]
        # warm up: connections, script loading (a NOSCRIPT and SCRIPT LOAD once per server)
        game = self.client.post(GAMES, json={"profile": "classic"}).get_json()
        self.client.post(f"{GAMES}/{game['id']}/seats/0/commit", json={"round": 1, "commitment": "0" * 64},
                         headers=bearer(game["seat_tokens"][0]))
        for key in direct.scan_iter(match="*:rl:*"):  # and no request of it counts against a test's limit
            direct.delete(key)

    def counted(self, label: str, fn):
        return self.counter.measure(label, fn)

    def trips(self, label: str) -> tuple[int, list[str]]:
        entry = self.counter.summary()[label]
        return entry["round_trips_max"], entry["typical_client_commands"]


@pytest.fixture
def workers(redis_url, redis_client):
    """Two workers on one Valkey; ``make(**config)`` for others."""
    direct = redis.Redis.from_url(redis_url)
    proxies: list[CountingProxy] = []

    def make(**config) -> Worker:
        proxy = CountingProxy(_port(redis_url))
        proxy.__enter__()
        proxies.append(proxy)
        return Worker(proxy, direct, **config)

    yield make
    for proxy in proxies:
        proxy.__exit__(None, None, None)
    direct.close()


def _new_game(worker: Worker) -> dict:
    created = worker.client.post(GAMES, json={"profile": "classic"})
    assert created.status_code == 201
    return created.get_json()


def _salt(name: str) -> str:
    return (name.encode().hex() * 64)[:64]


def _commit(worker: Worker, game: dict, seat: int, card: int, salt: str, **extra):
    salt = _salt(salt)
    body = {"round": 1, "commitment": bid_commitment(game["game"]["game_id"], 1, seat, [card], salt), **extra}
    return worker.client.post(f"{GAMES}/{game['id']}/seats/{seat}/commit", json=body,
                              headers=bearer(game["seat_tokens"][seat]))


def _version(worker: Worker, game: dict) -> int:
    return int(worker.store.redis.hget(worker.store.key("gops", game["id"]), "version"))


def test_a_move_on_the_latest_record_is_one_round_trip(workers):
    a = workers()
    game = _new_game(a)  # a made it: its latest record
    response = a.counted("commit", lambda: _commit(a, game, 0, 5, "s0"))
    assert response.status_code == 200 and response.get_json()["version"] == 2
    assert a.trips("commit") == (1, ["EVALSHA"])
    assert a.store.latest("gops", game["id"]).version == 2  # its own save is the next latest


def test_a_stale_record_is_saved_on_the_current_one_that_the_save_read_back(workers):
    a, b = workers(), workers()
    game = _new_game(a)
    assert b.client.get(f"{GAMES}/{game['id']}").status_code == 200  # b's latest: version 1
    assert _commit(a, game, 0, 5, "s0").status_code == 200  # version 2, on a
    response = b.counted("commit", lambda: _commit(b, game, 1, 9, "s1"))  # tried on b's version 1
    assert response.status_code == 200
    view = response.get_json()
    assert view["version"] == 3 and view["phase"] == "reveal"  # seat 0's commitment was not lost
    # the save refused version 1 and answered with version 2, on which the move was applied again
    assert b.trips("commit") == (2, ["EVALSHA", "EVALSHA"])
    assert _version(a, game) == 3
    assert b.store.latest("gops", game["id"]).version == 3


def test_a_refusal_is_never_decided_on_a_stale_record(workers):
    a, b = workers(), workers()
    game = _new_game(a)
    assert b.client.get(f"{GAMES}/{game['id']}").status_code == 200  # b's latest: the commit phase
    assert _commit(a, game, 0, 5, "s0").status_code == 200
    assert _commit(a, game, 1, 9, "s1").status_code == 200  # now the reveal phase
    reveal = {"round": 1, "cards": [5], "salt": _salt("s0")}
    response = b.counted("reveal", lambda: b.client.post(f"{GAMES}/{game['id']}/seats/0/reveal", json=reveal,
                                                         headers=bearer(game["seat_tokens"][0])))
    # on b's record a reveal is out of phase; on the current one it is the move it is
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["version"] == 4
    assert b.trips("reveal") == (2, ["EVALSHA", "HMGET", "EVALSHA"])
    # and a real refusal is still one: a second commit of seat 1 in the reveal phase
    refused = _commit(b, game, 1, 3, "other")
    assert refused.status_code == 409 and refused.get_json()["code"] == "wrong_phase", refused.get_json()
    assert _version(a, game) == 4


def test_an_exact_repeat_is_answered_with_the_current_record(workers):
    a, b = workers(), workers()
    game = _new_game(a)
    assert _commit(b, game, 0, 5, "s0").status_code == 200  # b's latest: version 2
    assert _commit(a, game, 1, 9, "s1").status_code == 200  # version 3, on a
    response = _commit(b, game, 0, 5, "s0")  # a repeat on b's version 2, and on version 3
    assert response.status_code == 200
    assert response.get_json()["version"] == 3 and response.get_json()["phase"] == "reveal"
    assert _version(a, game) == 3  # nothing stored


def test_a_pinned_version_is_checked_against_the_current_record(workers):
    a, b = workers(), workers()
    game = _new_game(a)
    assert b.client.get(f"{GAMES}/{game['id']}").status_code == 200  # b's latest: version 1
    assert _commit(a, game, 0, 5, "s0").status_code == 200  # version 2
    pinned = _commit(b, game, 1, 9, "s1", version=2)  # stale on b's record, current in the store
    assert pinned.status_code == 200 and pinned.get_json()["version"] == 3
    stale = b.client.post(f"{GAMES}/{game['id']}/seats/0/reveal", json={"round": 1, "cards": [5], "salt": _salt("s0"),
                                                                        "version": 2},
                          headers=bearer(game["seat_tokens"][0]))
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale_version"
    assert stale.get_json()["current_version"] == 3
    assert _version(a, game) == 3


def test_a_version_that_came_back_with_other_content_is_not_taken_for_the_kept_one(workers, redis_client):
    """Redis may lose acknowledged writes (``appendfsync everysec`` and a crash, a failover without
    WAIT): a game's version number then comes back, and another worker's move makes it again with
    other content. A worker that kept its own record of that version must not save a move made on
    it: the save checks the stored bytes, not only the version number."""
    a, b = workers(), workers()
    game = _new_game(a)
    keys = [a.store.key("gops", game["id"]), a.store.log_key("gops", game["id"])]
    lost = {key: (redis_client.dump(key), redis_client.pttl(key)) for key in keys}
    assert _commit(a, game, 0, 5, "s0").status_code == 200  # version 2 on a, which keeps it
    for key, (dumped, ttl) in lost.items():  # ... and Redis comes back without it
        redis_client.restore(key, ttl, dumped, replace=True)
    assert _commit(b, game, 1, 9, "s1").status_code == 200  # version 2 again: seat 1 committed, seat 0 not
    stored = {key: redis_client.dump(key) for key in keys}
    assert a.store.latest("gops", game["id"]).version == 2  # a still has its own version 2 ...
    response = a.counted("commit", lambda: _commit(a, game, 1, 3, "other"))  # ... where seat 1 has not committed
    # applied again to the stored version 2, where seat 1 has committed already: refused, nothing stored
    assert response.status_code == 409, response.get_json()
    assert response.get_json()["code"] == "already_committed", response.get_json()
    assert a.trips("commit") == (1, ["EVALSHA"])  # the save read the stored version 2 back
    assert {key: redis_client.dump(key) for key in keys} == stored
    # a now has the stored version 2, and the game goes on from there: seat 0's commitment was lost with
    # the write, and seat 0 commits again
    assert a.store.latest("gops", game["id"]).doc == b.store.latest("gops", game["id"]).doc
    response = _commit(a, game, 0, 5, "s0")
    assert response.status_code == 200 and response.get_json()["version"] == 3
    assert response.get_json()["phase"] == "reveal"


def test_over_the_limit_on_the_latest_record_nothing_is_stored(workers):
    a = workers(RATE_LIMIT_PER_MINUTE=3, CREATE_LIMIT_PER_HOUR=0)
    game = _new_game(a)  # the 1st request
    assert _commit(a, game, 0, 5, "s0").status_code == 200  # the 2nd
    assert _commit(a, game, 1, 9, "s1").status_code == 200  # the 3rd
    reveal = {"round": 1, "cards": [5], "salt": _salt("s0")}
    response = a.counted("refused", lambda: a.client.post(f"{GAMES}/{game['id']}/seats/0/reveal", json=reveal,
                                                          headers=bearer(game["seat_tokens"][0])))
    assert response.status_code == 429 and response.get_json()["code"] == "rate_limited"
    assert response.headers["Retry-After"] == response.headers["RateLimit-Reset"]
    assert response.headers["RateLimit-Remaining"] == "0"
    assert a.trips("refused") == (1, ["EVALSHA"])  # the save's script counted it and stored nothing
    assert _version(a, game) == 3
    assert a.store.redis.get("referee:rl:{127.0.0.1}:req") == b"4"


def test_an_unusable_counter_lets_the_move_through(workers, redis_client):
    a = workers()
    game = _new_game(a)
    counter = "referee:rl:{127.0.0.1}:req"
    redis_client.delete(counter)
    redis_client.hset(counter, "not", "a counter")  # INCR fails there: WRONGTYPE
    errors = metrics.STORE_ERRORS.labels(kind="ratelimit")._value.get()
    try:
        response = a.counted("commit", lambda: _commit(a, game, 0, 5, "s0"))
        assert response.status_code == 200 and response.get_json()["version"] == 2
        assert "RateLimit-Remaining" not in response.headers
        assert a.trips("commit") == (1, ["EVALSHA"])
        assert metrics.STORE_ERRORS.labels(kind="ratelimit")._value.get() == errors + 1
        assert _version(a, game) == 2
    finally:
        redis_client.delete(counter)


def test_no_latest_records_reads_first(workers):
    a = workers(LATEST_RECORDS=0)
    game = _new_game(a)
    assert a.store.latest("gops", game["id"]) is None
    response = a.counted("commit", lambda: _commit(a, game, 0, 5, "s0"))
    assert response.status_code == 200
    assert a.trips("commit") == (2, ["EVALSHA", "HMGET", "EVALSHA"])


def test_the_latest_records_are_bounded_and_a_finished_game_is_forgotten(workers):
    a = workers(LATEST_RECORDS=2)
    games = [_new_game(a) for _ in range(3)]
    assert a.store.latest("gops", games[0]["id"]) is None  # the oldest went
    assert [a.store.latest("gops", g["id"]).version for g in games[1:]] == [1, 1]
    game = games[2]
    assert a.client.post(f"{GAMES}/{game['id']}/seats/0/resign", json={},
                         headers=bearer(game["seat_tokens"][0])).status_code == 200  # the game is over
    assert a.store.latest("gops", game["id"]) is None


def test_each_move_gets_a_record_of_its_own(workers):
    """What one move does to its record never reaches the kept bytes, nor another move's record."""
    a = workers()
    game = _new_game(a)
    first, second = a.store.latest("gops", game["id"]), a.store.latest("gops", game["id"])
    assert first is not second and first.doc is not second.doc and first.doc == second.doc
    first.doc["state"]["game"]["hands"] = "trampled"
    assert a.store.latest("gops", game["id"]).doc == second.doc
    # the state a move saved goes to the next move only, to change in place; any other gets a parse
    assert _commit(a, game, 0, 5, "s0").status_code == 200
    owned, other = a.store.latest("gops", game["id"]), a.store.latest("gops", game["id"])
    assert owned.state is not None and owned.version == 2
    assert other.state is None and other.doc == owned.doc
    assert a.store.latest("gops", game["id"]).state is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_games_played_through_workers_at_random(workers, seed):
    """Every request of a whole Gops game and a Gofo hand goes to one of three workers at random
    (seeded), views too, so moves land on current, stale and missing latest records alike: every
    move is applied exactly once, and the transcripts verify."""
    rng = random.Random(seed)
    pool = [workers(), workers(), workers(LATEST_RECORDS=0)]

    def any_worker() -> Worker:
        return rng.choice(pool)

    game = _new_game(any_worker())
    hands = [list(range(1, 14)), list(range(1, 14))]
    played = 0
    for rnd in range(1, 14):
        bids = [hands[s].pop(rng.randrange(len(hands[s]))) for s in (0, 1)]
        salts = [secrets.token_hex(32), secrets.token_hex(32)]
        for s in rng.sample([0, 1], 2):
            w = any_worker()
            body = {"round": rnd, "commitment": bid_commitment(game["game"]["game_id"], rnd, s, [bids[s]], salts[s])}
            assert w.client.post(f"{GAMES}/{game['id']}/seats/{s}/commit", json=body,
                                 headers=bearer(game["seat_tokens"][s])).status_code == 200
            played += 1
            if rng.random() < 0.3:
                assert any_worker().client.get(f"{GAMES}/{game['id']}").status_code == 200
        for s in rng.sample([0, 1], 2):
            body = {"round": rnd, "cards": [bids[s]], "salt": salts[s]}
            response = any_worker().client.post(f"{GAMES}/{game['id']}/seats/{s}/reveal", json=body,
                                                headers=bearer(game["seat_tokens"][s]))
            assert response.status_code == 200, response.get_json()
            played += 1
    final = any_worker().client.get(f"{GAMES}/{game['id']}").get_json()
    assert final["phase"] == "over" and final["version"] == 1 + played
    transcript = any_worker().client.get(f"{GAMES}/{game['id']}/transcript").get_json()
    report = verify(transcript)
    assert report.ok, report.problems

    created = any_worker().client.post("/v1/gofo/tables", json={"seats": 5, "mode": "dealt"})
    assert created.status_code == 201
    table = created.get_json()
    tid, tokens = table["id"], table["seat_tokens"]
    state = table["table"]
    number = state["table"]["hand_number"]
    moves = 0
    while state["table"]["hand_number"] == number:
        seat = state["hand"]["to_act"]
        view = any_worker().client.get(f"/v1/gofo/tables/{tid}/seats/{seat}", headers=bearer(tokens[seat]))
        assert view.status_code == 200
        kind, body = gofo_choice(view.get_json()["hand"]["legal_actions"], rng)
        response = any_worker().client.post(f"/v1/gofo/tables/{tid}/seats/{seat}/{kind.replace('_', '-')}",
                                            json=body, headers=bearer(tokens[seat]))
        assert response.status_code == 200, response.get_json()
        state = response.get_json()
        moves += 1
        assert moves < 400
    transcript = any_worker().client.get(f"/v1/gofo/tables/{tid}/transcript").get_json()
    report = verify(transcript)
    assert report.ok, report.problems


@pytest.mark.parametrize("create", [
    {"profile": "classic", "match": {"format": "cumulative", "games": 2}},
    {"profile": "standard", "options": {"players": 3, "resolution": "split", "ranks": 6}},
    {"profile": "standard", "options": {"players": 3, "ranks": 8}, "match": {"format": "best_of", "games": 3}},
], ids=["classic-match", "three-split", "three-best-of"])
def test_a_state_applied_to_in_place_answers_as_one_parsed_from_the_store(workers, create):
    """Moves on one worker apply to the state object the previous move saved (``Store.keep``); after
    every move, the seat's view read through a worker that keeps nothing (parsed from the stored
    bytes) is the move's answer, byte for byte."""
    rng = random.Random(7)
    a, fresh = workers(), workers(LATEST_RECORDS=0, READ_CACHE_SIZE=0)
    created = a.client.post(GAMES, json=create)
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    gid, tokens = game["id"], game["seat_tokens"]
    kept = 0
    for _ in range(400):
        view = fresh.client.get(f"{GAMES}/{gid}").get_json()
        if view["result"] is not None:  # the game, or the match, is over
            break
        moved = False
        for seat in range(len(tokens)):
            seat_view = fresh.client.get(f"{GAMES}/{gid}/seats/{seat}", headers=bearer(tokens[seat])).get_json()
            for legal in seat_view["legal_actions"]:
                if legal["type"] == "commit":
                    card = rng.choice(legal["hand"])
                    salt = secrets.token_hex(32)
                    commitment = bid_commitment(seat_view["game_id"], legal["round"], seat, [card], salt)
                    path, body = "commit", {"round": legal["round"], "commitment": commitment}
                    _PENDING[(gid, seat)] = {"round": legal["round"], "cards": [card], "salt": salt}
                elif legal["type"] == "reveal":
                    path, body = "reveal", _PENDING.pop((gid, seat))
                elif legal["type"] == "choose_prize":
                    path, body = "choose", {"rank": rng.choice(legal["ranks"])}
                else:
                    continue
                kept += a.store.cache._latest.get(("gops", gid), [0, b"", None])[2] is not None
                answer = a.client.post(f"{GAMES}/{gid}/seats/{seat}/{path}", json=body, headers=bearer(tokens[seat]))
                assert answer.status_code == 200, answer.get_json()
                again = fresh.client.get(f"{GAMES}/{gid}/seats/{seat}", headers=bearer(tokens[seat]))
                assert again.get_data() == answer.get_data()
                moved = True
                break
        if not moved:
            break
    final = fresh.client.get(f"{GAMES}/{gid}").get_json()
    assert final["result"] is not None and final["phase"] == "over", final["phase"]
    assert kept > 10  # most moves were applied to the kept state, not to a parse of it
    report = verify(fresh.client.get(f"{GAMES}/{gid}/transcript").get_json())
    assert report.ok, report.problems


_PENDING: dict[tuple[str, int], dict] = {}
