"""Typed errors shared by the rules engines, the store and the HTTP layer: each carries a stable
``code`` (service.error_codes) and a human ``detail``; ``service.api.problems`` alone maps them
to HTTP. Two families, as in python-chess:

* ``InvalidAction`` – the request is malformed for this game (a rank that does
  not exist, wrong number of cards, a bad salt): HTTP 422.
* ``IllegalAction`` – well-formed, but not legal now (wrong phase, card already
  spent, not your turn): HTTP 409.
"""

from __future__ import annotations

from typing import Any


class RefereeError(Exception):
    """Base class of every error the referee reports to a caller."""

    code: str = "referee_error"

    def __init__(self, detail: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.extra = extra

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{type(self).__name__}({self.code!r}, {self.detail!r})"


class InvalidOptions(RefereeError):
    """Game or table options that cannot be played (e.g. 8 players of Gops)."""

    code = "invalid_options"


class InvalidAction(RefereeError):
    """An action that is malformed for this game, whatever the state."""

    code = "invalid_action"


class IllegalAction(RefereeError):
    """A well-formed action that the rules forbid in the current state."""

    code = "illegal_action"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class GameOver(IllegalAction):
    code = "game_over"


class CommitmentMismatch(IllegalAction):
    code = "commitment_mismatch"


class NotFound(RefereeError):
    """No such game, table or hand (never created, or expired)."""

    code = "not_found"


class StaleVersion(RefereeError):
    """The caller acted on a version of the state that is no longer current."""

    code = "stale_version"


class Busy(RefereeError):
    """Too many concurrent writers on one game; the caller should retry."""

    code = "busy"


class StoreBusy(Busy):
    """No connection to the game store came free in time (a burst); retry after ``retry_after`` s."""

    code = "store_busy"


class TooManyStreams(Busy):
    """The worker's share of connections for streams and long polls is taken; retry after ``retry_after`` s."""

    code = "too_many_streams"


class Unauthorized(RefereeError):
    """No token, or a token that belongs to nothing in this game."""

    code = "unauthorized"


class Forbidden(RefereeError):
    """A valid token of this game that may not do this (another seat's move)."""

    code = "forbidden"
