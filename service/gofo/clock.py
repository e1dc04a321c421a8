"""The turn clock of a Gofo table with ``turn_seconds``: when it restarts and when it runs out.

The seat to act has ``turn_seconds`` from the last move that changed the game; after that anyone
at the table may have the referee make the move silence makes (``Table.default_action``).  Looking
at one's cards, or the dealer's report of a reshuffle, restarts nobody's clock unless it changed
whose turn it is or the phase.  Used by the service and by the offline verifier alike.
"""

from __future__ import annotations

from typing import Any

from .hand import Look, Reshuffle


def turn_marker(table: Any) -> tuple[int, int | None, str | None]:
    """What a move must change to restart the clock even if it is a look or a reported reshuffle."""
    return table.hand_number, table.to_act(), table.hand.phase if table.hand is not None else None


def restarts_clock(action: Any, before: tuple, after: tuple) -> bool:
    """Whether a move (``action``; markers before it and after the chance it called for) restarts it."""
    return not isinstance(action, (Look, Reshuffle)) or before != after


def deadline(since: float, seconds: int | None) -> float | None:
    """The instant from which the seat to act may be moved (``None``: the table has no deadline)."""
    return round(since + seconds, 3) if seconds else None
