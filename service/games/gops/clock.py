"""Gops deadlines (``deadline_seconds``): when a phase's clock starts, when a seat is late, and
whether a deadline may be enforced.

Every entry into a timed phase (commit, reveal, choose: :attr:`Phase.timed`) restarts the clock
(:func:`enter_phase`); the other phases have none.  Once it has run out, the host or any seat still
in the game may enforce it (:class:`~service.games.gops.actions.EnforceDeadline`): every seat the
phase still waits for forfeits the game (:class:`service.games.gops.departures.Departures`) — a
chooser loses the picks it was owed.  Pure functions of the rules and one :class:`Game`; the state
machine asks them, and through it the offline verifier and the views.
"""

from __future__ import annotations

from service.errors import IllegalAction
from service.games.gops.records import Game, Phase
from service.games.gops.rules import Rules


def deadline(rules: Rules, phase: Phase, since: float) -> float | None:
    """The instant a phase entered at ``since`` runs out (``None``: it has no deadline)."""
    if phase.timed and rules.deadline_seconds:
        return since + rules.deadline_seconds
    return None


def enter_phase(rules: Rules, game: Game, phase: Phase, now: float) -> None:
    """``game`` enters ``phase`` at ``now``: its clock restarts (or stops, untimed)."""
    game.phase = phase
    game.deadline_at = deadline(rules, phase, now) if rules.deadline_seconds else None


def passed(game: Game, now: float) -> bool:
    """Has the phase's deadline passed?  (A game over has none.)"""
    at = game.deadline_at
    return at is not None and now >= at


def check_enforceable(game: Game, late: list[int], now: float) -> list[int]:
    """``late`` (the seats the phase waits for), or why the deadline cannot be enforced now
    (``no_deadline``, ``deadline_not_passed``, ``nobody_late``)."""
    at = game.deadline_at
    if at is None:
        raise IllegalAction("this phase has no deadline", code="no_deadline")
    if now < at:
        raise IllegalAction(
            f"the deadline has not passed yet ({at - now:.0f} s left)",
            code="deadline_not_passed", deadline_at=at,
        )
    if not late:
        raise IllegalAction("nobody is late", code="nobody_late")
    return late
