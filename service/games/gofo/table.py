"""The Gofo table: seats, the chip ledger (fronts, behinds, cajas), the first-dealer draw and the
sequence of hands.

:meth:`Table.apply` checks a move, then applies it to this table in place.  Chance is an input: when :meth:`Table.chance_request` is not ``None`` the caller supplies
the matching chance action (seat ``None``), e.g. ``chance_action(request, secrets.SystemRandom())``.

>>> import random
>>> from service.games.gofo.chance import chance_action
>>> t = Table.new({"seats": 3, "caja": 60, "refill": 10})
>>> t.chance_request()["kind"]
'dealer_draw'
>>> rng = random.Random(7)
>>> while t.chance_request():
...     _ = t.apply(chance_action(t.chance_request(), rng))
>>> t.to_act() == t.hand.mano
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from service.errors import IllegalAction, InvalidAction, RefereeError, WrongPhase

from service.games.gofo.actions import Action, DealerDraw, Inaugurate, LegalAction, action_from_dict, record  # noqa: F401
from service.games.gofo.cards import card_value, parse_cards
from service.games.gofo.hand import HandState
from service.games.gofo.records import HandRecord
from service.games.gofo.rules import TableOptions


@dataclass
class Table:
    """Seats ``0..n-1`` in counter-clockwise order of play, their ledger and the current hand.

    Ledger per seat: ``fronts`` (chips al frente, the resto between hands), ``behinds`` (atrás),
    ``cajas`` (cajas taken so far, the first included).  ``last_result``: the
    :class:`~service.games.gofo.records.HandRecord` of the last finished hand.

    ``inaugurations_pending`` (``inauguration: chosen`` only): the seats that took a new caja when the
    last hand ended and have not chosen its first front yet, in seat order.  While any is pending the
    next hand has not begun: ``hand_number`` already counts it, ``hand`` is ``None``, each pending seat
    holds front 0 and the whole new caja behind, and the only move is ``inaugurate`` by a pending seat
    (:meth:`to_act` is the first of them; the others may choose too).
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
    last_result: HandRecord | None = None
    inaugurations_pending: list[int] = field(default_factory=list)

    @classmethod
    def new(cls, options: TableOptions | dict[str, Any] | None = None) -> "Table":
        """A table whose first dealer is still to be drawn, or (``first_dealer`` reported) whose
        first hand has begun."""
        opts = options if isinstance(options, TableOptions) else TableOptions.from_dict(options)
        assert opts.initial_front is not None
        n = opts.seats
        table = cls(options=opts, fronts=[opts.initial_front] * n,
                    behinds=[opts.caja - opts.initial_front] * n, cajas=[1] * n,
                    draw_seats=list(range(n)))
        if opts.resumed:  # a session begun on paper: its ledger as it stands
            assert opts.fronts is not None and opts.behinds is not None and opts.cajas is not None
            table.fronts, table.behinds, table.cajas = list(opts.fronts), list(opts.behinds), list(opts.cajas)
        if opts.first_dealer is not None:  # a tabletop table drew its first dealer by hand: reported
            table.dealer, table.draw_seats = opts.first_dealer, []
            table._start_hand([])
        return table

    # --- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "gofo", "options": self.options.to_dict(), "fronts": list(self.fronts),
            "behinds": list(self.behinds), "cajas": list(self.cajas), "dealer": self.dealer,
            "draw_seats": list(self.draw_seats), "draws": [[list(d) for d in drawn] for drawn in self.draws],
            "hand_number": self.hand_number,
            "hand": self.hand.to_dict() if self.hand is not None else None,
            "last_result": self.last_result.to_dict() if self.last_result is not None else None,
            # written only while seats choose, so a table that never waits stores what it did before
            **({"inaugurations_pending": list(self.inaugurations_pending)} if self.inaugurations_pending else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Table":
        hand, last = data["hand"], data["last_result"]
        return cls(
            options=TableOptions.from_dict(data["options"]), fronts=list(data["fronts"]),
            behinds=list(data["behinds"]), cajas=list(data["cajas"]), dealer=data["dealer"],
            draw_seats=list(data["draw_seats"]), draws=[[list(d) for d in drawn] for drawn in data["draws"]],
            hand_number=data["hand_number"], hand=HandState.from_dict(hand) if hand is not None else None,
            last_result=HandRecord.from_dict(last) if last is not None else None,
            inaugurations_pending=list(data.get("inaugurations_pending", ())),
        )

    def copy(self) -> "Table":
        """An independent copy (``apply`` changes the table it is called on)."""
        return Table.from_dict(self.to_dict())

    # --- questions -----------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.options.seats

    def to_act(self) -> int | None:
        """The seat whose turn it is (between hands: the first seat still to inaugurate its new
        caja), or ``None`` (chance to move: see :meth:`chance_request`)."""
        if self.inaugurations_pending:
            return self.inaugurations_pending[0]
        return self.hand.to_act() if self.hand is not None else None

    def chance_request(self) -> dict[str, Any] | None:
        """The chance input needed now: ``dealer_draw`` (``seats``), ``shuffle`` or ``reshuffle``
        (``cards``), or ``None``."""
        if self.dealer is None:
            return {"kind": "dealer_draw", "seats": list(self.draw_seats)}
        if self.inaugurations_pending:
            return None
        assert self.hand is not None
        return self.hand.chance_request()

    def legal_actions(self, seat: int) -> list[LegalAction]:
        if self.inaugurations_pending:
            if seat in self.inaugurations_pending:
                return [LegalAction("inaugurate", fronts=tuple(self.options.inauguration_fronts()))]
            return []
        return self.hand.legal_actions(seat) if self.hand is not None else []

    def default_action(self, seat: int) -> Action | None:
        """See :meth:`HandState.default_action`.  Between hands, the seat to inaugurate a new caja
        puts in front ``inauguration_front`` if it is allowed, else the smallest allowed front."""
        if self.inaugurations_pending:
            return Inaugurate(self.options.default_inauguration_front()) if seat == self.to_act() else None
        return self.hand.default_action(seat) if self.hand is not None else None

    def balance(self, seat: int) -> int:
        """Chips won (+) or lost (−) so far: what is settled at the end of the session."""
        return self.fronts[seat] + self.behinds[seat] - self.cajas[seat] * self.options.caja

    # --- actions ------------------------------------------------------------------------------

    def verify(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> None:
        """Raise what :meth:`apply` would raise for this move; changes nothing."""
        if isinstance(action, DealerDraw):
            self._check_dealer_draw(seat, action)
        elif isinstance(action, Inaugurate) or self.inaugurations_pending:
            self._check_inaugurate(seat, action)
        elif self.hand is None:
            raise WrongPhase("the first dealer is not drawn yet", code="waiting_for_chance")
        else:
            self.hand.verify(action, seat=seat)

    def is_legal(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        try:
            self.verify(action, seat=seat, now=now)
        except RefereeError:
            return False
        return True

    def apply(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        """Apply ``action`` by ``seat`` (``None`` for chance) to this table; True (a Gofo move is never
        a repeat: every move applied changes the table).  Illegal or malformed actions raise and leave
        the table exactly as it was.  (``now`` is not read: Gofo's turn clock is the referee's,
        :mod:`service.games.gofo.clock`.)"""
        if self.hand is not None and not self.inaugurations_pending \
                and not isinstance(action, (DealerDraw, Inaugurate)):
            self.hand.apply(action, seat=seat)
            if self.hand.is_over():
                self._end_hand()
            return True
        self.verify(action, seat=seat)  # the first-dealer draw or a new caja's front (or what refuses)
        if isinstance(action, DealerDraw):
            self._dealer_draw(action)
        else:
            assert isinstance(action, Inaugurate) and seat is not None
            self._inaugurate(seat, action)
        return True

    def _check_dealer_draw(self, seat: int | None, action: DealerDraw) -> None:
        if seat is not None:
            raise IllegalAction("the draw is a chance input", code="chance_action")
        if self.dealer is not None:
            raise WrongPhase("the first dealer is already drawn", code="unexpected_chance")
        if len(parse_cards(action.cards)) != len(self.draw_seats):
            raise InvalidAction("one card per drawing seat", code="bad_draw")

    def _check_inaugurate(self, seat: int | None, action: Action) -> None:
        """An ``inaugurate`` (or, while seats choose, any other move): refused unless a seat still to
        inaugurate its new caja chooses an allowed front."""
        pending = self.inaugurations_pending
        if not isinstance(action, Inaugurate):
            if not isinstance(action, Action):
                raise InvalidAction("not a Gofo action", code="malformed_action")
            raise WrongPhase(f"the next hand begins once seat{'s' if len(pending) > 1 else ''} "
                             f"{', '.join(map(str, pending))} inaugurate{'' if len(pending) > 1 else 's'} "
                             "a new caja (inaugurate)", code="inauguration_pending")
        if seat is None or isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise InvalidAction(f"no seat {seat!r} at this table", code="bad_seat")
        if seat not in pending:
            raise IllegalAction(f"seat {seat} has no new caja to inaugurate now", code="no_inauguration_pending")
        allowed = self.options.inauguration_fronts()
        if type(action.front) is not int or action.front not in allowed:
            raise InvalidAction(f"a new caja is inaugurated with {' or '.join(map(str, allowed))} chips in front "
                                "(2× or 3× the refill, at most the caja)", code="bad_inauguration_front")

    def _inaugurate(self, seat: int, action: Inaugurate) -> None:
        """The seat puts its chosen front out of its new caja; the last to choose begins the hand."""
        self.fronts[seat] = action.front
        self.behinds[seat] = self.options.caja - action.front
        self.inaugurations_pending = [s for s in self.inaugurations_pending if s != seat]
        if not self.inaugurations_pending:
            self._start_hand(counted=True)

    def _dealer_draw(self, action: DealerDraw) -> None:
        """The highest card deals; ties draw again among the tied seats."""
        cards = parse_cards(action.cards)
        values = [card_value(c) for c in cards]
        best = max(values)
        tied = [s for s, v in zip(self.draw_seats, values) if v == best]
        self.draws.append([[s, c] for s, c in zip(self.draw_seats, cards)])
        if len(tied) > 1:
            self.draw_seats = tied
            return
        self.dealer = tied[0]
        self.draw_seats = []
        self._start_hand()

    def _start_hand(self, counted: bool = False) -> None:
        """Begin the next hand (``counted``: ``hand_number`` already counts it — seats inaugurated new cajas)."""
        assert self.dealer is not None
        if not counted:
            self.hand_number += 1
        self.hand = HandState.new(self.options.mode, self.dealer, list(self.fronts))

    def _end_hand(self) -> None:
        """Pay the fronts, refill between hands (a new caja when nothing is left), next dealer; then the
        next hand begins, unless seats choose how to inaugurate their new cajas first."""
        hand = self.hand
        assert hand is not None and hand.result is not None and self.dealer is not None
        payouts = hand.result.payouts
        for s in range(self.n):
            self.fronts[s] = hand.stacks[s] - hand.committed[s] + payouts[s]
        opts = self.options
        pending: list[int] = []
        for s in range(self.n):
            if self.fronts[s] > 0:
                continue
            if self.behinds[s] > 0:
                amount = min(opts.refill, self.behinds[s])
                self.behinds[s] -= amount
                self.fronts[s] = amount
            elif opts.chosen_inauguration:  # the seat chooses its front before the next hand
                self.cajas[s] += 1
                self.fronts[s] = 0
                self.behinds[s] = opts.caja
                pending.append(s)
            else:
                assert opts.inauguration_front is not None
                self.cajas[s] += 1
                self.fronts[s] = opts.inauguration_front
                self.behinds[s] = opts.caja - opts.inauguration_front
        self.last_result = HandRecord(hand.result, self.hand_number, hand.dealer, hand.mano, tuple(hand.stacks),
                                      tuple(hand.discard_log), tuple(tuple(k) for k in hand.kept),
                                      tuple(hand.restocks))
        self.dealer = (self.dealer + 1) % self.n
        if pending:
            self.hand_number += 1  # the next hand is counted (its entries carry its number) but not begun
            self.hand = None
            self.inaugurations_pending = pending
            return
        self._start_hand()


def replay(options: TableOptions | dict[str, Any] | None,
           transcript: Iterable[dict[str, Any]]) -> Table:
    """Rebuild a table from its options and a transcript of
    ``{"seat": int | None, "action": {...}}`` records (chance actions included)."""
    table = Table.new(options)
    for entry in transcript:
        table.apply(action_from_dict(entry["action"]), seat=entry["seat"])
    return table
