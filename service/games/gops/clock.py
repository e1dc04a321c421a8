"""Gops deadlines (``deadline_seconds``): when a phase's clock starts, when a seat is late, and
whether a deadline may be enforced.

Every entry into a timed phase (commit, reveal, choose: :attr:`Phase.timed`) restarts the clock;
the other phases have none.  Once it has run out, the host or any seat still in the game may
enforce it (:class:`~service.games.gops.actions.EnforceDeadline`): every seat the phase still waits for
forfeits the game (:meth:`service.games.gops.bidding.Bidding._forfeit`) — a chooser loses the picks it
was owed.  Used by the state machine and, through it, by the offline verifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.errors import IllegalAction
from service.games.gops.records import Phase
from service.games.gops.rules import Rules

if TYPE_CHECKING:
    from service.games.gops.state import Gops


def deadline(rules: Rules, phase: Phase, since: float) -> float | None:
    """The instant a phase entered at ``since`` runs out (``None``: it has no deadline)."""
    if phase.timed and rules.deadline_seconds:
        return since + rules.deadline_seconds
    return None


def passed(state: Gops, now: float) -> bool:
    """Has the current phase's deadline passed (and the game not over)?"""
    at = state.game.deadline_at
    return at is not None and now >= at and not state.over


def late_seats(state: Gops, now: float) -> list[int]:
    """The seats a passed deadline may be enforced on: those the phase still waits for."""
    return state.awaiting() if passed(state, now) else []


def check_enforceable(state: Gops, now: float) -> list[int]:
    """The late seats, or why the deadline cannot be enforced now (``no_deadline``,
    ``deadline_not_passed``, ``nobody_late``)."""
    at = state.game.deadline_at
    if at is None:
        raise IllegalAction("this phase has no deadline", code="no_deadline")
    if now < at:
        raise IllegalAction(
            f"the deadline has not passed yet ({at - now:.0f} s left)",
            code="deadline_not_passed", deadline_at=at,
        )
    late = state.awaiting()
    if not late:
        raise IllegalAction("nobody is late", code="nobody_late")
    return late
