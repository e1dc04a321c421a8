"""A hand's chips: the opening, entering, raising the opening, cortes, ver / no ver, refiches, pots.

:class:`Betting` is the part of :class:`service.games.gofo.hand.HandState` that decides them.  Every move
has a ``_check_*`` (raises the precise reason, changes nothing) and a ``_do_*`` (applies a checked
move); the hand calls the first, then the second.  :class:`Bet` is the bet in force, :class:`Pot`
one pot of :func:`side_pots`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.errors import IllegalAction, WrongPhase

from service.games.gofo.actions import Corta, Decline, Enter, NoVer, Open, Pass, Raise, Refiche, Ver, Voy
from service.games.gofo.rules import SPEAKING_ROUNDS, BetContext, BetStage, Mode, Phase, Status


@dataclass
class Bet:
    """The bet in force: who made it (``bettor``), the level everyone owes, the last raise (the
    minimum of the next), whether it is being answered or may be raised, and ``closed`` (an all-in
    bet closes raising)."""

    context: BetContext
    bettor: int
    level: int
    last_raise: int
    stage: BetStage
    closed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"context": self.context.value, "bettor": self.bettor, "level": self.level,
                "last_raise": self.last_raise, "stage": self.stage.value, "closed": self.closed}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Bet":
        return cls(BetContext(d["context"]), d["bettor"], d["level"], d["last_raise"],
                   BetStage(d["stage"]), d["closed"])


@dataclass
class Pot:
    """One pot: its chips and the live seats that may win it (as paid, it is a
    :class:`~service.games.gofo.records.PaidPot`)."""

    amount: int
    eligible: list[int]

    def to_dict(self) -> dict[str, Any]:
        return {"amount": self.amount, "eligible": list(self.eligible)}


def side_pots(committed: list[int], live: list[bool]) -> list[Pot]:
    """Split everything put in into pots, table-stakes style.

    ``committed[s]``: chips seat ``s`` has put in this hand; ``live[s]``: still in (not folded).
    Each pot lists the live seats that contributed fully to it. Chips of folded players stay in
    the pots they fed. Consecutive pots with the same eligible seats are merged; a pot whose only
    eligible seat is its bettor is simply returned to him when paid.

    >>> [p.to_dict() for p in side_pots([10, 30, 30, 5], [True, True, True, False])]
    [{'amount': 35, 'eligible': [0, 1, 2]}, {'amount': 40, 'eligible': [1, 2]}]
    """
    levels = sorted({c for c, alive in zip(committed, live) if alive and c > 0})
    pots: list[Pot] = []
    prev = 0
    for level in levels:
        amount = sum(max(0, min(c, level) - prev) for c in committed)
        eligible = [s for s, c in enumerate(committed) if live[s] and c >= level]
        if pots and pots[-1].eligible == eligible:
            pots[-1].amount += amount
        else:
            pots.append(Pot(amount, eligible))
        prev = level
    leftover = sum(max(0, c - prev) for c in committed)
    if leftover:
        if pots:
            pots[-1].amount += leftover
        else:  # nobody live has put anything in: cannot happen in a real hand
            pots.append(Pot(leftover, []))
    return pots


class Betting:
    """Opening, entering, raises, cortes, refiches and the speaking rounds of a hand."""

    if TYPE_CHECKING:  # the fields and helpers of HandState this part uses
        mode: Mode
        n: int
        dealer: int
        mano: int
        stacks: list[int]
        committed: list[int]
        status: list[Status]
        blind: list[bool]
        looked: list[bool]
        phase: Phase
        queue: list[int]
        opening: int
        bet: Bet | None
        dealer_offered: bool
        round: int
        after_corte: bool
        hands: list[list[str]]

        def order_from(self, start: int) -> list[int]: ...
        def remaining(self, seat: int) -> int: ...
        def live(self) -> list[int]: ...
        def can_bet(self) -> list[int]: ...
        def _take(self, count: int) -> list[str]: ...
        def _muck(self, seat: int) -> None: ...
        def _complete(self) -> None: ...
        def _start_discard(self, *, final: bool) -> None: ...
        def _finish_uncontested(self) -> None: ...

    # --- questions ---------------------------------------------------------------------------

    def pots(self) -> list[Pot]:
        """The pots as they stand, each with its eligible live seats."""
        return side_pots(self.committed, [st is Status.IN for st in self.status])

    def opening_range(self) -> tuple[int, int]:
        """Smallest and largest legal opening: below every front at the table, at least 1."""
        smallest = min(self.stacks)
        return 1, max(1, smallest - 1)

    def raise_range(self, seat: int) -> tuple[int, int]:
        """Allowed raise/refiche amounts: at least the previous bet or raise, or all-in."""
        last = self.bet.last_raise if self.bet else self.opening
        rem = self.remaining(seat) - self._deficit(seat)
        return min(last, rem), rem

    def _deficit(self, seat: int) -> int:
        if self.bet is None:
            return 0
        return max(0, self.bet.level - self.committed[seat])

    # --- the opening and entering ----------------------------------------------------------

    def _check_open(self, seat: int, action: Open) -> None:
        lo, hi = self.opening_range()
        if action.amount < lo:
            raise IllegalAction("the opening is at least 1 chip", code="opening_too_small")
        if action.amount > hi:
            raise IllegalAction(f"the opening must be below every front at the table (≤ {hi})",
                                code="opening_too_large")

    def _do_open(self, seat: int, action: Open) -> None:
        self.opening = action.amount
        self.committed[seat] = action.amount
        self.status[seat] = Status.IN
        self.blind[seat] = True
        self.phase = Phase.ENTERING
        self.queue = [s for s in self.order_from(self.mano) if self.status[s] is Status.PENDING]
        self._next_entering()

    def _check_enter(self, seat: int, action: Enter) -> None:
        if action.blind and self.looked[seat]:
            raise IllegalAction("you have looked at your cards: you cannot enter blind",
                                code="already_looked")

    def _do_enter(self, seat: int, action: Enter) -> None:
        if not action.blind:
            self.looked[seat] = True
        put = min(self.opening, self.remaining(seat))
        self.committed[seat] += put
        self.status[seat] = Status.IN
        self.blind[seat] = action.blind
        self.queue.pop(0)
        self._next_entering()

    def _check_decline(self, seat: int, action: Decline) -> None:
        return None

    def _do_decline(self, seat: int, action: Decline) -> None:
        self.status[seat] = Status.DECLINED
        self._muck(seat)
        self.queue.pop(0)
        self._next_entering()

    def _next_entering(self) -> None:
        if self.queue:
            return
        if (self.status[self.dealer] is Status.OUT and not self.dealer_offered
                and Status.DECLINED in self.status):
            # six at the table and someone declined: the dealer may deal himself in
            self.dealer_offered = True
            self.status[self.dealer] = Status.PENDING
            if self.mode is Mode.DEALT:
                self.hands[self.dealer] = self._take(2)
            self.queue = [self.dealer]
            return
        if len(self.live()) < 2:
            return self._finish_uncontested()
        self._start_raising()

    # --- raising the opening, cortes and refiches ------------------------------------------

    def _start_raising(self) -> None:
        self.phase = Phase.RAISING
        self.bet = None
        can_bet = self.can_bet()
        self.queue = [s for s in can_bet if self.blind[s]] if len(can_bet) >= 2 else []
        if not self.queue:
            self._complete()

    def _check_raise(self, seat: int, action: Raise | Refiche) -> None:
        if self.phase is Phase.BETTING:
            assert self.bet is not None
            if self.bet.stage is not BetStage.REFICHE:
                raise WrongPhase("answer the bet first: ver or no ver", code="must_answer")
            want = Raise if self.bet.context is BetContext.OPENING else Refiche
            if not isinstance(action, want):
                raise WrongPhase(f"use {want.TYPE} here")
        elif not isinstance(action, Raise):
            raise WrongPhase("refiche is only possible after a corte")
        self._check_bet(seat, action.amount)

    def _do_raise(self, seat: int, action: Raise | Refiche) -> None:
        context = BetContext.OPENING if isinstance(action, Raise) else BetContext.CORTE
        self._place_bet(seat, action.amount, context)

    def _check_bet(self, seat: int, amount: int) -> None:
        if self.phase is Phase.SPEAKING:
            lo, hi = 1, self.remaining(seat)
        else:
            lo, hi = self.raise_range(seat)
        if amount > hi:
            raise IllegalAction(f"you can bet at most your resto ({hi})", code="bet_above_resto")
        if amount < max(1, lo):
            raise IllegalAction(f"the bet must be at least {max(1, lo)} (or all your resto)",
                                code="bet_below_minimum")

    def _place_bet(self, seat: int, amount: int, context: BetContext) -> None:
        put = self._deficit(seat) + amount
        self.committed[seat] += put
        all_in = self.remaining(seat) == 0
        last = self.bet.last_raise if self.bet else (self.opening if context is BetContext.OPENING else 0)
        self.bet = Bet(context=context, bettor=seat, level=self.committed[seat],
                       last_raise=max(amount, last) if all_in else amount,
                       stage=BetStage.ANSWER, closed=all_in)
        self.phase = Phase.BETTING
        level = self.committed[seat]
        self.queue = [s for s in self.order_from(seat)[1:]
                      if self.status[s] is Status.IN and self.remaining(s) > 0 and self.committed[s] < level]
        self._next_betting()

    def _check_pass(self, seat: int, action: Pass) -> None:
        if self.phase is Phase.BETTING:
            assert self.bet is not None
            if self.bet.stage is not BetStage.REFICHE:
                raise WrongPhase("answer the bet first: ver or no ver", code="must_answer")

    def _do_pass(self, seat: int, action: Pass) -> None:
        self.queue.pop(0)
        if self.phase is Phase.RAISING:
            if not self.queue:
                self._complete()
            return
        self._next_betting()

    def _check_answer(self, seat: int, action: Ver | NoVer) -> None:
        assert self.bet is not None
        if self.bet.stage is not BetStage.ANSWER:
            raise WrongPhase("nothing to answer: refiche or pass", code="nothing_to_answer")

    def _do_ver(self, seat: int, action: Ver) -> None:
        put = min(self._deficit(seat), self.remaining(seat))
        self.committed[seat] += put
        self.queue.pop(0)
        self._next_betting()

    def _do_no_ver(self, seat: int, action: NoVer) -> None:
        self.status[seat] = Status.FOLDED
        self._muck(seat)
        self.queue.pop(0)
        if len(self.live()) < 2:
            return self._finish_uncontested()
        self._next_betting()

    def _next_betting(self) -> None:
        bet = self.bet
        assert bet is not None
        if self.queue:
            return
        if bet.stage is BetStage.ANSWER and not bet.closed:
            bet.stage = BetStage.REFICHE
            self.queue = [s for s in self.order_from(bet.bettor)[1:]
                          if self.status[s] is Status.IN and self.remaining(s) > 0]
            if self.queue:
                return
        # matched by all the following with nobody raising: betting closes
        self.bet = None
        if bet.context is BetContext.OPENING:
            self._complete()
        else:
            self.after_corte = True
            self._start_discard(final=True)

    # --- the speaking rounds (voy / corta) -------------------------------------------------

    def _start_speaking(self, rnd: int) -> None:
        self.round = rnd
        self.phase = Phase.SPEAKING
        self.queue = self.can_bet()
        if len(self.queue) < 2:  # nobody could answer a corte: the round is silent
            self.queue = []
            self._start_discard(final=rnd >= SPEAKING_ROUNDS)

    def _check_voy(self, seat: int, action: Voy) -> None:
        return None

    def _do_voy(self, seat: int, action: Voy) -> None:
        self.queue.pop(0)
        if not self.queue:
            self._start_discard(final=self.round >= SPEAKING_ROUNDS)

    def _check_corta(self, seat: int, action: Corta) -> None:
        self._check_bet(seat, action.amount)

    def _do_corta(self, seat: int, action: Corta) -> None:
        self.bet = None
        self._place_bet(seat, action.amount, BetContext.CORTE)
