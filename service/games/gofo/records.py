"""What a Gofo hand leaves behind: each discard (:class:`DiscardRecord`), each reshuffle
(:class:`Restock`), the pots as paid (:class:`PaidPot`), the hand's result (:class:`HandResult`) and
the table's record of the finished hand (:class:`HandRecord`: ``table.last_result``, one of the
ledger's ``results``); frozen, ``to_dict()`` their stored form, ``from_dict()`` reads it back.

The oldest stored records of a hand have neither the starting fronts (``stacks``) nor the
reshuffles (``reshuffles``), some have no ``reshuffles``: such a record reads with ``None`` there
and is written back without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.games.gofo.rules import Resolution


def _cards(cards: list[str] | None) -> tuple[str, ...] | None:
    return None if cards is None else tuple(cards)


@dataclass(frozen=True, slots=True)
class DiscardRecord:
    """One discard: in speaking ``round``, ``seat`` threw ``count`` cards, ``cards`` when they were
    shown (``None``: thrown face down at a tabletop table); ``kept``: it kept them face up to its right."""

    round: int
    seat: int
    count: int
    cards: tuple[str, ...] | None
    kept: bool

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "seat": self.seat, "count": self.count,
                "cards": None if self.cards is None else list(self.cards), "kept": self.kept}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DiscardRecord:
        return cls(data["round"], data["seat"], data["count"], _cards(data["cards"]), data["kept"])


@dataclass(frozen=True, slots=True)
class Restock:
    """One reshuffle, as the table sees it: how many cards the pile held, whether it held no folded
    or declined hand (``clean``: every card in it was thrown face up), and the seats that drew from
    the new stock it made, in the order they first drew (:mod:`service.games.gofo.observer` decides
    from it what a finished hand opens)."""

    count: int
    clean: bool
    drawers: tuple[int, ...] = ()

    def drawn_by(self, seat: int) -> Restock:
        """This reshuffle once ``seat`` has drawn from its stock too."""
        return self if seat in self.drawers else Restock(self.count, self.clean, (*self.drawers, seat))

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "clean": self.clean, "drawers": list(self.drawers)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Restock:
        return cls(data["count"], data["clean"], tuple(data["drawers"]))


@dataclass(frozen=True, slots=True)
class PaidPot:
    """A pot as the hand paid it: its chips, the seats that could win it, the seat that won it."""

    amount: int
    eligible: tuple[int, ...]
    winner: int

    def to_dict(self) -> dict[str, Any]:
        return {"amount": self.amount, "eligible": list(self.eligible), "winner": self.winner}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PaidPot:
        return cls(data["amount"], tuple(data["eligible"]), data["winner"])


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended (``reason``): its pots and who won each, what each seat was paid
    (``payouts``) and won or lost (``net``: payout less what it put in), and, by seat, the cards
    shown at the canto and their value (``None``: not shown, or no value judged)."""

    reason: Resolution
    pots: tuple[PaidPot, ...]
    payouts: tuple[int, ...]
    shown: tuple[tuple[str, ...] | None, ...]
    values: tuple[int | None, ...]
    net: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason.value, "pots": [p.to_dict() for p in self.pots],
                "payouts": list(self.payouts), "shown": [None if c is None else list(c) for c in self.shown],
                "values": list(self.values), "net": list(self.net)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandResult:
        return cls(Resolution(data["reason"]), tuple(PaidPot.from_dict(p) for p in data["pots"]),
                   tuple(data["payouts"]), tuple(_cards(c) for c in data["shown"]), tuple(data["values"]),
                   tuple(data["net"]))


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The table's record of a finished hand: its :class:`HandResult`, its number, dealer and mano,
    each seat's front when it began (``stacks``), every discard in order, the cards each seat kept to
    its right, and its reshuffles.  Stored as one object: the result's fields, then the others."""

    result: HandResult
    hand: int
    dealer: int
    mano: int
    stacks: tuple[int, ...] | None
    discards: tuple[DiscardRecord, ...]
    kept: tuple[tuple[str, ...], ...]
    reshuffles: tuple[Restock, ...] | None

    def to_dict(self) -> dict[str, Any]:
        out = self.result.to_dict()
        out["hand"], out["dealer"], out["mano"] = self.hand, self.dealer, self.mano
        if self.stacks is not None:
            out["stacks"] = list(self.stacks)
        out["discards"] = [d.to_dict() for d in self.discards]
        out["kept"] = [list(k) for k in self.kept]
        if self.reshuffles is not None:
            out["reshuffles"] = [r.to_dict() for r in self.reshuffles]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandRecord:
        stacks, reshuffles = data.get("stacks"), data.get("reshuffles")
        return cls(
            HandResult.from_dict(data), data["hand"], data["dealer"], data["mano"],
            None if stacks is None else tuple(stacks),
            tuple(DiscardRecord.from_dict(d) for d in data["discards"]), tuple(tuple(k) for k in data["kept"]),
            None if reshuffles is None else tuple(Restock.from_dict(r) for r in reshuffles),
        )
