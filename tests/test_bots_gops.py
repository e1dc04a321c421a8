"""Gops seats the referee plays, through the API: created with ``bots``, played in the request
that made their move due, committed and revealed like anyone's, never showing their bid early,
and verifiable offline."""

from __future__ import annotations

import json

import pytest
from support.client import GopsGame, match_prize

from service.api import common
from service.games.gops.verifier import verify_gops


def test_a_bot_seat_has_no_token_and_moves_at_once(http):
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 1}]})
    assert game.seat_tokens[0] is not None and game.seat_tokens[1] is None
    state = game.public()
    assert state["bots"] == [{"seat": 1, "level": 1}]
    assert state["committed"] == [1] and state["awaiting"] == [0]  # the bot committed in the create request
    assert game.seat_view(0)["bots"] == [{"seat": 1, "level": 1}]


def test_a_game_against_a_bot_plays_to_its_end_and_verifies(http):
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 8}]})
    end = game.play_to_end(match_prize)
    assert end["phase"] == "over" and end["result"] is not None
    transcript = game.transcript()
    authors = {(e["by"], e["action"]["type"]) for e in transcript["entries"]}
    assert {("bot:1", "commit"), ("bot:1", "reveal"), ("seat:0", "commit"), ("seat:0", "reveal")} <= authors
    assert verify_gops(transcript).problems == []


def test_the_bot_reveals_in_the_request_of_the_last_commit(http):
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 3}]})
    status, answer = game.commit(0, 1, [5], "ab" * 32)
    assert status == 200, answer
    assert answer["phase"] == "reveal" and answer["revealed"] == [1] and answer["awaiting"] == [0]
    status, answer = game.reveal(0, 1, [5], "ab" * 32)
    assert status == 200, answer
    assert answer["round"] == 2 and answer["committed"] == [1]  # round 2 opened; the bot bid already
    assert len(answer["history"]) == 1


@pytest.mark.parametrize("body", [
    {"profile": "classic", "bots": [{"seat": 0, "level": 8}, {"seat": 1, "level": 1}]},
    {"profile": "standard", "options": {"players": 3, "open_prizes": 2},
     "bots": [{"seat": s, "level": 4} for s in range(3)]},
])
def test_a_game_of_bots_plays_itself_in_the_create_request(http, body):
    game = GopsGame.create(http, body)
    assert game.seat_tokens == [None] * len(game.seat_tokens)
    assert game.created["game"]["phase"] == "over"
    assert verify_gops(game.transcript()).problems == []


def test_a_match_of_bots_plays_a_game_a_request(http):
    """No request plays a whole match: with no person left, the create plays game 1, and each host
    deadline request the next game, until the match is over."""
    game = GopsGame.create(http, {"profile": "classic", "match": {"format": "target", "target": 200},
                                  "bots": [{"seat": 0, "level": 1}, {"seat": 1, "level": 1}]})
    state = game.created["game"]
    assert state["game_number"] == 2 and state["round"] == 1 and state["committed"] == [] and len(state["games"]) == 1
    for played in range(2, 60):
        status, state = http.post(f"{game.base}/deadline", {}, game.host_token)
        assert status == 200, state
        if state["phase"] == "over":
            break
        assert state["game_number"] == played + 1 and len(state["games"]) == played
    assert state["phase"] == "over" and state["result"] is not None
    assert verify_gops(game.transcript()).problems == []


def test_the_bots_finish_the_game_when_the_last_person_resigns(http):
    game = GopsGame.create(http, {"profile": "standard", "options": {"players": 3},
                                  "match": {"format": "cumulative", "games": 3},
                                  "bots": [{"seat": 1, "level": 2}, {"seat": 2, "level": 3}]})
    status, state = game.move(0, "resign", {})
    assert status == 200, state
    assert state["game_number"] == 2 and state["committed"] == [] and len(state["games"]) == 1  # game 1 played out
    status, state = http.post(f"{game.base}/deadline", {}, game.host_token)
    assert status == 200 and state["game_number"] == 3, state


@pytest.mark.parametrize("bots, code", [
    ([{"seat": 2, "level": 8}], "invalid_bots"),  # a two-seat game has no seat 2
    ([{"seat": 1, "level": 8}, {"seat": 1, "level": 2}], "invalid_bots"),
    ([{"seat": 1, "level": 9}], "invalid_request"),
    ([{"seat": 1, "level": 0}], "invalid_request"),
    ([{"seat": -1, "level": 3}], "invalid_request"),
    ([{"seat": 1}], "invalid_request"),
    ([{"seat": 1, "level": "8"}], "invalid_request"),
    ({"seat": 1, "level": 8}, "invalid_request"),
])
def test_bad_bots_are_refused_precisely(http, redis_client, bots, code):
    before = redis_client.dbsize()
    status, problem = http.post("/v1/gops/games", {"profile": "classic", "bots": bots})
    assert status == 422 and problem["code"] == code, problem
    assert redis_client.dbsize() == before  # nothing stored


def test_a_hint_is_for_a_seat_with_a_bid_to_make(http):
    game = GopsGame.create(http, {"profile": "standard", "options": {"players": 3}, "bots": [{"seat": 2, "level": 8}]})
    status, hint = http.get(f"{game.base}/seats/0/hint", game.seat_tokens[0])
    assert status == 200 and hint["exact"] is False and abs(sum(a["probability"] for a in hint["actions"]) - 1) < 1e-9
    status, _ = game.commit(0, 1, [4], "ef" * 32)
    assert status == 200
    status, problem = http.get(f"{game.base}/seats/0/hint", game.seat_tokens[0])  # committed: nothing to decide
    assert status == 409 and problem["code"] == "hint_unavailable", problem


def test_nobody_can_act_for_a_bot_seat(http):
    game = GopsGame.create(http, {"profile": "standard", "options": {"players": 3},
                                  "bots": [{"seat": 2, "level": 8}]})
    for token in (game.seat_tokens[0], game.host_token):
        status, problem = game.move(2, "resign", {}, token=token)
        assert status == 403 and problem["code"] == "not_your_seat", problem
        status, problem = http.get(f"{game.base}/seats/2", token)
        assert status == 403, problem


def test_the_bots_bid_stays_secret_until_the_round_resolves(http, app):
    """The bot's salt (which opens its commitment) is the referee's secret: nothing a caller may read
    shows it while the human still bids, nor between the bot's reveal and the human's."""
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 8}]})

    def stored() -> dict:
        with app.app_context():
            return common.store().load("gops", game.id).doc

    def readable() -> str:
        return " ".join(json.dumps(x) for x in (game.public(), game.seat_view(0), game.transcript()))

    bid = stored()["bot_bids"]["1"]  # committed, not revealed
    assert bid["salt"] not in readable()
    salt = "cd" * 32
    status, _ = game.commit(0, 1, [7], salt)
    assert status == 200
    doc = stored()
    assert doc["bot_bids"] == {}  # revealed as every seat committed; the engine holds the reveal back
    assert doc["state"]["game"]["reveals"]["1"]["salt"] == bid["salt"]
    assert bid["salt"] not in readable()
    status, answer = game.reveal(0, 1, [7], salt)
    assert status == 200
    assert answer["history"][0]["bids"]["1"] == bid["cards"]  # resolved: now public
