"""The public events of a Gops game: what ``Gops.apply`` (and ``play_bids``) return, in the order
they happened.  ``to_dict()`` is each one's JSON form (``{"type": "committed", "round": 3, "seat": 1}``).

A rank a seat may not see (a prize face down: ``prize_public`` off) is ``None``.
"""

from __future__ import annotations

from typing import Any

from service.games.contract import Event, event
from service.games.gops.records import (
    Departure,
    GameResult,
    MatchResult,
    Phase,
    RoundRecord,
)

Events = list[Event]  # what a move returns, in the order they happened


@event("prizes_shuffled")
class PrizesShuffled(Event):
    """The referee shuffled a game's prizes; ``commitment`` seals their order until the game ends."""

    game: int
    commitment: str


@event("prize_turned")
class PrizeTurned(Event):
    """A prize was turned up from the pile into the middle."""

    round: int
    rank: int | None


@event("prize_reported")
class PrizeReported(Event):
    """The table reported the prize it turned up (a reported prize order)."""

    round: int
    rank: int | None


@event("phase")
class PhaseEntered(Event):
    """The game now waits for ``phase`` of ``round``, until ``deadline_at`` (when the rules set one)."""

    phase: Phase
    round: int
    deadline_at: float | None


@event("committed")
class Committed(Event):
    """A seat sealed its bid for the round."""

    round: int
    seat: int


@event("revealed")
class Revealed(Event):
    """A seat opened its sealed bid."""

    round: int
    seat: int


@event("round_resolved")
class RoundResolved(Event):
    """Every bid is in: the round's record (without its seals), who won and what they took."""

    record: RoundRecord

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **self.record.to_dict(public=True)}


@event("prize_chosen")
class PrizeChosen(Event):
    """The round's winner took a prize from the open row."""

    round: int
    seat: int
    rank: int


@event("resigned")
class Resigned(Event):
    """A seat left the match."""

    seat: int


@event("deadline_enforced")
class DeadlineEnforced(Event):
    """The deadline of ``phase`` passed: ``seats`` had not moved."""

    phase: Phase
    seats: tuple[int, ...]


@event("forfeited")
class Forfeited(Event):
    """A seat is out of the game (``deadline``: this game only; ``resigned``: the match)."""

    seat: int
    reason: Departure


@event("game_over")
class GameOver(Event):
    """A game ended: its result."""

    result: GameResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **self.result.to_dict()}


@event("game_started")
class GameStarted(Event):
    """The match goes on: the next game began."""

    game: int
    game_id: str


@event("match_over")
class MatchOver(Event):
    """A match of several games ended: its result."""

    result: MatchResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **self.result.to_dict()}


@event("result")
class SingleGameResult(MatchOver):
    """A single game's match ended: its result (the same fields as ``match_over``)."""
