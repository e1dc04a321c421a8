"""The Gofo seat the referee plays: :func:`act`, from its seat's view and a random source only.

The referee (:mod:`service.games.gofo.referee`) calls :func:`act` with exactly the view a client of
that seat gets (:func:`service.games.gofo.observer.record_view`, its legal actions included) whenever
the seat is to act; the answer is always one of those legal actions.  Nothing else is read: two
tables that differ only in cards the seat cannot see give the same decision for the same ``rng``.

How a level decides, and how strong each is against the others and against the bench's fields
(``python -m bench.bots_gofo``): ``docs/bots.md`` (Gofo levels); all of a level's rule is its row
of :data:`LEVELS`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, NamedTuple

from service.games.gofo import reading, strength
from service.games.gofo.actions import (
    ACTION_TYPES, Action, Corta, Declare, Decline, Discard, Enter, Inaugurate, Look, Muck, NoVer, Open,
    Pass, Raise, Refiche, Show, Ver, Voy,
)
from service.games.gofo.cards import DECK


@dataclass(frozen=True)
class Level:
    """What one level does (``docs/bots.md``): the share of random ``mistakes``, the samples and
    ``noise`` of its chance to win, its thresholds (``entry_margin``: of the opening's odds; at a
    table read as wild, :func:`service.games.gofo.reading.wild`, the entering and calling thresholds
    times ``wild_enter`` and ``wild_call``) and bet size (the defaults: level 8's)."""

    mistakes: float = 0.0
    samples: int = 0
    noise: float = 0.0
    discard_samples: int = 0
    enter: float = 1.6
    raise_share: float = 4.0
    cut_share: float = 1.2
    call_margin: float = 1.0
    bet_size: float = 3.0
    entry_margin: float = 0.7
    reads: bool = True
    wild_enter: float = 0.5
    wild_call: float = 0.7


#: The levels, 1 (weakest) to 8 (strongest).
LEVELS: dict[int, Level] = {
    1: Level(mistakes=1.0),
    2: Level(mistakes=0.50, samples=10, noise=0.20, enter=0.6, call_margin=0.5, reads=False),
    3: Level(mistakes=0.40, samples=20, noise=0.15, enter=0.8, call_margin=0.6, reads=False),
    4: Level(mistakes=0.30, samples=30, noise=0.10, enter=1.0, call_margin=0.7, reads=False),
    5: Level(mistakes=0.22, samples=40, noise=0.07, discard_samples=20, enter=1.2, call_margin=0.8, reads=False),
    6: Level(mistakes=0.15, samples=60, noise=0.04, discard_samples=25, enter=1.4, call_margin=0.9, reads=False),
    7: Level(mistakes=0.08, samples=80, noise=0.02, discard_samples=30, enter=1.5, call_margin=0.95, reads=False),
    8: Level(mistakes=0.0, samples=100, noise=0.0, discard_samples=80),
}


class Decision(NamedTuple):
    """A move and the chance to win it was weighed on (``None`` where no chance was estimated)."""

    action: Action
    chance: strength.Chance | None = None


def act(seat_view: dict[str, Any], level: int, rng: random.Random) -> Action:
    """The move the seat makes now, at ``level`` (1–8), from ``seat_view`` and ``rng`` alone."""
    return decide(seat_view, level, rng).action


def decide(seat_view: dict[str, Any], level: int, rng: random.Random) -> Decision:
    """:func:`act`'s move with the chance to win it weighed (the hint reports level 8's)."""
    rule = LEVELS[level]
    offered = _legal(seat_view)
    legal = {a["type"]: a for a in offered}
    if not legal:
        raise ValueError("the seat has nothing to do now")
    if rule.mistakes and rng.random() < rule.mistakes:
        return Decision(_random_move(offered, rng))
    if "inaugurate" in legal:
        return Decision(Inaugurate(min(legal["inaugurate"]["fronts"])))
    if "look" in legal and "show" not in legal:
        return Decision(Look())  # every decision is better made with the cards in view
    if "open" in legal:
        lo, hi = legal["open"]["min"], legal["open"]["max"]
        return Decision(Open(max(lo, min(hi, round(hi / 10)))))
    share = 1.0 / (1 + len(strength.rivals(seat_view))) if seat_view.get("hand") else 1.0
    wild = rule.reads and reading.wild(seat_view)
    if "enter" in legal:
        needed = min(rule.enter * share, _entry_odds(seat_view, rule)) * (rule.wild_enter if wild else 1.0)
        chance = _chance(seat_view, rule, rng, needed)
        return Decision(Enter(blind=False) if chance.share >= needed else Decline(), chance)
    if "ver" in legal:
        cost = strength.to_call(seat_view)
        needed = rule.call_margin * cost / strength.showdown_pot(seat_view) if cost else 0.0
        needed *= rule.wild_call if wild else 1.0
        chance = _chance(seat_view, rule, rng, needed, tilt=_tilts(seat_view, rule, betting=False))
        return Decision(Ver() if chance.share >= needed else NoVer(), chance)
    for kind, make in (("raise", Raise), ("refiche", Refiche)):
        if kind in legal:
            needed = min(0.95, rule.raise_share * share)
            chance = _chance(seat_view, rule, rng, needed, tilt=_tilts(seat_view, rule, betting=True))
            if chance.share >= needed:
                return Decision(make(_amount(legal[kind], strength.pot(seat_view), chance.share, rule)), chance)
            return Decision(Pass(), chance)
    if "corta" in legal:
        needed = min(0.9, rule.cut_share * share)
        chance = _chance(seat_view, rule, rng, needed, draws=1, tilt=_tilts(seat_view, rule, betting=True))
        if chance.share >= needed:
            return Decision(Corta(_amount(legal["corta"], strength.pot(seat_view), chance.share, rule)), chance)
        return Decision(Voy(), chance)
    if "discard" in legal:
        return Decision(Discard(_discard(seat_view, legal["discard"], rule, rng)))
    return Decision(_canto(seat_view, legal))


def _legal(seat_view: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's legal actions: the hand's, or between hands the front of a new caja to choose."""
    hand = seat_view.get("hand")
    if hand is not None:
        return list(hand.get("legal_actions") or [])
    table = seat_view["table"]
    if table.get("inaugurations_pending"):  # the referee asks only the seat to act: the first pending
        return [{"type": "inaugurate", "fronts": table["inauguration_fronts"]}]
    return []


def _tilts(seat_view: dict[str, Any], rule: Level, *, betting: bool) -> dict[int, float] | None:
    """The rivals the level reads as strong (:func:`service.games.gofo.reading.tilts`; none below level 8)."""
    return reading.tilts(seat_view, betting=betting) if rule.reads else None


def _chance(seat_view: dict[str, Any], rule: Level, rng: random.Random, needed: float,
            draws: int | None = None, tilt: dict[int, float] | None = None) -> strength.Chance:
    """The estimated chance to win (sampled, with the level's error); sampling stops once it is
    clearly above or below ``needed``, the chance the decision asks for."""
    chance = strength.win_chance(seat_view, rule.samples, rng, draws=draws, threshold=needed, tilt=tilt)
    if not rule.noise:
        return chance
    return chance._replace(share=min(1.0, max(0.0, chance.share + rng.gauss(0.0, rule.noise))))


def _entry_odds(seat_view: dict[str, Any], rule: Level) -> float:
    """The chance at which entering pays for itself if the seats still to decide enter too, times
    the level's ``entry_margin``."""
    cost = strength.to_call(seat_view)
    hand = strength.hand_of(seat_view)
    after = sum(1 for s in strength.rivals(seat_view) if hand["status"][s] == "pending")
    final = strength.pot(seat_view) + cost * (1 + after)
    return rule.entry_margin * cost / final if final else 0.0


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
    """A mistake (every decision at level 1): any legal move, uniformly (an amount uniformly in its
    range, a random discard, a random front for a new caja)."""
    choices: list[Action] = []
    for bounds in offered:
        kind = bounds["type"]
        if kind == "look":
            choices.append(Look())
        elif kind == "inaugurate":
            choices.append(Inaugurate(rng.choice(sorted(bounds["fronts"]))))
        elif kind == "enter":
            choices.append(Enter(blind=bool(bounds.get("blind"))))
        elif kind in ("open", "raise", "refiche", "corta"):
            choices.append(ACTION_TYPES[kind](rng.randint(bounds["min"], bounds["max"])))
        elif kind == "discard":
            cards = list(bounds.get("cards") or [])
            count = rng.randint(0, min(bounds["max"], len(cards)))
            choices.append(Discard(tuple(rng.sample(cards, count))))
        elif kind in ("decline", "pass", "ver", "no_ver", "voy"):
            choices.append(ACTION_TYPES[kind]())
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
