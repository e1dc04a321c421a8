"""The table: options, first-dealer draw, rotation, the chip ledger, refills and new cajas."""

from __future__ import annotations

import random

import pytest

from service.errors import InvalidOptions
from service.games.gofo import Table, TableOptions, chance_action, view
from service.games.gofo.hand import Corta, Discard, Enter, NoVer, Open, Pass, Show, Ver
from service.games.gofo.table import DealerDraw

from .helpers import play


def test_defaults_and_option_validation() -> None:
    opts = TableOptions.from_dict({})
    assert (opts.seats, opts.caja, opts.refill, opts.initial_front, opts.mode) == \
        (5, 100, 10, 30, "dealt")
    assert TableOptions.from_dict({"refill": 5, "initial_front": 10}).inauguration_front == 10
    for bad in ({"seats": 1}, {"seats": 7}, {"colour": "red"}, {"mode": "online"},
                {"refill": 0}, {"caja": 20, "initial_front": 30}, {"seats": "5"}):
        with pytest.raises(InvalidOptions):
            TableOptions.from_dict(bad)


def test_ledger_starts_with_one_caja_split_front_and_behind() -> None:
    t = Table.new({"seats": 3, "caja": 100, "refill": 10})
    assert t.fronts == [30] * 3 and t.behinds == [70] * 3 and t.cajas == [1] * 3
    assert [t.balance(s) for s in range(3)] == [0, 0, 0]


def test_first_dealer_highest_card_ties_draw_again() -> None:
    t = Table.new({"seats": 4})
    assert t.chance_request() == {"kind": "dealer_draw", "seats": [0, 1, 2, 3]}
    t.apply(DealerDraw(("3o", "12c", "7e", "12b")))
    assert t.dealer is None and t.chance_request() == {"kind": "dealer_draw", "seats": [1, 3]}
    assert t.draws == [[[0, "3o"], [1, "12c"], [2, "7e"], [3, "12b"]]]
    t.apply(DealerDraw(("4o", "11e")))
    assert t.dealer == 3 and t.hand.mano == 0
    assert t.draws[1:] == [[[1, "4o"], [3, "11e"]]]
    assert t.chance_request()["kind"] == "shuffle"


def test_dealer_rotates_to_the_next_seat() -> None:
    t = Table.new({"seats": 3, "mode": "tabletop"})
    t = play(t, (None, DealerDraw(("12o", "3c", "4c"))))
    assert (t.dealer, t.hand.mano, t.to_act()) == (0, 1, 1)
    t = play(t, (1, Open(1)), (2, Enter(False)), (0, Enter(False)), (1, Pass()))
    # finish quickly: mano cuts, everyone folds
    t = play(t, (1, Corta(1)), (2, NoVer()), (0, NoVer()))
    assert t.hand_number == 2 and t.dealer == 1 and t.hand.mano == 2
    assert t.last_result.result.reason == "uncontested" and t.last_result.result.payouts == (0, 4, 0)
    assert t.fronts == [29, 32, 29]


def _lose_everything(t: Table) -> Table:
    """Two seats, tabletop: mano (seat 1) goes all-in with a corte and loses the canto."""
    t = play(t, (1, Open(1)), (0, Enter(False)), (1, Pass()))
    t = play(t, (1, Corta(t.hand.remaining(1))), (0, Ver()))
    t = play(t, (1, Discard(count=0)), (0, Discard(count=0)))
    return play(t, (1, Show(("3o", "4o", "3c", "3e", "3b"))), (0, Show(("6e", "7e", "11e", "12e", "4b"))))


def test_refill_from_behind_between_hands() -> None:
    t = Table.new({"seats": 2, "caja": 20, "refill": 4, "initial_front": 8, "mode": "tabletop"})
    t = play(t, (None, DealerDraw(("12o", "3c"))))
    assert t.hand.mano == 1
    t = _lose_everything(t)  # seat 1's empty front is refilled with 4 of its 12 behind
    assert t.fronts == [16, 4] and t.behinds == [12, 8] and t.cajas == [1, 1]
    assert t.hand.stacks == [16, 4]


def test_new_caja_inauguration_when_nothing_is_left() -> None:
    t = Table.new({"seats": 2, "caja": 8, "refill": 4, "initial_front": 8,
                   "inauguration_front": 6, "mode": "tabletop"})
    t = play(t, (None, DealerDraw(("12o", "3c"))))
    t = _lose_everything(t)  # seat 1 has nothing left: a new caja, inaugurated with 6 in front
    assert t.fronts == [16, 6] and t.behinds == [0, 2] and t.cajas == [1, 2]
    assert t.balance(1) == 6 + 2 - 16 == -8 and t.balance(0) == 8


def test_opening_cap_uses_fronts_after_refill() -> None:
    t = Table.new({"seats": 2, "caja": 20, "refill": 4, "initial_front": 8, "mode": "tabletop"})
    t = play(t, (None, DealerDraw(("12o", "3c"))))
    t = _lose_everything(t)
    # next hand: dealer 1, mano 0; the smallest front is 4 → opening at most 3
    assert t.hand.mano == 0 and t.hand.opening_range() == (1, 3)
    assert t.legal_actions(0)[-1].to_dict() == {"type": "open", "min": 1, "max": 3}


def test_view_shape_and_chance_helper() -> None:
    rng = random.Random(1)
    t = Table.new({"seats": 4})
    while t.chance_request():
        t.apply(chance_action(t.chance_request(), rng))
    v = view(t, t.to_act())
    assert set(v) == {"table", "hand"}
    assert v["table"]["seats"][0] == {"seat": 0, "front": 30, "behind": 70, "cajas": 1,
                                      "balance": 0}
    assert v["hand"]["to_act"] == t.to_act() and v["hand"]["my_cards"] == []
    assert v["hand"]["legal_actions"] == [{"type": "open", "min": 1, "max": 29}]
    assert "my_cards" not in view(t, None)["hand"]
