"""What a good player would weigh now, for a Gofo seat: :func:`hint`, from the seat's view alone.

The estimates are the strongest bot's (:mod:`service.games.gofo.strength`, level 8 of
:mod:`service.games.gofo.bot`), sampled from the cards the seat has not seen, and cost what one of its
decisions costs: at a bet, ``win_chance`` is the chance level 8 weighed its move on (``suggestion``),
read from the betting as level 8 reads it and sampled until the move was clear; at a discard, the
discards level 8 weighs (:func:`service.games.gofo.strength.candidate_discards`), each on the same
:data:`DISCARD_SAMPLES` deals, and ``suggestion`` throws the best of them.  The samples are drawn
from a seed derived from the seat's view of the hand (:func:`view_seed`), so the same position gives
the seat the same answer every time, whatever lies in the cards it cannot see; each estimate comes
with the half-width of its 95 % interval (``…_margin``).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any

from service.errors import IllegalAction
from service.games.gofo import bot, strength
from service.games.gofo.actions import Discard, action_to_dict
from service.games.gofo.cards import DECK

#: Deals sampled for the chance to win where level 8's move weighed none (it looks first; level 8
#: itself samples at most ``bot.LEVELS[8].samples``), and per discard as level 8 weighs them.
WIN_SAMPLES = 100
DISCARD_SAMPLES = bot.LEVELS[max(bot.LEVELS)].discard_samples
_BETS = ("enter", "raise", "refiche", "ver", "corta")
#: A 95 % interval is the estimate ± this many standard errors.
Z95 = 1.96


def view_seed(seat_view: dict[str, Any]) -> random.Random:
    """The hint's random source: seeded from the SHA-256 of the seat's view of the hand (canonical
    JSON).  Only what the seat sees goes in, so a hidden card can change nothing; no entropy."""
    canonical = json.dumps(seat_view.get("hand"), sort_keys=True, separators=(",", ":"))
    return random.Random(int.from_bytes(hashlib.sha256(canonical.encode()).digest(), "big"))


def _share_margin(share: float, samples: float) -> float:
    """The 95 % half-width of a share estimated from ``samples`` (normal approximation, its variance
    at least ``1 / samples`` as in the sampling's stopping rule: 0 wins of 40 is not a certainty);
    0 when nothing was sampled (the figure is exact)."""
    return round(Z95 * math.sqrt(max(share * (1.0 - share), 1.0 / samples) / samples), 4) if samples else 0.0


def hint(seat_view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """For the seat to act: ``value`` (its hand's value now, ``null`` until it sees five cards),
    ``discards`` (at a discard: the throws level 8 weighs, each with its ``expected_value`` after the
    draws and its ``improve`` chance, best first), ``bet`` (where chips are at stake: ``to_call``,
    ``pot``, ``pot_odds`` — what calling costs over the pot after calling — and ``win_chance``) and
    ``suggestion`` (level 8's move; at a discard, the best throw listed).  Anywhere else:
    ``IllegalAction`` ``hint_unavailable``.  Each estimate has its 95 % half-width: ``win_chance_margin``, ``expected_value_margin``,
    ``improve_margin``.  ``rng``: the samples' source (:func:`view_seed` unless given)."""
    rng = rng or view_seed(seat_view)
    hand = seat_view.get("hand")
    legal = {a["type"]: a for a in (hand or {}).get("legal_actions") or []}
    if hand is None or hand.get("to_act") != hand.get("seat") or not (legal.keys() - {"look", "muck", "declare"}) \
            or hand.get("mode") != "dealt":
        raise IllegalAction("a hint is given to the seat to act in a hand dealt by the referee",
                            code="hint_unavailable")
    mine = strength.my_cards(seat_view)
    answer: dict[str, Any] = {
        "phase": hand["phase"], "cards": mine,
        "value": strength.value(mine) if len(mine) == 5 else None,
        "discards": None, "bet": None,
    }
    if "discard" in legal:
        answer["discards"] = _discards(seat_view, legal["discard"], rng)
        answer["suggestion"] = action_to_dict(Discard(tuple(answer["discards"][0]["cards"])))
        return answer
    decision = bot.decide(seat_view, max(bot.LEVELS), rng)
    if legal.keys() & set(_BETS):
        cost, pot = strength.to_call(seat_view), strength.pot(seat_view)
        chance = decision.chance
        if chance is None:  # level 8 looks at its cards before it weighs anything: sample the hand as it stands
            chance = strength.win_chance(seat_view, WIN_SAMPLES, rng)
        answer["bet"] = {
            "to_call": cost, "pot": pot,
            "pot_odds": round(cost / (pot + cost), 4) if cost else 0.0,
            "win_chance": round(chance.share, 4), "win_chance_margin": _share_margin(chance.share, chance.samples),
            "rivals": len(strength.rivals(seat_view)),
        }
    answer["suggestion"] = action_to_dict(decision.action)
    return answer


def _discards(seat_view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    cards = list(legal.get("cards") or [])
    order = {c: i for i, c in enumerate(DECK)}
    throws = [t for t in strength.candidate_discards(cards) if len(t) <= legal["max"]]
    outcomes = strength.discard_outcomes(seat_view, throws, DISCARD_SAMPLES, rng)
    out = [{"cards": list(throw),
            "expected_value": round(o.expected, 2),
            "expected_value_margin": round(Z95 * o.spread / math.sqrt(o.samples), 2) if o.samples else 0.0,
            "improve": round(o.improve, 4), "improve_margin": _share_margin(o.improve, o.samples)}
           for throw, o in zip(throws, outcomes)]
    out.sort(key=lambda d: (-d["expected_value"], len(d["cards"]), [order[c] for c in d["cards"]]))
    return out
