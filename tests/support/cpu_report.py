"""Where the tests' CPU goes: with ``REFEREE_CPU_REPORT=DIR`` set, each pytest process (each
pytest-xdist worker) writes ``DIR/<worker>.tsv``, a line per test phase: node id, phase (setup, call,
teardown; ``-`` for the collection and the process's total) and the CPU-seconds it took, counting the
process and every process it started (servers, subprocesses: from /proc while they run, from the
system's accounting once reaped).  CPU, not wall time, because the machine is shared: a test's wall
time says as much about the load as about the test.  Under pytest-xdist the controller's
``main.tsv`` holds only its total: the whole run's, workers and their servers included.
tests/conftest.py registers it.

    REFEREE_CPU_REPORT=/tmp/cpu make test-fast
    cat /tmp/cpu/*.tsv | awk -F'\\t' '$2 != "-" {t[$1] += $3} END {for (k in t) print t[k], k}' | sort -rn | head

Its own cost: a walk of /proc before and after each phase.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_TICKS = os.sysconf("SC_CLK_TCK")


def _descendants_cpu(root: int) -> float:
    """CPU-seconds so far of the processes under ``root`` still running (or not yet reaped)."""
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) ": state, ppid, ...
        children.setdefault(int(fields[1]), []).append(int(name))
        used[int(name)] = (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
    total, stack = 0.0, list(children.get(root, []))
    while stack:
        pid = stack.pop()
        total += used.get(pid, 0.0)
        stack.extend(children.get(pid, []))
    return total


def _cpu() -> float:
    times = os.times()
    return (times.user + times.system + times.children_user + times.children_system
            + _descendants_cpu(os.getpid()))


class CpuReport:
    def __init__(self, directory: Path) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        directory.mkdir(parents=True, exist_ok=True)
        self.out = open(directory / f"{worker}.tsv", "a")
        self.last = _cpu()

    def _lap(self, what: str, phase: str) -> None:
        now = _cpu()
        self.out.write(f"{what}\t{phase}\t{now - self.last:.3f}\n")
        self.last = now

    def pytest_collection_finish(self, session) -> None:
        self._lap("collection", "-")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        self.last = _cpu()
        yield
        self._lap(item.nodeid, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        self.last = _cpu()
        yield
        self._lap(item.nodeid, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        self.last = _cpu()
        yield
        self._lap(item.nodeid, "teardown")
        self.out.flush()

    def pytest_unconfigure(self, config) -> None:
        self.out.write(f"total\t-\t{_cpu():.3f}\n")
        self.out.close()
