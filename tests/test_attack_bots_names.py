"""Attacks on seats the referee plays (bots), hints and players' names, kept as regression tests.

Each test is a hostile client or a careful reviewer: a name holds no invisible character; bad
requests are refused precisely and leave the stored record and transcript exactly as they were;
concurrent renames and moves all land (or one is refused) with consistent versions and a transcript
that still verifies; a hint is answered only where the seat has a decision to make; bots at every
level keep a game going through deadlines; and nothing published tells a Gops bot's bid before the
round resolves, nor a Gofo bot's cards or the stock.
"""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from support import store as support_store
from support.client import FlaskHttp, GofoTable, GopsGame, bearer, new_salt

from service.api import common
from service.games import commitments, entropy
from service.games.gofo import observer as gofo_observer
from service.games.gofo import referee as gofo_referee
from service.games.gofo.verifier import verify_gofo
from service.games.gops.verifier import verify_gops

GAMES = {
    "gops": (GopsGame, {"profile": "classic", "bots": [{"seat": 1, "level": 4}]}),
    "gofo": (GofoTable, {"mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 4}, {"seat": 2, "level": 8}]}),
}


@pytest.fixture(params=sorted(GAMES))
def kind(request) -> str:
    return request.param


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The referee's clock, moved on by hand: a deadline passes when the test says so."""
    now = [time.time()]
    monkeypatch.setattr(common, "now", lambda: now[0])
    return now


def _stored(redis_client, game) -> tuple:
    return support_store.stored(redis_client, "gops" if isinstance(game, GopsGame) else "gofo", game.id)


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("name", [
    "\U000e0041\U000e006e\U000e0061",  # tag characters only: an invisible name
    "Ana\U000e0001\U000e0069\U000e0067\U000e006e",  # text smuggled after a visible name in tag characters
    "\u3164",  # a Hangul filler: a name that shows as blank
    "Bo\U0001d173",  # a musical format control
    "\U0001bca0x",  # a shorthand format control
])
def test_an_invisible_character_is_no_part_of_a_name(http, redis_client, kind, name):
    cls, body = GAMES[kind]
    game = cls.create(http, body)
    before = _stored(redis_client, game)
    status, problem = game.move(0, "name", {"name": name})
    assert (status, problem["code"]) == (422, "invalid_request"), problem
    assert _stored(redis_client, game) == before
    keys = redis_client.dbsize()
    status, problem = http.post(cls.COLLECTION, {**body, "names": [name]})
    assert (status, problem["code"]) == (422, "invalid_request"), problem
    assert redis_client.dbsize() == keys


def _race(app, calls) -> list:
    """Each call ``call(http)`` in its own thread with its own client, released together."""
    start = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(index, call):
        http = FlaskHttp(app.test_client())
        start.wait(timeout=60)
        answers[index] = call(http)

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


def _every_version_logged(transcript: dict) -> None:
    versions = {entry["version"] for entry in transcript["entries"]}
    assert versions == set(range(1, transcript["version"] + 1)), sorted(versions)


def test_two_renames_and_a_move_racing_all_land_in_gops(app):
    """Seat 0 renames itself twice and commits at once, every round: all three land (a rename is
    no move of the game), the versions count them, and the finished transcript verifies."""
    http = FlaskHttp(app.test_client())
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 4}]})
    game_id, token = game.public()["game_id"], game.seat_tokens[0]
    for round_ in range(1, 14):
        before = game.public()["version"]
        salt = new_salt()
        commitment = commitments.bid_commitment(game_id, round_, 0, [round_], salt)
        answers = _race(app, [
            lambda h, n=f"A{round_}": h.post(f"{game.base}/seats/0/name", {"name": n}, token),
            lambda h, n=f"B{round_}": h.post(f"{game.base}/seats/0/name", {"name": n}, token),
            lambda h, r=round_, c=commitment: h.post(f"{game.base}/seats/0/commit", {"round": r, "commitment": c}, token),
        ])
        assert [status for status, _ in answers] == [200, 200, 200], answers
        state = game.public()
        assert state["version"] == before + 3 and state["names"][0] in (f"A{round_}", f"B{round_}")
        status, answer = game.reveal(0, round_, [round_], salt)
        assert status == 200, answer
    transcript = game.transcript()
    assert transcript["names"][0] == [e["action"]["name"] for e in transcript["entries"]
                                      if e["action"]["type"] == "name"][-1]
    _every_version_logged(transcript)
    assert verify_gops(transcript).problems == []


def test_a_rename_racing_a_move_pinned_to_a_version_gets_a_precise_conflict(app, redis_client):
    """A commit that names the version it was decided on loses to a rename that lands first:
    ``stale_version`` with the current version, and the rename is the only change."""
    http = FlaskHttp(app.test_client())
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 2}]})
    version = game.public()["version"]
    status, _ = game.move(0, "name", {"name": "Ana"})
    assert status == 200
    after_rename = _stored(redis_client, game)
    status, problem = game.commit(0, 1, [3], new_salt(), version=version)
    assert (status, problem["code"], problem["current_version"]) == (409, "stale_version", version + 1), problem
    assert _stored(redis_client, game) == after_rename


def test_renames_racing_the_moves_of_a_gofo_table_all_land(app):
    http = FlaskHttp(app.test_client())
    table = GofoTable.create(http, {"mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 8}, {"seat": 2, "level": 1}]})
    token = table.seat_tokens[0]
    for step in range(12):
        path, body = _a_person_move(table, 0)
        before = table.public()["version"]
        answers = _race(app, [
            lambda h, n=f"A{step}": h.post(f"{table.base}/seats/0/name", {"name": n}, token),
            lambda h, n=f"B{step}": h.post(f"{table.base}/seats/0/name", {"name": n}, token),
            lambda h, p=path, b=body: h.post(f"{table.base}/seats/0/{p}", b, token),
        ])
        assert [status for status, _ in answers] == [200, 200, 200], answers
        assert table.public()["version"] == before + 3
    transcript = table.transcript()
    _every_version_logged(transcript)
    assert verify_gofo(transcript).problems == []


def _a_person_move(table: GofoTable, seat: int) -> tuple[str, dict]:
    """A legal move for ``seat`` (it must be its turn): the path and the body, calling and standing pat."""
    legal = table.legal(seat)
    for kind, body in (("ver", {}), ("voy", {}), ("pass", {}), ("enter_seen", {"blind": False}),
                       ("discard", {"cards": []}), ("look", {})):
        if kind in legal:
            return ("enter" if kind == "enter_seen" else kind), body
    if "open" in legal:
        return "open", {"amount": legal["open"]["min"]}
    if "inaugurate" in legal:
        return "inaugurate", {"front": legal["inaugurate"]["fronts"][0]}
    raise AssertionError(f"no move among {sorted(legal)}")


# ------------------------------------------------------------------ hints


def _hint(http, game, seat: int, token: str | None = None) -> tuple[int, dict]:
    return http.get(f"{game.base}/seats/{seat}/hint", token or game.seat_tokens[seat])


def test_a_gops_hint_is_answered_only_to_a_seat_with_a_bid_to_make(http, redis_client, clock):
    """Asked at every phase of a match (commit, reveal, choose, after a resignation, after a forfeit,
    over): a mix only while the seat has a bid to make, else ``hint_unavailable``; a hint changes
    nothing stored."""
    game = GopsGame.create(http, {"profile": "standard", "options": {"players": 3, "open_prizes": 2, "deadline_seconds": 60},
                                  "match": {"format": "best_of", "games": 3}, "bots": [{"seat": 2, "level": 8}]})
    answered: dict[str, set[int]] = {}

    def ask(seat: int, where: str, expect: int) -> None:
        before = _stored(redis_client, game)
        status, answer = _hint(http, game, seat)
        assert status == expect, (where, seat, answer)
        if status == 200:
            assert sum(a["probability"] for a in answer["actions"]) == pytest.approx(1.0)
            assert all(a["cards"][0] in game.seat_view(seat)["hands"][seat] for a in answer["actions"])
        else:
            assert answer["code"] == "hint_unavailable", answer
        assert _stored(redis_client, game) == before
        answered.setdefault(where, set()).add(status)

    ask(0, "commit", 200)
    salt = new_salt()
    assert game.commit(0, 1, [1], salt)[0] == 200
    ask(0, "committed", 409)
    ask(1, "commit", 200)
    assert game.commit(1, 1, [13], new_salt())[0] == 200  # the bot has revealed: the reveal phase
    for seat in (0, 1):
        ask(seat, "reveal", 409)
    assert game.reveal(0, 1, [1], salt)[0] == 200
    clock[0] += 61
    status, state = http.post(f"{game.base}/deadline", {}, game.host_token)  # seat 1 did not reveal
    assert status == 200 and state["forfeited"] == {"1": "deadline"}, state
    ask(1, "forfeited", 409)
    if state["phase"] == "choose":
        ask(state["chooser"], "choose", 409)
    status, state = game.move(0, "resign", {})
    assert status == 200, state
    ask(0, "resigned", 409)
    status, state = game.move(1, "resign", {}) if state["phase"] != "over" else (200, state)
    assert status == 200 and state["phase"] == "over", state  # the bot is left: it wins the match
    for seat in (0, 1):
        ask(seat, "over", 409)
    assert answered["commit"] == {200}


def test_a_gofo_hint_is_answered_to_the_seat_to_act_and_no_other(http, redis_client):
    """Every seat asks at every step of two hands: the seat to act gets its odds, every other seat
    ``hint_unavailable``, a bot's seat is no seat of theirs, and no hint changes what is stored."""
    table = GofoTable.create(http, {"mode": "dealt", "seats": 4, "bots": [{"seat": 3, "level": 8}]})
    hands, phases = table.public()["table"]["hand_number"], set()
    for _ in range(200):
        state = table.public()
        if state["table"]["hand_number"] >= hands + 2:
            break
        to_act = state["hand"]["to_act"]
        before = _stored(redis_client, table)
        for seat in range(3):
            status, answer = _hint(http, table, seat)
            if seat == to_act:
                assert status == 200, answer
                assert answer["cards"] == table.seat_view(seat)["hand"]["my_cards"]
                phases.add(answer["phase"])
            else:
                assert (status, answer["code"]) == (409, "hint_unavailable"), (seat, to_act, answer)
        status, answer = _hint(http, table, 3, table.seat_tokens[0])
        assert (status, answer["code"]) == (403, "not_your_seat"), answer
        assert _stored(redis_client, table) == before
        path, body = _a_person_move(table, to_act)
        status, answer = table.move(to_act, path, body)
        assert status == 200, answer
    assert phases  # the seat to act was answered at least once


# ------------------------------------------------------------------ bots, deadlines, all-bot games


@pytest.mark.parametrize("level", range(1, 9))
def test_bots_of_every_level_play_on_through_the_deadlines(http, clock, level):
    """A match of three where the one person never bids: the host's deadline requests forfeit the
    person, the bots finish that game in the same request, and the match goes on to its end."""
    game = GopsGame.create(http, {"profile": "standard", "options": {"players": 3, "ranks": 6, "deadline_seconds": 30},
                                  "match": {"format": "best_of", "games": 3},
                                  "bots": [{"seat": 1, "level": level}, {"seat": 2, "level": 9 - level}]})
    status, problem = http.post(f"{game.base}/deadline", {}, game.host_token)
    assert (status, problem["code"]) == (409, "deadline_not_passed"), problem
    for _ in range(10):
        clock[0] += 31
        status, state = http.post(f"{game.base}/deadline", {}, game.host_token)
        assert status == 200, state
        if state["phase"] == "over":
            break
        assert state["round"] == 1 and state["committed"] == [1, 2]  # the bots bid in the new game at once
    assert state["phase"] == "over" and state["result"] is not None
    transcript = game.transcript()
    _every_version_logged(transcript)
    assert verify_gops(transcript).problems == []


@pytest.mark.parametrize("level", [1, 4, 8])
def test_a_person_who_times_out_at_a_gofo_table_of_bots(http, clock, level):
    """With ``turn_seconds``, the person's silence is played by the referee and the bots answer in
    the same request; a bot is never the seat the deadline waits for."""
    table = GofoTable.create(http, {"mode": "dealt", "seats": 3, "turn_seconds": 20,
                                    "bots": [{"seat": 1, "level": level}, {"seat": 2, "level": level}]})
    for _ in range(12):
        assert table.to_act() == 0
        status, problem = http.post(f"{table.base}/deadline", {}, table.seat_tokens[0])
        assert (status, problem["code"]) == (409, "deadline_not_passed"), problem
        clock[0] += 21
        status, answer = http.post(f"{table.base}/deadline", {}, table.host_token)
        assert status == 200, answer
    transcript = table.transcript()
    assert sum(1 for e in transcript["entries"] if e.get("timeout")) == 12
    _every_version_logged(transcript)
    assert verify_gofo(transcript).problems == []


def test_a_table_of_bots_driven_by_the_hosts_deadline_requests(http):
    """A table of bots of every level, short of chips so cajas run out and the bots choose new
    fronts: each host request plays one hand, every version has its entries, and it verifies."""
    table = GofoTable.create(http, {"mode": "dealt", "seats": 4, "caja": 15, "refill": 5, "inauguration": "chosen",
                                    "bots": [{"seat": s, "level": lv} for s, lv in enumerate((1, 3, 6, 8))]})
    assert table.seat_tokens == [None] * 4
    for played in range(2, 400):
        status, answer = http.post(f"{table.base}/deadline", {}, table.host_token)
        assert status == 200, answer
        assert table.public()["table"]["hand_number"] >= played
        transcript = table.transcript()
        if any(e["action"]["type"] == "inaugurate" and e["by"].startswith("bot:") for e in transcript["entries"]):
            break
    else:
        raise AssertionError("no bot took a new caja in 400 hands")
    _every_version_logged(transcript)
    assert verify_gofo(transcript).problems == []


def test_a_game_of_bots_with_reported_prizes_waits_for_each_report(http, redis_client):
    """The bots cannot bid before the prize is turned up at the table: each report by the host is one
    round; a deadline request in between changes nothing."""
    game = GopsGame.create(http, {"profile": "classic", "options": {"prize_order": "reported", "ranks": 5},
                                  "bots": [{"seat": 0, "level": 8}, {"seat": 1, "level": 3}]})
    for played, rank in enumerate((3, 1, 5, 2, 4), 1):
        state = game.public()
        assert state["phase"] == "prize" and state["committed"] == [], state
        before = _stored(redis_client, game)
        status, problem = http.post(f"{game.base}/deadline", {}, game.host_token)
        assert status == 409, problem
        assert _stored(redis_client, game) == before
        status, state = http.post(f"{game.base}/prize", {"rank": rank}, game.host_token)
        assert status == 200, state
        assert len(state["history"]) == played  # the bots committed and revealed in the report request
    assert game.public()["phase"] == "over"
    assert verify_gops(game.transcript()).problems == []


# ------------------------------------------------------------------ refusals change nothing


def _refusals_of_a_gops_game_with_a_bot(game: GopsGame) -> list[tuple[str, str, dict, str | None, int, str]]:
    """(method, path, body, token, status, code): requests a hostile client sends to a game whose
    seat 1 is a bot, in round 1 before seat 0 commits."""
    me, host, base = game.seat_tokens[0], game.host_token, game.base
    commitment = commitments.bid_commitment(game.id, 1, 1, [13], new_salt())
    return [
        ("POST", f"{base}/seats/1/commit", {"round": 1, "commitment": commitment}, me, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/commit", {"round": 1, "commitment": commitment}, host, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/reveal", {"round": 1, "cards": [13], "salt": "ab" * 32}, me, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/resign", {}, host, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/name", {"name": "Robot"}, host, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/name", {"name": "Robot"}, me, 403, "not_your_seat"),
        ("GET", f"{base}/seats/1/hint", None, host, 403, "not_your_seat"),
        ("GET", f"{base}/seats/1/hint", None, me, 403, "not_your_seat"),
        ("GET", f"{base}/seats/0/hint", None, host, 403, "not_your_seat"),
        ("GET", f"{base}/seats/0/hint", None, None, 401, "missing_token"),
        ("GET", f"{base}/seats/0/hint", None, "x" * 43, 401, "invalid_token"),
        ("POST", f"{base}/seats/0/commit", {"round": 1, "commitment": commitment}, host, 403, "not_your_seat"),
        ("POST", f"{base}/seats/0/commit", {"round": 2, "commitment": commitment}, me, 409, "wrong_round"),
        ("POST", f"{base}/seats/0/commit", {"round": 1, "commitment": commitment, "version": 99}, me, 409, "stale_version"),
        ("POST", f"{base}/seats/0/commit", {"round": "1", "commitment": commitment}, me, 422, "invalid_request"),
        ("POST", f"{base}/seats/0/reveal", {"round": 1, "cards": [13], "salt": "ab" * 32}, me, 409, "wrong_phase"),
        ("POST", f"{base}/seats/0/name", {"name": "x" * 100_000}, me, 413, "body_too_large"),
        ("POST", f"{base}/seats/0/name", {"name": ["Ana"]}, me, 422, "invalid_request"),
        ("POST", f"{base}/deadline", {}, host, 409, "no_deadline"),
        ("POST", f"{base}/prize", {"rank": 5}, host, 409, "wrong_phase"),
        ("GET", f"/v1/gofo/tables/{game.id}/seats/0/hint", None, me, 404, "game_not_found"),
    ]


def _each_refused_changing_nothing(client, redis_client, game, refusals) -> None:
    """Each ``(method, path, body, token, status, code)`` is answered with that status and problem
    code as application/problem+json, and the stored game stays byte-identical."""
    before = _stored(redis_client, game)
    for method, path, body, token, status, code in refusals:
        response = client.open(path, method=method, json=body, headers=bearer(token))
        problem = response.get_json()
        assert (response.status_code, problem["code"]) == (status, code), (method, path, body, problem)
        assert response.content_type == "application/problem+json"
        assert _stored(redis_client, game) == before, (method, path, body)


def test_every_refusal_on_a_game_with_a_bot_is_precise_and_changes_nothing(client, redis_client):
    http = FlaskHttp(client)
    game = GopsGame.create(http, {"profile": "classic", "names": ["Ana"], "bots": [{"seat": 1, "level": 8}]})
    _each_refused_changing_nothing(client, redis_client, game, _refusals_of_a_gops_game_with_a_bot(game))
    assert game.public()["names"] == ["Ana", None]


def test_every_refusal_at_a_gofo_table_of_bots_is_precise_and_changes_nothing(client, redis_client):
    http = FlaskHttp(client)
    table = GofoTable.create(http, {"mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 8}, {"seat": 2, "level": 2}]})
    assert table.to_act() == 0
    me, host, base = table.seat_tokens[0], table.host_token, table.base
    legal = table.legal(0)
    refusals = [
        ("POST", f"{base}/seats/1/ver", {}, me, 403, "not_your_seat"),
        ("POST", f"{base}/seats/1/ver", {}, host, 403, "host_not_allowed"),
        ("POST", f"{base}/seats/2/name", {"name": "Robot"}, host, 403, "host_not_allowed"),
        ("POST", f"{base}/seats/2/name", {"name": "Robot"}, me, 403, "not_your_seat"),
        ("GET", f"{base}/seats/1/hint", None, me, 403, "not_your_seat"),
        ("GET", f"{base}/seats/1/hint", None, host, 403, "host_not_allowed"),
        ("GET", f"{base}/seats/7/hint", None, me, 404, "no_such_seat"),
        ("POST", f"{base}/seats/7/name", {"name": "Ghost"}, me, 404, "no_such_seat"),
        ("POST", f"{base}/deadline", {}, host, 409, "no_deadline"),
        ("POST", f"{base}/deadline", {}, None, 401, "missing_token"),
        ("POST", f"{base}/seats/0/name", {"name": "Ana", "version": 1}, me, 422, "invalid_request"),
        ("GET", f"/v1/gops/games/{table.id}/seats/0/hint", None, me, 404, "game_not_found"),
    ]
    if "open" in legal:
        refusals.append(("POST", f"{base}/seats/0/open", {"amount": legal["open"]["max"] + 1}, me, 409, "opening_too_large"))
    _each_refused_changing_nothing(client, redis_client, table, refusals)


# ------------------------------------------------------------------ secrecy


def _published(client, game, seat: int, hint: bool = True, stream: bool = True) -> str:
    """Everything seat ``seat`` and the public may read of ``game`` now, as one text: the views with
    their headers, the transcript, both live streams (``stream`` false: their long polls, which answer
    at once), the seat's hint and the problems of the person's requests about a bot's seat."""
    http = FlaskHttp(client)
    events = f"{game.base}/events" + ("" if stream else "?wait_for_version=1")
    parts = []
    for path, token in ((game.base, None), (f"{game.base}/seats/{seat}", game.seat_tokens[seat]),
                        (f"{game.base}/transcript", None), (events, None), (events, game.seat_tokens[seat])):
        response = client.get(path, headers=bearer(token))
        assert response.status_code == 200, (path, response.get_data(as_text=True))
        parts += [response.get_data(as_text=True), json.dumps(dict(response.headers))]
    if hint:
        parts.append(json.dumps(_hint(http, game, seat)))
    for other in range(len(game.seat_tokens)):
        if game.seat_tokens[other] is None:  # a bot's seat, asked about by the person
            parts += [json.dumps(http.get(f"{game.base}/seats/{other}", game.seat_tokens[seat])),
                      json.dumps(_hint(http, game, other, game.seat_tokens[seat]))]
    return "\n".join(parts)


def test_nothing_published_tells_a_gops_bots_bid_before_the_round_resolves(client, redis_client):
    """The bot's salt and cards are the referee's until every seat has revealed: not in the views,
    their ETags, the transcript, the streams, the person's hint or any refusal."""
    http = FlaskHttp(client)
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 8}]})
    bid = support_store.stored_doc(redis_client, "gops", game.id)["bot_bids"]["1"]
    assert bid["salt"] not in _published(client, game, 0)
    salt = new_salt()
    status, answer = game.commit(0, 1, [7], salt)
    assert status == 200 and answer["revealed"] == [1], answer  # the bot revealed; its reveal is held back
    text = _published(client, game, 0, hint=False, stream=False)
    assert bid["salt"] not in text
    assert game.public()["history"] == [] and game.seat_view(0)["history"] == []
    assert game.seat_view(0)["my_reveal"] is None
    bot_reveal = [e for e in game.transcript()["entries"] if e["by"] == "bot:1" and e["action"]["type"] == "reveal"]
    assert [(e["action"]["cards"], e["action"]["salt"]) for e in bot_reveal] == [(None, None)]
    status, answer = game.reveal(0, 1, [7], salt)
    assert status == 200 and answer["history"][0]["bids"]["1"] == bid["cards"]  # resolved: now public


def _json(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _cards_named(data, skip=("draws", "draw")) -> set[str]:
    """Every card a published JSON value names, but the first-dealer draw's (a deck of its own)."""
    if isinstance(data, dict):
        if (data.get("action") or {}).get("type") == "dealer_draw":
            return set()
        return {c for key, value in data.items() if key not in skip for c in _cards_named(value, skip)}
    if isinstance(data, list):
        return {c for value in data for c in _cards_named(value, skip)}
    return {data} if isinstance(data, str) and re.fullmatch(r"(1[0-2]|[1-7])[oceb]", data) else set()


def test_nothing_published_tells_a_gofo_bots_cards_or_the_stock(client, redis_client):
    """At a dealt table with bots, what the person and the public may read names no card a bot
    holds or the stock holds, nor a salt or key of the hand in progress."""
    with entropy.seeded(4736):  # the same deal and bets every run (an unseeded deal once left nothing hidden)
        http = FlaskHttp(client)
        table = GofoTable.create(http, {"mode": "dealt", "seats": 4, "bots": [{"seat": s, "level": 8} for s in (1, 2, 3)]})
        checked = 0
        for _ in range(12):
            doc = support_store.stored_doc(redis_client, "gofo", table.id)
            hand = gofo_referee.load(doc).hand
            if hand is None or doc["results"]:  # the first hand over: its deck is published, as it should be
                break
            secret = set(hand.stock) | {card for seat in (1, 2, 3) for card in hand.hands[seat]}
            # a card thrown face up this hand is public; a reshuffle may put it back in the stock or a hand
            secret -= {card for discard in hand.discard_log for card in discard.cards or ()}
            assert secret and not secret & set(gofo_observer.visible_cards(hand, 0))
            text = _published(client, table, 0, stream=checked == 0)
            published = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
            published += [_json(line) for line in text.splitlines()]
            published += [table.public(), table.seat_view(0), table.transcript(), _hint(http, table, 0)[1]]
            assert not _cards_named(published) & secret, _cards_named(published) & secret
            deal = doc["deals"][str(doc["state"]["hand_number"])]
            assert not [s for s in (*deal["salts"], *deal["reshuffle_keys"]) if s in text]
            checked += 1
            path, body = _a_person_move(table, 0)
            status, answer = table.move(0, path, body)
            assert status == 200, answer
        assert checked >= 1  # at least the position the create left (the first hand may end at once)
