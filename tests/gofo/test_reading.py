"""Level 8 reads the betting (service/games/gofo/reading.py): a table where a rival put chips in
without looking is wild; elsewhere the bettor of the bet in force, and the rivals who would answer
the seat's own bet, are read as holding more than a random hand.  All of it from the seat's view."""

from __future__ import annotations

import random

from bench.gofo_fields import caller
from service.games.gofo import bot, observer, reading, strength
from service.games.gofo.actions import Corta, Enter, Open
from service.games.gofo.cards import DECK
from service.games.gofo.chance import chance_action
from service.games.gofo.hand import HandState, Shuffle


def _hand(opening: int, blind_seat: int | None = None) -> HandState:
    """A 5-seat dealt hand (dealer 0, mano 1): mano opened ``opening``; seat 2 entered, blind if
    ``blind_seat`` is 2."""
    hand = HandState.new("dealt", 0, [30] * 5)
    hand.apply(Shuffle(tuple(random.Random(5).sample(DECK, len(DECK)))))
    hand.apply(Open(opening), seat=1)
    hand.apply(Enter(blind=blind_seat == 2), seat=2)
    return hand


def _view(hand: HandState, seat: int) -> dict:
    return {"hand": observer.hand_view(hand, seat), "table": {}}


def _to_corte(hand: HandState, amount: int) -> int:
    """Everyone left calls until the first speaking round; then the first to speak cuts ``amount``.
    Returns the cutter."""
    reshuffles = 0
    while hand.to_act() is None or not {"corta"} <= {a.to_dict()["type"] for a in hand.legal_actions(hand.to_act())}:
        seat = hand.to_act()
        if seat is None:
            reshuffles += 1
            hand.apply(chance_action(hand.chance_request(), random.Random(reshuffles)))
            continue
        hand.apply(caller(_view(hand, seat), random.Random(0)), seat=seat)
    cutter = hand.to_act()
    hand.apply(Corta(amount), seat=cutter)
    return cutter


def test_a_table_where_nobody_bet_without_looking_is_not_wild():
    for opening in (1, 3):  # the smallest opening, and level 8's own (a tenth of the largest)
        assert not reading.wild(_view(_hand(opening), 3))


def test_a_blind_entrant_or_a_large_opening_makes_the_table_wild():
    assert reading.wild(_view(_hand(1, blind_seat=2), 3))
    assert reading.wild(_view(_hand(12), 3))  # more than a fifth of the largest opening (29)
    assert not reading.wild(_view(_hand(5), 3)) and reading.wild(_view(_hand(6), 3))  # 5.8 the line
    hand = _hand(12)
    for seat in (3, 4, 0):
        hand.apply(Enter(blind=False), seat=seat)
    assert hand.to_act() == 1 and not reading.wild(_view(hand, 1))  # mano's own opening says nothing to him


def test_the_bettor_and_the_rivals_who_would_call_are_read_as_strong():
    hand = _hand(1)
    cutter = _to_corte(hand, 5)
    answering = hand.to_act()
    view = _view(hand, answering)
    assert reading.tilts(view, betting=False) == {cutter: reading.BETTOR_TILT}
    read = reading.tilts(view, betting=True)
    assert read[cutter] == reading.BETTOR_TILT
    assert {s: t for s, t in read.items() if s != cutter} == {s: reading.CALLER_TILT for s in strength.rivals(view) if s != cutter}
    wild = _hand(1, blind_seat=2)
    cutter = _to_corte(wild, 5)
    assert wild.to_act() == 2  # the blind entrant: its own blindness says nothing to itself
    assert reading.tilts(_view(wild, 2), betting=False) == {cutter: reading.BETTOR_TILT}
    assert reading.tilts(_view(wild, 3), betting=True) is None


def test_a_rival_read_as_strong_lowers_the_chance_to_win():
    hand = _hand(1)
    cutter = _to_corte(hand, 5)
    view = _view(hand, hand.to_act())
    plain = strength.win_chance(view, 400, random.Random(3)).share
    assert strength.win_chance(view, 400, random.Random(3), tilt={}).share == plain  # no read: the same samples, the same figure
    read = strength.win_chance(view, 400, random.Random(3), tilt={cutter: 0.5}).share
    assert read < plain - 0.02, (read, plain)


def test_level_eight_still_decides_from_its_view_alone():
    """The read uses the view only: a JSON-equal copy gives the same move for the same seed."""
    import json
    hand = _hand(1)
    _to_corte(hand, 5)
    view = _view(hand, hand.to_act())
    twin = json.loads(json.dumps(view))
    assert bot.act(view, 8, random.Random(9)) == bot.act(twin, 8, random.Random(9))
