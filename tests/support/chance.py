"""A referee whose chance and clock are fixed for the length of one property-test example.

Hypothesis replays an example by replaying its choices; when a strategy reads
what the referee dealt (cards, prize order, ids in commitments) or when a
deadline passed, the referee must deal and tick exactly the same way again, or
the replay is reported as ``FlakyStrategyDefinition`` ("data generation
depending on external state").  Inside :func:`seeded_referee` every id, salt,
shuffle, reshuffle key and timestamp the referee makes is a function of the
seed and of the requests made so far — never of the wall clock, the machine's
load or what earlier examples left behind.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator

START = 1_800_000_000.0  # 2027-01-15: any fixed instant will do


@contextlib.contextmanager
def seeded_referee(seed: int = 7, start: float = START, tick: float = 1.0) -> Iterator[None]:
    """Seeded ids, salts and shuffles, and a clock that moves ``tick`` seconds per reading."""
    from service.games import entropy
    from service.api import common
    from service.api import gofo as gofo_api
    from service.api import gops as gops_api

    ticks = itertools.count()
    saved = common.now, getattr(gofo_api, "_system_random", None), getattr(gops_api, "_system_random", None)
    with entropy.seeded(seed) as rng:
        # The games' own shuffles, wherever they draw from (the api modules kept their own handle).
        if saved[1] is not None:
            gofo_api._system_random = rng
        if saved[2] is not None:
            gops_api._system_random = rng
        common.now = lambda: start + tick * next(ticks)
        try:
            yield
        finally:
            common.now = saved[0]
            if saved[1] is not None:
                gofo_api._system_random = saved[1]
            if saved[2] is not None:
                gops_api._system_random = saved[2]
