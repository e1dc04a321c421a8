"""A new caja's first front chosen by its player (``inauguration: chosen``).

gofo.md: "A player with no chips at all takes a new caja and, in its first hand, may again put 2–3×
[the refill] in front ('inauguración de caja')".  Busts are made deterministic with a tiny caja whose
whole amount is the first front: the loser of a hand played all-in has nothing left, front or behind.
"""

from __future__ import annotations

import json

import pytest

from service.errors import IllegalAction, InvalidAction, InvalidOptions, WrongPhase
from service.games.gofo.actions import (
    Corta, Discard, Enter, Inaugurate, LegalAction, Muck, Open, Pass, Shuffle, Ver, action_from_dict, record,
)
from service.games.gofo.observer import next_to_act, table_view
from service.games.gofo.rules import TableOptions
from service.games.gofo.table import Table, replay

from .helpers import stacked_order

TABLETOP = {"seats": 2, "caja": 10, "refill": 2, "initial_front": 10, "mode": "tabletop", "first_dealer": 0,
            "inauguration": "chosen"}


def _bust_tabletop(table: Table, transcript: list | None = None) -> int:
    """Play one tabletop hand in which mano cuts all its resto, everyone sees it and every other seat
    mucks at the canto: they lose their whole front.  Returns mano."""
    def go(seat, action):
        if transcript is not None:
            transcript.append(record(seat, action))
        table.apply(action, seat=seat)

    hand = table.hand
    mano = hand.mano
    go(mano, Open(1))
    while table.hand.phase == "entering":
        go(table.to_act(), Enter(False))
    while table.hand.phase == "raising":
        go(table.to_act(), Pass())
    go(table.to_act(), Corta(table.hand.remaining(mano)))
    while table.hand.phase == "betting":
        go(table.to_act(), Ver())
    while table.hand.phase == "discard":
        go(table.to_act(), Discard(count=0))
    assert table.hand.phase == "canto"
    for seat in table.hand.live():
        if seat != mano:
            go(seat, Muck())
    return mano


def test_the_option_is_validated_and_written_out_only_when_chosen():
    assert "inauguration" not in TableOptions.from_dict({"seats": 3}).to_dict()
    assert "inauguration" not in TableOptions.from_dict({"inauguration": "fixed"}).to_dict()
    chosen = TableOptions.from_dict({"inauguration": "chosen"})
    assert chosen.to_dict()["inauguration"] == "chosen"
    assert TableOptions.from_dict(chosen.to_dict()) == chosen
    for bad in ("sometimes", 2, True):
        with pytest.raises(InvalidOptions) as raised:
            TableOptions.from_dict({"inauguration": bad})
        assert raised.value.code == "bad_option"


@pytest.mark.parametrize("caja,refill,fronts", [
    (100, 10, [20, 30]),   # 2× and 3× the refill
    (25, 10, [20, 25]),    # 3× capped at the caja
    (20, 10, [20]),        # both capped: one front
    (10, 2, [4, 6]),
])
def test_the_allowed_fronts_are_two_and_three_refills_capped_at_the_caja(caja, refill, fronts):
    assert TableOptions.from_dict({"caja": caja, "refill": refill, "initial_front": refill}).inauguration_fronts() == fronts


def test_a_bust_waits_for_the_seats_choice_before_the_next_hand():
    table = Table.new(TABLETOP)
    mano = _bust_tabletop(table)
    loser = 1 - mano
    assert table.hand is None and table.hand_number == 2  # counted, not begun
    assert table.inaugurations_pending == [loser]
    assert (table.fronts[loser], table.behinds[loser], table.cajas[loser]) == (0, 10, 2)
    assert table.last_result.hand == 1 and table.last_result.result.net[loser] == -10
    assert table.to_act() == loser and table.chance_request() is None
    assert table.legal_actions(loser) == [LegalAction("inaugurate", fronts=(4, 6))]
    assert table.legal_actions(loser)[0].to_dict() == {"type": "inaugurate", "fronts": [4, 6]}
    assert table.legal_actions(mano) == []
    view = table_view(table)
    assert view["hand"] is None
    assert view["table"]["inaugurations_pending"] == [loser]
    assert view["table"]["inauguration_fronts"] == [4, 6]
    assert view["table"]["seats"][loser]["balance"] == -10  # front 0, the whole new caja behind
    assert next_to_act(table, f"seat:{loser}") == {"seat": loser, "legal_actions": [{"type": "inaugurate", "fronts": [4, 6]}]}
    assert next_to_act(table, "host") == {"seat": loser, "legal_actions": [{"type": "inaugurate", "fronts": [4, 6]}]}  # tabletop
    assert next_to_act(table, f"seat:{mano}")["legal_actions"] is None
    # the stored state round-trips while the seat chooses
    data = json.loads(json.dumps(table.to_dict()))
    assert Table.from_dict(data).to_dict() == table.to_dict() == data


@pytest.mark.parametrize("front", [4, 6])
def test_each_allowed_front_begins_the_next_hand_with_it(front):
    table = Table.new(TABLETOP)
    mano = _bust_tabletop(table)
    loser = 1 - mano
    table.apply(Inaugurate(front), seat=loser)
    assert table.inaugurations_pending == [] and table.hand_number == 2
    assert (table.fronts[loser], table.behinds[loser], table.cajas[loser]) == (front, 10 - front, 2)
    assert table.hand.stacks[loser] == front and table.hand.dealer == 1 and table.hand.phase == "opening"
    assert table.balance(loser) == -10 and table.balance(mano) == 10  # the ledger: one caja lost
    assert "inaugurations_pending" not in table.to_dict()
    assert table_view(table)["table"]["inaugurations_pending"] == []


@pytest.mark.parametrize("seat,action,error,code", [
    (None, Inaugurate(4), InvalidAction, "bad_seat"),
    (5, Inaugurate(4), InvalidAction, "bad_seat"),
    ("mano", Inaugurate(4), IllegalAction, "no_inauguration_pending"),
    ("loser", Inaugurate(5), InvalidAction, "bad_inauguration_front"),
    ("loser", Inaugurate(10), InvalidAction, "bad_inauguration_front"),
    ("loser", Open(1), WrongPhase, "inauguration_pending"),
    ("mano", Open(1), WrongPhase, "inauguration_pending"),
    (None, Shuffle(tuple(stacked_order([]))), WrongPhase, "inauguration_pending"),
])
def test_a_refused_move_while_seats_choose_leaves_the_table_exactly_as_it_was(seat, action, error, code):
    table = Table.new(TABLETOP)
    mano = _bust_tabletop(table)
    seat = {"mano": mano, "loser": 1 - mano}.get(seat, seat)
    before = table.to_dict()
    with pytest.raises(error) as verified:
        table.verify(action, seat=seat)
    with pytest.raises(error) as applied:
        table.apply(action, seat=seat)
    assert verified.value.code == applied.value.code == code
    assert table.to_dict() == before


def test_inaugurate_when_nothing_is_pending_is_refused():
    table = Table.new(TABLETOP)
    before = table.to_dict()
    with pytest.raises(IllegalAction) as raised:
        table.apply(Inaugurate(4), seat=table.to_act())
    assert raised.value.code == "no_inauguration_pending" and table.to_dict() == before
    fixed = Table.new(dict(TABLETOP, inauguration="fixed"))
    with pytest.raises(IllegalAction) as raised:
        fixed.apply(Inaugurate(4), seat=0)
    assert raised.value.code == "no_inauguration_pending"


def test_the_deadline_default_is_the_inauguration_front_when_allowed_else_the_smallest():
    table = Table.new(TABLETOP)  # inauguration_front 10 (the initial front): not allowed
    loser = 1 - _bust_tabletop(table)
    assert table.default_action(loser) == Inaugurate(4)
    assert table.default_action(1 - loser) is None
    allowed = Table.new(dict(TABLETOP, inauguration_front=6))
    loser = 1 - _bust_tabletop(allowed)
    assert allowed.default_action(loser) == Inaugurate(6)
    from service.games.gofo import clock

    seat, action = clock.timeout_move(allowed, 100.0, 101.0)
    assert (seat, action) == (loser, Inaugurate(6))


def test_two_seats_bust_at_once_and_may_choose_in_any_order():
    table = Table.new(dict(TABLETOP, seats=3))
    mano = _bust_tabletop(table)
    losers = sorted({0, 1, 2} - {mano})
    assert table.inaugurations_pending == losers and table.to_act() == losers[0]
    table.apply(Inaugurate(6), seat=losers[1])  # the second may choose first
    assert table.inaugurations_pending == [losers[0]] and table.hand is None
    assert table.to_act() == losers[0]
    table.apply(Inaugurate(4), seat=losers[0])
    assert table.hand is not None and table.hand_number == 2
    assert [table.fronts[s] for s in losers] == [4, 6]
    assert sum(table.fronts) + sum(table.behinds) == sum(table.cajas) * 10


def test_a_fixed_table_still_inaugurates_at_once():
    table = Table.new(dict(TABLETOP, inauguration_front=6, inauguration="fixed"))
    loser = 1 - _bust_tabletop(table)
    assert table.inaugurations_pending == [] and table.hand is not None and table.hand_number == 2
    assert (table.fronts[loser], table.behinds[loser]) == (6, 4)


def test_a_dealt_table_shuffles_after_the_last_choice_and_replays():
    # a resumed dealt table: each seat's whole caja in front, seat 0 deals, seat 1 is mano
    options = {"seats": 2, "caja": 10, "refill": 2, "fronts": [10, 10], "behinds": [0, 0], "cajas": [1, 1],
               "first_dealer": 0, "inauguration": "chosen"}
    table = Table.new(options)
    transcript: list = []

    def go(seat, action):
        transcript.append(record(seat, action))
        table.apply(action, seat=seat)

    # mano (seat 1) is dealt five oros worth 30, seat 0 a hand worth 8 (the completion deals one card at a
    # time: mano, seat 0, mano, ...)
    order = stacked_order([["7o", "6o"], ["3c", "4e"]], [["5o", "12o", "11o"], ["5b", "3b", "4o"]])
    go(None, Shuffle(order))
    go(1, Open(1))
    go(0, Enter(False))
    go(1, Pass())
    go(1, Corta(9))
    go(0, Ver())
    go(1, Discard(()))
    go(0, Discard(()))
    assert table.inaugurations_pending == [0] and table.hand is None
    assert table.last_result.result.values == (8, 30)
    assert table.chance_request() is None and table.to_act() == 0
    go(0, Inaugurate(6))
    assert table.chance_request()["kind"] == "shuffle" and table.to_act() is None
    assert table.hand.phase == "shuffle" and table.hand.stacks == [6, 20]
    again = replay(options, json.loads(json.dumps(transcript)))
    assert again.to_dict() == table.to_dict()
    assert action_from_dict({"type": "inaugurate", "front": 6}) == Inaugurate(6)


def test_a_tabletop_hand_lists_the_face_up_discards_known_to_be_out_of_play():
    """``known_out``: thrown face up since the last reported reshuffle, or kept to the right."""
    from service.games.gofo.actions import Reshuffle, Voy
    from service.games.gofo.cards import sort_cards

    table = Table.new({"seats": 2, "mode": "tabletop", "first_dealer": 0})
    mano, dealer = 1, 0

    def known():
        return table_view(table)["hand"]["known_out"]

    assert known() == []
    for seat, action in ((mano, Open(1)), (dealer, Enter(False)), (mano, Pass()), (mano, Voy()), (dealer, Voy()),
                         (mano, Discard(("3o", "4o"))), (dealer, Discard(count=1))):
        table.apply(action, seat=seat)
    assert known() == sort_cards(["3o", "4o"])
    assert table_view(table)["hand"]["discards"][0]["cards"] == ["3o", "4o"]
    table.apply(Voy(), seat=mano)
    table.apply(Voy(), seat=dealer)
    assert table.hand.phase == "discard"
    table.apply(Reshuffle(), seat=dealer)  # the real pile went back into the stock: 3o and 4o may come again
    assert known() == []
    table.apply(Discard(("3o",)), seat=mano)
    table.apply(Discard(count=0), seat=dealer)
    assert known() == ["3o"]
    table.apply(Corta(1), seat=mano)
    table.apply(Ver(), seat=dealer)
    while table.hand.phase == "betting":  # nobody refiches
        table.apply(Pass(), seat=table.to_act())
    assert table.hand.keep_right  # two players after a corte: the last discards are kept face up
    table.apply(Discard(("5c",)), seat=mano)
    assert known() == sort_cards(["3o", "5c"])
    with pytest.raises(IllegalAction) as raised:  # exactly what the referee refuses
        table.apply(Discard(("5c",)), seat=dealer)
    assert raised.value.code == "duplicate_card"
    dealt = Table.new({"seats": 2, "fronts": [30, 30], "behinds": [70, 70], "cajas": [1, 1], "first_dealer": 0})
    dealt.apply(Shuffle(stacked_order([])))
    assert "known_out" not in table_view(dealt)["hand"]
