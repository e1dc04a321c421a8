"""What a race's moves cause."""

from __future__ import annotations

from service.games.contract import Event, event


@event("said")
class Said(Event):
    """A seat added ``amount`` to the running total, now ``total``."""

    seat: int
    amount: int
    total: int


@event("won")
class Won(Event):
    """A seat brought the total to the target."""

    seat: int
