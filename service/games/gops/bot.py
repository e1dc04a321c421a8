"""The Gops seat the referee plays: its decisions, from its seat's view and a random source only.

Until the levels land (issue #27), every level bids uniformly at random among its legal bids and
takes a random prize from the open row.
"""

from __future__ import annotations

import random
from typing import Any


def bid(seat_view: dict[str, Any], level: int, rng: random.Random) -> tuple[int, ...]:
    """The cards the seat bids this round (the commit phase)."""
    legal = next(a for a in seat_view["legal_actions"] if a["type"] == "commit")
    return tuple(rng.sample(sorted(legal["hand"]), legal["cards"]))


def choose(seat_view: dict[str, Any], level: int, rng: random.Random) -> int:
    """The prize the seat takes from the open row (the choose phase)."""
    legal = next(a for a in seat_view["legal_actions"] if a["type"] == "choose_prize")
    return rng.choice(legal["ranks"])
