"""Gops departures: a seat resigns (the rest of the match) or is late and forfeits (this game).

:class:`Departures` is one part of the state (:class:`service.games.gops.state.Gops`).  A seat that
leaves takes its commitment and reveal of the round with it; with at most one seat left the game ends
(``termination: forfeit``), otherwise the round goes on without it: the bids may now be complete, and
a chooser that leaves loses the picks it was owed.
"""

from __future__ import annotations

from service.games.gops import clock
from service.games.gops.actions import EnforceDeadline, Resign
from service.games.gops.bidding import Bidding
from service.games.gops.prizes import PrizeRow
from service.games.gops.progress import MatchProgress
from service.games.gops.records import Departure, Phase
from service.games.gops.rules import Rules


class Departures:
    """Resigning, and enforcing a deadline on the seats that are late."""

    __slots__ = ("rules", "progress", "bidding", "prizes")

    def __init__(self, rules: Rules, progress: MatchProgress, bidding: Bidding, prizes: PrizeRow) -> None:
        self.rules = rules
        self.progress = progress
        self.bidding = bidding
        self.prizes = prizes

    def check_resign(self, action: Resign, now: float) -> None:
        self.bidding.check_seat(action.seat)

    def resign(self, action: Resign, now: float) -> None:
        if action.seat not in self.progress.resigned:
            self.progress.resigned.append(action.seat)
        self._forfeit([action.seat], Departure.RESIGNED, now)

    def check_enforce_deadline(self, action: EnforceDeadline, now: float) -> None:
        clock.check_enforceable(self.progress.game, self.progress.awaiting(), now)

    def enforce_deadline(self, action: EnforceDeadline, now: float) -> None:
        late = self.progress.awaiting()
        self._forfeit(late, Departure.DEADLINE, now)

    def _forfeit(self, seats: list[int], reason: Departure, now: float) -> None:
        g = self.progress.game
        for seat in seats:
            g.forfeited[seat] = reason
            g.commitments.pop(seat, None)
            g.reveals.pop(seat, None)
        if len(self.progress.active_seats()) <= 1:
            self.prizes.end_game(now, forfeit=True)
            return
        if g.phase is Phase.COMMIT and not self.progress.awaiting():
            clock.enter_phase(self.rules, g, Phase.REVEAL, now)
        elif g.phase is Phase.REVEAL:
            self.prizes.after_bids(now)
        elif g.phase in (Phase.CHOOSE, Phase.PRIZE) and g.chooser in seats:
            # The chooser left (also while the table refills the row between its picks):
            # the picks it was owed are lost, the row stays.
            g.chooser, g.picks_owed = None, 0
            self.prizes.next_round(now)
