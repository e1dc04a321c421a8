"""Players' names: given at create or set by the seat itself, shown in every view and transcript,
length-limited, refused precisely, and final once the game is over."""

from __future__ import annotations

import json

import pytest
from support.client import Created, FlaskHttp, GofoTable, GopsGame, lowest

from service.games.gofo.verifier import verify_gofo
from service.games.gops.verifier import verify_gops

GAMES = {
    "gops": (GopsGame, {"profile": "standard", "options": {"players": 3}}, "game"),
    "gofo": (GofoTable, {"mode": "dealt", "seats": 5}, "table"),
}


@pytest.fixture(params=sorted(GAMES))
def kind(request) -> str:
    return request.param


def _create(http, kind: str, **body) -> Created:
    cls, base, _ = GAMES[kind]
    return cls.create(http, {**base, **body})


def test_names_given_at_create_are_shown_everywhere(http, kind):
    game = _create(http, kind, names=["  Ana ", None, "Luis"])
    seats = len(game.seat_tokens)
    want = ["Ana", None, "Luis", *[None] * (seats - 3)]
    assert game.created[GAMES[kind][2]]["names"] == want
    assert game.public()["names"] == want
    assert game.seat_view(1)["names"] == want
    assert game.transcript()["names"] == want


def test_a_seat_names_itself_and_every_reader_sees_it(http, kind):
    game = _create(http, kind)
    version = game.public()["version"]
    status, view = game.move(1, "name", {"name": "Bea <b>&"})
    assert status == 200, view
    assert view["names"][1] == "Bea <b>&"  # kept as typed: clients show it as text
    assert game.public()["version"] == version + 1
    assert game.public()["names"][1] == "Bea <b>&" and game.transcript()["names"][1] == "Bea <b>&"
    status, again = game.move(1, "name", {"name": "Bea <b>&"})
    assert status == 200 and game.public()["version"] == version + 1  # the same name: nothing changes
    status, problem = game.move(1, "name", {"name": "Eve"}, token=game.seat_tokens[0])
    assert status == 403 and problem["code"] == "not_your_seat"
    status, problem = game.move(1, "name", {"name": "Eve"}, token=game.host_token)
    assert status == 403 and problem["code"] in ("not_your_seat", "host_not_allowed")  # a dealt table's host too


def test_the_host_names_the_seats_of_a_tabletop_table(http):
    table = GofoTable.create(http, {"mode": "tabletop", "seats": 5})
    status, view = table.move(3, "name", {"name": "Tía Marta"}, token=table.host_token)
    assert status == 200 and view["names"][3] == "Tía Marta", view


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "a\nb", "tab\there", "\u2028", "\u0105\u0006", " \x7f ",
                                  "\u200b", "\ufeff", "\u202eevil", "\u00ad", 7, None])
def test_bad_names_are_refused_and_nothing_changes(http, kind, name):
    game = _create(http, kind)
    before = game.public()
    status, problem = game.move(0, "name", {"name": name})
    assert status == 422 and problem["code"] == "invalid_request", problem
    assert game.public() == before
    status, problem = http.post(GAMES[kind][0].COLLECTION, {**GAMES[kind][1], "names": [name]})
    if name is None:  # null at create: a seat without a name
        assert status == 201, problem
    else:
        assert (status, problem["code"]) == (422, "invalid_request"), problem


@pytest.mark.parametrize("raw", [b'{"name": "A\\ud800"}', b'{"name": "\\udc00x"}'])
def test_a_lone_surrogate_is_not_text(client, raw):
    game = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    response = client.post(f"{game.base}/seats/0/name", data=raw, content_type="application/json",
                           headers={"Authorization": f"Bearer {game.seat_tokens[0]}"})
    assert response.status_code == 400 and response.get_json()["code"] == "malformed_json"
    assert game.public()["names"] == [None, None]


def test_more_names_than_seats_is_refused(http, redis_client, kind):
    before = redis_client.dbsize()
    status, problem = http.post(GAMES[kind][0].COLLECTION, {**GAMES[kind][1], "names": ["a"] * 7})
    assert status == 422 and problem["code"] in ("invalid_names", "invalid_request"), problem
    assert redis_client.dbsize() == before


def test_a_rename_is_in_the_transcript_and_it_still_verifies(http):
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 4}]})
    game.play_round({0: [3]})
    status, _ = game.move(0, "name", {"name": "Ana"})
    assert status == 200
    game.play_to_end(lowest)
    transcript = game.transcript()
    named = [e for e in transcript["entries"] if e["action"]["type"] == "name"]
    assert [(e["by"], e["action"]) for e in named] == [("seat:0", {"type": "name", "seat": 0, "name": "Ana"})]
    assert verify_gops(transcript).problems == []
    forged = json.loads(json.dumps(transcript))
    next(e for e in forged["entries"] if e["action"]["type"] == "name")["by"] = "seat:1"
    assert any("name" in p for p in verify_gops(forged).problems)


def test_a_gofo_rename_is_in_the_transcript_and_it_still_verifies(http):
    table = GofoTable.create(http, {"mode": "dealt", "seats": 5, "bots": [{"seat": s, "level": 3} for s in range(1, 5)]})
    status, _ = table.move(0, "name", {"name": "Ana"})
    assert status == 200
    transcript = table.transcript()
    assert transcript["entries"][-1]["action"] == {"type": "name", "seat": 0, "name": "Ana"}
    assert verify_gofo(transcript).problems == []


def test_a_finished_games_names_are_final(http):
    game = GopsGame.create(http, {"profile": "classic", "names": ["Ana", "Bo"]})
    game.play_to_end(lowest)
    status, problem = game.move(0, "name", {"name": "Zoe"})
    assert status == 409 and problem["code"] == "game_over", problem
    assert game.public()["names"] == ["Ana", "Bo"]
