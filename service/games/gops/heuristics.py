"""The Gops bot's rules that need no solver: the quantile rule and the random-play estimate.

Both work for every variant (any number of seats, multi-card bids, open prize rows, hidden
prizes) and read nothing but the seat's view (:func:`service.games.gops.observer.view` for that
seat).  :mod:`service.games.gops.bot` plays them at its levels; :func:`service.games.gops.solver.hint`
uses them where the solver does not apply.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from service.games.gops.prizes import round_winners
from service.games.gops.rules import Resolution

Bid = tuple[int, ...]

#: The quantile rule's spread: the weight of its target bid and of each neighbour (weaker, stronger).
TARGET_WEIGHT, NEIGHBOUR_WEIGHT = 0.6, 0.2


def uniform_mix(hand: Sequence[int], k: int) -> dict[Bid, float]:
    """Every ``k``-card bid of ``hand`` equally likely."""
    bids = list(itertools.combinations(sorted(hand), k))
    return {b: 1.0 / len(bids) for b in bids}


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
    hand, k = commit_hand(seat_view)
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
    resolution = Resolution(rules["resolution"])

    def score(joint: dict[int, int], weight: float) -> None:
        nonlocal decided
        winners = round_winners(joint, resolution)
        if len(winners) > 1 and rules["open_prizes"] > 1:  # a choice cannot be split: nobody takes it
            winners = []
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


def commit_hand(seat_view: dict[str, Any]) -> tuple[list[int], int]:
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
