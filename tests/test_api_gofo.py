"""Gofo over HTTP (Flask test client on a real Valkey): dealt and tabletop hands to the payout."""

from __future__ import annotations

import json


from support.client import GofoTable
from service.games import commitments
from service import verify
from service.games.gofo import deal as deal_rules
from service.games.gofo.records import HandRecord
from service.games.gofo.cards import DECK
from service.games.gofo.value import hand_value
from support import store as support_store


def stored(redis_client, table_id):
    return support_store.stored(redis_client, "gofo", table_id)


def answer_everything(table: GofoTable, prefer: str = "ver") -> None:
    """Answer bets and raising turns until the betting closes: ver (or no_ver), then pass."""
    while table.hand()["phase"] in ("raising", "betting"):
        seat = table.to_act()
        legal = table.legal(seat)
        if prefer in legal:
            table.play(prefer)
        elif "ver" in legal:
            table.play("ver")
        else:
            table.play("pass")


def deal_checks_out(deal) -> bool:
    """The leaves and the reshuffle key hash make the commitment; each opening matches its leaf, each
    revealed reshuffle key its key leaf."""
    hid = deal["hand_id"]
    key_hash = commitments.reshuffle_key_hash(hid, deal["reshuffle_key_leaves"])
    return (key_hash == deal["reshuffle_key_hash"]
            and commitments.deck_commitment(hid, deal["leaves"], key_hash) == deal["commitment"]
            and all(commitments.card_leaf(hid, o["position"], o["card"], o["salt"]) == deal["leaves"][o["position"]]
                    for o in deal["openings"])
            and all(commitments.reshuffle_key_leaf(hid, r["number"], r["key"]) == deal["reshuffle_key_leaves"][r["number"] - 1]
                    for r in deal["reshuffle_keys"]))


def test_a_folded_hand_is_never_shown(http):
    """gofo.md: never a folded hand's cards, not even after the hand (review finding)."""
    t = GofoTable.create(http, {"seats": 3})
    mano = t.hand()["mano"]
    a, b = (mano + 1) % 3, (mano + 2) % 3
    t.play("open", amount=1)
    t.play("enter", blind=True)
    status, view = t.move(b, "enter", {"blind": False})
    folded = view["hand"]["my_cards"]
    assert status == 200 and len(folded) == 2
    t.play("pass")
    t.play("raise", amount=1)
    t.play("no_ver")  # b folds after looking
    t.play("no_ver")  # mano folds: a wins without showing
    assert t.public()["table"]["hand_number"] == 2
    def without_draws(view):  # the first-dealer draw used its own deck: its cards are not the hand's
        return {**view, "table": {k: v for k, v in view["table"].items() if k != "draws"}}

    transcript = http.get(f"{t.base}/transcript")[1]
    transcript["entries"] = [e for e in transcript["entries"] if e["action"]["type"] != "dealer_draw"]
    everything = json.dumps([without_draws(t.public()), without_draws(t.seat_view(a)),
                             without_draws(t.seat_view(mano)), transcript, http.get(f"{t.base}/ledger")[1]])
    assert not [card for card in folded if f'"{card}"' in everything]
    assert deal_checks_out(t.public()["table"]["last_deal"])


def pot_winner(eligible, values, mano, n):
    return max(eligible, key=lambda s: (values[s], -((s - mano) % n)))


def test_five_player_dealt_hand_with_blind_entry_refiche_all_in_and_side_pot(http):
    t = GofoTable.create(http, {"seats": 5, "caja": 100, "refill": 10, "initial_front": 30})
    table = t.public()["table"]
    assert table["dealer"] is not None and table["hand_number"] == 1 and table["draws"]
    assert [s["front"] for s in table["seats"]] == [30] * 5

    # Hand 1 makes the stacks differ: mano opens 5, one player enters, mano cuts and he folds.
    h = t.hand()
    mano1 = h["mano"]
    assert h["deck_commitment"] and h["phase"] == "opening" and h["to_act"] == mano1
    t.play("open", amount=5)
    t.play("enter", blind=False)
    for _ in range(3):
        t.play("decline")
    answer_everything(t, prefer="pass")
    assert t.hand()["phase"] == "speaking" and t.to_act() == mano1
    t.play("corta", amount=10)
    t.play("no_ver")
    table = t.public()["table"]
    assert table["hand_number"] == 2 and table["last_result"]["reason"] == "uncontested"
    fronts = [s["front"] for s in table["seats"]]
    assert fronts[mano1] == 35 and fronts[(mano1 + 1) % 5] == 25
    # The first hand's deal is opened where it showed cards (nowhere: everyone folded to the bet),
    # and its leaves make the commitment published before the deal.
    deal = table["last_deal"]
    assert deal_checks_out(deal) and deal["commitment"] == h["deck_commitment"] and deal["openings"] == []

    # Hand 2: the short stack (25) is mano; the previous mano (35) deals and plays last.
    h = t.hand()
    mano, dealer = h["mano"], h["dealer"]
    assert mano == (mano1 + 1) % 5 and dealer == mano1
    seats = [(mano + k) % 5 for k in range(5)]  # mano, blind entrant, two seen entrants, dealer
    t.play("open", amount=2)
    t.play("enter", blind=True)  # blind entry: this seat never looked
    assert t.seat_view(seats[1])["hand"]["my_cards"] == []
    for _ in range(3):
        t.play("enter", blind=False)
    # Raising the opening: mano (who bet blind) passes, the blind entrant raises, everyone sees it.
    assert t.to_act() == mano
    assert "raise" in t.legal(mano)
    t.play("pass")
    assert t.to_act() == seats[1]
    t.play("raise", amount=3)
    answer_everything(t)
    h = t.hand()
    assert h["phase"] == "speaking" and h["committed"] == [5] * 5
    assert all(len(t.seat_view(s)["hand"]["my_cards"]) == 5 for s in range(5))

    # Speaking: mano says voy, the blind entrant cuts 4; everyone sees.
    t.play("voy")
    t.play("corta", amount=4)
    for _ in range(4):
        t.play("ver")
    # Refiches from the bettor's next: two pass, the dealer refiches 20.
    t.play("pass")
    t.play("pass")
    assert t.to_act() == dealer
    legal = t.legal(dealer)["refiche"]
    assert legal["min"] == 4 and legal["max"] == 26
    t.play("refiche", amount=20)
    # Mano cannot match 20 with 16: ver puts him all-in (jugado). One player folds.
    assert t.to_act() == mano
    t.play("ver")
    h = t.hand()
    assert h["resto"][mano] == 0 and h["committed"][mano] == 25
    t.play("ver")
    t.play("ver")
    t.play("no_ver")
    answer_everything(t, prefer="pass")
    h = t.hand()
    assert h["phase"] == "discard" and h["final_discard"] and not h["keep_right"]
    live = [s for s in range(5) if h["status"][s] == "in"]
    assert sorted(live) == sorted([mano, seats[1], seats[2], dealer])
    pots = h["pots"]
    assert [p["amount"] for p in pots] == [109, 12]
    assert sorted(pots[0]["eligible"]) == sorted(live) and mano not in pots[1]["eligible"]

    # The single discard after a corte (all five cards each: the stock runs out and the pile is
    # reshuffled), then the canto pays every pot.
    for _ in live:
        seat = t.to_act()
        mine = t.seat_view(seat)["hand"]["my_cards"]
        t.play("discard", cards=mine)
    result = t.public()["table"]["last_result"]
    assert result["reason"] == "canto" and [p["amount"] for p in result["pots"]] == [109, 12]
    values = result["values"]
    for s in live:
        assert values[s] == hand_value(result["shown"][s])
    for pot in result["pots"]:
        assert pot["winner"] == pot_winner(pot["eligible"], values, mano, 5)
    assert sum(result["payouts"]) == 121 and sum(result["net"]) == 0
    assert result["shown"][seats[3]] is None  # the folded hand is never shown

    # The folded hand went into the pile that was reshuffled: the seats that drew from it may hold its
    # cards, so their positions stay closed (opening them would tell the folded cards by elimination),
    # and so does the reshuffle (its key would tell who drew which). Everything opened opens.
    deal = t.public()["table"]["last_deal"]
    assert deal_checks_out(deal)
    opened = {o["card"] for o in deal["openings"]}
    shown = {c for cards in result["shown"] if cards for c in cards}
    thrown = {c for d in result["discards"] for c in d["cards"]}
    assert result["reshuffles"] and not result["reshuffles"][0]["clean"]
    assert opened == deal_rules.opened_cards(HandRecord.from_dict(result)) and opened < shown | thrown
    revealed = {r["number"] for r in deal["reshuffle_keys"]}
    assert revealed == set(deal_rules.revealed_reshuffles(HandRecord.from_dict(result))) and 1 not in revealed
    entries = http.get(f"{t.base}/transcript")[1]["entries"]
    orders = [e["action"]["order"] for e in entries if e["action"]["type"] == "reshuffle" and e["hand"] == 2]
    assert len(orders) == len(result["reshuffles"]) and orders[0] is None
    assert all((order is not None) == (k in revealed) for k, order in enumerate(orders, 1))

    # Chips are conserved at the table; the ledger lists both hands.
    ledger = http.get(f"{t.base}/ledger")[1]
    assert ledger["hands_played"] == 2 == http.get(f"{t.base}/transcript")[1]["hands_finished"]
    assert sum(s["front"] + s["behind"] for s in ledger["seats"]) == 500
    assert sum(s["balance"] for s in ledger["seats"]) == 0


def test_views_never_show_a_card_they_must_not(http):
    t = GofoTable.create(http, {"seats": 5})
    t.play("open", amount=1)
    t.play("enter", blind=False)
    t.play("enter", blind=True)
    t.play("decline")
    t.play("enter", blind=False)
    answer_everything(t, prefer="pass")
    hands = {s: t.seat_view(s)["hand"]["my_cards"] for s in range(5)}
    assert any(hands.values())
    public_hand = json.dumps(t.public()["hand"])
    for seat, cards in hands.items():
        others = json.dumps([t.seat_view(o)["hand"] for o in range(5) if o != seat])
        for card in cards:
            # Nothing has been discarded, nothing is public: no other view may name the card.
            assert f'"{card}"' not in public_hand and f'"{card}"' not in others
    declined = [s for s in range(5) if t.hand()["status"][s] == "declined"]
    assert declined and all(hands[s] == [] for s in declined)
    transcript = t.http.get(f"{t.base}/transcript")[1]
    shuffle = [e for e in transcript["entries"] if e["action"]["type"] == "shuffle"]
    assert shuffle and shuffle[-1]["action"]["order"] is None
    assert transcript["deals"] == []


def test_tabletop_hand_refereed_to_the_payout(http, redis_client):
    t = GofoTable.create(http, {"seats": 3, "caja": 60, "refill": 10, "initial_front": 20, "mode": "tabletop"})
    h = t.hand()
    assert h["mode"] == "tabletop" and "my_cards" not in t.seat_view(0)["hand"]
    mano, n = h["mano"], 3
    # One phone can referee the whole table: the host token acts for any seat.
    status, _ = t.move(mano, "open", {"amount": 2}, t.host_token)
    assert status == 200
    t.play("enter", blind=False)
    t.play("enter", blind=False)
    answer_everything(t, prefer="pass")
    # Four speaking rounds nobody cuts, each followed by a discard (counts only, or face-up cards).
    for round_ in range(4):
        for _ in range(3):
            t.play("voy")
        for k in range(3):
            if round_ == 3 and k == 0:
                t.play("discard", cards=["3o"])  # thrown face up: the referee knows where it is
            else:
                t.play("discard", count=1)
    h = t.hand()
    assert h["phase"] == "canto"
    # The canto: declare points, winners show cards; the referee checks them.
    hands = {mano: ["6e", "7e", "11e", "12e", "4o"],           # 30
             (mano + 1) % n: ["6o", "7o", "11o", "12o", "3c"],  # 30: tie, mano is closer
             (mano + 2) % n: ["3b", "4b", "5b", "6b", "7c"]}    # 18
    t.play("declare", points=30)
    t.play("declare", points=30)
    t.play("declare", points=18)
    assert t.hand()["canto"]["stage"] == "show"
    before = stored(redis_client, t.id)
    status, data = t.move(mano, "show", {"cards": ["6e", "7e", "11e", "3e", "4o"]})
    assert status == 409 and data["code"] == "declared_value_mismatch"
    status, data = t.move(mano, "show", {"cards": ["6e", "7e", "11e", "12e", "3o"]})
    assert status == 409 and data["code"] == "duplicate_card"  # 3o was discarded face up
    status, data = t.move(mano, "show", {"cards": ["6e", "6e", "11e", "12e", "4o"]})
    assert status == 422 and data["code"] in ("duplicate_card", "invalid_request")
    status, data = t.move(mano, "show", {"cards": ["6e", "7e", "11e", "12e", "2o"]})
    assert status == 422 and data["code"] == "invalid_request"
    assert stored(redis_client, t.id) == before
    t.play("show", cards=hands[mano])
    result = t.public()["table"]["last_result"]
    assert result["reason"] == "canto" and result["pots"][0]["winner"] == mano
    assert result["payouts"][mano] == 6 and sum(result["net"]) == 0


def tabletop_canto(http) -> tuple[GofoTable, int]:
    """A 3-seat tabletop hand at its canto (everyone in for 2, nobody cut, counts only)."""
    t = GofoTable.create(http, {"seats": 3, "caja": 60, "refill": 10, "initial_front": 20, "mode": "tabletop"})
    mano = t.hand()["mano"]
    t.play("open", amount=2)
    t.play("enter", blind=False)
    t.play("enter", blind=False)
    answer_everything(t, prefer="pass")
    for _ in range(4):
        for _ in range(3):
            t.play("voy")
        for _ in range(3):
            t.play("discard", count=0)
    assert t.hand()["phase"] == "canto"
    return t, mano


def test_tabletop_wrong_declaration_corrected_then_locked(http, redis_client):
    t, mano = tabletop_canto(http)
    second, third = (mano + 1) % 3, (mano + 2) % 3
    t.play("declare", points=21)  # mano holds 30 but says 21
    status, data = t.move(mano, "declare", {"points": 30}, t.host_token)  # out of turn: a correction
    assert status == 200 and data["hand"]["canto"]["declared"][mano] == 30
    assert {a["type"] for a in t.seat_view(mano)["hand"]["legal_actions"]} == {"declare", "muck"}
    t.play("show", cards=["12c", "11c", "5c", "3c", "5b"])  # the second player enters his cards (25)
    before = stored(redis_client, t.id)
    status, data = t.move(mano, "declare", {"points": 29})  # cards are on the table now: too late to change
    assert status == 409 and data["code"] == "declaration_locked" and stored(redis_client, t.id) == before
    t.play("declare", points=18)
    t.play("show", cards=["6e", "7e", "11e", "12e", "4o"])
    result = t.public()["table"]["last_result"]
    assert result["pots"][0]["winner"] == mano and result["values"][third] == 18


def test_tabletop_muck_concedes_at_the_canto(http, redis_client):
    t, mano = tabletop_canto(http)
    second, third = (mano + 1) % 3, (mano + 2) % 3
    before = stored(redis_client, t.id)
    status, data = t.move(mano, "muck", {"bet": 1})
    assert status == 422 and stored(redis_client, t.id) == before
    status, data = t.move(third, "muck")  # out of turn
    assert status == 200 and data["hand"]["status"][third] == "folded"
    status, data = t.move(third, "muck")
    assert status == 409 and data["code"] == "not_in_hand"
    t.play("declare", points=20)
    status, data = t.move(second, "muck")  # the last claimant left takes the pot, unshown
    assert status == 200
    result = t.public()["table"]["last_result"]
    assert result["reason"] == "uncontested" and result["payouts"][mano] == 6 and result["shown"] == [None] * 3
    transcript = http.get(f"{t.base}/transcript")[1]
    assert verify.verify(transcript).ok, verify.verify(transcript).problems


def test_the_first_dealer_draw_is_committed(http):
    t = GofoTable.create(http, {"seats": 4})
    info = t.public()["table"]
    transcript = http.get(f"{t.base}/transcript")[1]
    draws = [e for e in transcript["entries"] if e["action"]["type"] == "dealer_draw"]
    assert [d["commitment"] for d in info["draw_commitments"]] == [e["draw"]["commitment"] for e in draws]
    assert [d["seats"] for d in info["draw_commitments"]] == [[s for s, _c in r] for r in info["draws"]]
    for entry in draws:
        assert deal_rules.draw_checks_out(t.id, entry["draw"], entry["action"]["cards"]) is None
        assert entry["draw"]["commitment"] == commitments.draw_commitment(
            t.id, entry["draw"]["round"], entry["draw"]["order"], entry["draw"]["salt"])
    assert verify.verify(transcript).ok


def test_refusals_are_precise_and_change_nothing(http, redis_client):
    t = GofoTable.create(http, {"seats": 5})
    h = t.hand()
    mano = h["mano"]
    other = (mano + 1) % 5
    before = stored(redis_client, t.id)

    def refused(result, status, code):
        assert result[0] == status and result[1]["code"] == code, result
        assert stored(redis_client, t.id) == before

    refused(t.move(other, "open", {"amount": 1}), 409, "not_your_turn")
    refused(t.move(mano, "open", {"amount": 30}), 409, "opening_too_large")
    refused(t.move(mano, "voy"), 409, "wrong_phase")
    refused(t.move(mano, "open", {"amount": 0}), 422, "invalid_request")
    refused(t.move(mano, "open"), 422, "invalid_request")
    refused(t.move(mano, "open", {"amount": 2, "bet": 3}), 422, "invalid_request")
    refused(t.move(mano, "open", {"amount": 2}, t.seat_tokens[other]), 403, "not_your_seat")
    refused(t.move(mano, "open", {"amount": 2}, t.host_token), 403, "host_not_allowed")
    refused(http.post(f"{t.base}/seats/{mano}/open", {"amount": 2}), 401, "missing_token")
    status, data = http.get(f"{t.base}/seats/{other}", t.seat_tokens[mano])
    assert status == 403 and data["code"] == "not_your_seat"
    assert http.get("/v1/gofo/tables/nope")[0] == 404
    # A stale version is refused.
    version = t.public()["version"]
    t.play("open", amount=1)
    status, data = t.move(other, "enter", {"blind": True, "version": version})
    assert status == 409 and data["code"] == "stale_version"


def test_table_options_are_validated(client):
    for body, code in [({"seats": 7}, "invalid_request"), ({"seats": 1}, "invalid_request"),
                       ({"mode": "online"}, "invalid_request"), ({"caja": 5, "refill": 10}, "bad_option"),
                       ({"seats": 5, "colour": "red"}, "invalid_request")]:
        r = client.post("/v1/gofo/tables", json=body)
        assert r.status_code == 422 and r.get_json()["code"] == code, (body, r.get_json())


def test_six_players_dealer_sits_out_and_buys_in(http):
    t = GofoTable.create(http, {"seats": 6})
    h = t.hand()
    dealer = h["dealer"]
    assert h["status"][dealer] == "out" and h["card_counts"][dealer] == 0
    t.play("open", amount=1)
    t.play("enter", blind=False)
    t.play("decline")  # someone declines: the dealer may now deal himself in
    t.play("enter", blind=False)
    t.play("enter", blind=False)
    assert t.to_act() == dealer
    assert "enter_seen" in t.legal(dealer) or "enter_blind" in t.legal(dealer)
    t.play("enter", blind=False)
    h = t.hand()
    assert h["status"][dealer] == "in" and h["card_counts"][dealer] == 2


def test_turn_deadline_moves_a_silent_seat(http, monkeypatch):
    import service.api.common as common

    clock = [2_000_000.0]
    monkeypatch.setattr(common, "now", lambda: clock[0])
    t = GofoTable.create(http, {"seats": 3, "turn_seconds": 60})
    h = t.hand()
    assert h["turn_deadline_at"] == clock[0] + 60
    mano = h["mano"]
    status, data = http.post(f"{t.base}/deadline", {}, t.seat_tokens[(mano + 1) % 3])
    assert status == 409 and data["code"] == "deadline_not_passed"
    clock[0] += 61
    status, data = http.post(f"{t.base}/deadline", {}, t.host_token)
    assert status == 200 and data["hand"]["opening"] == 1  # a silent mano opens the minimum
    assert data["hand"]["turn_deadline_at"] == clock[0] + 60
    clock[0] += 61
    status, data = http.post(f"{t.base}/deadline", {}, t.seat_tokens[mano])
    assert status == 200 and data["hand"]["status"][(mano + 1) % 3] == "declined"
    entries = http.get(f"{t.base}/transcript")[1]["entries"]
    timeouts = [e for e in entries if e.get("timeout")]
    assert [(e["by"], e["seat"], e["action"]["type"]) for e in timeouts] == [
        ("referee", mano, "open"), ("referee", (mano + 1) % 3, "decline")]
    status, data = http.post(f"{t.base}/deadline", {}, "nobody")
    assert status == 401


def test_no_deadline_without_turn_seconds(http):
    t = GofoTable.create(http, {"seats": 3})
    assert t.hand()["turn_deadline_at"] is None
    status, data = http.post(f"{t.base}/deadline", {}, t.host_token)
    assert status == 409 and data["code"] == "no_deadline"
