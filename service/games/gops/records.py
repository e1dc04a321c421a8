"""The data of a Gops game in progress: its phases, the :class:`Game` record, a seat's opening, and
what a played game leaves: :class:`RoundRecord`, :class:`GameResult`, :class:`PlayedGame`,
:class:`MatchResult`.

Records and results are made once when their round (or game) ends and never changed (a winner's
pick replaces its round's record), so the history and the past games hold the same ones.  Results
are frozen dataclasses; a round record is a slotted one, not frozen: one is made every round, in the
rules' inner loop (a bot's playouts, ``Gops.play_bids``), where a frozen one cost the rules alone a
tenth of their speed (each of its 14 fields set through ``object.__setattr__``: bench/README.md).
Nothing assigns to one (tests/gops/test_records.py plays matches and checks every record it saw).  ``to_dict()`` is the stored form, which views and transcripts publish (a round
record leaves out its ``None`` fields); ``from_dict()`` reads it back.

A round's commitments and reveals are kept once, in the game's log (the transcript).  Its record
keeps ``sealed`` instead: by seat, the first :data:`SEAL_HEX` hex digits (64 bits) of each opened
commitment, all the referee needs to recognise a retry of a past round (``Bidding.is_repeat``).
Records of the older stored form carry the full ``commitments`` and ``reveals`` instead, read and
written back as they are; simulated rounds (``Gops.play_bids``) have neither.  A view's history leaves
all three out (``to_dict(public=True)``); a transcript's past games carry their records whole;
the API's schemas declare none of the three.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from service.games.gops.rules import MatchFormat


class Phase(enum.StrEnum):
    """What one game waits for."""

    DEAL = "deal"  # the referee's chance: the shuffled prize order
    PRIZE = "prize"  # the table reports the prize it turned up (prize order ``reported``)
    COMMIT = "commit"
    REVEAL = "reveal"
    CHOOSE = "choose"  # open prizes: the round's winner takes a prize from the row
    OVER = "over"

    @property
    def timed(self) -> bool:
        """Phases that have a deadline (when the rules set one)."""
        return self in (Phase.COMMIT, Phase.REVEAL, Phase.CHOOSE)


class Termination(enum.StrEnum):
    COMPLETED = "completed"  # every round played
    FORFEIT = "forfeit"  # at most one seat was left


class Departure(enum.StrEnum):
    """Why a seat is out of a game."""

    DEADLINE = "deadline"  # for this game only
    RESIGNED = "resigned"  # for the rest of the match


@dataclass(frozen=True)
class Opening:
    """A seat's reveal: the cards and salt that open its commitment (the bid may still be illegal)."""

    cards: tuple[int, ...]
    salt: str

    def to_dict(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "salt": self.salt}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Opening:
        return cls(tuple(data["cards"]), data["salt"])


SEAL_HEX = 16  # hex digits of a commitment kept in a round record's ``sealed`` (64 bits of SHA-256)


def seal(commitment: str) -> str:
    """A commitment's fingerprint in a round record's ``sealed``: its first :data:`SEAL_HEX` hex digits."""
    return commitment[:SEAL_HEX]


Score = int | Fraction
"""A score: a whole number of points, or an exact fraction once a prize was split."""


def frac_str(value: Score) -> str:
    """A score as stored and shown: ``"7"``, ``"15/2"``."""
    return str(value)


def parse_score(text: str) -> Score:
    """A stored score (:func:`frac_str`) as the number it was: an int unless it is a fraction."""
    return Fraction(text) if "/" in text else int(text)


@dataclass
class Game:
    """The state of one game (one deal of prizes) inside a session."""

    game_id: str
    number: int
    phase: Phase = Phase.DEAL
    round: int = 1
    hands: list[list[int]] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)  # face-down prizes, next first (hidden)
    turned: list[int] = field(default_factory=list)  # every prize turned up so far, in order
    row: list[int] = field(default_factory=list)  # face-up prizes in the middle (m=1: the prize)
    carry: list[int] = field(default_factory=list)  # tied prizes waiting for the next winner
    carried_rounds: int = 0  # open prizes + carryover: extra picks owed to the next winner
    scores: list[Score] = field(default_factory=list)
    won: list[list[int]] = field(default_factory=list)
    set_aside: list[int] = field(default_factory=list)  # prizes nobody won
    commitments: dict[int, str] = field(default_factory=dict)
    reveals: dict[int, Opening] = field(default_factory=dict)
    forfeited: dict[int, Departure] = field(default_factory=dict)
    history: list[RoundRecord] = field(default_factory=list)
    deadline_at: float | None = None
    chooser: int | None = None
    picks_owed: int = 0
    prize_commitment: str | None = None
    prize_order: list[int] | None = None
    prize_salt: str | None = None
    result: GameResult | None = None  # made once, at the game's end

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def to_dict(self) -> dict[str, Any]:
        """The stored form: fresh containers for everything that changes, the records shared."""
        return {
            "game_id": self.game_id,
            "number": self.number,
            "phase": str(self.phase),
            "round": self.round,
            "hands": [list(h) for h in self.hands],
            "pile": list(self.pile),
            "turned": list(self.turned),
            "row": list(self.row),
            "carry": list(self.carry),
            "carried_rounds": self.carried_rounds,
            "scores": [frac_str(s) for s in self.scores],
            "won": [list(w) for w in self.won],
            "set_aside": list(self.set_aside),
            "commitments": {str(k): v for k, v in self.commitments.items()},
            "reveals": {str(k): v.to_dict() for k, v in self.reveals.items()},
            "forfeited": {str(k): str(v) for k, v in self.forfeited.items()},
            "history": [r.to_dict() for r in self.history],
            "deadline_at": self.deadline_at,
            "chooser": self.chooser,
            "picks_owed": self.picks_owed,
            "prize_commitment": self.prize_commitment,
            "prize_order": None if self.prize_order is None else list(self.prize_order),
            "prize_salt": self.prize_salt,
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        order = data["prize_order"]
        return cls(
            game_id=data["game_id"],
            number=data["number"],
            phase=Phase(data["phase"]),
            round=data["round"],
            hands=[list(h) for h in data["hands"]],
            pile=list(data["pile"]),
            turned=list(data["turned"]),
            row=list(data["row"]),
            carry=list(data["carry"]),
            carried_rounds=data["carried_rounds"],
            scores=[parse_score(s) for s in data["scores"]],
            won=[list(w) for w in data["won"]],
            set_aside=list(data["set_aside"]),
            commitments={int(k): v for k, v in data["commitments"].items()},
            reveals={int(k): Opening.from_dict(v) for k, v in data["reveals"].items()},
            forfeited={int(k): Departure(v) for k, v in data["forfeited"].items()},
            history=[RoundRecord.from_dict(r) for r in data["history"]],
            deadline_at=data["deadline_at"],
            chooser=data["chooser"],
            picks_owed=data["picks_owed"],
            prize_commitment=data["prize_commitment"],
            prize_order=None if order is None else list(order),
            prize_salt=data["prize_salt"],
            result=None if data["result"] is None else GameResult.from_dict(data["result"]),
        )


V = TypeVar("V")


def _by_seat(data: Mapping[str, Any] | None, read: Callable[[Any], V] = lambda v: v) -> dict[int, V] | None:
    return None if data is None else {int(seat): read(value) for seat, value in data.items()}


def _seat_keys(data: Mapping[int, Any], write: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
    return {str(seat): write(value) for seat, value in data.items()}


def _ints(data: list[int] | None) -> tuple[int, ...] | None:
    return None if data is None else tuple(data)


@dataclass(slots=True, kw_only=True)
class RoundRecord:
    """One resolved round: each seat's bid, who won, and what the round gave.

    One prize in the middle: the ``pot`` and the winners' ``shares``, or nobody won and it was
    ``carried`` to the next winner or ``set_aside``.  Open prizes: the ``row`` offered, the winner's
    ``picks`` and the ranks ``chosen`` so far, or nobody won and, with carry-over, whether a pick
    was ``carried``.  ``illegal``: the seats whose opened bid was forfeited to their lowest cards,
    and why.  The fields are in the order of the stored form.
    """

    round: int
    commitments: dict[int, str] | None = None  # a record of the old form
    reveals: dict[int, Opening] | None = None  # a record of the old form
    sealed: dict[int, str] | None = None
    bids: dict[int, tuple[int, ...]]
    winners: tuple[int, ...]
    illegal: dict[int, str] | None = None
    pot: tuple[int, ...] | None = None
    row: tuple[int, ...] | None = None
    shares: dict[int, Score] | None = None
    picks: int | None = None
    carried: bool | None = None
    set_aside: bool | None = None
    chosen: tuple[int, ...] | None = None

    def to_dict(self, public: bool = False) -> dict[str, Any]:
        """The stored form; ``public``: without the seals (nor an old record's commitments and
        reveals, which are in the transcript)."""
        out: dict[str, Any] = {"round": self.round}
        if not public:
            if self.commitments is not None:
                out["commitments"] = _seat_keys(self.commitments)
            if self.reveals is not None:
                out["reveals"] = _seat_keys(self.reveals, Opening.to_dict)
            if self.sealed is not None:
                out["sealed"] = _seat_keys(self.sealed)
        out["bids"] = _seat_keys(self.bids, list)
        out["winners"] = list(self.winners)
        if self.illegal is not None:
            out["illegal"] = _seat_keys(self.illegal)
        if self.pot is not None:
            out["pot"] = list(self.pot)
        if self.row is not None:
            out["row"] = list(self.row)
        if self.shares is not None:
            out["shares"] = _seat_keys(self.shares, frac_str)
        if self.picks is not None:
            out["picks"] = self.picks
        if self.carried is not None:
            out["carried"] = self.carried
        if self.set_aside is not None:
            out["set_aside"] = self.set_aside
        if self.chosen is not None:
            out["chosen"] = list(self.chosen)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundRecord:
        return cls(
            round=data["round"],
            commitments=_by_seat(data.get("commitments")),
            reveals=_by_seat(data.get("reveals"), Opening.from_dict),
            sealed=_by_seat(data.get("sealed")),
            bids=_by_seat(data["bids"], tuple),
            winners=tuple(data["winners"]),
            illegal=_by_seat(data.get("illegal")),
            pot=_ints(data.get("pot")),
            row=_ints(data.get("row")),
            shares=_by_seat(data.get("shares"), parse_score),
            picks=data.get("picks"),
            carried=data.get("carried"),
            set_aside=data.get("set_aside"),
            chosen=_ints(data.get("chosen")),
        )


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game ended: each seat's score, the prizes nobody took (``unclaimed``), the winners,
    and the prize order with what opens its commitment (``None`` when there was no commitment)."""

    game: int
    game_id: str
    termination: Termination
    scores: tuple[Score, ...]
    unclaimed: int
    winners: tuple[int, ...]
    prize_commitment: str | None
    prize_order: tuple[int, ...] | None
    prize_salt: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "game_id": self.game_id,
            "termination": str(self.termination),
            "scores": [frac_str(s) for s in self.scores],
            "unclaimed": self.unclaimed,
            "winners": list(self.winners),
            "prize_commitment": self.prize_commitment,
            "prize_order": None if self.prize_order is None else list(self.prize_order),
            "prize_salt": self.prize_salt,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        return cls(data["game"], data["game_id"], Termination(data["termination"]),
                   tuple(parse_score(s) for s in data["scores"]), data["unclaimed"], tuple(data["winners"]),
                   data["prize_commitment"], _ints(data["prize_order"]), data["prize_salt"])


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game of the match: its result and its round records (stored as one object;
    ``history`` is ``None`` for a game stored, in the oldest form, without its rounds)."""

    result: GameResult
    history: tuple[RoundRecord, ...] | None

    def to_dict(self, public: bool = False) -> dict[str, Any]:
        """The result's fields, then ``history`` (``public``: :meth:`RoundRecord.to_dict` ``public``)."""
        out = self.result.to_dict()
        if self.history is not None:
            out["history"] = [r.to_dict(public) for r in self.history]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayedGame:
        history = data.get("history")
        return cls(GameResult.from_dict(data),
                   None if history is None else tuple(RoundRecord.from_dict(r) for r in history))


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match (or single game) ended: games played, winners, each seat's total points and
    games won."""

    format: MatchFormat
    games_played: int
    winners: tuple[int, ...]
    totals: tuple[Score, ...]
    wins: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": str(self.format),
            "games_played": self.games_played,
            "winners": list(self.winners),
            "totals": [frac_str(t) for t in self.totals],
            "wins": list(self.wins),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        return cls(MatchFormat(data["format"]), data["games_played"], tuple(data["winners"]),
                   tuple(parse_score(t) for t in data["totals"]), tuple(data["wins"]))
