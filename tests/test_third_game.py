"""A third game is its package plus one registry line.

``tests/support/racegame`` is a complete game (every part of the contract: rules, actions, state,
observer, chance, clock, referee, verifier) with no HTTP module of its own. Registered here and only
here, with one line, it gets its routes, its place in the OpenAPI document, event streams, metrics,
the create rate limit and the offline verifier's dispatch, with no other edit anywhere.
"""

from __future__ import annotations

import json

import pytest
from support.client import bearer
from support.racegame import GAME as RACE

from service import config
from service import verify as verify_cli
from service.games.contract import PARTS
from service.games.registry import GAMES
from service.web.app import create_app


@pytest.fixture
def race_app(redis_url, redis_client, monkeypatch):
    monkeypatch.setitem(GAMES, RACE.name, RACE)  # the one registry line
    return create_app({"REDIS_URL": redis_url, "TESTING": True})


def test_the_race_has_every_part_and_no_http_module_of_its_own():
    for part in PARTS:
        assert RACE.part(part).__name__ == f"support.racegame.{part}"
    assert RACE.blueprint is None and RACE.load_blueprint() is None


def test_it_is_in_the_spec(race_app):
    spec = race_app.test_client().get("/openapi.json").get_json()
    paths = {path: set(ops) - {"parameters"} for path, ops in spec["paths"].items() if path.startswith("/v1/race/")}
    assert paths == {
        "/v1/race/games": {"post"},
        "/v1/race/games/{game_id}": {"get"},
        "/v1/race/games/{game_id}/seats/{seat}": {"get"},
        "/v1/race/games/{game_id}/seats/{seat}/actions": {"post"},
        "/v1/race/games/{game_id}/deadline": {"post"},
        "/v1/race/games/{game_id}/transcript": {"get"},
        "/v1/race/games/{game_id}/events": {"get"},
    }
    ids = {op["operationId"] for path, ops in spec["paths"].items() if path.startswith("/v1/race/")
           for method, op in ops.items() if method != "parameters"}
    assert {"createRace", "getRace", "actRace", "watchRace", "getRaceTranscript"} <= ids
    assert "POST /v1/race/games" in config.settings(race_app).rate_limit_create_routes


def test_a_whole_race_over_http_its_events_metrics_and_verified_transcript(race_app, tmp_path):
    client = race_app.test_client()
    created = client.post("/v1/race/games", json={"target": 7, "max_step": 3})
    assert created.status_code == 201, created.get_json()
    race = created.get_json()
    base, tokens = f"/v1/race/games/{race['id']}", race["seat_tokens"]
    assert race["view"] == {"version": 1, "phase": "play", "total": 0, "target": 7, "turn": 0, "winner": None}

    refused = client.post("/v1/race/games", json={"target": 0})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_options"
    seat_view = client.get(f"{base}/seats/0", headers=bearer(tokens[0]))
    assert seat_view.get_json()["legal_actions"] == [{"type": "say", "min": 1, "max": 3}]
    assert client.get(f"{base}/seats/0", headers=bearer(tokens[1])).get_json()["code"] == "not_your_seat"

    moves = [(0, 3), (1, 2), (0, 1), (1, 1)]  # 3, 5, 6, 7: seat 1 wins
    wrong = client.post(f"{base}/seats/1/actions", json={"type": "say", "amount": 1}, headers=bearer(tokens[1]))
    assert wrong.status_code == 409 and wrong.get_json()["code"] == "not_your_turn"
    too_much = client.post(f"{base}/seats/0/actions", json={"type": "say", "amount": 4}, headers=bearer(tokens[0]))
    assert too_much.status_code == 409 and too_much.get_json()["code"] == "amount_out_of_range"
    unknown = client.post(f"{base}/seats/0/actions", json={"type": "shout"}, headers=bearer(tokens[0]))
    assert unknown.status_code in (400, 422) and unknown.get_json()["code"] == "unknown_action"
    for seat, amount in moves:
        answer = client.post(f"{base}/seats/{seat}/actions", json={"type": "say", "amount": amount},
                             headers=bearer(tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
    final = client.get(base).get_json()
    assert final == {"version": 5, "phase": "over", "total": 7, "target": 7, "turn": None, "winner": 1}
    assert client.get(base, headers={"If-None-Match": '"v5"'}).status_code == 304
    deadline = client.post(f"{base}/deadline", json={}, headers=bearer(tokens[0]))
    assert deadline.status_code == 409 and deadline.get_json()["code"] == "no_deadline"

    # Events: a long poll answers at once with the version it waits for; a finished race streams its
    # last version.
    polled = client.get(f"{base}/events?wait_for_version=5&timeout=1")
    assert polled.status_code == 200 and polled.get_json() == final
    stream = client.get(f"{base}/events?timeout=1", headers=bearer(tokens[1]))
    assert b"id: 5\nevent: state\n" in stream.data

    # Metrics: the race is counted under its own kind.
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'referee_games_created_total{kind="race"}' in metrics
    assert 'referee_games_active{kind="race"}' in metrics

    # The transcript verifies offline, dispatched by its kind, in-process and from the command line.
    transcript = client.get(f"{base}/transcript").get_json()
    assert [e["version"] for e in transcript["entries"]] == [1, 2, 3, 4, 5]
    report = verify_cli.verify(transcript)
    assert report.ok and "winner 1" in report.summary
    path = tmp_path / "race.json"
    path.write_text(json.dumps(transcript))
    assert verify_cli.main([str(path)]) == 0
    transcript["entries"][2]["total"] = 99  # tampered
    path.write_text(json.dumps(transcript))
    assert verify_cli.main([str(path)]) == 1


def test_its_operations_are_reachable_by_links_from_its_create(race_app):
    from support import links

    spec = race_app.test_client().get("/openapi.json").get_json()
    race = {op["operationId"] for path, _, op in links.operations(spec) if path.startswith("/v1/race/")}
    assert "createRace" in links.creates(spec)
    assert race - links.reachable(spec) == set()


def test_a_seat_it_does_not_have_is_404(race_app, redis_client):
    """The generic API answers a seat the game does not have as the two games do: 404 no_such_seat to a
    token of the game (a seat's or the host's), with nothing stored; 401 first without a token."""
    from support.store import stored

    client = race_app.test_client()
    race = client.post("/v1/race/games", json={"target": 7, "max_step": 3}).get_json()
    base = f"/v1/race/games/{race['id']}"
    before = stored(redis_client, "race", race["id"])
    assert before[0] and before[1]
    for seat in (2, 9, 10**6):
        for token in (race["seat_tokens"][0], race["host_token"]):
            for response in (client.get(f"{base}/seats/{seat}", headers=bearer(token)),
                             client.post(f"{base}/seats/{seat}/actions", json={"type": "say", "amount": 1},
                                         headers=bearer(token))):
                assert response.status_code == 404, response.get_json()
                assert response.get_json()["code"] == "no_such_seat" and str(seat) in response.get_json()["detail"]
        assert client.get(f"{base}/seats/{seat}").status_code == 401
    assert stored(redis_client, "race", race["id"]) == before
