"""The Gops actions: what a seat, the table or the referee's chance can do, and their JSON form.

Each is a frozen :class:`service.games.contract.Action` whose ``TYPE`` is its JSON ``"type"``; :data:`CODEC`
reads and writes them (``Commit(0, 1, "ab…")`` ⇄ ``{"type": "commit", "seat": 0, "round": 1,
"commitment": "ab…", "game": null}``).  Whether an action is *legal* is the state's question
(:meth:`service.games.gops.state.Gops.verify`), not the codec's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from service.errors import InvalidAction
from service.games.contract import Action, ActionCodec


@dataclass(frozen=True)
class GopsActionBase(Action):
    """A Gops action; ``type`` is its ``TYPE`` (the name callers have always used)."""

    @property
    def type(self) -> str:
        return self.TYPE


@dataclass(frozen=True)
class DealPrizes(GopsActionBase):
    """Chance: the shuffled prize order of the current game, and the salt of its commitment."""

    TYPE: ClassVar[str] = "deal_prizes"
    CHANCE: ClassVar[bool] = True
    order: tuple[int, ...]
    salt: str


@dataclass(frozen=True)
class Commit(GopsActionBase):
    """A seat's commitment for a round; ``game`` (number in a match) guards against late retries."""

    TYPE: ClassVar[str] = "commit"
    seat: int
    round: int
    commitment: str
    game: int | None = None


@dataclass(frozen=True)
class Reveal(GopsActionBase):
    """A seat opens its commitment: the cards it committed to, in the same order, and the salt."""

    TYPE: ClassVar[str] = "reveal"
    seat: int
    round: int
    cards: tuple[int, ...]
    salt: str
    game: int | None = None


@dataclass(frozen=True)
class ReportPrize(GopsActionBase):
    """The prize card turned up at a real table (prize order ``reported``)."""

    TYPE: ClassVar[str] = "report_prize"
    rank: int


@dataclass(frozen=True)
class ChoosePrize(GopsActionBase):
    """With open prizes: the round's winner takes one prize from the row."""

    TYPE: ClassVar[str] = "choose_prize"
    seat: int
    rank: int


@dataclass(frozen=True)
class Resign(GopsActionBase):
    """A seat leaves the game and the rest of the match."""

    TYPE: ClassVar[str] = "resign"
    seat: int


@dataclass(frozen=True)
class EnforceDeadline(GopsActionBase):
    """Anyone at the table: the phase's deadline has passed, every late seat forfeits."""

    TYPE: ClassVar[str] = "enforce_deadline"


CODEC = ActionCodec([DealPrizes, Commit, Reveal, ReportPrize, ChoosePrize, Resign, EnforceDeadline])


def action_to_dict(action: Action) -> dict[str, Any]:
    """``CODEC.to_dict``: the JSON form recorded in transcripts."""
    return CODEC.to_dict(action)


def action_from_dict(data: dict[str, Any]) -> Action:
    """``CODEC.from_dict``; a malformed action is refused with Gops' code, ``invalid_action``."""
    try:
        return CODEC.from_dict(data)
    except InvalidAction as exc:
        if exc.code != "malformed_action":
            raise
        kind = data.get("type") if isinstance(data, dict) else None
        raise InvalidAction(f"malformed {kind} action: {exc}") from None
