"""Gofo bots and hints through the API: a dealt table created with bots, people act and the bots'
moves come in the same answer; bad bots are refused precisely; the hint answers its own seat only."""

from __future__ import annotations

import pytest
from support.client import GofoTable

from service.games.gofo.verifier import verify_gofo


def _person_move(table: GofoTable, seat: int) -> tuple[str, dict]:
    legal = table.legal(seat)
    for kind, body in (("open", {"amount": 1}), ("enter_seen", {"blind": False}), ("ver", {}), ("pass", {}),
                       ("voy", {})):
        if kind in legal:
            return kind.replace("_seen", ""), body
    return "discard", {"cards": []}


def test_people_act_and_the_bots_reply_in_the_same_answer(http):
    table = GofoTable.create(http, {"seats": 4, "bots": [{"seat": 1, "level": 8}, {"seat": 3, "level": 3}]})
    assert table.seat_tokens[1] is None and table.seat_tokens[3] is None
    assert table.seat_tokens[0] and table.seat_tokens[2]
    assert table.created["table"]["bots"] == [{"seat": 1, "level": 8}, {"seat": 3, "level": 3}]
    seen_bot_reply = False
    for _ in range(60):
        public = table.public()
        if public["table"]["hand_number"] > 1:
            break
        seat = public["hand"]["to_act"]
        assert seat in (0, 2)  # the bots never wait for a request
        before = public["version"]
        kind, body = _person_move(table, seat)
        status, answer = table.move(seat, kind, body)
        assert status == 200, answer
        assert answer["version"] == before + 1 and answer["bots"] == public["bots"]
        transcript = table.transcript()
        made = [e for e in transcript["entries"] if e["version"] == answer["version"]]
        assert made[0]["by"] == f"seat:{seat}"
        seen_bot_reply |= any(e["by"] in ("bot:1", "bot:3") for e in made)
        assert answer["next"]["seat"] in (0, 2, None)
    assert seen_bot_reply
    assert verify_gofo(table.transcript()).problems == []


def test_a_table_of_bots_plays_its_first_hand_in_the_create(http):
    table = GofoTable.create(http, {"seats": 5, "bots": [{"seat": s, "level": 4} for s in range(5)]})
    assert table.seat_tokens == [None] * 5
    assert table.created["table"]["table"]["hand_number"] == 2
    assert table.created["table"]["table"]["last_result"]["hand"] == 1
    status, answer = http.post(f"{table.base}/deadline", {}, table.host_token)
    assert status == 200, answer
    assert answer["table"]["hand_number"] == 3 and answer["hand_result"]["hand"] == 2


@pytest.mark.parametrize("body", [
    {"seats": 5, "mode": "tabletop", "bots": [{"seat": 1, "level": 3}]},
    {"seats": 5, "bots": [{"seat": 2, "level": 3}, {"seat": 2, "level": 4}]},
    {"seats": 3, "bots": [{"seat": 3, "level": 3}]},
])
def test_bad_bots_get_invalid_bots(http, redis_client, body):
    before = redis_client.dbsize()
    status, problem = http.post("/v1/gofo/tables", body)
    assert status == 422 and problem["code"] == "invalid_bots", problem
    assert redis_client.dbsize() == before


def test_the_hint_answers_its_own_seat_only(http):
    table = GofoTable.create(http, {"seats": 3, "bots": [{"seat": 2, "level": 5}]})
    seat = table.to_act()
    other = 1 - seat
    status, answer = http.get(f"{table.base}/seats/{seat}/hint", table.seat_tokens[seat])
    assert status == 200, answer
    assert answer["phase"] in ("opening", "entering") and answer["suggestion"]["type"] in ("open", "look")
    status, problem = http.get(f"{table.base}/seats/{seat}/hint", table.seat_tokens[other])
    assert status == 403, problem
    status, problem = http.get(f"{table.base}/seats/{seat}/hint")
    assert status == 401, problem
    status, problem = http.get(f"{table.base}/seats/{seat}/hint", table.host_token)
    assert status == 403, problem
    status, problem = http.get(f"{table.base}/seats/{other}/hint", table.seat_tokens[other])
    assert status == 409 and problem["code"] == "hint_unavailable", problem


def test_the_hint_is_the_same_when_asked_again_and_says_its_margins(http):
    """Sampled from a seed derived from the seat's view: asking again answers the same, margins included."""
    table = GofoTable.create(http, {"seats": 3})
    table.play("open", amount=2)
    seat = table.to_act()
    status, answer = http.get(f"{table.base}/seats/{seat}/hint", table.seat_tokens[seat])
    assert status == 200, answer
    assert answer["phase"] == "entering" and 0 < answer["bet"]["win_chance_margin"] <= 0.16  # sampling stops at 40 deals at the earliest
    for _ in range(2):
        assert http.get(f"{table.base}/seats/{seat}/hint", table.seat_tokens[seat]) == (200, answer)
