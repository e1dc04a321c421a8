"""The public events of a Gofo table: what ``Table.apply`` (and a hand's ``apply``) return, in the
order they happened.  ``to_dict()`` is each one's JSON form (``{"type": "voy", "seat": 2}``).

Cards are written as in the actions (``"3o"``, ``"12e"``); ``None`` where a card or value is not
shown (a reported hand).
"""

from __future__ import annotations

from typing import Any

from service.games.contract import Event, event
from service.games.gofo.rules import Resolution

# ------------------------------------------------------------------ the table


@event("dealer_draw")
class DealerDrawn(Event):
    """Each of ``seats`` drew one of ``cards`` (in seat order) to choose the first dealer."""

    seats: tuple[int, ...]
    cards: tuple[str, ...]


@event("dealer_draw_tie")
class DealerDrawTie(Event):
    """The highest draw was tied: ``seats`` draw again."""

    seats: tuple[int, ...]


@event("dealer_chosen")
class DealerChosen(Event):
    """The draw chose the first dealer."""

    seat: int


@event("hand_started")
class HandStarted(Event):
    """A hand began: its number, dealer, mano (first to speak) and each seat's front."""

    hand: int
    dealer: int
    mano: int
    fronts: tuple[int, ...]


@event("refill")
class Refilled(Event):
    """A seat's empty front was refilled from its behind."""

    seat: int
    amount: int


@event("new_caja")
class NewCaja(Event):
    """A seat with nothing left bought a new caja (``front`` 0: it chooses its front before the
    next hand)."""

    seat: int
    cajas: int
    front: int


@event("inauguration")
class Inaugurated(Event):
    """A seat chose the front of its new caja."""

    seat: int
    front: int


# ------------------------------------------------------------------ the deck


@event("shuffled")
class Shuffled(Event):
    """The deck was shuffled for the hand."""


@event("dealt")
class Dealt(Event):
    """A seat was dealt ``count`` cards (``dealer_buy_in``: the dealer's, when it buys in)."""

    seat: int
    count: int
    dealer_buy_in: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE, "seat": self.seat, "count": self.count}
        if self.dealer_buy_in:
            out["dealer_buy_in"] = True
        return out


@event("completed")
class Completed(Event):
    """The players' hands were completed to five cards."""

    seats: tuple[int, ...]


@event("discard_round")
class DiscardRound(Event):
    """A discard round began (``final``: the last; ``kept_right``: a discard may be kept)."""

    round: int
    final: bool
    kept_right: bool


@event("discarded")
class Discarded(Event):
    """A seat discarded ``count`` cards (``cards`` when shown; ``kept``: it kept them)."""

    round: int
    seat: int
    count: int
    cards: tuple[str, ...] | None
    kept: bool


@event("reshuffled")
class Reshuffled(Event):
    """The discards were shuffled into a new stock of ``count`` cards (``None``: reported)."""

    count: int | None


@event("looked")
class Looked(Event):
    """A seat looked at its cards."""

    seat: int


# ------------------------------------------------------------------ the chips


@event("opened")
class Opened(Event):
    """The mano opened the hand (blind) for ``amount``."""

    seat: int
    amount: int
    all_in: bool


@event("entered")
class Entered(Event):
    """A seat entered the hand, putting in ``amount`` (``blind``: without looking)."""

    seat: int
    blind: bool
    amount: int
    all_in: bool


@event("declined")
class Declined(Event):
    """A seat declined to enter the hand."""

    seat: int


@event("raise")
class Raised(Event):
    """A seat raised the opening by ``amount``, to ``level`` in all."""

    seat: int
    amount: int
    level: int
    all_in: bool


@event("refiche")
class Refiched(Event):
    """A seat raised a corte (a refiche) by ``amount``, to ``level`` in all."""

    seat: int
    amount: int
    level: int
    all_in: bool


@event("corta")
class Corte(Event):
    """A seat bet ``amount`` (a corte) in a speaking round, to ``level`` in all."""

    seat: int
    amount: int
    level: int
    all_in: bool


@event("pass")
class Passed(Event):
    """A seat passed."""

    seat: int


@event("ver")
class Saw(Event):
    """A seat saw the bet (ver), putting in ``amount``."""

    seat: int
    amount: int
    all_in: bool


@event("no_ver")
class Folded(Event):
    """A seat did not see the bet (no ver): it is out of the hand."""

    seat: int


@event("betting_closed")
class BettingClosed(Event):
    """Every bet was answered: betting is closed."""


@event("speaking_round")
class SpeakingRound(Event):
    """A speaking round began."""

    round: int


@event("voy")
class SaidVoy(Event):
    """A seat spoke without betting (voy)."""

    seat: int


# ------------------------------------------------------------------ the canto and the pots


@event("canto")
class HandsShown(Event):
    """The canto of a dealt hand: each seat's hand shown and its value (``None``: out of the hand)."""

    shown: tuple[tuple[str, ...] | None, ...]
    values: tuple[int | None, ...]


@event("canto_started")
class CantoStarted(Event):
    """The canto of a reported hand began: ``seats`` declare."""

    seats: tuple[int, ...]


@event("shown")
class Shown(Event):
    """A seat showed its cards, worth ``value``."""

    seat: int
    cards: tuple[str, ...]
    value: int


@event("declared")
class Declared(Event):
    """A seat declared its hand's points."""

    seat: int
    points: int


@event("declaration_corrected")
class DeclarationCorrected(Event):
    """A seat's declaration was corrected to ``points`` (it ``was`` another)."""

    seat: int
    points: int
    was: int | None


@event("mucked")
class Mucked(Event):
    """A seat gave up its claim in the canto."""

    seat: int


@event("pot_won")
class PotWon(Event):
    """Pot ``pot`` (of ``amount`` chips, among ``eligible``) went to ``winner``."""

    pot: int
    amount: int
    winner: int
    eligible: tuple[int, ...]


@event("hand_over")
class HandOver(Event):
    """The hand ended (``reason``) and paid each seat ``payouts``."""

    reason: Resolution
    payouts: tuple[int, ...]
