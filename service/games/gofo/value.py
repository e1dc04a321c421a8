"""The value of a Gofo hand.

For each suit, add the values of that suit's cards, counting at most four of them (with five cards
of one suit, the four highest); the hand is worth its best suit.

>>> hand_value(["6e", "7e", "11e", "12e", "3o"])
30
>>> hand_value(["3o", "4o", "3c", "3e", "3b"])
7
>>> hand_value(["3e", "4e", "5e", "6e", "12e"])  # five espadas: 4 + 5 + 6 + rey
24
"""

from __future__ import annotations

from typing import Iterable

from service.errors import InvalidAction

from service.games.gofo.cards import card_suit, card_value, parse_cards

HAND_SIZE = 5
MIN_VALUE = 7
MAX_VALUE = 30


def hand_value(cards: Iterable[str]) -> int:
    """Points of a hand of five distinct cards (7..30)."""
    hand = parse_cards(cards)
    if len(hand) != HAND_SIZE:
        raise InvalidAction(f"a hand has {HAND_SIZE} cards, not {len(hand)}", code="bad_hand_size")
    by_suit: dict[str, list[int]] = {}
    for card in hand:
        by_suit.setdefault(card_suit(card), []).append(card_value(card))
    return max(sum(sorted(values, reverse=True)[:4]) for values in by_suit.values())
