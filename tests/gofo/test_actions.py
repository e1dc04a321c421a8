"""Action <-> JSON dicts, malformed actions, illegal actions leave the state unchanged."""

from __future__ import annotations

import pytest

from service.errors import IllegalAction, InvalidAction, NotYourTurn
from service.games.gofo import action_from_dict, action_to_dict
from service.games.gofo.cards import DECK
from service.games.gofo.hand import (
    Corta, Declare, Decline, Discard, Enter, Look, NoVer, Open, Pass, Raise, Refiche, Reshuffle,
    Show, Shuffle, Ver, Voy,
)
from service.games.gofo.table import DealerDraw

from .helpers import dealt_hand

EXAMPLES = [
    (Shuffle(DECK), {"type": "shuffle", "order": list(DECK)}),
    (Reshuffle(("3o", "4o")), {"type": "reshuffle", "order": ["3o", "4o"]}),
    (Reshuffle(), {"type": "reshuffle", "order": None}),
    (DealerDraw(("3o", "12e")), {"type": "dealer_draw", "cards": ["3o", "12e"]}),
    (Open(3), {"type": "open", "amount": 3}),
    (Look(), {"type": "look"}),
    (Enter(True), {"type": "enter", "blind": True}),
    (Decline(), {"type": "decline"}),
    (Raise(4), {"type": "raise", "amount": 4}),
    (Refiche(9), {"type": "refiche", "amount": 9}),
    (Pass(), {"type": "pass"}),
    (Ver(), {"type": "ver"}),
    (NoVer(), {"type": "no_ver"}),
    (Voy(), {"type": "voy"}),
    (Corta(5), {"type": "corta", "amount": 5}),
    (Discard(("3o",)), {"type": "discard", "cards": ["3o"], "count": None}),
    (Discard(count=2), {"type": "discard", "cards": [], "count": 2}),
    (Show(("3o", "4o", "5o", "6o", "7o")), {"type": "show",
                                            "cards": ["3o", "4o", "5o", "6o", "7o"]}),
    (Declare(27), {"type": "declare", "points": 27}),
]


@pytest.mark.parametrize("action,data", EXAMPLES)
def test_round_trip(action, data) -> None:
    assert action_to_dict(action) == data
    assert action_from_dict(data) == action


def test_optional_fields_may_be_omitted() -> None:
    assert action_from_dict({"type": "discard", "count": 2}) == Discard(count=2)
    assert action_from_dict({"type": "reshuffle"}) == Reshuffle()


@pytest.mark.parametrize("bad,code", [
    ({"type": "fly"}, "unknown_action"),
    ("voy", "malformed_action"),
    ({"type": "open"}, "malformed_action"),
    ({"type": "open", "amount": "3"}, "malformed_action"),
    ({"type": "open", "amount": True}, "malformed_action"),
    ({"type": "voy", "amount": 3}, "malformed_action"),
    ({"type": "enter", "blind": "yes"}, "malformed_action"),
    ({"type": "show", "cards": "3o4o"}, "malformed_action"),
])
def test_malformed(bad, code) -> None:
    with pytest.raises(InvalidAction) as info:
        action_from_dict(bad)
    assert info.value.code == code


def test_illegal_actions_leave_state_unchanged() -> None:
    hand = dealt_hand([30] * 4)
    before = hand.to_dict()
    with pytest.raises(NotYourTurn) as info:
        hand.apply(Open(1), seat=2)
    assert info.value.code == "not_your_turn"
    with pytest.raises(IllegalAction):
        hand.apply(Open(40), seat=1)
    with pytest.raises(IllegalAction):
        hand.apply(Voy(), seat=1)
    with pytest.raises(InvalidAction):
        hand.apply(Open(1), seat=9)
    assert hand.to_dict() == before
    assert not hand.is_legal(Open(40), seat=1) and hand.is_legal(Open(29), seat=1)
