"""Reading a Gofo table's betting from one seat's view: what the bot (:mod:`service.games.gofo.bot`)
infers about its rivals' hands from the chips they put in, never from a card it cannot see.

Two reads, both of this hand's public record alone:

* :func:`wild` — has a rival shown that it puts chips in *without regard to its cards*?  A seat that
  entered blind did (it had not looked), and so did a mano who opened large: mano opens before
  looking, so an opening is always a bet made without cards, and its size says how freely that seat
  bets.  Against such a table a bet says little about a hand.
* :func:`tilts` — otherwise a bet is read as strength: the rival who made the bet in force holds more
  than a random hand (:data:`BETTOR_TILT`), and when the seat itself bets, the rivals who would call
  it do too (:data:`CALLER_TILT`).  A tilt weighs each sampled deal by how strong the rival's hand
  ends (:func:`service.games.gofo.strength.win_chance`).

Why and how much: ``docs/bots.md`` (Gofo levels, *Reading the betting*).
"""

from __future__ import annotations

from typing import Any

from service.games.gofo import strength

#: How far the bettor of the bet in force is read as strong (a sample weighs ``exp(t × (value − 20))``).
BETTOR_TILT = 0.1
#: How far the rivals who would answer the seat's own bet are read as strong.
CALLER_TILT = 0.2
#: An opening above this share of the largest allowed (and above :data:`PLAIN_OPENING`) is read as wild.
WILD_OPENING_SHARE = 0.2
PLAIN_OPENING = 3


def wild(view: dict[str, Any]) -> bool:
    """Whether a rival has bet without regard to its cards in this hand: entered blind (any seat
    but mano, folded since or not), or, as mano, opened more than :data:`WILD_OPENING_SHARE` of the
    largest opening allowed (the smallest front less one) and more than :data:`PLAIN_OPENING`."""
    hand = strength.hand_of(view)
    me, mano = hand["seat"], hand["mano"]
    if any(blind and s not in (me, mano) for s, blind in enumerate(hand["blind"])):
        return True  # only an entrant is ever blind (mano opened blind: his opening is read below)
    largest = min(hand["stacks"]) - 1
    opening = hand.get("opening") or 0
    return mano != me and opening > max(PLAIN_OPENING, WILD_OPENING_SHARE * largest)


def tilts(view: dict[str, Any], *, betting: bool) -> dict[int, float] | None:
    """The rivals read as strong, by seat, with how strongly (``None`` at a :func:`wild` table):
    the bettor of the bet in force (not the seat itself); with ``betting`` (the seat weighs a bet of
    its own), every rival still able to win, as one that would answer it."""
    if wild(view):
        return None
    hand = strength.hand_of(view)
    read = {s: CALLER_TILT for s in strength.rivals(view)} if betting else {}
    bet = hand.get("bet")
    if bet and bet["bettor"] != hand["seat"]:
        read[bet["bettor"]] = BETTOR_TILT
    return read or None
