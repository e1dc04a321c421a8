"""Gops match progress: beginning a game, ending it (its result), and whether the match goes on.

A mixin of :class:`service.games.gops.state.Gops`.  A game ends when its rounds are played (or no prize
is left to turn up) or when at most one seat is left (``termination: forfeit``, the survivor wins).
The match then ends by its format (:class:`~service.games.gops.rules.MatchFormat`), or the next game
begins with its own ``game_id`` (``<id>-<n>``), hands and prize order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.games.gops import chance
from service.games.gops.events import Events, GameOver, GameStarted, MatchOver, SingleGameResult
from service.games.gops.records import Departure, Game, GameResult, MatchResult, Phase, PlayedGame, Termination
from service.games.gops.rules import MatchFormat, PrizeOrder, Tiebreak

if TYPE_CHECKING:
    from service.games.gops.state import Gops

    _Base = Gops
else:
    _Base = object


def _argmax(values: list, among: list[int]) -> list[int]:
    best = max(values[s] for s in among)
    return [s for s in among if values[s] == best]


class MatchProgress(_Base):
    def _begin_game(self, number: int, now: float) -> None:
        rules = self.rules
        game_id = self.id if self.match.format == MatchFormat.SINGLE else f"{self.id}-{number}"
        g = Game(game_id=game_id, number=number)
        g.hands = [list(range(1, rules.ranks + 1)) for _ in range(rules.players)]
        g.scores = [0] * rules.players
        g.won = [[] for _ in range(rules.players)]
        g.forfeited = {s: Departure.RESIGNED for s in self.resigned}
        self.game = g
        if rules.prize_order == PrizeOrder.SHUFFLED:
            g.phase = Phase.DEAL  # the referee supplies the order with DealPrizes
            return
        order = chance.fixed_order(rules)  # None: reported at the table
        g.pile = order or []
        g.prize_order = list(order) if order else None
        self._start_round(now, [])

    def _end_game(self, now: float, events: Events, forfeit: bool = False) -> None:
        g = self.game
        survivors = self.active_seats()
        g.set_aside.extend(g.carry)
        g.carry = []
        left_in_row = list(g.row) if self.rules.open_prizes > 1 else []
        if self.rules.open_prizes == 1:
            g.set_aside.extend(g.row)
            g.row = []
        winners = survivors if forfeit or not survivors else _argmax(g.scores, survivors)
        g.result = GameResult(
            game=g.number,
            game_id=g.game_id,
            termination=Termination.FORFEIT if forfeit else Termination.COMPLETED,
            scores=tuple(g.scores),
            unclaimed=sum(g.set_aside) + sum(left_in_row),
            winners=tuple(winners),
            prize_commitment=g.prize_commitment,
            prize_order=None if g.prize_order is None else tuple(g.prize_order),
            prize_salt=g.prize_salt,
        )
        g.phase = Phase.OVER
        g.deadline_at = None
        events.append(GameOver(g.result))
        self.games.append(PlayedGame(g.result, tuple(g.history)))
        self._after_game(now, events)

    def _after_game(self, now: float, events: Events) -> None:
        match = self.match
        players = range(self.rules.players)
        eligible = [s for s in players if s not in self.resigned]
        totals = [sum(p.result.scores[s] for p in self.games) for s in players]
        wins = [sum(1 for p in self.games if p.result.winners == (s,)) for s in players]
        played = len(self.games)
        winners: list[int] | None = None
        if len(eligible) <= 1:
            winners = eligible
        elif match.format == MatchFormat.SINGLE:
            winners = list(self.games[-1].result.winners)
        elif match.format == MatchFormat.CUMULATIVE:
            if played >= match.games:
                winners = _argmax(totals, eligible)
        elif match.format == MatchFormat.BEST_OF:
            remaining = max(0, match.games - played)
            ranked = sorted((wins[s] for s in eligible), reverse=True)
            if ranked[0] > ranked[1] + remaining:
                winners = _argmax(wins, eligible)
            elif played >= match.games:
                leaders = _argmax(wins, eligible)
                if len(leaders) == 1:
                    winners = leaders
                elif match.tiebreak == Tiebreak.TOTAL_POINTS:
                    winners = _argmax(totals, leaders)
                # extra_game: keep playing until one player has more wins than everyone
        elif match.format == MatchFormat.TARGET:
            if max(totals[s] for s in eligible) >= match.target:
                leaders = _argmax(totals, eligible)
                if len(leaders) == 1:
                    winners = leaders
        if winners is None:
            self._begin_game(played + 1, now)
            events.append(GameStarted(played + 1, self.game.game_id))
            return
        self.result = MatchResult(match.format, played, tuple(winners), tuple(totals), tuple(wins))
        events.append((SingleGameResult if match.format == MatchFormat.SINGLE else MatchOver)(self.result))
