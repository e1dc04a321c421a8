"""How big the heavy sweeps run: the one knob, ``REFEREE_TEST_SWEEPS``, read here and only here.

``full`` (the default: plain ``pytest``, ``make test``, CI) runs every sweep at its written size.
``edit`` (``make test-fast``, the edit loop) runs a tenth of each: a tenth of a property test's
hypothesis examples, of a loop's seeds, playouts and forged transcripts, never fewer than one. The
examples and seeds are still fixed (hypothesis derandomized, the seeds a stride of the full list),
and each test still checks the same things, on less of the data.

    @settings(max_examples=sized(300))        # hypothesis: 300 in full, 30 in edit
    for seed in sized_seeds(range(200)):      # seeds 0, 10, 20, … in edit
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

#: What share of each sweep a size runs.
SHARES = {"full": 1.0, "edit": 0.1}

SIZE = os.environ.get("REFEREE_TEST_SWEEPS", "full")
if SIZE not in SHARES:
    raise RuntimeError(f"REFEREE_TEST_SWEEPS={SIZE!r}: expected one of {', '.join(SHARES)}")
SHARE = SHARES[SIZE]


def sized(count: int, least: int = 1) -> int:
    """``count`` examples, playouts or rounds at this size: its share, rounded up, at least ``least``."""
    return min(count, max(least, math.ceil(count * SHARE)))


def sized_seeds(seeds: Sequence[T], least: int = 1) -> Sequence[T]:
    """This size's share of ``seeds``, spread over them (a stride, from the first), at least ``least``."""
    keep = sized(len(seeds), least)
    return seeds[::max(1, len(seeds) // keep)][:keep] if keep else seeds[:0]
