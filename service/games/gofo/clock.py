"""The turn clock of a Gofo table with ``turn_seconds``: when it restarts, when it runs out, and the
move it makes for a silent seat.

The seat to act has ``turn_seconds`` from the last move that changed the game; after that anyone
at the table may have the referee make the move silence makes (``Table.default_action``).  Looking
at one's cards, or the dealer's report of a reshuffle, restarts nobody's clock unless it changed
whose turn it is or the phase.  Used by the referee and by the offline verifier alike.
"""

from __future__ import annotations

from typing import Any

from service.errors import IllegalAction

from service.games.gofo.actions import Action, Look, Reshuffle


def turn_marker(table: Any) -> tuple[int, int | None, str | None]:
    """What a move must change to restart the clock even if it is a look or a reported reshuffle."""
    return table.hand_number, table.to_act(), table.hand.phase if table.hand is not None else None


def restarts_clock(action: Any, before: tuple, after: tuple) -> bool:
    """Whether a move (``action``; markers before it and after the chance it called for) restarts it."""
    return not isinstance(action, (Look, Reshuffle)) or before != after


def deadline(since: float, seconds: int | None) -> float | None:
    """The instant from which the seat to act may be moved (``None``: the table has no deadline)."""
    return round(since + seconds, 3) if seconds else None


def turn_deadline(doc: dict[str, Any]) -> float | None:
    """The deadline of the seat to act at a stored table (``turn_since``, ``turn_seconds``)."""
    return deadline(doc["turn_since"], doc.get("turn_seconds"))


def timeout_move(table: Any, due: float | None, at: float) -> tuple[int, Action]:
    """The seat the clock moves at ``at`` and the move silence makes for it; refused (the codes
    ``no_deadline``, ``deadline_not_passed``, ``nobody_late``) when the clock moves nobody now."""
    if due is None:
        raise IllegalAction("this table has no turn deadline (turn_seconds)", code="no_deadline")
    if at < due:
        raise IllegalAction(f"the deadline has not passed yet ({due - at:.0f} s left)",
                            code="deadline_not_passed", deadline_at=due)
    seat = table.to_act()
    action = table.default_action(seat) if seat is not None else None
    if seat is None or action is None:
        raise IllegalAction("nobody can be moved by the deadline now", code="nobody_late")
    return seat, action
