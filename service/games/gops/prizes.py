"""The Gops prize row: dealing, turning up and reporting prizes, resolving a round, choosing.

:class:`PrizeRow` is one part of the state (:class:`service.games.gops.state.Gops`), reading the current
game from the match's :class:`~service.games.gops.progress.MatchProgress` and asking its
:class:`~service.games.gops.bidding.Bidding` what a bid may be (``check_*`` refuses and changes nothing;
the other moves apply a checked move in place).  With one prize in the middle the round's winner takes
it and its carried pot; with open prizes (``open_prizes > 1``) the winner chooses, one pick per round
won plus one per carried round, and the row is refilled between picks.  The rounds run out (or the
prizes do): the row ends the game through the match's progress, and starts the next game's first round.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any

from service.games import commitments
from service.errors import IllegalAction, InvalidAction, NotYourTurn
from service.games.gops import chance, clock
from service.games.gops.actions import ChoosePrize, DealPrizes, ReportPrize
from service.games.gops.bidding import Bidding
from service.games.gops.progress import MatchProgress
from service.games.gops.records import Phase, RoundRecord, seal
from service.games.gops.rules import PrizeOrder, Resolution, Rules, Unclaimed, rank_name


class PrizeRow:
    """The prizes of the current game, and the rounds they are played for."""

    __slots__ = ("rules", "progress", "bidding")

    def __init__(self, rules: Rules, progress: MatchProgress, bidding: Bidding) -> None:
        self.rules = rules
        self.progress = progress
        self.bidding = bidding

    # ------------------------------------------------------------ chance: the shuffled order

    def check_deal(self, action: DealPrizes, now: float) -> None:
        self.bidding.require_phase(Phase.DEAL)
        if sorted(action.order) != list(range(1, self.rules.ranks + 1)):
            raise InvalidAction("the prize order must list every rank once", code="invalid_prize_order")
        commitments.check_salt(action.salt)

    def deal(self, action: DealPrizes, now: float) -> None:
        g = self.progress.game
        g.pile = list(action.order)
        g.prize_order = list(action.order)
        g.prize_salt = action.salt
        g.prize_commitment = chance.commit_order(g.game_id, g.prize_order, action.salt)
        self.start_round(now)

    # ------------------------------------------------------------ the table reports a prize

    def reportable(self) -> list[int]:
        turned = self.progress.game.turned
        return [r for r in range(1, self.rules.ranks + 1) if r not in turned]

    def check_report(self, action: ReportPrize, now: float) -> None:
        self.bidding.require_phase(Phase.PRIZE)
        rank = action.rank
        if not isinstance(rank, int) or not 1 <= rank <= self.rules.ranks:
            raise InvalidAction(f"{rank!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        if rank in self.progress.game.turned:
            raise IllegalAction(f"the prize {rank_name(rank)} has already been turned up", code="prize_already_seen")

    def report(self, action: ReportPrize, now: float) -> None:
        g = self.progress.game
        g.turned.append(action.rank)
        g.row.append(action.rank)
        if g.chooser is not None:  # open prizes: the row refilled between a winner's picks
            if self._row_full():
                clock.enter_phase(self.rules, g, Phase.CHOOSE, now)
        elif g.reveals and not self.progress.awaiting():  # blind: the bids are in, resolve now
            self._resolve(now)
        elif self._row_full():
            clock.enter_phase(self.rules, g, Phase.COMMIT, now)

    def _row_full(self) -> bool:
        g = self.progress.game
        return len(g.row) >= self.rules.open_prizes or len(g.turned) >= self.rules.ranks

    # ------------------------------------------------------------ the winner chooses

    def check_choose(self, action: ChoosePrize, now: float) -> None:
        g = self.progress.game
        self.bidding.check_seat(action.seat)
        self.bidding.require_phase(Phase.CHOOSE)
        if action.seat != g.chooser:
            raise NotYourTurn(f"seat {g.chooser} chooses the prize this round, not seat {action.seat}")
        if action.rank not in g.row:
            raise IllegalAction(f"{rank_name(action.rank)} is not in the open prizes row", code="prize_not_in_row")

    def choose(self, action: ChoosePrize, now: float) -> None:
        g = self.progress.game
        g.row.remove(action.rank)
        g.won[action.seat].append(action.rank)
        g.scores[action.seat] += action.rank
        last = g.history[-1]  # records are never changed once made: this one is replaced
        g.history[-1] = replace(last, chosen=(*(last.chosen or ()), action.rank))
        g.picks_owed -= 1
        # The row is refilled from the pile between picks, so a winner owed more picks than the row
        # held (carried rounds) still takes every one of them.  After the last pick nothing more is
        # turned up until the next round starts (and nothing at all after the last round).
        if g.picks_owed > 0 and not self._fill_row(now):
            return  # a reported order: the table turns the next prize up, then the chooser goes on
        if g.picks_owed <= 0 or not g.row:  # done, or no prize left anywhere to take
            g.picks_owed = 0
            g.chooser = None
            self.next_round(now)

    # ------------------------------------------------------------ rounds

    def start_round(self, now: float) -> None:
        g = self.progress.game
        g.commitments, g.reveals = {}, {}
        if g.round > self.rules.rounds:
            self.end_game(now)
            return
        if not self.rules.blind_reported:
            if not self._fill_row(now):
                return
            if not g.row:
                self.end_game(now)
                return
        clock.enter_phase(self.rules, g, Phase.COMMIT, now)

    def end_game(self, now: float, forfeit: bool = False) -> None:
        """The game is over (:meth:`MatchProgress.end_game`); when the next one begins with a known
        prize order, its first round starts."""
        if self.progress.end_game(forfeit):
            self.start_round(now)

    def _fill_row(self, now: float) -> bool:
        """Turn prizes up until the row holds ``open_prizes`` of them (or every prize is up).

        With a reported order the table turns them up: the game enters the
        ``prize`` phase and this returns False (the report goes on).
        """
        g = self.progress.game
        open_prizes, ranks = self.rules.open_prizes, self.rules.ranks
        while len(g.row) < open_prizes and len(g.turned) < ranks:
            if self.rules.prize_order is PrizeOrder.REPORTED:
                clock.enter_phase(self.rules, g, Phase.PRIZE, now)
                return False
            prize = g.pile.pop(0)
            g.turned.append(prize)
            g.row.append(prize)
        return True

    def next_round(self, now: float) -> None:
        self.progress.game.round += 1
        self.start_round(now)

    def after_bids(self, now: float) -> None:
        """Called when a reveal (or a forfeit) may have completed the round's bids."""
        if self.progress.awaiting():  # (only ever called in the reveal phase)
            return
        g = self.progress.game
        if not g.row and self.rules.blind_reported:
            # Blind at a real table: the face-down prize is turned up with the bids.
            clock.enter_phase(self.rules, g, Phase.PRIZE, now)
            return
        self._resolve(now)

    def _resolve(self, now: float) -> None:
        """Every bid is in (and the prize known): who wins the round, and what they take."""
        g = self.progress.game
        seats = sorted(g.reveals)
        # The commitments and reveals themselves are in the log; the record keeps their seals.
        # (The commitments are those of the same seats as the reveals: a seat that leaves takes both.)
        sealed = {s: seal(g.commitments[s]) for s in seats}
        played: dict[int, list[int]] = {}
        illegal: dict[int, str] = {}
        for s in seats:
            played[s] = list(g.reveals[s].cards)
            problem = self.bidding.bid_problem(s, played[s])
            if problem is not None:  # an opened but illegal bid: forfeited to the seat's lowest card(s)
                played[s] = self.bidding.forfeited_bid(s)
                illegal[s] = problem.code
        self.settle(played, illegal, sealed, now)

    def settle(self, played: dict[int, list[int]], illegal: dict[int, str], sealed: dict[int, str] | None,
               now: float) -> None:
        """The round's bids decide it (``played``: each seat's legal cards, by seat; ``illegal``:
        the seats whose opened bid was forfeited, and why; ``sealed``: the seals of the bids, none
        in a simulation): the bids are spent, the pot or the choice awarded, the round recorded and
        the game moves on.  The one resolution of the rules (:meth:`_resolve` and
        :meth:`~service.games.gops.state.Gops.play_bids` call it)."""
        g = self.progress.game
        for s, bid in played.items():
            for c in bid:  # each seat's bid is spent from its own hand only
                g.hands[s].remove(c)
        winners = round_winners({s: sum(bid) for s, bid in played.items()}, self.rules.resolution)
        outcome: dict[str, Any] = {"winners": tuple(winners)}
        outcome.update(self._award_pot(winners) if self.rules.open_prizes == 1 else self._award_choice(winners))
        record = RoundRecord(round=g.round, sealed=sealed, bids={s: tuple(bid) for s, bid in played.items()},
                             illegal=illegal or None, **outcome)
        g.history.append(record)
        if g.chooser is not None and g.picks_owed > 0:
            clock.enter_phase(self.rules, g, Phase.CHOOSE, now)
        else:
            self.next_round(now)

    def _award_pot(self, winners: list[int]) -> dict[str, Any]:
        """One prize in the middle: the winner(s) take it and the carried pot; nobody won:
        :meth:`_unclaimed`.  Returns what the round record says of it."""
        g = self.progress.game
        pot = g.carry + g.row
        g.row, g.carry = [], []
        if not winners:
            return {"pot": tuple(pot), **self._unclaimed(pot)}
        share = sum(pot) if len(winners) == 1 else Fraction(sum(pot), len(winners))
        for s in winners:
            g.scores[s] += share
        if len(winners) == 1:
            g.won[winners[0]].extend(pot)
        return {"pot": tuple(pot), "shares": {s: share for s in winners}}

    def _award_choice(self, winners: list[int]) -> dict[str, Any]:
        """Open prizes: a single winner chooses from the row, one pick for the round and one per
        carried round.  A tie (also under ``split``, which cannot split a choice) takes nothing,
        so the record names no winner: :meth:`_unclaimed`.  Returns what the round record says."""
        g = self.progress.game
        row = tuple(g.row)
        if len(winners) != 1:
            return {"row": row, "winners": (), **self._unclaimed([])}
        g.chooser = winners[0]
        # Every pick owed is taken: the row is refilled between picks (see choose).
        g.picks_owed = 1 + g.carried_rounds
        g.carried_rounds = 0
        return {"row": row, "picks": g.picks_owed}

    def _unclaimed(self, pot: list[int]) -> dict[str, Any]:
        """Nobody won the round.  With ``carryover`` what it offered stays for the next winner —
        one prize in the middle: the ``pot``; open prizes: one more pick — except after the last
        round, when there is no next winner.  Otherwise one prize in the middle is set aside, and
        open prizes stay in the row.  Returns what the round record says: ``carried`` (with
        ``carryover`` and open prizes, ``false`` after the last round), or ``set_aside``."""
        g = self.progress.game
        carryover = self.rules.unclaimed is Unclaimed.CARRYOVER
        carries = carryover and g.round < self.rules.rounds
        if self.rules.open_prizes > 1:
            if carries:
                g.carried_rounds += 1
            return {"carried": carries} if carryover else {}
        if carries:
            g.carry = pot
            return {"carried": True}
        g.set_aside.extend(pot)
        return {"set_aside": True}


def round_winners(strength: dict[int, int], resolution: Resolution) -> list[int]:
    """The round's winners by bid strength under the tie ``resolution`` ([] : nobody)."""
    if not strength:
        return []
    if resolution is Resolution.HIGHEST_UNIQUE:
        counts = Counter(strength.values())
        unique = [v for v, n in counts.items() if n == 1]
        if not unique:
            return []
        best = max(unique)
        return [s for s, v in strength.items() if v == best]
    best = max(strength.values())
    top = [s for s, v in strength.items() if v == best]
    if resolution is Resolution.SPLIT or len(top) == 1:
        return top
    return []
