"""The Gofo seat the referee plays: :func:`act`, from its seat's view and a random source only.

The referee (:mod:`service.games.gofo.referee`) calls :func:`act` with exactly the view a client of
that seat gets (:func:`service.games.gofo.observer.record_view`, its legal actions included) whenever
the seat is to act; the answer is always one of those legal actions.  Nothing else is read: two
tables that differ only in cards the seat cannot see give the same decision for the same ``rng``.

How a level decides (:data:`LEVELS`, one row per level):

* **the chance to win** — :func:`service.games.gofo.strength.win_chance` over ``samples`` sampled
  deals of the cards the seat has not seen, plus a normal error of ``noise``;
* **entering** — look first, then enter (seen) when the chance is at least ``enter`` × a fair
  share (1 / the seats that can still win), else decline;
* **raising the opening, refiche** — when the chance is at least ``raise_share`` × a fair share,
  raise by ``bet_size`` × the pot (within the legal range), else pass;
* **speaking** — cut (corta ``bet_size`` × the pot) when the chance with the one discard a corte
  leaves is at least ``cut_share`` × a fair share, else voy;
* **answering a bet** — ver when the chance is at least the pot odds (what it costs / the pot
  after calling) × ``call_margin``, else no ver;
* **discarding** — ``discard_samples`` > 0: the discard among
  :func:`service.games.gofo.strength.candidate_discards` with the best expected final value
  (that many samples each); 0: keep the best suit and throw the rest;
* **opening** — mano opens a tenth of the largest opening allowed (at least 1);
* **a new caja** (inauguration chosen) — the smallest front offered.

Level 1 plays a uniformly random legal move (a random amount, a random discard).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from service.games.gofo import strength
from service.games.gofo.actions import (
    Action, Corta, Declare, Decline, Discard, Enter, Inaugurate, Look, Muck, NoVer, Open, Pass, Raise,
    Refiche, Show, Ver, Voy,
)
from service.games.gofo.cards import DECK


@dataclass(frozen=True)
class Level:
    """What one level does (module docstring): ``random`` plays any legal move; otherwise the
    chance to win is sampled ``samples`` times with a normal error of ``noise``, and the other
    fields are the thresholds and sizes it plays by."""

    random: bool = False
    samples: int = 0
    noise: float = 0.0
    discard_samples: int = 0
    enter: float = 1.0
    raise_share: float = 1.8
    cut_share: float = 1.5
    call_margin: float = 1.0
    bet_size: float = 0.5


#: The levels, 1 (weakest) to 8 (strongest).
LEVELS: dict[int, Level] = {
    1: Level(random=True),
    2: Level(samples=6, noise=0.25, enter=0.6, raise_share=9.0, cut_share=9.0, call_margin=0.6),
    3: Level(samples=16, noise=0.15, enter=0.7, raise_share=2.4, cut_share=2.0, call_margin=0.8),
    4: Level(samples=30, noise=0.10, enter=0.8, raise_share=2.2, cut_share=1.8, call_margin=0.9),
    5: Level(samples=60, noise=0.07, discard_samples=30, enter=0.85, raise_share=2.0, cut_share=1.7),
    6: Level(samples=120, noise=0.04, discard_samples=60, enter=0.9, raise_share=1.9, cut_share=1.6),
    7: Level(samples=200, noise=0.02, discard_samples=100, enter=0.9, raise_share=1.8, cut_share=1.5),
    8: Level(samples=400, noise=0.0, discard_samples=150, enter=0.95, raise_share=1.8, cut_share=1.5),
}


def act(seat_view: dict[str, Any], level: int, rng: random.Random) -> Action:
    """The move the seat makes now, at ``level`` (1–8), from ``seat_view`` and ``rng`` alone."""
    rule = LEVELS[level]
    offered = _legal(seat_view)
    legal = {a["type"]: a for a in offered}
    if "inaugurate" in legal:
        fronts = sorted(legal["inaugurate"]["fronts"])
        return Inaugurate(rng.choice(fronts) if rule.random else fronts[0])
    if not legal:
        raise ValueError("the seat has nothing to do now")
    if rule.random:
        return _random_move(offered, rng)
    if "look" in legal and "show" not in legal:
        return Look()  # every decision is better made with the cards in view
    if "open" in legal:
        lo, hi = legal["open"]["min"], legal["open"]["max"]
        return Open(max(lo, min(hi, round(hi / 10))))
    if "enter" in legal:
        chance, share = _chance(seat_view, rule, rng)
        return Enter(blind=False) if chance >= rule.enter * share else Decline()
    if "ver" in legal:
        cost = strength.to_call(seat_view)
        chance, _share = _chance(seat_view, rule, rng)
        odds = cost / (strength.pot(seat_view) + cost) if cost else 0.0
        return Ver() if chance >= odds * rule.call_margin else NoVer()
    for kind, make in (("raise", Raise), ("refiche", Refiche)):
        if kind in legal:
            chance, share = _chance(seat_view, rule, rng)
            if chance >= min(0.95, rule.raise_share * share):
                return make(_amount(legal[kind], strength.pot(seat_view), chance, rule))
            return Pass()
    if "corta" in legal:
        chance, share = _chance(seat_view, rule, rng, draws=1)
        if chance >= min(0.9, rule.cut_share * share):
            return Corta(_amount(legal["corta"], strength.pot(seat_view), chance, rule))
        return Voy()
    if "discard" in legal:
        return Discard(_discard(seat_view, legal["discard"], rule, rng))
    return _canto(seat_view, legal)


def _legal(seat_view: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's legal actions: the hand's, or between hands the front of a new caja to choose."""
    hand = seat_view.get("hand")
    if hand is not None:
        return list(hand.get("legal_actions") or [])
    table = seat_view["table"]
    if table.get("inaugurations_pending"):  # the referee asks only the seat to act: the first pending
        return [{"type": "inaugurate", "fronts": table["inauguration_fronts"]}]
    return []


def _chance(seat_view: dict[str, Any], rule: Level, rng: random.Random,
            draws: int | None = None) -> tuple[float, float]:
    """The estimated chance to win (sampled, with the level's error) and a fair share of it."""
    contenders = 1 + len(strength.rivals(seat_view))
    chance = strength.win_chance(seat_view, rule.samples, rng, draws=draws)
    if rule.noise:
        chance += rng.gauss(0.0, rule.noise)
    return min(1.0, max(0.0, chance)), 1.0 / contenders


def _amount(legal: dict[str, Any], pot: int, chance: float, rule: Level) -> int:
    """A bet of ``bet_size`` × the pot, more with a better chance, within the legal range."""
    lo, hi = legal["min"], legal["max"]
    wanted = round(max(1, pot) * rule.bet_size * (0.5 + chance))
    return max(lo, min(hi, wanted))


def _discard(seat_view: dict[str, Any], legal: dict[str, Any], rule: Level, rng: random.Random) -> tuple[str, ...]:
    """The cards to throw (at most ``legal["max"]``, from the seat's hand)."""
    cards = list(legal.get("cards") or strength.my_cards(seat_view))
    most = legal["max"]
    if rule.discard_samples:
        options = [t for t in strength.candidate_discards(cards) if len(t) <= most]
        outcomes = strength.discard_outcomes(seat_view, options, rule.discard_samples, rng)
        return max(zip(options, outcomes), key=lambda pair: pair[1][0])[0]
    keep = set(strength.greedy_keep(cards))
    throw = sorted((c for c in cards if c not in keep), key=lambda c: (strength.value([c]), DECK.index(c)))
    return tuple(throw[:most])


def _random_move(offered: list[dict[str, Any]], rng: random.Random) -> Action:
    """Level 1: any legal move, uniformly (an amount uniformly in its range, a random discard)."""
    choices: list[Action] = []
    for bounds in offered:
        kind = bounds["type"]
        if kind == "look":
            choices.append(Look())
        elif kind == "enter":
            choices.append(Enter(blind=bool(bounds.get("blind"))))
        elif kind in ("open", "raise", "refiche", "corta"):
            make = {"open": Open, "raise": Raise, "refiche": Refiche, "corta": Corta}[kind]
            choices.append(make(rng.randint(bounds["min"], bounds["max"])))
        elif kind == "discard":
            cards = list(bounds.get("cards") or [])
            count = rng.randint(0, min(bounds["max"], len(cards)))
            choices.append(Discard(tuple(rng.sample(cards, count))))
        elif kind in ("decline", "pass", "ver", "no_ver", "voy"):
            choices.append({"decline": Decline, "pass": Pass, "ver": Ver, "no_ver": NoVer, "voy": Voy}[kind]())
    if not choices:
        return _canto({}, {a["type"]: a for a in offered})
    return rng.choice(choices)


def _canto(seat_view: dict[str, Any], legal: dict[str, dict[str, Any]]) -> Action:
    """The tabletop canto (a bot never sits at a tabletop table; answered all the same): show the
    five cards when the view has them, else concede."""
    cards = (seat_view.get("hand") or {}).get("my_cards") or []
    if "show" in legal and len(cards) == 5:
        return Show(tuple(cards))
    if "muck" in legal:
        return Muck()
    if "declare" in legal:
        return Declare(legal["declare"]["min"])
    raise ValueError(f"no move for the seat among {sorted(legal)}")
