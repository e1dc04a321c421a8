"""The Gofo bots bench (bench/bots_gofo.py) gives the same figures whatever the number of processes
its deals are spread over: each deal's figures come from that deal's seeds alone."""

from __future__ import annotations

import pytest

from bench import bots_gofo


@pytest.fixture
def jobs():
    kept = bots_gofo.JOBS
    yield lambda n: setattr(bots_gofo, "JOBS", n)
    bots_gofo.JOBS = kept


def test_the_figures_do_not_depend_on_the_processes(jobs):
    runs = []
    for n in (1, 2):
        jobs(n)
        bots_gofo.TIMES.clear()
        runs.append((bots_gofo.in_field("8", "tight", 3, 5, 30, 11), bots_gofo.duplicate("2", "caller", 3, 4, 30, 11),
                     {level: len(times) for level, times in bots_gofo.TIMES.items()}))
    assert runs[0] == runs[1]
    assert runs[0][2]["8"] > 0 and runs[0][2]["2"] > 0  # every process's decision times came back


def test_timing_the_hints_changes_no_figure(jobs):
    """``--hints`` times the hint wherever level 8 decides; the hint draws its own seeded samples, so
    the play, and every figure, is the same with it or without."""
    jobs(1)
    runs = []
    for hints in (False, True):
        bots_gofo.HINTS = hints
        bots_gofo.TIMES.clear()
        try:
            runs.append(bots_gofo.in_field("8", "maniac", 2, 5, 30, 5))
        finally:
            bots_gofo.HINTS = False
        timed = dict(bots_gofo.TIMES)
    assert runs[0] == runs[1]
    assert 0 < len(timed["hint"]) <= len(timed["8"])
