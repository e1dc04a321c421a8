"""Gops match progress: the game being played, the games played, who resigned, and the result.

:class:`MatchProgress` holds them for the state (:class:`service.games.gops.state.Gops`) and knows who
is still in the game and whom its phase waits for.  It begins a game, ends it (its result), and says
whether the match goes on.  A game ends when its rounds are played (or no prize is left to turn up)
or when at most one seat is left (``termination: forfeit``, the survivor wins).  The match then ends
by its format (:class:`~service.games.gops.rules.MatchFormat`), or the next game begins with its own
``game_id`` (``<id>-<n>``), hands and prize order.
"""

from __future__ import annotations

from service.games.gops import chance
from service.games.gops.records import Departure, Game, GameResult, MatchResult, Phase, PlayedGame, Termination
from service.games.gops.rules import MatchFormat, MatchRules, PrizeOrder, Rules, Tiebreak


def _argmax(values: list, among: list[int]) -> list[int]:
    best = max(values[s] for s in among)
    return [s for s in among if values[s] == best]


class MatchProgress:
    """One match (a single game is a match of one): its current ``game``, the records of the finished
    ``games`` (never changed once made), the seats that ``resigned`` and, once over, the ``result``."""

    __slots__ = ("id", "rules", "match", "game", "games", "resigned", "result", "seats")

    def __init__(self, id: str, rules: Rules, match: MatchRules, game: Game, games: list[PlayedGame],
                 resigned: list[int], result: MatchResult | None) -> None:
        self.id = id
        self.rules = rules
        self.match = match
        self.game = game
        self.games = games
        self.resigned = resigned
        self.result = result
        self.seats = tuple(range(rules.players))

    # ---------------------------------------------------------------- who is in, who is awaited

    def active_seats(self) -> list[int]:
        forfeited = self.game.forfeited
        return [s for s in self.seats if s not in forfeited]

    def awaiting(self) -> list[int]:
        """Seats whose action the current phase is waiting for."""
        g = self.game
        if self.result is not None:
            return []
        if g.phase is Phase.COMMIT:
            done = g.commitments
        elif g.phase is Phase.REVEAL:
            done = g.reveals
        elif g.phase is Phase.CHOOSE and g.chooser is not None:
            return [g.chooser]
        else:
            return []
        return [s for s in self.active_seats() if s not in done]

    # ---------------------------------------------------------------- a game begins, a game ends

    def begin_game(self, number: int) -> bool:
        """Deal game ``number``'s hands; True when its prize order is known (fixed or reported) and
        its first round must start, False when it waits for the referee's shuffled order."""
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
            return False
        order = chance.fixed_order(rules)  # None: reported at the table
        g.pile = order or []
        g.prize_order = list(order) if order else None
        return True

    def end_game(self, forfeit: bool = False) -> bool:
        """The current game is over: its result, then the match's.  True when the next game began
        with a known prize order (its first round is to start)."""
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
        self.games.append(PlayedGame(g.result, tuple(g.history)))
        return self._after_game()

    def _after_game(self) -> bool:
        match = self.match
        players = range(self.rules.players)
        eligible = [s for s in players if s not in self.resigned]
        totals = [sum(p.result.scores[s] for p in self.games) for s in players]
        wins = [sum(1 for p in self.games if p.result.winners == (s,)) for s in players]
        played = len(self.games)
        winners = self._match_winners(eligible, totals, wins, played)
        if winners is None:
            return self.begin_game(played + 1)
        self.result = MatchResult(match.format, played, tuple(winners), tuple(totals), tuple(wins))
        return False

    def _match_winners(self, eligible: list[int], totals: list, wins: list[int], played: int) -> list[int] | None:
        """The match's winners after ``played`` games, or ``None`` while it goes on."""
        match = self.match
        if len(eligible) <= 1:
            return eligible
        if match.format == MatchFormat.SINGLE:
            return list(self.games[-1].result.winners)
        if match.format == MatchFormat.CUMULATIVE:
            return _argmax(totals, eligible) if played >= match.games else None
        if match.format == MatchFormat.BEST_OF:
            remaining = max(0, match.games - played)
            ranked = sorted((wins[s] for s in eligible), reverse=True)
            if ranked[0] > ranked[1] + remaining:
                return _argmax(wins, eligible)
            if played >= match.games:
                leaders = _argmax(wins, eligible)
                if len(leaders) == 1:
                    return leaders
                if match.tiebreak == Tiebreak.TOTAL_POINTS:
                    return _argmax(totals, leaders)
                # extra_game: keep playing until one player has more wins than everyone
            return None
        if match.format == MatchFormat.TARGET and max(totals[s] for s in eligible) >= match.target:
            leaders = _argmax(totals, eligible)
            if len(leaders) == 1:
                return leaders
        return None
