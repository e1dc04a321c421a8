"""The Gofo table: seats, the chip ledger, the first-dealer draw and the sequence of hands.

A :class:`Table` is a value: :meth:`Table.apply` returns a new table and the public events.
Chance is an input: when :meth:`Table.chance_request` is not ``None`` the caller supplies the
matching chance action (seat ``None``), e.g. ``chance_action(request, secrets.SystemRandom())``.

>>> import random
>>> t = Table.new({"seats": 3, "caja": 60, "refill": 10})
>>> t.chance_request()["kind"]
'dealer_draw'
>>> rng = random.Random(7)
>>> while t.chance_request():
...     t, _ = t.apply(None, chance_action(t.chance_request(), rng))
>>> t.to_act() == t.hand.mano
True
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Iterable

from service.errors import IllegalAction, InvalidAction, InvalidOptions, WrongPhase

from .cards import RandomLike, card_value, draw_cards, new_deck_order, parse_cards, shuffled
from .hand import (
    ACTION_TYPES,
    DEALT,
    MODES,
    Action,
    HandState,
    LegalAction,
    Reshuffle,
    Shuffle,
    action_from_dict as _hand_action_from_dict,
    action_to_dict,
)


@dataclass(frozen=True)
class DealerDraw(Action):
    """Chance: the cards drawn for the first dealer, one per seat in the request's ``seats``."""

    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "dealer_draw"
    CHANCE: ClassVar[bool] = True


TABLE_ACTION_TYPES: dict[str, type[Action]] = dict(ACTION_TYPES, dealer_draw=DealerDraw)


def action_from_dict(data: Any) -> Action:
    """Parse any Gofo action dict, the table-level ``dealer_draw`` included."""
    return _hand_action_from_dict(data, {"dealer_draw": DealerDraw})


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableOptions:
    """Agreed before play. ``initial_front`` defaults to 3× the refill (the customary 2–3×);
    ``inauguration_front`` (the front of a new caja's first hand) defaults to ``initial_front``."""

    seats: int = 5
    caja: int = 100
    refill: int = 10
    initial_front: int | None = None
    inauguration_front: int | None = None
    mode: str = DEALT

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "TableOptions":
        data = dict(data or {})
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise InvalidOptions(f"unknown options: {sorted(unknown)}", code="unknown_option")
        for name, value in data.items():
            if name == "mode":
                if value not in MODES:
                    raise InvalidOptions(f"mode is one of {list(MODES)}", code="bad_mode")
            elif value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise InvalidOptions(f"{name} must be an integer", code="bad_option")
        opts = cls(**data)
        refill = opts.refill
        front = opts.initial_front if opts.initial_front is not None else 3 * refill
        inaug = opts.inauguration_front if opts.inauguration_front is not None else front
        opts = cls(opts.seats, opts.caja, refill, front, inaug, opts.mode)
        if not 2 <= opts.seats <= 6:
            raise InvalidOptions("Gofo is played by 2 to 6 players", code="bad_seat_count")
        if refill < 1 or front < 1 or inaug < 1:
            raise InvalidOptions("refill and fronts are at least 1 chip", code="bad_option")
        if max(front, inaug, refill) > opts.caja:
            raise InvalidOptions("fronts and refill must fit in a caja", code="bad_option")
        return opts

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------

@dataclass
class Table:
    """Seats ``0..n-1`` in counter-clockwise order of play, their ledger and the current hand.

    Ledger per seat: ``fronts`` (chips al frente, the resto between hands), ``behinds`` (atrás),
    ``cajas`` (cajas taken so far, the first included).
    """

    options: TableOptions
    fronts: list[int]
    behinds: list[int]
    cajas: list[int]
    dealer: int | None = None
    draw_seats: list[int] = field(default_factory=list)
    draws: list[list[Any]] = field(default_factory=list)
    hand_number: int = 0
    hand: HandState | None = None
    last_result: dict[str, Any] | None = None

    @classmethod
    def new(cls, options: TableOptions | dict[str, Any] | None = None) -> "Table":
        """A table whose first dealer is still to be drawn."""
        opts = options if isinstance(options, TableOptions) else TableOptions.from_dict(options)
        assert opts.initial_front is not None
        n = opts.seats
        return cls(options=opts, fronts=[opts.initial_front] * n,
                   behinds=[opts.caja - opts.initial_front] * n, cajas=[1] * n,
                   draw_seats=list(range(n)))

    # --- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "gofo", "options": self.options.to_dict(), "fronts": list(self.fronts),
            "behinds": list(self.behinds), "cajas": list(self.cajas), "dealer": self.dealer,
            "draw_seats": list(self.draw_seats), "draws": copy.deepcopy(self.draws),
            "hand_number": self.hand_number,
            "hand": self.hand.to_dict() if self.hand is not None else None,
            "last_result": copy.deepcopy(self.last_result),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Table":
        d = copy.deepcopy(data)
        d.pop("game", None)
        d["options"] = TableOptions.from_dict(d["options"])
        if d["hand"] is not None:
            d["hand"] = HandState.from_dict(d["hand"])
        return cls(**d)

    # --- questions -----------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.options.seats

    def to_act(self) -> int | None:
        """The seat whose turn it is, or ``None`` (chance to move: see :meth:`chance_request`)."""
        return self.hand.to_act() if self.hand is not None else None

    def chance_request(self) -> dict[str, Any] | None:
        """The chance input needed now: ``dealer_draw`` (``seats``), ``shuffle`` or ``reshuffle``
        (``cards``), or ``None``."""
        if self.dealer is None:
            return {"kind": "dealer_draw", "seats": list(self.draw_seats)}
        assert self.hand is not None
        return self.hand.chance_request()

    def legal_actions(self, seat: int) -> list[LegalAction]:
        return self.hand.legal_actions(seat) if self.hand is not None else []

    def default_action(self, seat: int) -> Action | None:
        """See :meth:`HandState.default_action`."""
        return self.hand.default_action(seat) if self.hand is not None else None

    def balance(self, seat: int) -> int:
        """Chips won (+) or lost (−) so far: what is settled at the end of the session."""
        return self.fronts[seat] + self.behinds[seat] - self.cajas[seat] * self.options.caja

    # --- actions ------------------------------------------------------------------------------

    def apply(self, seat: int | None, action: Action) -> tuple["Table", list[dict[str, Any]]]:
        """Apply an action (``seat`` ``None`` for chance); return the new table and events.
        Illegal or malformed actions raise and leave this table unchanged."""
        new = copy.deepcopy(self)
        events: list[dict[str, Any]] = []
        if isinstance(action, DealerDraw):
            if seat is not None:
                raise IllegalAction("the draw is a chance input", code="chance_action")
            new._dealer_draw(action, events)
            return new, events
        if new.hand is None:
            raise WrongPhase("the first dealer is not drawn yet", code="waiting_for_chance")
        new.hand, events = new.hand.apply(seat, action)
        if new.hand.is_over():
            new._end_hand(events)
        return new, events

    def apply_dict(self, seat: int | None, data: Any) -> tuple["Table", list[dict[str, Any]]]:
        return self.apply(seat, action_from_dict(data))

    def _dealer_draw(self, action: DealerDraw, ev: list[dict[str, Any]]) -> None:
        if self.dealer is not None:
            raise WrongPhase("the first dealer is already drawn", code="unexpected_chance")
        cards = parse_cards(action.cards)
        if len(cards) != len(self.draw_seats):
            raise InvalidAction("one card per drawing seat", code="bad_draw")
        values = [card_value(c) for c in cards]
        best = max(values)
        tied = [s for s, v in zip(self.draw_seats, values) if v == best]
        self.draws.append([[s, c] for s, c in zip(self.draw_seats, cards)])
        ev.append({"type": "dealer_draw", "seats": list(self.draw_seats), "cards": cards})
        if len(tied) > 1:
            self.draw_seats = tied
            ev.append({"type": "dealer_draw_tie", "seats": tied})
            return
        self.dealer = tied[0]
        self.draw_seats = []
        ev.append({"type": "dealer_chosen", "seat": self.dealer})
        self._start_hand(ev)

    def _start_hand(self, ev: list[dict[str, Any]]) -> None:
        assert self.dealer is not None
        self.hand_number += 1
        self.hand = HandState.new(self.options.mode, self.dealer, list(self.fronts))
        ev.append({"type": "hand_started", "hand": self.hand_number, "dealer": self.dealer,
                   "mano": self.hand.mano, "fronts": list(self.fronts)})

    def _end_hand(self, ev: list[dict[str, Any]]) -> None:
        hand = self.hand
        assert hand is not None and hand.result is not None and self.dealer is not None
        payouts = hand.result["payouts"]
        for s in range(self.n):
            self.fronts[s] = hand.stacks[s] - hand.committed[s] + payouts[s]
        # refills happen between hands (decided)
        opts = self.options
        for s in range(self.n):
            if self.fronts[s] > 0:
                continue
            if self.behinds[s] > 0:
                amount = min(opts.refill, self.behinds[s])
                self.behinds[s] -= amount
                self.fronts[s] = amount
                ev.append({"type": "refill", "seat": s, "amount": amount})
            else:
                assert opts.inauguration_front is not None
                self.cajas[s] += 1
                self.fronts[s] = opts.inauguration_front
                self.behinds[s] = opts.caja - opts.inauguration_front
                ev.append({"type": "new_caja", "seat": s, "cajas": self.cajas[s],
                           "front": self.fronts[s]})
        self.last_result = dict(copy.deepcopy(hand.result), hand=self.hand_number,
                                dealer=hand.dealer, mano=hand.mano, stacks=list(hand.stacks),
                                discards=copy.deepcopy(hand.discard_log),
                                kept=copy.deepcopy(hand.kept),
                                reshuffles=copy.deepcopy(hand.restocks))
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand(ev)


# ---------------------------------------------------------------------------------------------
# Chance, observer, replay
# ---------------------------------------------------------------------------------------------

def chance_action(request: dict[str, Any], rng: RandomLike) -> Action:
    """Build the chance action answering ``request`` with the injected ``rng``
    (``secrets.SystemRandom()`` in the service, ``random.Random(seed)`` in tests)."""
    kind = request["kind"]
    if kind == "dealer_draw":
        return DealerDraw(tuple(draw_cards(rng, len(request["seats"]))))
    if kind == "shuffle":
        return Shuffle(tuple(new_deck_order(rng)))
    if kind == "reshuffle":
        return Reshuffle(tuple(shuffled(rng, request["cards"])))
    raise ValueError(f"unknown chance request {kind!r}")


def view(table: Table, seat: int | None = None) -> dict[str, Any]:
    """Everything ``seat`` may see (``None``: the public view, for spectators).

    ``{"table": {options, dealer, hand_number, seats: [{front, behind, cajas, balance}],
    draws, last_result}, "hand": HandState.view(seat) | None}``
    """
    seats = [{"seat": s, "front": table.fronts[s], "behind": table.behinds[s],
              "cajas": table.cajas[s], "balance": table.balance(s)} for s in range(table.n)]
    return {
        "table": {
            "options": table.options.to_dict(), "dealer": table.dealer,
            "hand_number": table.hand_number, "seats": seats,
            "draws": copy.deepcopy(table.draws), "draw_seats": list(table.draw_seats),
            "last_result": copy.deepcopy(table.last_result),
        },
        "hand": table.hand.view(seat) if table.hand is not None else None,
    }


def replay(options: TableOptions | dict[str, Any] | None,
           transcript: Iterable[dict[str, Any]]) -> Table:
    """Rebuild a table from its options and a transcript of
    ``{"seat": int | None, "action": {...}}`` records (chance actions included)."""
    table = Table.new(options)
    for record in transcript:
        table, _ = table.apply_dict(record["seat"], record["action"])
    return table


def record(seat: int | None, action: Action) -> dict[str, Any]:
    """One transcript record."""
    return {"seat": seat, "action": action_to_dict(action)}
