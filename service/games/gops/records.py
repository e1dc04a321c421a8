"""The data of a Gops game in progress: its phases, the :class:`Game` record, a seat's opening.

Round records and results are the JSON-shaped dicts the views and transcripts publish; each is
built once, when its round (or game) ends, and never changed afterwards, so a copy of a state may
share them (:meth:`Game.to_dict` copies every container that does change).

A round record does not keep the round's commitments and reveals: they are kept once, in the game's
log (the transcript), where the verifier reads them.  It keeps instead ``"sealed"``: each seat's
sealed bid as a fingerprint, the first :data:`SEAL_HEX` hex digits (64 bits) of the seat's
commitment (``{"0": "3f9a…", "1": …}``, by seat, of the seats whose bids were opened), all the
referee needs to recognise a retried commit or reveal of a past round (:func:`seal`; see
``Bidding._is_repeat``).  Records made before this change carry the full ``"commitments"`` (seat to
commitment) and ``"reveals"`` (seat to ``{"cards", "salt"}``) instead, and are read as before.
Records of simulated rounds (``Gops.play_bids``) have neither.  A view's history and the
``round_resolved`` events leave all three out (:func:`public_record`); the past games a view or
transcript lists carry their records whole, and the API's schemas declare none of the three.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any



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

    def __getitem__(self, key: str) -> Any:
        """Read like its JSON form (``opening["cards"]`` is a list), as callers always have."""
        return self.to_dict()[key]

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
    history: list[dict[str, Any]] = field(default_factory=list)  # round records (never changed once made)
    deadline_at: float | None = None
    chooser: int | None = None
    picks_owed: int = 0
    prize_commitment: str | None = None
    prize_order: list[int] | None = None
    prize_salt: str | None = None
    result: dict[str, Any] | None = None  # made once, at the game's end

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
            "history": list(self.history),
            "deadline_at": self.deadline_at,
            "chooser": self.chooser,
            "picks_owed": self.picks_owed,
            "prize_commitment": self.prize_commitment,
            "prize_order": None if self.prize_order is None else list(self.prize_order),
            "prize_salt": self.prize_salt,
            "result": self.result,
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
            history=list(data["history"]),
            deadline_at=data["deadline_at"],
            chooser=data["chooser"],
            picks_owed=data["picks_owed"],
            prize_commitment=data["prize_commitment"],
            prize_order=None if order is None else list(order),
            prize_salt=data["prize_salt"],
            result=data["result"],
        )


_SECRET_KEYS = ("sealed", "reveals", "commitments")  # (the last two: records of the old form)


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A round record without its seals (nor, in an old record, salts and commitments: those are in
    the transcript)."""
    return {k: v for k, v in record.items() if k not in _SECRET_KEYS}
