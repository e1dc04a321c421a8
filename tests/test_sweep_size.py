"""The sweeps' one knob (tests/support/sweep_size.py): ``make test-fast`` sets it to the edit loop's
size, ``make test`` (so CI) leaves the full size; and what each size runs."""

from __future__ import annotations

import importlib
import shlex
import subprocess

import pytest
from support import sweep_size
from support.servers import REPO_ROOT


def _pytest_command(target: str) -> list[str]:
    """The words of the command ``make TARGET`` runs pytest with (a dry run: nothing is run)."""
    out = subprocess.run(["make", "-n", "-B", "-s", target], cwd=REPO_ROOT, capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"}).stdout
    [line] = [line for line in out.splitlines() if " -m pytest" in line]
    return shlex.split(line)


def test_make_test_fast_runs_the_sweeps_at_the_edit_size():
    words = _pytest_command("test-fast")
    assert words[: words.index("env")] == ["REFEREE_TEST_SWEEPS=edit"]


def test_make_test_runs_the_sweeps_at_full_size():
    words = _pytest_command("test")
    assert not any("REFEREE_TEST_SWEEPS" in word for word in words), words


@pytest.fixture
def size(monkeypatch):
    """``sweep_size`` read again under ``REFEREE_TEST_SWEEPS=value`` (put back as it was after)."""
    def read(value: str | None):
        if value is None:
            monkeypatch.delenv("REFEREE_TEST_SWEEPS", raising=False)
        else:
            monkeypatch.setenv("REFEREE_TEST_SWEEPS", value)
        return importlib.reload(sweep_size)

    yield read
    monkeypatch.undo()
    importlib.reload(sweep_size)


def test_full_size_is_the_default_and_runs_everything(size):
    full = size(None)
    assert full.SIZE == "full"
    assert full.sized(700) == 700 and full.sized(1) == 1
    assert list(full.sized_seeds(range(20))) == list(range(20))


def test_the_edit_size_runs_a_tenth_spread_over_the_seeds(size):
    edit = size("edit")
    assert (edit.sized(700), edit.sized(150), edit.sized(6), edit.sized(1)) == (70, 15, 1, 1)
    assert edit.sized(32, least=16) == 16
    assert list(edit.sized_seeds(range(20))) == [0, 10]
    assert list(edit.sized_seeds(range(20, 40))) == [20, 30]
    assert edit.sized_seeds([11, 23, 37]) == [11]
    assert list(edit.sized_seeds(range(20), least=4)) == [0, 5, 10, 15]


def test_an_unknown_size_is_refused(size):
    with pytest.raises(RuntimeError, match="REFEREE_TEST_SWEEPS='quick'"):
        size("quick")
