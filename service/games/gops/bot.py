"""The Gops seat the referee plays: its decisions, from its seat's view and a random source only.

Every function here takes ``seat_view``, exactly what a client of the seat gets
(:func:`service.games.gops.observer.view` for that seat: every hand — spent bids are public —,
the prizes in the middle unless hidden from the seat, the carried pot, the rules, the seat's legal
actions), and nothing about the game beyond it: a bot never knows more than its seat.

**The levels** (:data:`LEVELS`; 8 the strongest; ``docs/bots.md`` says what each rule does and
where it applies).  Each level is one *rule* for its bid mix — ``random``, ``quantile``
(:func:`service.games.gops.heuristics.quantile_mix`, every variant) or ``solver`` (the two-seat
equilibrium of :mod:`service.games.gops.solver` with the level's lookups, for two seats
bidding one card for one prize; elsewhere the ``quantile`` rule) — with a share of *noise*
spread evenly over every legal bid.

A decision looks values up (:mod:`service.games.gops.values`) and solves one small matrix game: it
searches nothing, so it costs about what a move costs (``docs/bots.md``, Speed).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from service.games.gops import heuristics, solver
from service.games.gops.heuristics import Bid


@dataclass(frozen=True)
class Level:
    """What one level does: its rule (``random``, ``quantile`` or ``solver``), the share of its mix
    spread evenly over every legal bid (``noise``), and for the ``solver`` rule the hands whose
    values it looks up exactly (``exact_cards``: its decisions with one card more are exact) and
    how it values larger ones (``fitted``: the shipped estimate, else as if both bid at random);
    and a line for people."""

    level: int
    rule: str
    noise: float
    exact_cards: int
    fitted: bool
    summary: str


#: Level 1..8 (``LEVELS[level - 1]``).  Level 8 looks up everything the solver ships.
LEVELS: tuple[Level, ...] = (
    Level(1, "random", 0.0, 0, False, "every legal bid equally likely; a random prize when choosing"),
    Level(2, "quantile", 0.5, 0, False, "the stake's rank among the prizes to come, half the time a random bid"),
    Level(3, "quantile", 0.25, 0, False,
          "the stake's rank among the prizes to come, a quarter of the time a random bid"),
    Level(4, "quantile", 0.0, 0, False, "the stake's rank among the prizes to come, against a model of the rivals"),
    Level(5, "solver", 0.05, 1, False,
          "the equilibrium, exact in the last 2 rounds, before them as if both bid at random; "
          "a twentieth of the time a random bid"),
    Level(6, "solver", 0.0, 3, False,
          "the equilibrium, exact in the last 4 rounds, before them as if both bid at random"),
    Level(7, "solver", 0.0, 6, False,
          "the equilibrium, exact in the last 7 rounds, before them as if both bid at random"),
    Level(8, "solver", 0.0, 6, True,
          "the equilibrium, exact in the last 7 rounds, before them valued by the fitted estimate"),
)

def level_of(level: int) -> Level:
    """The table entry of ``level`` (1..8); ``ValueError`` for any other."""
    if not isinstance(level, int) or not 1 <= level <= len(LEVELS):
        raise ValueError(f"a bot's level is between 1 and {len(LEVELS)}, not {level!r}")
    return LEVELS[level - 1]


# ---------------------------------------------------------------- the API the referee calls


def policy(seat_view: dict[str, Any], level: int) -> list[tuple[Bid, float]]:
    """The level's mix over the seat's bids in the commit phase: ``[(cards, probability), ...]``,
    each bid's cards in increasing order, bids of probability 0 left out, the probabilities
    summing to 1.  ``ValueError`` when the seat has no bid to make."""
    spec = level_of(level)
    hand, k = heuristics.commit_hand(seat_view)
    if spec.rule == "random":
        base = heuristics.uniform_mix(hand, k)
    elif spec.rule == "solver" and solver_applies(seat_view):
        base = solver_mix(seat_view, spec.exact_cards, spec.fitted)
    else:
        base = heuristics.quantile_mix(seat_view)
    mix = Counter({bid: (1.0 - spec.noise) * p for bid, p in base.items()})
    if spec.noise:
        for bid, p in heuristics.uniform_mix(hand, k).items():
            mix[bid] += spec.noise * p
    total = sum(mix.values())
    return [(bid, p / total) for bid, p in sorted(mix.items()) if p > 1e-12]


def bid(seat_view: dict[str, Any], level: int, rng: random.Random) -> Bid:
    """The cards the seat bids this round (the commit phase): one draw from :func:`policy`."""
    bids, weights = zip(*policy(seat_view, level))
    return rng.choices(bids, weights)[0]


def choose(seat_view: dict[str, Any], level: int, rng: random.Random) -> int:
    """The prize the seat takes from the open row (the choose phase): level 1 a random one, every
    other level the highest."""
    spec = level_of(level)
    legal = next((a for a in seat_view["legal_actions"] if a["type"] == "choose_prize"), None)
    if legal is None:
        raise ValueError("the seat has no prize to choose")
    return rng.choice(legal["ranks"]) if spec.rule == "random" else max(legal["ranks"])


# ---------------------------------------------------------------- the rules of the levels


def solver_applies(seat_view: dict[str, Any]) -> bool:
    """Two seats in the game, one card a bid, one prize in the middle: the ``solver`` rule."""
    rules = seat_view["rules"]
    return (rules["players"] == 2 and rules["bid_cards"] == 1 and rules["open_prizes"] == 1
            and not seat_view["forfeited"])


def solver_mix(seat_view: dict[str, Any], exact_cards: int, fitted: bool) -> dict[Bid, float]:
    """The solver's equilibrium mix in the seat's position (:func:`service.games.gops.solver.position_of`)."""
    decision = solver.solve(solver.position_of(seat_view), exact_cards=exact_cards, fitted=fitted)
    return {(card,): p for card, p in decision.mix.items()}
