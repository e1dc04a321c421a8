"""The hand-value function against an independent brute force on all 98,280 hands."""

from __future__ import annotations

import doctest
import itertools
from collections import Counter

import pytest

import service.games.gofo.actions
import service.games.gofo.betting
import service.games.gofo.cards
import service.games.gofo.hand
import service.games.gofo.table
import service.games.gofo.value
from service.errors import InvalidAction
from service.games.gofo import DECK, hand_value

# independent card model: (points, suit index) built from a hand-written table
POINTS = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "11": 8, "12": 9}
SUIT_OF = {"o": 0, "c": 1, "e": 2, "b": 3}


def brute_value(hand: tuple[str, ...]) -> int:
    """Best total over every set of at most four cards that all share one suit."""
    cards = [(POINTS[c[:-1]], SUIT_OF[c[-1]]) for c in hand]
    best = 0
    for size in range(1, 5):
        for combo in itertools.combinations(cards, size):
            if len({suit for _, suit in combo}) == 1:
                best = max(best, sum(p for p, _ in combo))
    return best


def test_deck_is_the_28_spanish_cards() -> None:
    assert len(DECK) == len(set(DECK)) == 28
    assert sorted({c[:-1] for c in DECK}, key=int) == ["3", "4", "5", "6", "7", "11", "12"]
    assert {c[-1] for c in DECK} == {"o", "c", "e", "b"}


def test_all_hands_against_brute_force() -> None:
    seen: Counter[int] = Counter()
    thirty: list[tuple[str, ...]] = []
    count = 0
    for hand in itertools.combinations(DECK, 5):
        v = hand_value(hand)
        assert v == brute_value(hand), hand
        seen[v] += 1
        count += 1
        if v == 30:
            thirty.append(hand)
    assert count == 98_280
    assert set(seen) == set(range(7, 31))
    # 30 only as 6, 7, caballo, rey of one suit (plus any fifth card): 4 suits × 24 fifth cards
    assert len(thirty) == 4 * 24
    for hand in thirty:
        assert any({f"6{s}", f"7{s}", f"11{s}", f"12{s}"} <= set(hand) for s in "oceb")


def test_five_of_a_suit_counts_the_four_highest() -> None:
    assert hand_value(["3b", "4b", "5b", "6b", "7b"]) == 4 + 5 + 6 + 7
    assert hand_value(["3o", "6o", "7o", "11o", "12o"]) == 30


def test_minimum_is_seven() -> None:
    assert hand_value(["3o", "4o", "3c", "3e", "3b"]) == 7


@pytest.mark.parametrize("bad", [["3o"] * 5, ["3o", "4o", "5o", "6o"], ["1o", "3o", "4o", "5o", "6o"],
                                 ["3o", "4o", "5o", "6o", "8o"]])
def test_malformed_hands_are_refused(bad: list[str]) -> None:
    with pytest.raises(InvalidAction):
        hand_value(bad)


@pytest.mark.parametrize("module", [service.games.gofo.cards, service.games.gofo.value, service.games.gofo.hand,
                                    service.games.gofo.table, service.games.gofo.actions, service.games.gofo.betting])
def test_doctests(module: object) -> None:
    failures, _ = doctest.testmod(module)  # type: ignore[arg-type]
    assert failures == 0
