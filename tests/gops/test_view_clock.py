"""A Gops view takes from the clock only what ``observer.view_clock`` says.

A view once serialized is sent again to every read of the same stored bytes, seat and
``view_clock`` (``service.api.views.shared_view``). That is right only if two views of one state
for one seat, at two instants with the same ``view_clock``, are the same. Here seeded random
playouts (``support.gops_trace``: every rule set, deadlines of 5 and 60 s, matches, forfeits,
resignations) are stopped after every step, and the view of the public and of every seat is made
at instants around the phase's deadline and far from it: views with the same key must be equal.
The playouts must also reach views the clock does change (a passed deadline), or this proves
nothing: in the edit loop (tests/support/sweep_size.py), each group of seeds plays its share of them
and then more until one does.
"""

from __future__ import annotations

import pytest

from service.games.gops import observer
from support import gops_trace
from support.sweep_size import sized_seeds

SEEDS = range(0, 80)


def _instants(state, now: float) -> list[float]:
    at = state.game.deadline_at
    around = [] if at is None else [at - 1.0, at - 0.001, at, at + 0.001, at + 1.0, at + 3600.0]
    return [0.0, now, now + 7.0, now + 10**6, *around]


@pytest.mark.parametrize("start", range(SEEDS.start, SEEDS.stop, 20))
def test_views_with_the_same_clock_key_are_the_same(start):
    changed = 0
    chunk = range(start, start + 20)
    share = sized_seeds(chunk)  # all 20 at full size; in the edit loop, its share and then as many
    for n, seed in enumerate([*share, *(s for s in chunk if s not in share)]):  # as reach a clock change
        if n >= len(share) and changed:
            break
        player = gops_trace._Player(seed)
        for _ in range(gops_trace.MAX_STEPS):
            state = player.state
            for seat in [None, *range(player.rules.players)]:
                by_key: dict[bool, dict] = {}
                for t in _instants(state, player.now):
                    key = observer.view_clock(state, seat, t)
                    view = observer.view(state, seat, t)
                    if key in by_key:
                        assert view == by_key[key], (seed, seat, t, key)
                    else:
                        by_key[key] = view
                if len(by_key) == 2 and by_key[True] != by_key[False]:
                    changed += 1
                if seat is None:
                    assert set(by_key) == {False}, seed  # the public view takes nothing from the clock
            if state.over:
                break
            player.advance()
    assert changed > 0, "no playout reached a view the clock changes: the test proves nothing"
