"""The fields a Gofo bot is measured against (``python -m bench.bots_gofo --fields``): bench strategies,
not served levels.  Each is a policy ``(seat view, rng) -> Action`` that decides from the seat's view.

* **caller**: enters seen, sees every bet, never raises or cuts, opens the minimum, keeps its best suit.
* **folder**: opens the minimum, declines, never bets, folds to every bet (no ver).
* **tight**: looks, enters only with two cards of one suit or a caballo or rey; once it holds five
  cards sees a bet only with a hand worth 22 or more, cuts half the pot with 25 or more, raises with 27.
* **loose-aggressive**: enters every hand (seen), sees every bet; half the time it may raise the
  opening, refiche or cut, it does, for a third of the range (``min + (max − min) / 3``).
* **maniac**: enters every hand, sees every bet, always makes the largest raise, refiche and cut, and
  opens the largest opening.

Every field keeps its best suit at a discard (:func:`service.games.gofo.strength.greedy_keep`).
"""

from __future__ import annotations

import random
from typing import Any, Callable

from service.games.gofo import strength
from service.games.gofo.actions import (
    Action, Corta, Decline, Discard, Enter, Look, NoVer, Open, Pass, Raise, Refiche, Ver, Voy,
)

Policy = Callable[[dict[str, Any], random.Random], Action]


def _legal(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["type"]: a for a in view["hand"]["legal_actions"]}


def _greedy_discard(legal: dict[str, Any]) -> Discard:
    cards = list(legal["cards"])
    keep = set(strength.greedy_keep(cards))
    return Discard(tuple(c for c in cards if c not in keep)[:legal["max"]])


def caller(view: dict[str, Any], rng: random.Random) -> Action:
    """Always calls: never folds, never raises or cuts."""
    legal = _legal(view)
    if "open" in legal:
        return Open(legal["open"]["min"])
    if "enter" in legal:
        return Enter(blind=False)
    if "ver" in legal:
        return Ver()
    if "pass" in legal:
        return Pass()
    if "voy" in legal:
        return Voy()
    if "discard" in legal:
        return _greedy_discard(legal["discard"])
    return Look()


def folder(view: dict[str, Any], rng: random.Random) -> Action:
    """Always folds: declines every opening, folds to every bet, never bets."""
    legal = _legal(view)
    if "open" in legal:
        return Open(legal["open"]["min"])
    if "decline" in legal:
        return Decline()
    if "no_ver" in legal:
        return NoVer()
    if "pass" in legal:
        return Pass()
    if "voy" in legal:
        return Voy()
    if "discard" in legal:
        return _greedy_discard(legal["discard"])
    return Look()


def tight(view: dict[str, Any], rng: random.Random) -> Action:
    """Plays only good cards (thresholds on the hand's value as it stands)."""
    legal = _legal(view)
    cards = strength.my_cards(view)
    worth = strength.value(cards)
    if "open" in legal:
        return Open(legal["open"]["min"])
    if "look" in legal and len(cards) < 2:
        return Look()
    if "enter" in legal:
        suited = len(cards) >= 2 and len({c[-1] for c in cards[:2]}) == 1
        high = any(c[:-1] in ("11", "12") for c in cards)
        return Enter(blind=False) if suited or high else Decline()
    if "ver" in legal:
        return Ver() if worth >= 22 else NoVer()
    pot = strength.pot(view)
    for kind, make in (("raise", Raise), ("refiche", Refiche)):
        if kind in legal:
            bounds = legal[kind]
            return make(max(bounds["min"], min(bounds["max"], pot // 2))) if worth >= 27 else Pass()
    if "corta" in legal:
        bounds = legal["corta"]
        return Corta(max(bounds["min"], min(bounds["max"], pot // 2))) if worth >= 25 else Voy()
    if "discard" in legal:
        return _greedy_discard(legal["discard"])
    return Look()


def _aggressive(share: float, frequency: float) -> Policy:
    """Enters and sees everything; with ``frequency`` bets ``share`` of the way up the legal range."""
    def decide(view: dict[str, Any], rng: random.Random) -> Action:
        legal = _legal(view)

        def amount(bounds: dict[str, Any]) -> int:
            return bounds["min"] + round((bounds["max"] - bounds["min"]) * share)

        if "open" in legal:
            return Open(amount(legal["open"]))
        if "enter" in legal:
            return Enter(blind=False)
        if "ver" in legal:
            return Ver()
        for kind, make in (("raise", Raise), ("refiche", Refiche), ("corta", Corta)):
            if kind in legal:
                if rng.random() < frequency:
                    return make(amount(legal[kind]))
                return Voy() if kind == "corta" else Pass()
        if "discard" in legal:
            return _greedy_discard(legal["discard"])
        return Look()
    return decide


loose_aggressive = _aggressive(1 / 3, 0.5)
maniac = _aggressive(1.0, 1.0)

#: The fields by name, as ``--fields`` takes them (a number there is a field of that bot level).
FIELDS: dict[str, Policy] = {
    "caller": caller, "folder": folder, "tight": tight, "loose-aggressive": loose_aggressive, "maniac": maniac,
}
