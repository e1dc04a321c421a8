"""The engine behaves exactly as recorded in ``engine_golden.json``.

``engine_golden.json`` holds, for 200 seeded random playouts (2–7 players, every resolution,
carry-over and discard, multi-card bids, open prizes, hidden prizes, reported orders, deadlines,
matches, refused actions interleaved, restarts from the stored form), a digest of every step: the
action, whether it changed the state or its refusal (class, code, detail, extra; a refusal must
leave ``to_dict()`` unchanged), ``to_dict()``, ``awaiting()``, ``legal_actions`` and the views of
the public and of every seat, and at the end the transcripts.  It was written from ``main``'s engine
at 356f9b8 (``tests/support/gops_trace.py`` says how and why that one); to see what differs for a
seed, dump its records here and from the reference tree (``python -m support.gops_trace --dump
SEED``) and diff them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import gops_trace
from support.sweep_size import sized_seeds

GOLDEN = json.loads((Path(__file__).parent / "engine_golden.json").read_text())
CHUNK = 20


@pytest.mark.parametrize("start", range(0, len(GOLDEN), CHUNK))
def test_playouts_match_mains_engine(start):
    for seed in sized_seeds(range(start, min(start + CHUNK, len(GOLDEN)))):
        got, want = gops_trace.trace(seed), GOLDEN[str(seed)]
        if got != want:
            step = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            pytest.fail(f"seed {seed}: step {step} of {len(want)} differs from main's engine "
                        f"(python -m support.gops_trace --dump {seed}, here and on main, then diff)")
