"""Gops chance: the prize order of each game and its commitment.

* A ``shuffled`` order is the referee's chance step, :class:`~service.games.gops.actions.DealPrizes`:
  :func:`deal` shuffles the ranks with :func:`service.games.entropy.source` (the OS CSPRNG in service,
  a seeded generator in tests) and draws the salt of its commitment
  ``sha256("gops-prizes-v1|<game id>|<ranks>|<salt>")`` (:func:`commit_order`), published before
  any bid; the order and salt are published when the game is over.
* ``ascending``, ``descending`` and ``explicit`` orders follow from the rules (:func:`fixed_order`),
  public from the start; a ``reported`` order is the table's, one prize at a time.

Pure: no I/O.  The state machine calls :func:`commit_order` and :func:`fixed_order`; the referee
calls :func:`deal` whenever the state needs chance (:func:`service.games.gops.referee.supply`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.games import commitments, entropy
from service.games.gops.actions import DealPrizes
from service.games.gops.rules import PrizeOrder, Rules

if TYPE_CHECKING:
    import random


def fixed_order(rules: Rules) -> list[int] | None:
    """The order the rules fix (``None``: shuffled or reported)."""
    if rules.prize_order == PrizeOrder.ASCENDING:
        return list(range(1, rules.ranks + 1))
    if rules.prize_order == PrizeOrder.DESCENDING:
        return list(range(rules.ranks, 0, -1))
    if rules.prize_order == PrizeOrder.EXPLICIT:
        return list(rules.explicit_order)
    return None


def commit_order(game_id: str, order: list[int], salt: str) -> str:
    """The published commitment of one game's prize order."""
    return commitments.prize_order_commitment(game_id, order, salt)


def deal(rules: Rules, rng: random.Random | None = None) -> DealPrizes:
    """A fresh shuffled prize order and the salt of its commitment."""
    order = list(range(1, rules.ranks + 1))
    (rng or entropy.source()).shuffle(order)
    return DealPrizes(tuple(order), commitments.new_salt())
