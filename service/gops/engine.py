"""The Gops (Goofspiel) rules engine: pure Python, no I/O.

Everything in ``shared/rules/gops.md`` is here: 2–7 players, ranks A..n, the tie
resolutions (``none`` / ``split`` / ``highest_unique``) with unclaimed pots
carried over or discarded, the named profiles, every prize order (shuffled,
ascending, descending, explicit, reported at the table), blind and
dealer-sees-prize, multi-card bids, the open-prizes row with the winner's
choice, deadlines, resignations and matches of several games.

The shape follows OpenSpiel's game/state/observer split:

* :class:`Rules` and :class:`MatchRules` are the fixed parameters of a game,
  validated once (:func:`make_rules` builds them from a profile plus options);
* :class:`Gops` is the state of one game or match.  :meth:`Gops.apply` takes one
  action, checks it completely, and either raises a typed error (leaving the
  state untouched) or changes the state and returns the public events;
* :func:`view` is the observer: what one seat (or the public) may see.

Chance is an explicit action (:class:`DealPrizes`), so a game replays exactly
from its recorded actions (:func:`replay`).  Split scores are exact
:class:`fractions.Fraction` values.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from .. import commitments
from ..errors import (
    CommitmentMismatch,
    GameOver,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    NotYourTurn,
    RefereeError,
    WrongPhase,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 7
MAX_RANKS = 13
RESOLUTIONS = ("none", "split", "highest_unique")
UNCLAIMED = ("carryover", "discard")
PRIZE_ORDERS = ("shuffled", "ascending", "descending", "explicit", "reported")
VISIBILITIES = ("open", "blind", "dealer_sees_prize")
MATCH_FORMATS = ("single", "cumulative", "best_of", "target")
TIEBREAKS = ("extra_game", "total_points")

PROFILES: dict[str, dict[str, Any]] = {
    # 000: two players, a tie leaves the pot in the middle for the next winner.
    "classic": {"players": 2, "resolution": "none", "unclaimed": "carryover"},
    # 002 standard rule: a tied prize is discarded.
    "standard": {"resolution": "none", "unclaimed": "discard"},
}

RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def rank_name(rank: int) -> str:
    """``1 -> 'A'``, ``10 -> '10'``, ``13 -> 'K'``."""
    return RANK_NAMES.get(rank, str(rank))


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rules:
    """The fixed parameters of one Gops game (never change mid-game)."""

    players: int = 2
    ranks: int = MAX_RANKS
    resolution: str = "none"
    unclaimed: str = "discard"
    prize_order: str = "shuffled"
    explicit_order: tuple[int, ...] = ()
    visibility: str = "open"
    dealer_seat: int | None = None
    bid_cards: int = 1
    open_prizes: int = 1
    deadline_seconds: int | None = None

    @property
    def rounds(self) -> int:
        """Rounds in one game: every card bid once, ⌊n/k⌋ with k-card bids."""
        return self.ranks // self.bid_cards

    @property
    def total_points(self) -> int:
        return self.ranks * (self.ranks + 1) // 2

    def validate(self) -> "Rules":
        def bad(detail: str) -> InvalidOptions:
            return InvalidOptions(detail)

        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise bad(f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}")
        if not 1 <= self.ranks <= MAX_RANKS:
            raise bad(f"ranks must be between 1 and {MAX_RANKS} (A..n)")
        if self.resolution not in RESOLUTIONS:
            raise bad(f"resolution must be one of {', '.join(RESOLUTIONS)}")
        if self.unclaimed not in UNCLAIMED:
            raise bad(f"unclaimed must be one of {', '.join(UNCLAIMED)}")
        if self.prize_order not in PRIZE_ORDERS:
            raise bad(f"prize_order must be one of {', '.join(PRIZE_ORDERS)}")
        if self.prize_order == "explicit":
            if sorted(self.explicit_order) != list(range(1, self.ranks + 1)):
                raise bad(
                    f"explicit_order must list every rank 1..{self.ranks} exactly once"
                )
        elif self.explicit_order:
            raise bad("explicit_order is only allowed with prize_order 'explicit'")
        if self.visibility not in VISIBILITIES:
            raise bad(f"visibility must be one of {', '.join(VISIBILITIES)}")
        if self.visibility == "dealer_sees_prize":
            if self.dealer_seat is None or not 0 <= self.dealer_seat < self.players:
                raise bad("dealer_sees_prize needs dealer_seat, a seat of this game")
        elif self.dealer_seat is not None:
            raise bad("dealer_seat is only allowed with visibility 'dealer_sees_prize'")
        if not 1 <= self.bid_cards <= self.ranks:
            raise bad("bid_cards must be between 1 and ranks")
        if not 1 <= self.open_prizes <= self.ranks:
            raise bad("open_prizes must be between 1 and ranks")
        if self.open_prizes > 1 and self.visibility != "open":
            raise bad("open prizes are face up: they cannot be combined with a hidden prize")
        if self.deadline_seconds is not None and not 1 <= self.deadline_seconds <= 7 * 86400:
            raise bad("deadline_seconds must be between 1 and 604800 (a week)")
        return self

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["explicit_order"] = list(self.explicit_order)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Rules":
        data = dict(data)
        data["explicit_order"] = tuple(data.get("explicit_order") or ())
        return cls(**data)


@dataclass(frozen=True)
class MatchRules:
    """How several games make one match (``single`` = just one game)."""

    format: str = "single"
    games: int | None = None
    target: int | None = None
    tiebreak: str = "extra_game"

    def validate(self) -> "MatchRules":
        if self.format not in MATCH_FORMATS:
            raise InvalidOptions(f"match format must be one of {', '.join(MATCH_FORMATS)}")
        if self.tiebreak not in TIEBREAKS:
            raise InvalidOptions(f"tiebreak must be one of {', '.join(TIEBREAKS)}")
        if self.format == "cumulative":
            if self.games is None or not 1 <= self.games <= 50:
                raise InvalidOptions("a cumulative match needs games between 1 and 50")
        elif self.format == "best_of":
            if self.games not in (3, 5):
                raise InvalidOptions("best_of is best of 3 or best of 5 games")
        elif self.games is not None:
            raise InvalidOptions("games is only allowed with cumulative or best_of matches")
        if self.format == "target":
            if self.target is None or not 1 <= self.target <= 10_000:
                raise InvalidOptions("a target match needs a target between 1 and 10000")
        elif self.target is not None:
            raise InvalidOptions("target is only allowed with a target match")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MatchRules":
        return cls(**data)


def make_rules(profile: str = "standard", **options: Any) -> Rules:
    """Rules from a named profile plus options; options override the profile.

    >>> make_rules("classic").unclaimed
    'carryover'
    >>> make_rules("classic", players=3)
    Traceback (most recent call last):
    ...
    service.errors.InvalidOptions: the classic profile is a 2-player game
    """
    if profile not in PROFILES:
        raise InvalidOptions(
            f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}",
            code="unknown_profile",
        )
    base = dict(PROFILES[profile])
    if profile == "classic" and options.get("players", 2) != 2:
        raise InvalidOptions("the classic profile is a 2-player game")
    unknown = set(options) - set(Rules.__dataclass_fields__)
    if unknown:
        raise InvalidOptions(f"unknown options: {', '.join(sorted(unknown))}")
    base.update({k: v for k, v in options.items() if v is not None})
    if "explicit_order" in base:
        base["explicit_order"] = tuple(base["explicit_order"])
    return Rules(**base).validate()


def make_match_rules(
    format: str = "single",
    games: int | None = None,
    target: int | None = None,
    tiebreak: str = "extra_game",
) -> MatchRules:
    if format == "target" and target is None:
        target = 92  # "92 Makes Game" (004)
    if format == "best_of" and games is None:
        games = 3
    return MatchRules(format=format, games=games, target=target, tiebreak=tiebreak).validate()


# ------------------------------------------------------------------------ actions


@dataclass(frozen=True)
class DealPrizes:
    """Chance: the shuffled prize order of the current game, and the salt of its commitment."""

    order: tuple[int, ...]
    salt: str
    type = "deal_prizes"


@dataclass(frozen=True)
class Commit:
    """A seat's commitment for a round; ``game`` (number in a match) guards against late retries."""

    seat: int
    round: int
    commitment: str
    game: int | None = None
    type = "commit"


@dataclass(frozen=True)
class Reveal:
    seat: int
    round: int
    cards: tuple[int, ...]
    salt: str
    game: int | None = None
    type = "reveal"


@dataclass(frozen=True)
class ReportPrize:
    """The prize card turned up at a real table (prize order ``reported``)."""

    rank: int
    type = "report_prize"


@dataclass(frozen=True)
class ChoosePrize:
    seat: int
    rank: int
    type = "choose_prize"


@dataclass(frozen=True)
class Resign:
    seat: int
    type = "resign"


@dataclass(frozen=True)
class EnforceDeadline:
    type = "enforce_deadline"


Action = DealPrizes | Commit | Reveal | ReportPrize | ChoosePrize | Resign | EnforceDeadline
ACTION_TYPES: dict[str, type] = {
    cls.type: cls
    for cls in (DealPrizes, Commit, Reveal, ReportPrize, ChoosePrize, Resign, EnforceDeadline)
}


def action_to_dict(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"type": action.type}
    for key, value in asdict(action).items():
        data[key] = list(value) if isinstance(value, tuple) else value
    return data


def action_from_dict(data: dict[str, Any]) -> Action:
    data = dict(data)
    kind = data.pop("type", None)
    cls = ACTION_TYPES.get(kind)
    if cls is None:
        raise InvalidAction(f"unknown action type {kind!r}", code="unknown_action")
    for key in ("order", "cards"):
        if key in data:
            data[key] = tuple(data[key])
    try:
        return cls(**data)
    except TypeError as exc:
        raise InvalidAction(f"malformed {kind} action: {exc}") from None


# -------------------------------------------------------------------------- state


def _frac_str(value: Fraction) -> str:
    return str(value)


def _frac(text: str | int) -> Fraction:
    return Fraction(text)


@dataclass
class Game:
    """The state of one game (one deal of prizes) inside a session."""

    game_id: str
    number: int
    phase: str = "deal"  # deal | prize | commit | reveal | choose | over
    round: int = 1
    hands: list[list[int]] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)  # face-down prizes, next first (hidden)
    turned: list[int] = field(default_factory=list)  # every prize turned up so far, in order
    row: list[int] = field(default_factory=list)  # face-up prizes in the middle (m=1: the prize)
    carry: list[int] = field(default_factory=list)  # tied prizes waiting for the next winner
    carried_rounds: int = 0  # open prizes + carryover: extra picks owed to the next winner
    scores: list[Fraction] = field(default_factory=list)
    won: list[list[int]] = field(default_factory=list)
    set_aside: list[int] = field(default_factory=list)  # prizes nobody won
    commitments: dict[int, str] = field(default_factory=dict)
    reveals: dict[int, dict[str, Any]] = field(default_factory=dict)
    forfeited: dict[int, str] = field(default_factory=dict)  # seat -> "deadline" | "resigned"
    history: list[dict[str, Any]] = field(default_factory=list)
    deadline_at: float | None = None
    chooser: int | None = None
    picks_owed: int = 0
    prize_commitment: str | None = None
    prize_order: list[int] | None = None
    prize_salt: str | None = None
    result: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["scores"] = [_frac_str(s) for s in self.scores]
        data["commitments"] = {str(k): v for k, v in self.commitments.items()}
        data["reveals"] = {str(k): v for k, v in self.reveals.items()}
        data["forfeited"] = {str(k): v for k, v in self.forfeited.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Game":
        data = copy.deepcopy(data)
        data["scores"] = [_frac(s) for s in data["scores"]]
        for key in ("commitments", "reveals", "forfeited"):
            data[key] = {int(k): v for k, v in data[key].items()}
        return cls(**data)


class Gops:
    """One Gops game, or a match of several, with everything the referee knows.

    Build with :meth:`new`; feed actions to :meth:`apply`.  ``apply`` either
    raises a :class:`~service.errors.RefereeError` and leaves the state exactly
    as it was, or changes it and returns the list of public events.
    """

    def __init__(
        self,
        id: str,
        rules: Rules,
        match: MatchRules,
        game: Game,
        games: list[dict[str, Any]] | None = None,
        resigned: list[int] | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.rules = rules
        self.match = match
        self.game = game
        self.games = games or []  # results of finished games of the match
        self.resigned = resigned or []
        self.result = result  # the match (or single game) result, once over

    # ---------------------------------------------------------------- building

    @classmethod
    def new(cls, id: str, rules: Rules, match: MatchRules | None = None, now: float = 0.0) -> "Gops":
        if not commitments.ID_PATTERN.match(id):
            raise InvalidOptions("game ids use only [A-Za-z0-9_-]")
        rules.validate()
        match = (match or MatchRules()).validate()
        state = cls(id, rules, match, Game(game_id=id, number=1))
        state._begin_game(1, now)
        return state

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rules": self.rules.to_dict(),
            "match": self.match.to_dict(),
            "game": self.game.to_dict(),
            "games": copy.deepcopy(self.games),
            "resigned": list(self.resigned),
            "result": copy.deepcopy(self.result),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Gops":
        return cls(
            data["id"],
            Rules.from_dict(data["rules"]),
            MatchRules.from_dict(data["match"]),
            Game.from_dict(data["game"]),
            copy.deepcopy(data["games"]),
            list(data["resigned"]),
            copy.deepcopy(data["result"]),
        )

    def copy(self) -> "Gops":
        return Gops.from_dict(self.to_dict())

    # ---------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def phase(self) -> str:
        return "over" if self.over else self.game.phase

    @property
    def needs_chance(self) -> bool:
        """True when the referee must supply the shuffled prize order (:class:`DealPrizes`)."""
        return not self.over and self.game.phase == "deal"

    def active_seats(self) -> list[int]:
        return [s for s in range(self.rules.players) if s not in self.game.forfeited]

    def awaiting(self) -> list[int]:
        """Seats whose action the current phase is waiting for."""
        g = self.game
        if self.over:
            return []
        if g.phase == "commit":
            return [s for s in self.active_seats() if s not in g.commitments]
        if g.phase == "reveal":
            return [s for s in self.active_seats() if s not in g.reveals]
        if g.phase == "choose" and g.chooser is not None:
            return [g.chooser]
        return []

    def current_game_id(self) -> str:
        return self.game.game_id

    def deadline_passed(self, now: float) -> bool:
        return self.game.deadline_at is not None and now >= self.game.deadline_at and not self.over

    def legal_actions(self, seat: int | None, now: float | None = None) -> list[dict[str, Any]]:
        """What ``seat`` may do next (``None``: the host / the table).

        Each entry is a dict with a ``type`` and what the action needs; an
        empty list means nothing (it is someone else's move, or the game is over).
        """
        g = self.game
        if self.over:
            return []
        out: list[dict[str, Any]] = []
        seated = seat is not None and seat not in g.forfeited
        if seated and seat in self.awaiting():
            if g.phase == "commit":
                out.append(
                    {"type": "commit", "round": g.round, "cards": self.rules.bid_cards,
                     "hand": list(g.hands[seat])}
                )
            elif g.phase == "reveal":
                out.append({"type": "reveal", "round": g.round})
            elif g.phase == "choose":
                out.append({"type": "choose_prize", "ranks": sorted(g.row), "picks": g.picks_owed})
        if g.phase == "prize" and (seat is None or seated):
            out.append({"type": "report_prize", "ranks": self._reportable()})
        if seat is None or seated:
            if now is not None and self.deadline_passed(now) and self.awaiting():
                out.append({"type": "enforce_deadline"})
        if seated:
            out.append({"type": "resign"})
        return out

    def _reportable(self) -> list[int]:
        return [r for r in range(1, self.rules.ranks + 1) if r not in self.game.turned]

    # ---------------------------------------------------------------- applying

    def apply(self, action: Action, now: float = 0.0) -> list[dict[str, Any]]:
        """Check and apply one action; return the public events it caused.

        Raises a typed error and leaves the state unchanged when the action is
        not legal.  An exact repeat of a commit or reveal already applied is a
        no-op that returns no events (so a retried request changes nothing).
        """
        if isinstance(action, (Commit, Reveal)) and self._is_repeat(action):
            return []
        if self.over:
            raise GameOver("the game is over")
        trial = self.copy()
        events = trial._apply(action, now)
        self.__dict__.update(trial.__dict__)
        return events

    def _apply(self, action: Action, now: float) -> list[dict[str, Any]]:
        handler = {
            DealPrizes: self._deal_prizes,
            Commit: self._commit,
            Reveal: self._reveal,
            ReportPrize: self._report_prize,
            ChoosePrize: self._choose_prize,
            Resign: self._resign,
            EnforceDeadline: self._enforce_deadline,
        }.get(type(action))
        if handler is None:
            raise InvalidAction(f"not a Gops action: {action!r}", code="unknown_action")
        events: list[dict[str, Any]] = []
        handler(action, now, events)
        return events

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.rules.players:
            raise InvalidAction(f"seat must be between 0 and {self.rules.players - 1}", code="no_such_seat")
        if seat in self.game.forfeited:
            raise IllegalAction(
                f"seat {seat} has {'resigned' if self.game.forfeited[seat] == 'resigned' else 'forfeited'} this game",
                code="seat_out",
            )

    def _require_phase(self, *phases: str) -> None:
        if self.game.phase not in phases:
            raise WrongPhase(
                f"the game is in phase {self.game.phase!r}, not {' or '.join(repr(p) for p in phases)}",
                phase=self.game.phase,
            )

    def _check_ranks_typed(self, cards: Iterable[int]) -> tuple[int, ...]:
        """Every card of a reveal is an integer (anything else cannot be a hashed rank)."""
        cards = tuple(cards)
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool):
                raise InvalidAction(f"{c!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        return cards

    def bid_problem(self, seat: int, cards: Iterable[int]) -> RefereeError | None:
        """Why ``cards`` is not a legal bid for ``seat`` now, or ``None`` when it is.

        Illegal (002 "Giocata illegale"): the wrong number of cards, a rank this
        game does not have, the same card twice, a card not in hand (spent).
        """
        cards = tuple(cards)
        k = self.rules.bid_cards
        if len(cards) != k:
            return InvalidAction(f"a bid is exactly {k} card{'s' if k > 1 else ''}", code="wrong_card_count")
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 1 <= c <= self.rules.ranks:
                return InvalidAction(f"{c!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        if len(set(cards)) != len(cards):
            return InvalidAction("a bid cannot use the same card twice", code="duplicate_card")
        hand = self.game.hands[seat]
        for c in cards:
            if c not in hand:
                return IllegalAction(f"{rank_name(c)} is not in seat {seat}'s hand (already spent)",
                                     code="card_not_in_hand")
        return None

    def forfeited_bid(self, seat: int) -> list[int]:
        """The bid played for a seat whose opened commitment was illegal: its lowest card(s)."""
        return sorted(self.game.hands[seat])[: self.rules.bid_cards]

    def _check_round(self, round_number: int) -> None:
        if round_number != self.game.round:
            raise IllegalAction(
                f"this is round {self.game.round}, not round {round_number}", code="wrong_round",
                round=self.game.round,
            )

    # --- chance

    def _deal_prizes(self, action: DealPrizes, now: float, events: list) -> None:
        self._require_phase("deal")
        order = list(action.order)
        if sorted(order) != list(range(1, self.rules.ranks + 1)):
            raise InvalidAction("the prize order must list every rank once", code="invalid_prize_order")
        commitments.check_salt(action.salt)
        g = self.game
        g.pile = order
        g.prize_order = list(order)
        g.prize_salt = action.salt
        g.prize_commitment = commitments.prize_order_commitment(g.game_id, order, action.salt)
        events.append({"type": "prizes_shuffled", "game": g.number, "commitment": g.prize_commitment})
        self._start_round(now, events)

    # --- bids

    def _commit(self, action: Commit, now: float, events: list) -> None:
        g = self.game
        self._check_seat(action.seat)
        commitments.check_commitment_format(action.commitment)
        self._check_game(action)
        self._check_round(action.round)
        self._require_phase("commit")
        if action.seat in g.commitments:
            raise IllegalAction(
                f"seat {action.seat} has already committed in round {g.round}; a commitment cannot change",
                code="already_committed",
            )
        # A commitment equal to another seat's is accepted like any other: refusing it would tell a
        # rival who guessed that seat's hash that the guess was right (an oracle), and the copy can
        # never be opened by the copier (the message names the seat), so it only wedges the copier,
        # whom the deadline (if any) removes.
        g.commitments[action.seat] = action.commitment
        events.append({"type": "committed", "round": g.round, "seat": action.seat})
        if not self.awaiting():
            self._enter_phase("reveal", now, events)

    def _is_repeat(self, action: Commit | Reveal) -> bool:
        """Is this an exact repeat of a commit or reveal already applied (a retried request)?

        Without ``game`` only the current game is searched: in a match, a
        client that may retry late should name the game it means.
        """
        g = self.game
        number = g.number if action.game is None else action.game
        if isinstance(action, Commit):
            recorded, mine = "commitments", action.commitment
        else:
            recorded, mine = "reveals", {"cards": list(action.cards), "salt": action.salt}
        if number == g.number:
            current = g.commitments if isinstance(action, Commit) else g.reveals
            if action.round == g.round and current.get(action.seat) == mine:
                return True
            history = g.history
        elif 1 <= number < g.number:
            history = self.games[number - 1].get("history", [])
        else:
            return False
        if 1 <= action.round <= len(history) and (number != g.number or action.round < g.round):
            return history[action.round - 1].get(recorded, {}).get(str(action.seat)) == mine
        return False

    def _check_game(self, action: Commit | Reveal) -> None:
        if action.game is not None and action.game != self.game.number:
            raise IllegalAction(
                f"this is game {self.game.number} ({self.game.game_id}), not game {action.game}",
                code="wrong_game", game_id=self.game.game_id,
            )

    def _reveal(self, action: Reveal, now: float, events: list) -> None:
        """Open a commitment.

        A reveal that does not open the seat's commitment is refused: with the
        bid's own legality error when the cards are not a legal bid anyway
        (a typo), else ``commitment_mismatch``.  A reveal that *does* open it is
        accepted even when the committed bid is illegal (a spent card, ``[3, 3]``,
        the wrong count): the commitment can never be opened any other way, so
        refusing it would wedge the game.  Such a bid is forfeited to the seat's
        lowest card(s) when the round resolves (:meth:`forfeited_bid`) and the
        round record says why (``illegal``).  That is decided when the seat
        commits, so it gains nothing: it could have bid its lowest card anyway.
        """
        g = self.game
        self._check_seat(action.seat)
        commitments.check_salt(action.salt)
        self._check_game(action)
        self._check_round(action.round)
        self._require_phase("reveal")
        if action.seat in g.reveals:
            raise IllegalAction(f"seat {action.seat} has already revealed in round {g.round}", code="already_revealed")
        cards = self._check_ranks_typed(action.cards)
        expected = commitments.bid_commitment(g.game_id, g.round, action.seat, cards, action.salt)
        if not commitments.matches(expected, g.commitments[action.seat]):
            problem = self.bid_problem(action.seat, cards)
            if problem is not None:
                raise problem
            raise CommitmentMismatch(
                "these cards and salt do not hash to the seat's commitment for this game, round and seat"
            )
        g.reveals[action.seat] = {"cards": list(cards), "salt": action.salt}
        events.append({"type": "revealed", "round": g.round, "seat": action.seat})
        self._after_bids(now, events)

    def _after_bids(self, now: float, events: list) -> None:
        """Called when a reveal (or a forfeit) may have completed the round's bids."""
        g = self.game
        if self.awaiting():
            return
        if not g.row and self.rules.prize_order == "reported" and self.rules.visibility == "blind":
            # Blind at a real table: the face-down prize is turned up with the bids.
            self._enter_phase("prize", now, events)
            return
        self._resolve(now, events)

    # --- prizes

    def _report_prize(self, action: ReportPrize, now: float, events: list) -> None:
        g = self.game
        self._require_phase("prize")
        if not isinstance(action.rank, int) or not 1 <= action.rank <= self.rules.ranks:
            raise InvalidAction(f"{action.rank!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        if action.rank in g.turned:
            raise IllegalAction(f"the prize {rank_name(action.rank)} has already been turned up", code="prize_already_seen")
        g.turned.append(action.rank)
        g.row.append(action.rank)
        events.append({"type": "prize_reported", "round": g.round, "rank": action.rank if self._prize_public() else None})
        if g.chooser is not None:  # open prizes: the row refilled between a winner's picks
            if len(g.row) >= self.rules.open_prizes or len(g.turned) >= self.rules.ranks:
                self._enter_phase("choose", now, events)
        elif g.reveals and not self.awaiting():  # blind: the bids are in, resolve now
            self._resolve(now, events)
        elif len(g.row) >= self.rules.open_prizes or len(g.turned) >= self.rules.ranks:
            self._enter_phase("commit", now, events)

    def _prize_public(self) -> bool:
        return self.rules.visibility == "open"

    def _choose_prize(self, action: ChoosePrize, now: float, events: list) -> None:
        g = self.game
        self._check_seat(action.seat)
        self._require_phase("choose")
        if action.seat != g.chooser:
            raise NotYourTurn(f"seat {g.chooser} chooses the prize this round, not seat {action.seat}")
        if action.rank not in g.row:
            raise IllegalAction(f"{rank_name(action.rank)} is not in the open prizes row", code="prize_not_in_row")
        g.row.remove(action.rank)
        g.won[action.seat].append(action.rank)
        g.scores[action.seat] += action.rank
        g.history[-1].setdefault("chosen", []).append(action.rank)
        g.picks_owed -= 1
        events.append({"type": "prize_chosen", "round": g.round, "seat": action.seat, "rank": action.rank})
        # The row is refilled from the pile between picks, so a winner owed more picks than the row
        # held (carried rounds) still takes every one of them.  After the last pick nothing more is
        # turned up until the next round starts (and nothing at all after the last round).
        if g.picks_owed > 0 and not self._fill_row(now, events):
            return  # a reported order: the table turns the next prize up, then the chooser goes on
        if g.picks_owed <= 0 or not g.row:  # done, or no prize left anywhere to take
            g.picks_owed = 0
            g.chooser = None
            self._next_round(now, events)

    # --- leaving

    def _resign(self, action: Resign, now: float, events: list) -> None:
        self._check_seat(action.seat)
        if action.seat not in self.resigned:
            self.resigned.append(action.seat)
        events.append({"type": "resigned", "seat": action.seat})
        self._forfeit([action.seat], "resigned", now, events)

    def _enforce_deadline(self, action: EnforceDeadline, now: float, events: list) -> None:
        g = self.game
        if g.deadline_at is None:
            raise IllegalAction("this phase has no deadline", code="no_deadline")
        if now < g.deadline_at:
            raise IllegalAction(
                f"the deadline has not passed yet ({g.deadline_at - now:.0f} s left)",
                code="deadline_not_passed", deadline_at=g.deadline_at,
            )
        late = self.awaiting()
        if not late:
            raise IllegalAction("nobody is late", code="nobody_late")
        events.append({"type": "deadline_enforced", "phase": g.phase, "seats": late})
        self._forfeit(late, "deadline", now, events)

    def _forfeit(self, seats: list[int], reason: str, now: float, events: list) -> None:
        g = self.game
        for seat in seats:
            g.forfeited[seat] = reason
            g.commitments.pop(seat, None)
            g.reveals.pop(seat, None)
            events.append({"type": "forfeited", "seat": seat, "reason": reason})
        survivors = self.active_seats()
        if len(survivors) <= 1:
            self._end_game(now, events, termination="forfeit")
            return
        if g.phase == "commit" and not self.awaiting():
            self._enter_phase("reveal", now, events)
        elif g.phase == "reveal":
            self._after_bids(now, events)
        elif g.phase in ("choose", "prize") and g.chooser in seats:
            # The chooser left (also while the table refills the row between its picks):
            # the picks it was owed are lost, the row stays.
            g.chooser, g.picks_owed = None, 0
            self._next_round(now, events)

    # --- rounds

    def _enter_phase(self, phase: str, now: float, events: list) -> None:
        g = self.game
        g.phase = phase
        if phase in ("commit", "reveal", "choose") and self.rules.deadline_seconds:
            g.deadline_at = now + self.rules.deadline_seconds
        else:
            g.deadline_at = None
        events.append({"type": "phase", "phase": phase, "round": g.round, "deadline_at": g.deadline_at})

    def _start_round(self, now: float, events: list) -> None:
        g = self.game
        g.commitments, g.reveals = {}, {}
        if g.round > self.rules.rounds:
            self._end_game(now, events)
            return
        blind_reported = self.rules.prize_order == "reported" and self.rules.visibility == "blind"
        if not blind_reported:
            if not self._fill_row(now, events):
                return
            if not g.row:
                self._end_game(now, events)
                return
        self._enter_phase("commit", now, events)

    def _fill_row(self, now: float, events: list) -> bool:
        """Turn prizes up until the row holds ``open_prizes`` of them (or every prize is up).

        With a reported order the table turns them up: the game enters the
        ``prize`` phase and this returns False (:meth:`_report_prize` goes on).
        """
        g = self.game
        while len(g.row) < self.rules.open_prizes and len(g.turned) < self.rules.ranks:
            if self.rules.prize_order == "reported":
                self._enter_phase("prize", now, events)
                return False
            prize = g.pile.pop(0)
            g.turned.append(prize)
            g.row.append(prize)
            events.append(
                {"type": "prize_turned", "round": g.round, "rank": prize if self._prize_public() else None}
            )
        return True

    def _next_round(self, now: float, events: list) -> None:
        self.game.round += 1
        self._start_round(now, events)

    def _resolve(self, now: float, events: list) -> None:
        g = self.game
        rules = self.rules
        bids: dict[int, list[int]] = {}
        illegal: dict[str, str] = {}
        for s in sorted(g.reveals):
            opened = list(g.reveals[s]["cards"])
            problem = self.bid_problem(s, opened)
            if problem is None:
                bids[s] = opened
            else:  # an opened but illegal bid: forfeited to the seat's lowest card(s)
                bids[s] = self.forfeited_bid(s)
                illegal[str(s)] = problem.code
        strength = {s: sum(cards) for s, cards in bids.items()}
        winners = self._winners(strength)
        record: dict[str, Any] = {
            "round": g.round,
            "commitments": {str(s): c for s, c in sorted(g.commitments.items())},
            "reveals": {str(s): copy.deepcopy(v) for s, v in sorted(g.reveals.items())},
            "bids": {str(s): cards for s, cards in bids.items()},
            "winners": winners,
        }
        if illegal:
            record["illegal"] = illegal
        for s, cards in bids.items():
            for c in cards:
                g.hands[s].remove(c)
        last_round = g.round >= rules.rounds
        if rules.open_prizes == 1:
            pot = g.carry + g.row
            g.row, g.carry = [], []
            value = sum(pot)
            record["pot"] = pot
            if winners:
                share = Fraction(value, len(winners))
                for s in winners:
                    g.scores[s] += share
                    if len(winners) == 1:
                        g.won[s].extend(pot)
                record["shares"] = {str(s): _frac_str(share) for s in winners}
            elif rules.unclaimed == "carryover" and not last_round:
                g.carry = pot
                record["carried"] = True
            else:
                g.set_aside.extend(pot)
                record["set_aside"] = True
            events.append({"type": "round_resolved", **_public_record(record)})
            g.history.append(record)
            self._next_round(now, events)
            return
        # Open prizes: a single winner chooses from the row.  A tie (also under ``split``, which
        # cannot split a choice) takes nothing, so the record names no winner.
        record["row"] = list(g.row)
        if len(winners) == 1:
            g.chooser = winners[0]
            # Every pick owed is taken: the row is refilled between picks (see _choose_prize).
            g.picks_owed = 1 + g.carried_rounds
            g.carried_rounds = 0
            record["picks"] = g.picks_owed
        else:
            record["winners"] = []
            if rules.unclaimed == "carryover":
                g.carried_rounds += 1
                record["carried"] = True
        events.append({"type": "round_resolved", **_public_record(record)})
        g.history.append(record)
        if g.chooser is not None and g.picks_owed > 0:
            self._enter_phase("choose", now, events)
        else:
            self._next_round(now, events)

    def _winners(self, strength: dict[int, int]) -> list[int]:
        if not strength:
            return []
        resolution = self.rules.resolution
        if resolution == "highest_unique":
            counts = Counter(strength.values())
            unique = [v for v, n in counts.items() if n == 1]
            if not unique:
                return []
            best = max(unique)
            return [s for s, v in strength.items() if v == best]
        best = max(strength.values())
        top = [s for s, v in strength.items() if v == best]
        if resolution == "split" or len(top) == 1:
            return top
        return []

    # --- games and the match

    def _begin_game(self, number: int, now: float) -> None:
        rules = self.rules
        game_id = self.id if self.match.format == "single" else f"{self.id}-{number}"
        g = Game(game_id=game_id, number=number)
        g.hands = [list(range(1, rules.ranks + 1)) for _ in range(rules.players)]
        g.scores = [Fraction(0) for _ in range(rules.players)]
        g.won = [[] for _ in range(rules.players)]
        g.forfeited = {s: "resigned" for s in self.resigned}
        self.game = g
        order = {
            "ascending": list(range(1, rules.ranks + 1)),
            "descending": list(range(rules.ranks, 0, -1)),
            "explicit": list(rules.explicit_order),
        }.get(rules.prize_order)
        if rules.prize_order == "shuffled":
            g.phase = "deal"  # the referee supplies the order with DealPrizes
            return
        g.pile = order or []
        g.prize_order = list(order) if order else None
        self._start_round(now, [])

    def _end_game(self, now: float, events: list, termination: str = "completed") -> None:
        g = self.game
        survivors = self.active_seats()
        g.set_aside.extend(g.carry)
        g.carry = []
        left_in_row = list(g.row) if self.rules.open_prizes > 1 else []
        if self.rules.open_prizes == 1:
            g.set_aside.extend(g.row)
            g.row = []
        if termination == "forfeit":
            winners = survivors
        elif survivors:
            best = max(g.scores[s] for s in survivors)
            winners = [s for s in survivors if g.scores[s] == best]
        else:
            winners = []
        unclaimed = sum(g.set_aside) + sum(left_in_row)
        g.result = {
            "game": g.number,
            "game_id": g.game_id,
            "termination": termination,
            "scores": [_frac_str(s) for s in g.scores],
            "unclaimed": unclaimed,
            "winners": winners,
            "prize_commitment": g.prize_commitment,
            "prize_order": g.prize_order,
            "prize_salt": g.prize_salt,
        }
        g.phase = "over"
        g.deadline_at = None
        events.append({"type": "game_over", **g.result})
        self.games.append({**copy.deepcopy(g.result), "history": copy.deepcopy(g.history)})
        self._after_game(now, events)

    def _after_game(self, now: float, events: list) -> None:
        match = self.match
        players = range(self.rules.players)
        eligible = [s for s in players if s not in self.resigned]
        totals = [sum((_frac(r["scores"][s]) for r in self.games), Fraction(0)) for s in players]
        wins = [sum(1 for r in self.games if r["winners"] == [s]) for s in players]
        played = len(self.games)
        winners: list[int] | None = None
        if len(eligible) <= 1:
            winners = eligible
        elif match.format == "single":
            winners = self.games[-1]["winners"]
        elif match.format == "cumulative":
            if played >= match.games:
                winners = _argmax(totals, eligible)
        elif match.format == "best_of":
            remaining = max(0, match.games - played)
            ranked = sorted((wins[s] for s in eligible), reverse=True)
            if ranked[0] > ranked[1] + remaining:
                winners = _argmax(wins, eligible)
            elif played >= match.games:
                leaders = _argmax(wins, eligible)
                if len(leaders) == 1:
                    winners = leaders
                elif match.tiebreak == "total_points":
                    winners = _argmax(totals, leaders)
                # extra_game: keep playing until one player has more wins than everyone
        elif match.format == "target":
            if max(totals[s] for s in eligible) >= match.target:
                leaders = _argmax(totals, eligible)
                if len(leaders) == 1:
                    winners = leaders
        if winners is None:
            self._begin_game(played + 1, now)
            events.append({"type": "game_started", "game": played + 1, "game_id": self.game.game_id})
            return
        self.result = {
            "format": match.format,
            "games_played": played,
            "winners": winners,
            "totals": [_frac_str(t) for t in totals],
            "wins": wins,
        }
        events.append({"type": "match_over" if match.format != "single" else "result", **self.result})


def _argmax(values: list, among: list[int]) -> list[int]:
    best = max(values[s] for s in among)
    return [s for s in among if values[s] == best]


def _public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A round record without salts (they stay in the transcript)."""
    return {k: v for k, v in record.items() if k not in ("reveals", "commitments")}


# ------------------------------------------------------------------------ replay


def replay(id: str, rules: Rules, match: MatchRules, entries: Iterable[tuple[dict[str, Any], float]],
           start: float = 0.0) -> Gops:
    """Rebuild a state from its creation parameters, creation time and recorded ``(action, at)`` pairs."""
    state = Gops.new(id, rules, match, now=start)
    for action, at in entries:
        state.apply(action_from_dict(action), at)
    return state


# ----------------------------------------------------------------------- observer


def view(state: Gops, seat: int | None = None, now: float | None = None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the public, anyone with the game id).

    Public: every remaining hand (spent bids are public), the prizes in the
    middle unless hidden by ``blind`` / ``dealer_sees_prize``, who has
    committed and revealed (never an unresolved bid), the round's commitments
    once all are in (:func:`visible_commitments`), scores, history.  A seat
    additionally sees its own commitment and unresolved reveal and what it may
    do next.  The shuffled prize order and its salt are shown only when the
    game is over.
    """
    g = state.game
    rules = state.rules
    prize_hidden = (
        rules.visibility == "blind"
        or (rules.visibility == "dealer_sees_prize" and seat != rules.dealer_seat)
    ) and g.phase not in ("over",)
    row = [None] * len(g.row) if prize_hidden else list(g.row)
    pot_value = None if prize_hidden else sum(g.carry) + (sum(g.row) if rules.open_prizes == 1 else 0)
    game_over = g.phase == "over"
    data: dict[str, Any] = {
        "id": state.id,
        "game_id": g.game_id,
        "game_number": g.number,
        "phase": state.phase,
        "round": min(g.round, rules.rounds),
        "rounds": rules.rounds,
        "rules": rules.to_dict(),
        "match": state.match.to_dict(),
        "hands": [list(h) for h in g.hands],
        "row": row,
        "carry": list(g.carry),
        "carried_rounds": g.carried_rounds,
        "pot_value": pot_value,
        "prizes_left": rules.ranks - len(g.turned),
        "turned": [None if (prize_hidden and r in g.row) else r for r in g.turned],
        "scores": [_frac_str(s) for s in g.scores],
        "won": [list(w) for w in g.won],
        "set_aside": list(g.set_aside),
        "committed": sorted(g.commitments),
        "commitments": visible_commitments(state, seat),
        "revealed": sorted(g.reveals),
        "awaiting": state.awaiting(),
        "forfeited": {str(s): r for s, r in sorted(g.forfeited.items())},
        "chooser": g.chooser,
        "picks_owed": g.picks_owed,
        "deadline_at": g.deadline_at,
        "history": [_public_record(r) for r in g.history],
        "prize_commitment": g.prize_commitment,
        "prize_order": g.prize_order if (game_over or rules.prize_order in ("ascending", "descending", "explicit")) else None,
        "prize_salt": g.prize_salt if game_over else None,
        "game_result": copy.deepcopy(g.result),
        "games": copy.deepcopy(state.games),
        "resigned": list(state.resigned),
        "result": copy.deepcopy(state.result),
    }
    if seat is not None:
        data["seat"] = seat
        data["my_reveal"] = copy.deepcopy(g.reveals.get(seat))
        data["legal_actions"] = state.legal_actions(seat, now)
    return data


def commitments_public(state: Gops) -> bool:
    """Are the current round's commitments public?  Only once every seat of the round has committed.

    Until then the others see only *that* a seat committed (``committed``): a
    commitment made with a reused or guessable salt could otherwise be read by a
    rival trying the 13 possible bids before committing its own.  Once all are in,
    every bid is locked and the commitments are published, so reveals can be checked.
    """
    return state.over or state.game.phase != "commit"


def visible_commitments(state: Gops, seat: int | None = None) -> dict[str, str]:
    """The current round's commitments ``seat`` may see (``None``: the public): its own, and the
    others' only once :func:`commitments_public`."""
    g = state.game
    public = commitments_public(state)
    return {str(s): c for s, c in sorted(g.commitments.items()) if public or s == seat}


def transcript_entry(state: Gops, entry: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """One recorded entry as ``seat`` (``None``: the public) may see it now.

    Withheld (null) until public: the shuffled prize order and salt of the game
    in progress; the round's commitments until every seat has committed; its
    reveals until the round is over; a reported hidden prize until it is shown.
    A seat sees its own commitment and reveal.  Once the game (or match) is
    over nothing is withheld and the transcript re-verifies offline.
    """
    entry = copy.deepcopy(entry)
    action = entry["action"]
    g = state.game
    kind = action.get("type")
    current_game = not state.over and entry.get("game") == g.number
    this_round = current_game and entry.get("round") == g.round
    own = seat is not None and action.get("seat") == seat
    if kind == "deal_prizes" and current_game:
        action["order"] = None
        action["salt"] = None
    if kind == "commit" and this_round and not commitments_public(state) and not own:
        action["commitment"] = None
    if kind == "reveal" and this_round and not own:
        action["cards"] = None
        action["salt"] = None
    if kind == "report_prize" and this_round and state.rules.visibility != "open":
        dealer = state.rules.visibility == "dealer_sees_prize" and seat == state.rules.dealer_seat
        if not dealer:
            action["rank"] = None
    return entry


def transcript(state: Gops, entries: Iterable[dict[str, Any]], seat: int | None = None) -> dict[str, Any]:
    """The transcript ``seat`` (``None``: the public) may read: every recorded entry as
    :func:`transcript_entry` shows it, and the result once over."""
    return {
        "complete": state.over,
        "rules": state.rules.to_dict(),
        "match": state.match.to_dict(),
        "entries": [transcript_entry(state, e, seat) for e in entries],
        "result": {**state.result, "games": copy.deepcopy(state.games)} if state.over else None,
    }
