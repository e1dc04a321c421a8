"""Gofo over HTTP: what a real table needs of the API.

A. a move's answer says who acts next (and, to whoever may see them, that seat's legal actions) and
   the result of a hand the move ended.
B. a tabletop table reports the first dealer its real draw chose (``first_dealer``).
D. a table resumes a session begun on paper (per-seat ``fronts``, ``behinds``, ``cajas``, the next dealer).
"""

from __future__ import annotations

import pytest

from support.client import GofoTable, bearer


def test_the_answer_names_the_next_seat_and_its_own_legal_actions(http):
    t = GofoTable.create(http, {"seats": 3})
    mano = t.hand()["mano"]
    a = (mano + 1) % 3
    status, data = t.move(mano, "open", {"amount": 1})
    assert status == 200
    assert data["next"]["seat"] == a == data["hand"]["to_act"]
    assert data["next"]["legal_actions"] is None  # dealt table: mano never sees another seat's actions
    assert data["hand_result"] is None
    status, data = t.move(a, "look")  # out of turn for nobody: a is next, its own token sees its actions
    assert status == 200 and data["next"]["seat"] == a
    assert data["next"]["legal_actions"] == t.seat_view(a)["hand"]["legal_actions"]


def test_the_host_of_a_dealt_table_never_sees_a_seats_legal_actions(http, monkeypatch):
    import service.api.common as common

    clock = [3_000_000.0]
    monkeypatch.setattr(common, "now", lambda: clock[0])
    t = GofoTable.create(http, {"seats": 3, "turn_seconds": 60})
    clock[0] += 61
    status, data = http.post(f"{t.base}/deadline", {}, t.host_token)
    assert status == 200 and data["next"]["seat"] == data["hand"]["to_act"]
    assert data["next"]["legal_actions"] is None and data["hand_result"] is None
    nxt = data["next"]["seat"]
    clock[0] += 61
    status, data = http.post(f"{t.base}/deadline", {}, t.seat_tokens[data["hand"]["to_act"]])
    assert status == 200 and data["next"]["legal_actions"] is None  # nxt was moved; another seat is next
    assert data["next"]["seat"] != nxt


def test_at_a_tabletop_table_the_host_sees_the_next_seats_legal_actions(http):
    t = GofoTable.create(http, {"seats": 3, "mode": "tabletop"})
    mano = t.hand()["mano"]
    status, data = t.move(mano, "open", {"amount": 1}, t.host_token)
    assert status == 200
    nxt = data["next"]["seat"]
    assert nxt == (mano + 1) % 3
    assert data["next"]["legal_actions"] == t.seat_view(nxt)["hand"]["legal_actions"]
    assert {a["type"] for a in data["next"]["legal_actions"]} >= {"enter", "decline"}
    status, data = t.move(nxt, "decline")  # a seat's own token, another seat next: not shown
    assert status == 200 and data["next"]["legal_actions"] is None


def test_the_move_that_ends_a_hand_carries_its_result(http):
    t = GofoTable.create(http, {"seats": 3})
    mano = t.hand()["mano"]
    t.play("open", amount=1)
    data = t.play("decline")
    assert data["hand_result"] is None
    data = t.play("decline")  # everyone declined: mano takes the opening back, hand 2 begins
    assert data["table"]["hand_number"] == 2
    assert data["hand_result"] == data["table"]["last_result"]
    assert data["hand_result"]["hand"] == 1 and data["hand_result"]["mano"] == mano
    assert data["next"]["seat"] == data["hand"]["to_act"]
    nxt = data["next"]["seat"]
    status, again = t.move(nxt, "open", {"amount": 1})
    assert status == 200 and again["hand_result"] is None  # only the move that ended it carries it


def test_a_retried_move_gets_the_same_answer(http, client):
    t = GofoTable.create(http, {"seats": 3})
    mano = t.hand()["mano"]
    t.play("open", amount=1)
    t.play("decline")
    seat = t.to_act()
    headers = {**bearer(t.seat_tokens[seat]), "Idempotency-Key": "retry-5d0c7f3e-gofo"}
    first = client.post(f"{t.base}/seats/{seat}/decline", json={}, headers=headers)
    second = client.post(f"{t.base}/seats/{seat}/decline", json={}, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.get_json() == second.get_json()
    assert first.get_json()["hand_result"]["mano"] == mano


# ---------------------------------------------------------------- B. the real first-dealer draw


def _finish_a_hand_by_declines(t):
    t.play("open", amount=1)
    while t.public()["table"]["hand_number"] == 1:
        t.play("decline")


def test_a_tabletop_table_reports_the_dealer_its_draw_chose(http):
    from service import verify

    t = GofoTable.create(http, {"seats": 4, "mode": "tabletop", "first_dealer": 2})
    view = t.public()
    assert view["table"]["dealer"] == 2 and view["table"]["hand_number"] == 1
    assert view["hand"]["dealer"] == 2 and view["hand"]["mano"] == 3 and view["hand"]["to_act"] == 3
    assert view["table"]["draws"] == [] and view["table"]["draw_commitments"] == []
    assert view["table"]["options"]["first_dealer"] == 2
    _finish_a_hand_by_declines(t)
    assert t.public()["table"]["dealer"] == 3  # the deal passes on as usual
    transcript = http.get(f"{t.base}/transcript")[1]
    create = transcript["entries"][0]
    assert create["action"]["options"]["first_dealer"] == 2 and create["by"] == "host"
    assert not [e for e in transcript["entries"] if e["action"]["type"] == "dealer_draw"]
    report = verify.verify(transcript)
    assert report.ok, report.problems
    tampered = dict(transcript, options=dict(transcript["options"], first_dealer=1))
    tampered["entries"] = [dict(create, action=dict(create["action"], options=tampered["options"]))] + transcript["entries"][1:]
    assert not verify.verify(tampered).ok  # another dealer does not replay


def test_without_first_dealer_the_referee_still_draws(http):
    t = GofoTable.create(http, {"seats": 3, "mode": "tabletop"})
    assert "first_dealer" not in t.public()["table"]["options"]
    assert t.public()["table"]["draws"]


@pytest.mark.parametrize("body,code", [
    ({"seats": 3, "first_dealer": 1}, "first_dealer_not_tabletop"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": 3}, "bad_first_dealer"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": -1}, "bad_first_dealer"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": "1"}, "invalid_request"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": True}, "invalid_request"),
])
def test_a_bad_first_dealer_is_refused_and_creates_nothing(client, redis_client, body, code):
    before = set(redis_client.keys("*gofo*"))
    response = client.post("/v1/gofo/tables", json=body)
    assert response.status_code == 422, response.get_json()
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert response.get_json()["code"] == code
    assert {k for k in redis_client.keys("*gofo*") if ":table:" in k or k.endswith(":doc")} <= before


# ---------------------------------------------------------------- D. resume a session begun on paper

RESUMED = {"seats": 3, "caja": 100, "refill": 10, "fronts": [20, 145, 5], "behinds": [80, 0, 50],
           "cajas": [1, 1, 1], "first_dealer": 1}


@pytest.mark.parametrize("mode", ["dealt", "tabletop"])
def test_a_session_begun_on_paper_resumes_with_its_ledger_and_dealer(http, mode):
    from service import verify

    t = GofoTable.create(http, dict(RESUMED, mode=mode))
    view = t.public()
    assert [s["front"] for s in view["table"]["seats"]] == [20, 145, 5]
    assert [s["behind"] for s in view["table"]["seats"]] == [80, 0, 50]
    assert [s["balance"] for s in view["table"]["seats"]] == [0, 45, -45]
    assert view["table"]["dealer"] == 1 and view["hand"]["mano"] == 2 and view["table"]["draws"] == []
    assert view["hand"]["stacks"] == [20, 145, 5]
    data = t.play("open", amount=1)
    assert data["next"]["seat"] == 0
    while t.public()["table"]["hand_number"] == 1:
        t.play("decline")
    assert t.public()["table"]["dealer"] == 2
    transcript = http.get(f"{t.base}/transcript")[1]
    assert transcript["entries"][0]["action"]["options"]["fronts"] == [20, 145, 5]
    report = verify.verify(transcript)
    assert report.ok, report.problems


@pytest.mark.parametrize("change,code", [
    ({"fronts": [20, 145, 6]}, "chips_not_conserved"),
    ({"cajas": [1, 1, 2]}, "chips_not_conserved"),
    ({"fronts": [20, 145]}, "bad_resumed_ledger"),
    ({"fronts": [0, 165, 5]}, "bad_resumed_ledger"),
    ({"behinds": [100, -20, 50]}, "bad_resumed_ledger"),
    ({"cajas": [0, 1, 2]}, "bad_resumed_ledger"),
    ({"behinds": [100, 0, 30]}, "bad_resumed_ledger"),
    ({"first_dealer": None}, "bad_resumed_ledger"),
    ({"behinds": None}, "bad_resumed_ledger"),
    ({"first_dealer": 3}, "bad_first_dealer"),
    ({"fronts": [20, 145, "5"]}, "invalid_request"),
    ({"fronts": 70}, "invalid_request"),
])
def test_a_bad_resumed_ledger_is_refused_and_creates_nothing(client, change, code):
    body = {k: v for k, v in dict(RESUMED, **change).items() if v is not None}
    response = client.post("/v1/gofo/tables", json=body)
    assert response.status_code == 422, response.get_json()
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert response.get_json()["code"] == code
