"""The Gops state machine: one game, or a match of several, with everything the referee knows.

:class:`Gops` is built with :meth:`Gops.new` and fed actions with :meth:`Gops.apply`, which checks
the action completely (:meth:`Gops.verify`) *before* changing anything, then applies it in place
and says whether it changed anything.  A refused action leaves the state exactly as it was; nothing
is copied per action.  The state holds one object per seam of the game, each importing only those
below it (none imports the state):

* :class:`~service.games.gops.progress.MatchProgress` — the current game, the games played, who
  resigned, the result; who is in and awaited; a game's beginning and end, the match's;
* :class:`~service.games.gops.bidding.Bidding` — what a bid may be, commit, reveal, retries;
* :class:`~service.games.gops.prizes.PrizeRow` — the deal, turning up / reporting / choosing prizes,
  resolving a round, ties and carry-over;
* :class:`~service.games.gops.departures.Departures` — resign, a deadline forfeit;

and the deadlines are :mod:`~service.games.gops.clock`'s.  Chance is an explicit action
(:class:`DealPrizes`), so a game replays exactly from its recorded actions (:func:`replay`).  Scores
are whole numbers, exact :class:`fractions.Fraction` values once a prize is split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from service.games import commitments
from service.games.contract import Action, LegalAction
from service.errors import GameOver, IllegalAction, InvalidAction, InvalidOptions, RefereeError, WrongPhase
from service.games.gops import clock
from service.games.gops.actions import ChoosePrize, Commit, DealPrizes, EnforceDeadline, ReportPrize, Resign, Reveal, action_from_dict
from service.games.gops.bidding import Bidding
from service.games.gops.departures import Departures
from service.games.gops.prizes import PrizeRow
from service.games.gops.progress import MatchProgress
from service.games.gops.records import Game, MatchResult, Phase, PlayedGame
from service.games.gops.rules import MatchRules, Rules


class Gops:
    """One Gops game, or a match of several (see the module's docstring)."""

    def __init__(
        self,
        id: str,
        rules: Rules,
        match: MatchRules,
        game: Game,
        games: list[PlayedGame] | None = None,
        resigned: list[int] | None = None,
        result: MatchResult | None = None,
    ) -> None:
        self.id = id
        self.rules = rules
        self.match = match
        self.games = games or []  # records of the finished games of the match (never changed once made)
        self.resigned = resigned or []
        self.progress = MatchProgress(id, rules, match, game, self.games, self.resigned, result)
        self.bidding = Bidding(rules, self.progress)
        self.prizes = PrizeRow(rules, self.progress, self.bidding)
        self.departures = Departures(rules, self.progress, self.bidding, self.prizes)

    @property
    def game(self) -> Game:
        """The game being played (or the last one, once the match is over)."""
        return self.progress.game

    @property
    def result(self) -> MatchResult | None:
        """The match (or single game) result, once over."""
        return self.progress.result

    # ---------------------------------------------------------------- building

    @classmethod
    def new(cls, id: str, rules: Rules, match: MatchRules | None = None, now: float = 0.0) -> Gops:
        if not commitments.ID_PATTERN.match(id):
            raise InvalidOptions("game ids use only [A-Za-z0-9_-]")
        rules = rules.validate()
        match = _SINGLE_GAME if match is None else match.validate()
        state = cls(id, rules, match, None)  # type: ignore[arg-type]  # begin_game makes the game
        if state.progress.begin_game(1):
            state.prizes.start_round(now)
        return state

    def to_dict(self) -> dict[str, Any]:
        """The stored form.  Fresh containers, no deep copies; a finished game's record (result and
        history) is kept once, in ``game``, not again as the last of ``games``."""
        games = self.games
        if games and self.game.result is not None and games[-1].result.game == self.game.number:
            games = games[:-1]
        return {
            "id": self.id,
            "rules": self.rules.to_dict(),
            "match": self.match.to_dict(),
            "game": self.game.to_dict(),
            "games": [p.to_dict() for p in games],
            "resigned": list(self.resigned),
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Gops:
        game = Game.from_dict(data["game"])
        games = [PlayedGame.from_dict(p) for p in data["games"]]
        if game.result is not None and not (games and games[-1].result.game == game.number):
            games.append(PlayedGame(game.result, tuple(game.history)))
        return cls(
            data["id"],
            Rules.from_dict(data["rules"]),
            MatchRules.from_dict(data["match"]),
            game,
            games,
            list(data["resigned"]),
            None if data["result"] is None else MatchResult.from_dict(data["result"]),
        )

    def copy(self) -> Gops:
        return Gops.from_dict(self.to_dict())

    # ---------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.progress.result is not None

    @property
    def phase(self) -> Phase:
        return Phase.OVER if self.over else self.game.phase

    @property
    def needs_chance(self) -> bool:
        """True when the referee must supply the shuffled prize order (:class:`DealPrizes`)."""
        progress = self.progress
        return progress.result is None and progress.game.phase is Phase.DEAL

    def active_seats(self) -> list[int]:
        return self.progress.active_seats()

    def seat_out(self, seat: int) -> bool:
        """Has ``seat`` resigned (the match) or forfeited this game?"""
        return seat in self.resigned or seat in self.game.forfeited

    def awaiting(self) -> list[int]:
        """Seats whose action the current phase is waiting for."""
        return self.progress.awaiting()

    def current_game_id(self) -> str:
        return self.game.game_id

    def deadline_passed(self, now: float) -> bool:
        """Has the current phase's deadline passed (and the game not over)?"""
        return clock.passed(self.game, now) and not self.over

    def late_seats(self, now: float) -> list[int]:
        """The seats a passed deadline may be enforced on: those the phase still waits for."""
        return self.awaiting() if self.deadline_passed(now) else []

    def bid_problem(self, seat: int, cards: Iterable[int]) -> RefereeError | None:
        """Why ``cards`` is not a legal bid for ``seat`` now (:meth:`Bidding.bid_problem`), or ``None``."""
        return self.bidding.bid_problem(seat, cards)

    def legal_actions(self, seat: int | None, now: float | None = None) -> list[LegalAction]:
        """What ``seat`` may do next (``None``: the host / the table); empty when nothing (it is
        someone else's move, or the game is over).  ``now``: offer ``enforce_deadline`` once a
        deadline has passed (without it, the clock is not consulted)."""
        g = self.progress.game
        if self.progress.result is not None:
            return []
        out: list[LegalAction] = []
        seated = seat is not None and seat not in g.forfeited
        if seated and seat in self.progress.awaiting():
            if g.phase is Phase.COMMIT:
                out.append(LegalAction("commit", round=g.round, cards=self.rules.bid_cards, hand=g.hands[seat]))
            elif g.phase is Phase.REVEAL:
                out.append(LegalAction("reveal", round=g.round))
            elif g.phase is Phase.CHOOSE:
                out.append(LegalAction("choose_prize", ranks=sorted(g.row), picks=g.picks_owed))
        if seat is None or seated:
            if g.phase is Phase.PRIZE:
                out.append(LegalAction("report_prize", ranks=self.prizes.reportable()))
            if now is not None and self.late_seats(now):
                out.append(LegalAction("enforce_deadline"))
        if seated:
            out.append(LegalAction("resign"))
        return out

    # ---------------------------------------------------------------- applying

    def verify(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> None:
        """Raise the precise refusal if ``action`` is not legal now; change nothing.

        ``seat``: the seat making the move when the caller knows it; a Gops action names its own
        seat, which must then be that one.  (An exact repeat of a commit or reveal already applied
        is refused here like any second commitment; :meth:`apply` accepts it as a no-op.)
        """
        if self.over:
            raise GameOver("the game is over")
        step = _STEPS.get(type(action))
        if step is None:
            raise InvalidAction(f"not a Gops action: {action!r}", code="unknown_action")
        named = getattr(action, "seat", None)
        if seat is not None and named is not None and named != seat:
            raise IllegalAction(f"this {action.TYPE} is seat {named}'s, not seat {seat}'s", code="wrong_seat")
        check, _ = step
        check(self, action, now)

    def is_legal(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        try:
            self.verify(action, seat=seat, now=now)
        except RefereeError:
            return False
        return True

    def apply(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        """Check (:meth:`verify`) and apply one action at ``now``; True when it changed the state.

        An exact repeat of a commit or reveal already applied is False (a retried request changes
        nothing); every other action applied changes the state.
        """
        if isinstance(action, (Commit, Reveal)) and self.bidding.is_repeat(action):
            return False
        self.verify(action, seat=seat, now=now)
        _, do = _STEPS[type(action)]
        do(self, action, now)
        return True

    # ---------------------------------------------------------------- simulation (bots)

    def play_bids(self, bids: Mapping[int, Sequence[int]], now: float = 0.0) -> None:
        """Simulation only: play the current round from plain simultaneous bids, no commit–reveal.

        For strategy bots' playouts on their own copy of a state (never the referee's: nothing is
        committed, so nothing could be verified; the round record has no ``sealed``).  ``bids``
        maps every seat still in the game to its cards.  Resolved by :meth:`PrizeRow.settle`, as a
        completed reveal is: the same scores, hands, prizes and record.  Refused, changing
        nothing: a game over or not in the commit phase, a round some seat already committed to,
        blind reported prizes (the prize is reported after the bids), bids not for exactly the
        seats in the game (``invalid_action``), an illegal bid (its :meth:`bid_problem`).
        """
        progress = self.progress  # (a bot's playouts call this in their inner loop)
        if progress.result is not None:
            raise GameOver("the game is over")
        g = progress.game
        if g.phase is not Phase.COMMIT:
            self.bidding.require_phase(Phase.COMMIT)
        if g.commitments:
            raise IllegalAction("some seats have already committed in this round", code="already_committed")
        if self.rules.blind_reported:
            raise WrongPhase("blind reported prizes are reported after the bids: commit and reveal",
                             phase=str(g.phase))
        seats = progress.active_seats()
        if len(bids) != len(seats):
            raise InvalidAction(f"the bids must be those of the seats in the game, {seats}")
        played = {}
        for s in seats:
            if s not in bids:
                raise InvalidAction(f"the bids must be those of the seats in the game, {seats}")
            problem = self.bidding.bid_problem(s, bids[s])
            if problem is not None:
                raise problem
            played[s] = list(bids[s])
        self.prizes.settle(played, {}, None, now)


_SINGLE_GAME = MatchRules().validate()  # the default match (MatchRules are frozen)

_Check = Callable[[Gops, Any, float], None]
_Do = Callable[[Gops, Any, float], None]


def _revealed(state: Gops, action: Reveal, now: float) -> None:
    state.bidding.reveal(action)
    state.prizes.after_bids(now)


# Each action's check (changes nothing) and move, by the part of the state that owns it.  (A table
# of the class, not of each state: a state holding its own bound methods would be a reference cycle,
# freed only by the garbage collector.)
_STEPS: dict[type, tuple[_Check, _Do]] = {
    DealPrizes: (lambda s, a, now: s.prizes.check_deal(a, now), lambda s, a, now: s.prizes.deal(a, now)),
    Commit: (lambda s, a, now: s.bidding.check_commit(a, now), lambda s, a, now: s.bidding.commit(a, now)),
    Reveal: (lambda s, a, now: s.bidding.check_reveal(a, now), _revealed),
    ReportPrize: (lambda s, a, now: s.prizes.check_report(a, now), lambda s, a, now: s.prizes.report(a, now)),
    ChoosePrize: (lambda s, a, now: s.prizes.check_choose(a, now), lambda s, a, now: s.prizes.choose(a, now)),
    Resign: (lambda s, a, now: s.departures.check_resign(a, now),
             lambda s, a, now: s.departures.resign(a, now)),
    EnforceDeadline: (lambda s, a, now: s.departures.check_enforce_deadline(a, now),
                      lambda s, a, now: s.departures.enforce_deadline(a, now)),
}


def replay(id: str, rules: Rules, match: MatchRules, entries: Iterable[tuple[dict[str, Any], float]],
           start: float = 0.0) -> Gops:
    """Rebuild a state from its creation parameters, creation time and recorded ``(action, at)`` pairs."""
    state = Gops.new(id, rules, match, now=start)
    for action, at in entries:
        state.apply(action_from_dict(action), now=at)
    return state
