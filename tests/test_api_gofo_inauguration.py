"""Gofo over HTTP: a new caja's first front chosen by its player (``inauguration: chosen``).
Busts are deterministic: each seat's whole caja is its first front, and the hand is played
all-in (a tie at the canto goes to the seat closer to mano, so exactly one seat loses everything)."""

from __future__ import annotations

import json


from support.client import GofoTable, bearer

TABLETOP = {"seats": 2, "caja": 10, "refill": 2, "initial_front": 10, "mode": "tabletop", "first_dealer": 0,
            "inauguration": "chosen"}
DEALT = {"seats": 2, "caja": 10, "refill": 2, "fronts": [10, 10], "behinds": [0, 0], "cajas": [1, 1],
         "first_dealer": 0, "inauguration": "chosen"}


def _all_in(t: GofoTable, token: str | None = None) -> dict:
    """Mano opens 1 and cuts the rest, the other enters and sees it, both stand pat; at a tabletop
    table the other mucks at the canto.  Returns the answer of the move that ended the hand."""
    def go(kind, **body):
        seat = t.to_act()
        status, data = t.move(seat, kind, body, token)
        assert status == 200, (seat, kind, data)
        return data

    go("open", amount=1)
    go("enter", blind=False)
    go("pass")
    data = go("corta", amount=9)
    data = go("ver")
    tabletop = data["hand"]["mode"] == "tabletop"
    for _ in range(2):
        data = go("discard", **({"count": 0} if tabletop else {"cards": []}))
    if tabletop:
        mano = data["hand"]["mano"]
        status, data = t.move(1 - mano, "muck", {}, token)
        assert status == 200, data
    return data


def _problem(response_status, data, status, code):
    assert response_status == status, data
    assert data["code"] == code and data["status"] == status
    assert data["type"].endswith("/" + code)


def test_a_tabletop_bust_waits_for_the_choice_and_refusals_change_nothing(http, client):
    from service import verify

    t = GofoTable.create(http, TABLETOP)
    view = t.public()
    assert view["table"]["options"]["inauguration"] == "chosen"
    assert view["table"]["inaugurations_pending"] == [] and view["table"]["inauguration_fronts"] == [4, 6]
    assert view["table"]["inauguration_deadline_at"] is None
    mano = view["hand"]["mano"]
    loser = 1 - mano
    ended = _all_in(t, token=t.host_token)
    assert ended["hand"] is None and ended["hand_result"]["hand"] == 1
    assert ended["table"]["hand_number"] == 2 and ended["table"]["inaugurations_pending"] == [loser]
    assert ended["next"] == {"seat": loser, "legal_actions": [{"type": "inaugurate", "fronts": [4, 6]}]}  # the host's phone
    seats = ended["table"]["seats"]
    assert (seats[loser]["front"], seats[loser]["behind"], seats[loser]["cajas"]) == (0, 10, 2)

    before = client.get(t.base).get_json()
    refusals = [
        (mano, "open", {"amount": 1}, t.host_token, 409, "inauguration_pending"),
        (loser, "open", {"amount": 1}, t.seat_tokens[loser], 409, "inauguration_pending"),
        (mano, "inaugurate", {"front": 4}, t.seat_tokens[mano], 409, "no_inauguration_pending"),
        (loser, "inaugurate", {"front": 5}, t.seat_tokens[loser], 422, "bad_inauguration_front"),
        (loser, "inaugurate", {"front": 10}, t.host_token, 422, "bad_inauguration_front"),
        (loser, "inaugurate", {"front": "4"}, t.seat_tokens[loser], 422, "invalid_request"),
        (loser, "inaugurate", {}, t.seat_tokens[loser], 422, "invalid_request"),
        (loser, "inaugurate", {"front": 4}, t.seat_tokens[mano], 403, "not_your_seat"),
    ]
    for seat, kind, body, token, status, code in refusals:
        response = client.post(f"{t.base}/seats/{seat}/{kind}", json=body, headers=bearer(token))
        assert response.headers["Content-Type"].startswith("application/problem+json")
        _problem(response.status_code, response.get_json(), status, code)
        assert client.get(t.base).get_json() == before, (kind, body)

    status, data = t.move(loser, "inaugurate", {"front": 6})  # the seat's own token
    assert status == 200, data
    assert data["table"]["inaugurations_pending"] == [] and data["hand"]["hand_id"].endswith("-2")
    assert data["hand"]["stacks"][loser] == 6 and data["hand"]["dealer"] == 1
    assert data["next"]["seat"] == data["hand"]["to_act"] == data["hand"]["mano"] == 0
    assert data["hand_result"] is None
    ledger = http.get(f"{t.base}/ledger")[1]
    assert [(s["front"], s["behind"], s["cajas"], s["balance"]) for s in ledger["seats"]][loser] == (6, 4, 2, -10)
    assert ledger["hands_played"] == 1

    transcript = http.get(f"{t.base}/transcript")[1]
    choice = [e for e in transcript["entries"] if e["action"]["type"] == "inaugurate"]
    assert choice == [dict(choice[0], by=f"seat:{loser}", seat=loser, hand=2, action={"type": "inaugurate", "front": 6})]
    report = verify.verify(transcript)
    assert report.ok, report.problems
    assert "balances [-10, 10]" in report.summary or "balances [10, -10]" in report.summary
    tampered = dict(transcript)
    tampered["entries"] = [dict(e, action={"type": "inaugurate", "front": 5}) if e["action"]["type"] == "inaugurate" else e
                           for e in transcript["entries"]]
    bad = verify.verify(tampered)
    assert not bad.ok and any("bad_inauguration_front" in p for p in bad.problems)


def test_a_dealt_bust_then_the_referee_shuffles_and_the_verifier_replays_the_choice(http, client, tmp_path):
    from service import verify

    t = GofoTable.create(http, DEALT)
    ended = _all_in(t)
    loser = ended["table"]["inaugurations_pending"][0]
    assert ended["table"]["inaugurations_pending"] == [loser] and ended["hand"] is None
    assert ended["table"]["seats"][loser]["front"] == 0
    assert ended["table"]["last_deal"] is not None  # the finished hand's deck is opened at once
    assert ended["next"]["seat"] == loser
    # a dealt table: only the seat itself sees its legal actions.  Seat 0 dealt hand 1, so it discarded
    # last and its token made the move that ended the hand.
    assert ended["next"]["legal_actions"] == ([{"type": "inaugurate", "fronts": [4, 6]}] if loser == 0 else None)
    status, data = t.move(loser, "inaugurate", {"front": 4}, t.host_token)
    _problem(status, data, 403, "host_not_allowed")
    status, data = t.move(loser, "inaugurate", {"front": 4})
    assert status == 200, data
    assert data["hand"]["phase"] == "opening" and data["hand"]["deck_commitment"]  # shuffled, committed
    assert data["hand"]["stacks"][loser] == 4 and len(data["hand"]["my_cards"]) == 0
    assert data["next"]["seat"] == data["hand"]["to_act"] == data["hand"]["mano"]
    # play hand 2 to its end so the choice is in a finished (replayed) hand
    t.play("open", amount=1)
    while t.public()["table"]["hand_number"] == 2:
        t.play("decline")
    transcript = http.get(f"{t.base}/transcript")[1]
    assert transcript["hands_finished"] == 2
    assert [e["hand"] for e in transcript["entries"] if e["action"]["type"] == "inaugurate"] == [2]
    report = verify.verify(transcript)
    assert report.ok, report.problems
    assert "2 finished hands replayed" in report.summary
    path = tmp_path / "transcript.json"  # the command line: python -m service.verify
    path.write_text(json.dumps(transcript))
    assert verify.main([str(path)]) == 0
    tampered = dict(transcript, entries=[dict(e, action={"type": "inaugurate", "front": 6})
                                         if e["action"]["type"] == "inaugurate" else e for e in transcript["entries"]])
    assert not verify.verify(tampered).ok  # another front does not reproduce hand 2's stacks and results


def test_the_seat_sees_its_choice_and_others_do_not(http):
    t = GofoTable.create(http, DEALT)
    ended = _all_in(t)
    loser = ended["table"]["inaugurations_pending"][0]
    mine = t.seat_view(loser)
    assert mine["hand"] is None and mine["table"]["inaugurations_pending"] == [loser]
    assert mine["table"]["inauguration_fronts"] == [4, 6]
    status, data = t.move(1 - loser, "open", {"amount": 1})
    _problem(status, data, 409, "inauguration_pending")
    status, data = http.get(f"{t.base}/seats/{1 - loser}", t.seat_tokens[1 - loser])
    assert status == 200 and data["hand"] is None and data["table"]["inaugurations_pending"] == [loser]


def test_the_deadline_inaugurates_a_silent_seat_with_the_default_front(http, client, monkeypatch):
    import service.api.common as common
    from service import verify

    clock = [4_000_000.0]
    monkeypatch.setattr(common, "now", lambda: clock[0])
    t = GofoTable.create(http, dict(TABLETOP, turn_seconds=30, inauguration_front=6))
    ended = _all_in(t, token=t.host_token)
    loser = ended["table"]["inaugurations_pending"][0]
    assert ended["table"]["inauguration_deadline_at"] == clock[0] + 30
    status, data = http.post(f"{t.base}/deadline", {}, t.host_token)
    _problem(status, data, 409, "deadline_not_passed")
    clock[0] += 31
    status, data = http.post(f"{t.base}/deadline", {}, t.seat_tokens[1 - loser])
    assert status == 200, data
    assert data["table"]["inaugurations_pending"] == [] and data["hand"]["stacks"][loser] == 6
    assert data["table"]["inauguration_deadline_at"] is None
    transcript = http.get(f"{t.base}/transcript")[1]
    last = [e for e in transcript["entries"] if e["action"]["type"] == "inaugurate"]
    assert last[0]["timeout"] is True and last[0]["by"] == "referee" and last[0]["action"]["front"] == 6
    report = verify.verify(transcript)
    assert report.ok, report.problems


def test_a_fixed_table_reads_as_before(http):
    t = GofoTable.create(http, dict(TABLETOP, inauguration="fixed", inauguration_front=6))
    view = t.public()
    assert "inauguration" not in view["table"]["options"]
    assert "inaugurations_pending" not in view["table"] and "inauguration_fronts" not in view["table"]
    ended = _all_in(t, token=t.host_token)
    assert ended["hand"] is not None and ended["table"]["hand_number"] == 2
    assert "inaugurations_pending" not in ended["table"]


def test_a_bad_inauguration_option_is_refused(client):
    for value in ("sometimes", 1, True):
        response = client.post("/v1/gofo/tables", json={"seats": 2, "inauguration": value})
        assert response.status_code == 422
        assert response.get_json()["code"] == "invalid_request"


def test_the_views_while_seats_choose_are_sent_as_their_schemas_dump_them(http, app):
    """The views are what marshmallow dumps them to, and the schemas declare every new field."""
    from service.api.gofo_schemas import GofoMoveAnswerSchema, GofoSeatViewSchema, GofoTableSchema

    t = GofoTable.create(http, TABLETOP)
    ended = _all_in(t, token=t.host_token)
    loser = ended["table"]["inaugurations_pending"][0]
    views = [(GofoMoveAnswerSchema(), ended), (GofoTableSchema(), t.public()),
             (GofoSeatViewSchema(), t.seat_view(loser))]
    status, chosen = t.move(loser, "inaugurate", {"front": 4})
    assert status == 200
    views += [(GofoMoveAnswerSchema(), chosen), (GofoSeatViewSchema(), t.seat_view(loser))]
    for schema, data in views:
        assert schema.dump(data) == data
