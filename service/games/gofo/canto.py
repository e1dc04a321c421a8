"""The end of a hand: the canto (dealt: every remaining hand shown; tabletop: cards entered or
points declared, corrections, mucks, who must show) and the payout of every pot.

:class:`Showdown` is the part of :class:`service.games.gofo.hand.HandState` that decides them, in the
``_check_*`` / ``_do_*`` pairs of :mod:`service.games.gofo.betting`.  :class:`Canto` is the state of a
tabletop canto.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.errors import IllegalAction, InvalidAction, WrongPhase

from service.games.gofo.actions import Declare, Show
from service.games.gofo.betting import Pot
from service.games.gofo.cards import parse_cards, sort_cards
from service.games.gofo.records import HandResult, PaidPot
from service.games.gofo.rules import HAND_SIZE, CantoStage, Mode, Phase, Resolution, Status
from service.games.gofo.value import MAX_VALUE, MIN_VALUE, hand_value


@dataclass
class Canto:
    """A tabletop canto: its stage, the cards each seat entered and the points each declared."""

    stage: CantoStage
    cards: list[list[str] | None]
    declared: list[int | None]

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage.value, "cards": [None if c is None else list(c) for c in self.cards],
                "declared": list(self.declared)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Canto":
        return cls(CantoStage(d["stage"]), [None if c is None else list(c) for c in d["cards"]],
                   list(d["declared"]))

    def nobody_shown(self) -> bool:
        return all(cards is None for cards in self.cards)


class Showdown:
    """The canto and the payout of a hand."""

    if TYPE_CHECKING:
        mode: Mode
        n: int
        status: list[Status]
        phase: Phase
        queue: list[int]
        committed: list[int]
        hands: list[list[str]]
        known_pile: list[str]
        kept: list[list[str]]
        bet: Any
        canto: Canto | None
        result: HandResult | None

        def live(self) -> list[int]: ...
        def pots(self) -> list[Pot]: ...
        def distance(self, seat: int) -> int: ...

    # --- questions ---------------------------------------------------------------------------

    def _may_correct(self, seat: int) -> bool:
        """A declaration may be corrected (declared again) while nobody has entered cards."""
        return (self.phase is Phase.CANTO and self.canto is not None and 0 <= seat < self.n
                and self.status[seat] is Status.IN and self.canto.declared[seat] is not None
                and self.canto.nobody_shown())

    def _may_muck(self, seat: int) -> bool:
        """A live player who has not entered cards may concede at the canto."""
        return (self.phase is Phase.CANTO and self.canto is not None and 0 <= seat < self.n
                and self.status[seat] is Status.IN and self.canto.cards[seat] is None)

    def _canto_values(self) -> list[int | None]:
        assert self.canto is not None
        values: list[int | None] = [None] * self.n
        for s in self.live():
            cards = self.canto.cards[s]
            values[s] = hand_value(cards) if cards is not None else self.canto.declared[s]
        return values

    def _pot_winner(self, eligible: list[int], values: list[int | None]) -> int:
        return max(eligible, key=lambda s: (values[s], -self.distance(s)))

    # --- the canto ---------------------------------------------------------------------------

    def _start_canto(self) -> None:
        players = self.live()
        if self.mode is Mode.DEALT:
            shown: list[list[str] | None] = [None] * self.n
            values: list[int | None] = [None] * self.n
            for s in players:
                shown[s] = sort_cards(self.hands[s])
                values[s] = hand_value(self.hands[s])
            return self._pay(values, shown, Resolution.CANTO)
        self.phase = Phase.CANTO
        self.canto = Canto(CantoStage.DECLARE, [None] * self.n, [None] * self.n)
        self.queue = players

    def _check_show(self, seat: int, action: Show) -> None:
        assert self.canto is not None
        cards = parse_cards(action.cards)
        if len(cards) != HAND_SIZE:
            raise InvalidAction("a hand has 5 cards", code="bad_hand_size")
        taken = set(self.known_pile) | {c for k in self.kept for c in k}
        for s, other in enumerate(self.canto.cards):
            if other is not None and s != seat:
                taken |= set(other)
        clash = taken & set(cards)
        if clash:
            raise IllegalAction(f"already elsewhere: {sort_cards(clash)}", code="duplicate_card")
        value = hand_value(cards)
        declared = self.canto.declared[seat]
        if declared is not None and declared != value:
            raise IllegalAction(f"these cards are worth {value}, not the {declared} declared",
                                code="declared_value_mismatch")

    def _do_show(self, seat: int, action: Show) -> None:
        assert self.canto is not None
        cards = sort_cards(parse_cards(action.cards))
        self.canto.cards[seat] = cards
        self.queue.pop(0)
        self._next_canto()

    @staticmethod
    def _check_points(action: Declare) -> None:
        if not MIN_VALUE <= action.points <= MAX_VALUE:
            raise InvalidAction(f"points are {MIN_VALUE}..{MAX_VALUE}", code="bad_points")

    def _check_declare(self, seat: int, action: Declare) -> None:
        assert self.canto is not None
        if self.canto.stage is not CantoStage.DECLARE:
            raise WrongPhase("show the cards of your declared points", code="must_show")
        self._check_points(action)

    def _do_declare(self, seat: int, action: Declare) -> None:
        assert self.canto is not None
        self.canto.declared[seat] = action.points
        self.queue.pop(0)
        self._next_canto()

    def _check_correction(self, seat: int, action: Declare) -> None:
        self._check_points(action)

    def _do_correction(self, seat: int, action: Declare) -> None:
        assert self.canto is not None
        self.canto.declared[seat] = action.points
        if self.canto.stage is CantoStage.SHOW:  # who must show depends on the declarations: judge again
            self.canto.stage = CantoStage.DECLARE
            self.queue = []
            self._next_canto()

    def _check_muck(self, seat: int) -> None:
        if self.phase is not Phase.CANTO or self.canto is None:
            raise WrongPhase("mucking is conceding at the canto; fold to a bet with no ver",
                             code="wrong_phase")
        if self.status[seat] is not Status.IN:
            raise IllegalAction("you are not in the hand", code="not_in_hand")
        if self.canto.cards[seat] is not None:
            raise IllegalAction("you have shown your cards already", code="already_shown")

    def _do_muck(self, seat: int) -> None:
        assert self.canto is not None
        self.status[seat] = Status.FOLDED
        self.canto.declared[seat] = None
        self.queue = [s for s in self.queue if s != seat]
        if len(self.live()) < 2:  # the last claimant takes every pot, without showing
            return self._pay([None] * self.n, list(self.canto.cards), Resolution.UNCONTESTED)
        if self.canto.stage is CantoStage.SHOW:
            self.canto.stage = CantoStage.DECLARE
            self.queue = []
        self._next_canto()

    def _next_canto(self) -> None:
        canto = self.canto
        assert canto is not None
        if self.queue:
            return
        values = self._canto_values()
        if canto.stage is CantoStage.DECLARE:
            # a pot only one seat can win (its own uncovered bet, or everyone else conceded) needs no cards
            winners = {self._pot_winner(p.eligible, values) for p in self.pots() if len(p.eligible) > 1}
            must_show = [s for s in self.live() if s in winners and canto.cards[s] is None]
            if must_show:
                canto.stage = CantoStage.SHOW
                self.queue = must_show
                return
        self._pay(values, list(canto.cards), Resolution.CANTO)

    # --- payout ------------------------------------------------------------------------------

    def _finish_uncontested(self) -> None:
        self._pay([None] * self.n, [None] * self.n, Resolution.UNCONTESTED)

    def _pay(self, values: list[int | None], shown: list[Any], reason: Resolution) -> None:
        """Each pot to its winner (the best value, ties to the seat closer to mano; a pot with one
        eligible seat, or every pot when uncontested, without judging); the hand is over."""
        payouts = [0] * self.n
        paid: list[PaidPot] = []
        for pot in self.pots():
            if reason is Resolution.UNCONTESTED or len(pot.eligible) == 1:
                winner = pot.eligible[0]
            else:
                winner = self._pot_winner(pot.eligible, values)
            paid.append(PaidPot(pot.amount, tuple(pot.eligible), winner))
            payouts[winner] += pot.amount
        assert sum(payouts) == sum(self.committed)
        self.result = HandResult(reason, tuple(paid), tuple(payouts),
                                 tuple(None if c is None else tuple(c) for c in shown), tuple(values),
                                 tuple(payouts[s] - self.committed[s] for s in range(self.n)))
        self.phase = Phase.OVER
        self.queue = []
        self.bet = None
