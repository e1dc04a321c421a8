"""The Gops seat the referee plays: its decisions, from its seat's view and a random source only.

Every function here takes ``seat_view``, exactly what a client of the seat gets
(:func:`service.games.gops.observer.view` for that seat: every hand — spent bids are public —,
the prizes in the middle unless hidden from the seat, the carried pot, the rules, the seat's legal
actions), and nothing about the game beyond it: a bot never knows more than its seat.

**The levels** (:data:`LEVELS`; 8 the strongest).  Each level is one *rule* for its bid mix, with a
share of *noise* (that share of the mix spread evenly over every legal bid):

* ``random`` — every legal bid equally likely;
* ``quantile`` — the stake's rank among the prizes still to come picks the bid of the same rank
  in the hand, adjusted against a model of the rivals (:func:`quantile_mix`); works for every
  variant;
* ``solver`` — the two-seat equilibrium of :mod:`service.games.gops.solver` with the level's exact
  horizon (``exact_cards``: exact with at most ``exact_cards + 1`` cards left, the later rounds
  estimated before that).  It applies to two seats bidding one card for one prize in the middle:
  exactly where :func:`service.games.gops.solver.covers` says so, as an approximation otherwise (a
  fixed prize order is treated as shuffled; under ``dealer_sees_prize`` the dealer bids as if
  both seats saw the prize, the other seat as if neither did).  Elsewhere (three or more seats,
  multi-card bids, open prize rows) a ``solver`` level plays the ``quantile`` rule with its noise.

In the choose phase (open prizes) level 1 takes a random prize from the row, every other level
the highest.

The solver (numpy, scipy) is imported by the first decision that needs it, never at import time.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Bid = tuple[int, ...]


@dataclass(frozen=True)
class Level:
    """What one level does: its rule (``random``, ``quantile`` or ``solver``), the share of its mix
    spread evenly over every legal bid (``noise``), the solver's exact horizon (``exact_cards``,
    the ``solver`` rule only) and a line for people."""

    level: int
    rule: str
    noise: float
    exact_cards: int
    summary: str


#: Level 1..8 (``LEVELS[level - 1]``).  Level 8's horizon is the solver's ``EXACT_CARDS``.
LEVELS: tuple[Level, ...] = (
    Level(1, "random", 0.0, 0, "every legal bid equally likely; a random prize when choosing"),
    Level(2, "quantile", 0.5, 0, "the stake's rank among the prizes to come, half the time a random bid"),
    Level(3, "quantile", 0.25, 0, "the stake's rank among the prizes to come, a quarter of the time a random bid"),
    Level(4, "quantile", 0.0, 0, "the stake's rank among the prizes to come, against a model of the rivals"),
    Level(5, "solver", 0.05, 1, "the equilibrium, exact in the last 2 rounds, a twentieth of the time a random bid"),
    Level(6, "solver", 0.0, 2, "the equilibrium, exact in the last 3 rounds"),
    Level(7, "solver", 0.0, 3, "the equilibrium, exact in the last 4 rounds"),
    Level(8, "solver", 0.0, 4, "the equilibrium, exact in the last 5 rounds"),
)

#: The quantile rule's spread: the weight of its target bid and of each neighbour (weaker, stronger).
TARGET_WEIGHT, NEIGHBOUR_WEIGHT = 0.6, 0.2


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
    hand, k = _commit(seat_view)
    if spec.rule == "random":
        base = uniform_mix(hand, k)
    elif spec.rule == "solver" and solver_applies(seat_view):
        base = solver_mix(seat_view, spec.exact_cards)
    else:
        base = quantile_mix(seat_view)
    mix = Counter({bid: (1.0 - spec.noise) * p for bid, p in base.items()})
    if spec.noise:
        for bid, p in uniform_mix(hand, k).items():
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


def estimated_value(seat_view: dict[str, Any]) -> float:
    """What the rest of the game is worth to the seat, estimated, from this decision on.

    Two seats: its points minus its rival's.  Where the solver applies (:func:`solver_applies`),
    the value of this round's matrix game of :func:`service.games.gops.solver.solve` (exact only in
    the positions the solver covers, and only with few cards left); otherwise, as if every seat bid
    uniformly at random from now on (:func:`random_play_value`).  Three or more seats: the seat's
    own expected points, as if every seat bid uniformly at random from now on."""
    if solver_applies(seat_view):
        from service.games.gops import solver

        return solver.solve(solver.position_of(seat_view)).value
    return random_play_value(seat_view)


# ---------------------------------------------------------------- the rules of the levels


def uniform_mix(hand: Sequence[int], k: int) -> dict[Bid, float]:
    """Every ``k``-card bid of ``hand`` equally likely."""
    bids = list(itertools.combinations(sorted(hand), k))
    return {b: 1.0 / len(bids) for b in bids}


def solver_applies(seat_view: dict[str, Any]) -> bool:
    """Two seats in the game, one card a bid, one prize in the middle: the ``solver`` rule."""
    rules = seat_view["rules"]
    return (rules["players"] == 2 and rules["bid_cards"] == 1 and rules["open_prizes"] == 1
            and not seat_view["forfeited"])


def solver_mix(seat_view: dict[str, Any], exact_cards: int) -> dict[Bid, float]:
    """The solver's equilibrium mix in the seat's position (:func:`service.games.gops.solver.position_of`)."""
    from service.games.gops import solver

    decision = solver.solve(solver.position_of(seat_view), exact_cards=exact_cards)
    return {(card,): p for card, p in decision.mix.items()}


def quantile_mix(seat_view: dict[str, Any]) -> dict[Bid, float]:
    """The quantile rule, for every variant.

    1. The stake's rank among the prizes still to come, ``q`` in [0, 1] (:func:`stake_quantile`).
    2. The seat's bids, weakest first, are the runs of ``bid_cards`` consecutive cards of its sorted
       hand (one card a bid: each card); the *target* is the one at the same rank, ``q``.
    3. The rivals are modelled as playing step 2 with their own (public) hands.  Of the target, the
       next weaker bid and (when ``q`` is at least the middle) the next stronger one, the weakest
       that beats every rival's modelled bid is taken; if none does and ``q`` is below the middle,
       the round is given up with the weakest bid of all.
    4. The mix: the chosen bid with weight 0.6, each neighbour 0.2 (renormalised at the ends).
    """
    seat = seat_view["seat"]
    hand, k = _commit(seat_view)
    q = stake_quantile(seat_view)
    runs = _runs(hand, k)
    target = round(q * (len(runs) - 1))
    rivals = [s for s in range(len(seat_view["hands"])) if s != seat and str(s) not in seat_view["forfeited"]]
    modelled = [sum(_target_run(seat_view["hands"][s], k, q)) for s in rivals if len(seat_view["hands"][s]) >= k]
    if modelled:
        strongest = max(modelled)
        reach = (target - 1, target, target + 1) if q >= 0.5 else (target - 1, target)
        beating = [t for t in reach if 0 <= t < len(runs) and sum(runs[t]) > strongest]
        if beating:
            target = min(beating)
        elif q < 0.5:
            target = 0
    weights = {target: TARGET_WEIGHT, target - 1: NEIGHBOUR_WEIGHT, target + 1: NEIGHBOUR_WEIGHT}
    kept = {runs[t]: w for t, w in weights.items() if 0 <= t < len(runs)}
    total = sum(kept.values())
    return {b: w / total for b, w in kept.items()}


def stake_quantile(seat_view: dict[str, Any]) -> float:
    """The stake's rank among the prizes still to come, from 0 (below all) to 1 (above all; also
    when none is left to come); a tie counts half.

    One prize in the middle: the stake is that prize and the carried pot (a prize hidden from the
    seat counts as the mean of the prizes it has not seen); the prizes to come are those not yet
    seen.  Open prizes: the stake is the best prize of the row plus, for each carried round, the
    row's mean (one more pick each); the prizes to come are the rest of the row and those not yet
    seen."""
    rules = seat_view["rules"]
    seen = {r for r in seat_view["turned"] if r is not None}
    unseen = [r for r in range(1, rules["ranks"] + 1) if r not in seen]
    row = [r for r in seat_view["row"] if r is not None]
    if rules["open_prizes"] == 1:
        prize = row[0] if row else (sum(unseen) / len(unseen) if unseen else 0.0)
        stake, later = prize + sum(seat_view["carry"]), unseen
    elif row:
        best = max(row)
        stake = best + seat_view["carried_rounds"] * sum(row) / len(row)
        later = sorted(row)[:-1] + unseen
    else:
        return 0.5
    if not later:
        return 1.0
    below = sum(1 for p in later if p < stake) + 0.5 * sum(1 for p in later if p == stake)
    return below / len(later)


def random_play_value(seat_view: dict[str, Any]) -> float:
    """The rest of the game to the seat if every seat in it bid uniformly at random from now on.

    The points still to be played for are the carried pot plus, for each round left, a prize of
    the mean value (one prize in the middle: the prize shown counts as itself).  Each round's
    stake is shared as random bids share it (:func:`random_play_shares`); with ``carryover`` a
    stake nobody wins goes on to a later winner, so the shares are scaled to the rounds that have
    one.  Two seats: the seat's share minus its rival's; three or more: the seat's share."""
    rules = seat_view["rules"]
    seat = seat_view["seat"]
    k = rules["bid_cards"]
    rounds_left = len(seat_view["hands"][seat]) // k
    seen = {r for r in seat_view["turned"] if r is not None}
    unseen = [r for r in range(1, rules["ranks"] + 1) if r not in seen]
    row = [r for r in seat_view["row"] if r is not None]
    mean = sum(unseen + row) / len(unseen + row) if unseen or row else 0.0
    if rules["open_prizes"] == 1 and row:
        later_mean = sum(unseen) / len(unseen) if unseen else 0.0
        at_stake = row[0] + later_mean * max(0, rounds_left - 1)
    else:
        at_stake = mean * rounds_left
    at_stake += sum(seat_view["carry"])
    shares, decided = random_play_shares(seat_view)
    if rules["unclaimed"] == "carryover" and decided > 0:
        shares = {s: x / decided for s, x in shares.items()}
    if rules["players"] == 2 and len(shares) == 2:
        rival = next(s for s in shares if s != seat)
        return at_stake * (shares[seat] - shares[rival])
    return at_stake * shares.get(seat, 0.0)


#: Joint bids :func:`random_play_shares` enumerates before it samples instead.
ENUMERATION_LIMIT = 50_000
#: Samples it draws then (from a fixed seed: the same view gives the same estimate).
SAMPLES = 4_000


def random_play_shares(seat_view: dict[str, Any]) -> tuple[dict[int, float], float]:
    """Each seat's expected share of one round's stake when every seat in the game bids uniformly
    at random from its hand, and the chance that the round has a winner, under the rules' tie
    resolution (open prizes: a tie takes nothing).  Exact by enumeration of the bids' totals when
    there are at most :data:`ENUMERATION_LIMIT` joint totals, else from :data:`SAMPLES` draws."""
    rules = seat_view["rules"]
    k = rules["bid_cards"]
    seats = [s for s in range(rules["players"]) if str(s) not in seat_view["forfeited"]
             and len(seat_view["hands"][s]) >= k]
    totals = {s: Counter(sum(b) for b in itertools.combinations(seat_view["hands"][s], k)) for s in seats}
    shares = dict.fromkeys(seats, 0.0)
    decided = 0.0

    def score(joint: dict[int, int], weight: float) -> None:
        nonlocal decided
        winners = _winners(joint, rules["resolution"], rules["open_prizes"] > 1)
        for s in winners:
            shares[s] += weight / len(winners)
        if winners:
            decided += weight

    joint_count = 1
    for s in seats:
        joint_count *= len(totals[s])
    if joint_count <= ENUMERATION_LIMIT:
        masses = {s: sum(c.values()) for s, c in totals.items()}
        for combo in itertools.product(*(list(totals[s].items()) for s in seats)):
            weight = 1.0
            for s, (_, count) in zip(seats, combo):
                weight *= count / masses[s]
            score({s: total for s, (total, _) in zip(seats, combo)}, weight)
    else:
        rng = random.Random(0)
        hands = {s: list(seat_view["hands"][s]) for s in seats}
        for _ in range(SAMPLES):
            score({s: sum(rng.sample(hands[s], k)) for s in seats}, 1.0 / SAMPLES)
    return shares, decided


# ---------------------------------------------------------------- helpers


def _commit(seat_view: dict[str, Any]) -> tuple[list[int], int]:
    """The seat's hand and the cards a bid takes, from its legal ``commit`` action."""
    legal = next((a for a in seat_view["legal_actions"] if a["type"] == "commit"), None)
    if legal is None:
        raise ValueError("the seat has no bid to make (not its commit phase)")
    return sorted(legal["hand"]), legal["cards"]


def _runs(hand: Sequence[int], k: int) -> list[Bid]:
    """The bids of ``k`` consecutive cards of the sorted hand, weakest first."""
    cards = sorted(hand)
    return [tuple(cards[i:i + k]) for i in range(len(cards) - k + 1)]


def _target_run(hand: Sequence[int], k: int, q: float) -> Bid:
    runs = _runs(hand, k)
    return runs[round(q * (len(runs) - 1))]


def _winners(totals: dict[int, int], resolution: str, choice: bool) -> list[int]:
    """Who wins a round with these bid totals (the engine's rule, ``prizes.PrizeRow._winners``);
    ``choice``: open prizes, where a tie takes nothing even under ``split``."""
    if resolution == "highest_unique":
        counts = Counter(totals.values())
        unique = [v for v, n in counts.items() if n == 1]
        if not unique:
            return []
        best = max(unique)
        return [s for s, v in totals.items() if v == best]
    best = max(totals.values())
    top = [s for s, v in totals.items() if v == best]
    if len(top) == 1 or (resolution == "split" and not choice):
        return top
    return []
