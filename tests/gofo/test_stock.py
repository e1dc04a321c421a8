"""Running out of cards: the pile is reshuffled into a new stock (a chance input), layered."""

from __future__ import annotations

import random

from service.games.gofo.cards import DECK
from service.games.gofo.hand import Decline, Discard, Enter, HandState, Open, Pass, Reshuffle, Voy

from .helpers import dealt_hand, play


def all_cards(hand: HandState) -> list[str]:
    return sorted(hand.stock + hand.pile + [c for h in hand.hands for c in h]
                  + [c for k in hand.kept for c in k])


def test_reshuffle_layers_older_pile_then_this_round_then_own() -> None:
    hand = dealt_hand([30] * 5, dealer=0, seed=11)
    hand = play(hand, (1, Open(1)), (2, Enter(False)), (3, Decline()), (4, Enter(False)),
                (0, Enter(False)), (1, Pass()))
    older = list(hand.pile)                                    # seat 3's declined hand
    assert len(older) == 2 and len(hand.stock) == 28 - 10 - 12
    hand = play(hand, (1, Voy()), (2, Voy()), (4, Voy()), (0, Voy()))
    first = tuple(hand.hands[1])
    hand = play(hand, (1, Discard(first)))
    assert len(hand.stock) == 1
    last_stock = hand.stock[0]
    own = tuple(hand.hands[2][:3])
    hand = play(hand, (2, Discard(own)))
    assert hand.phase == "reshuffle" and hand.to_act() is None
    request = hand.chance_request()
    assert request["kind"] == "reshuffle"
    assert sorted(request["cards"]) == sorted(older + list(first) + list(own))
    # supply the order with the layers reversed: the engine must still put them in rule order
    order = tuple(own) + first + tuple(older)
    hand = play(hand, (None, Reshuffle(order)))
    assert [restock.count for restock in hand.restocks] == [10]
    # seat 2 drew the last stock card, then the two older pile cards
    assert hand.hands[2][-3:] == [last_stock] + older
    assert hand.stock == list(first) + list(own)
    assert hand.pile == [] and hand.to_act() == 4
    assert all_cards(hand) == sorted(DECK)


def test_five_players_discarding_until_reshuffles() -> None:
    rng = random.Random(5)
    hand = dealt_hand([40] * 5, dealer=2, seed=5)
    hand = play(hand, (3, Open(1)), (4, Enter(False)), (0, Enter(False)), (1, Enter(False)),
                (2, Enter(False)), (3, Pass()))
    reshuffles = 0
    while not hand.is_over():
        request = hand.chance_request()
        if request:
            assert request["kind"] == "reshuffle"
            reshuffles += 1
            order = tuple(rng.sample(request["cards"], len(request["cards"])))
            hand = play(hand, (None, Reshuffle(order)))
        elif hand.phase == "speaking":
            hand = play(hand, (hand.to_act(), Voy()))
        else:
            seat = hand.to_act()
            hand = play(hand, (seat, Discard(tuple(hand.hands[seat]))))
            if hand.phase != "reshuffle":
                # own just-discarded cards come back only when nothing else is left
                assert len(hand.hands[seat]) == 5
        assert all_cards(hand) == sorted(DECK)
        assert all(len(hand.hands[s]) == 5 for s in hand.live()) or hand.phase == "reshuffle"
    assert reshuffles >= 4
    assert hand.result.reason == "canto"
