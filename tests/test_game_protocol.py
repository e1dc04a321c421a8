"""The type checker holds every game to the contract (service.games.protocol): mypy checks a small
module that hands each registered game's referee module, and the third game's, to
``protocol.conforms``, together with the callers typed with the protocol (:data:`CALLERS`). A
referee or a state whose function drifts from the contract fails it.

mypy follows the imports silently (their own errors are not this test's), with its cache under the
session's tmp dir: the first run checks the games' packages (a few seconds), the next reuse it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.racegame import GAME as RACE

from service.games.registry import GAMES

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
CALLERS = ["service/api/common.py", "service/api/move_routes.py", "service/api/generic.py", "service/api/names.py"]


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy(files: list[str | Path], cache: Path, monkeypatch: pytest.MonkeyPatch, *path: Path) -> tuple[str, int]:
    monkeypatch.setenv("MYPYPATH", ":".join(str(p) for p in (ROOT, TESTS, *path)))
    monkeypatch.chdir(ROOT)
    out, err, status = mypy_api.run(["--follow-imports=silent", "--ignore-missing-imports", "--no-error-summary",
                                     "--cache-dir", str(cache), *map(str, files)])
    return out + err, status


def _bindings(tmp_path: Path, packages: dict[str, str]) -> Path:
    """The checked module: each game's referee module handed to ``conforms``."""
    lines = ["from service.games.protocol import conforms"]
    for name, package in packages.items():
        lines += [f"import {package}.referee as {name}_referee", f"conforms({name}_referee)"]
    module = tmp_path / "referees.py"
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return module


def test_every_registered_game_and_the_third_game_is_a_referee(tmp_path, mypy_cache, monkeypatch):
    packages = {name: game.package for name, game in GAMES.items()} | {RACE.name: RACE.package}
    assert set(packages) == {"gops", "gofo", "race"}
    output, status = _mypy([_bindings(tmp_path, packages), *CALLERS], mypy_cache, monkeypatch)
    assert status == 0, output


@pytest.mark.parametrize("drift, drifted", [
    # a referee function with a parameter the callers do not pass
    ('def seat_count(doc: dict[str, Any]) -> int:', 'def seat_count(doc: dict[str, Any], mode: str) -> int:'),
    # an ETag tag that is not a string
    ('def etag_tag(seat_view: dict[str, Any]) -> str:', 'def etag_tag(seat_view: dict[str, Any]) -> int:'),
])
def test_a_referee_whose_signature_drifts_fails(tmp_path, mypy_cache, monkeypatch, drift, drifted):
    """A copy of the third game with one referee function changed is refused; the copy as it is passes."""
    copy = tmp_path / "pkgs" / "driftgame"
    shutil.copytree(TESTS / "support" / "racegame", copy, ignore=shutil.ignore_patterns("__pycache__"))
    module = _bindings(tmp_path, {"drift": "driftgame"})
    output, status = _mypy([module], mypy_cache, monkeypatch, copy.parent)
    assert status == 0, output
    referee = copy / "referee.py"
    source = referee.read_text(encoding="utf-8")
    assert drift in source
    referee.write_text(source.replace(drift, drifted), encoding="utf-8")
    output, status = _mypy([module], mypy_cache, monkeypatch, copy.parent)
    assert status == 1 and 'Argument 1 to "conforms" has incompatible type Module' in output, output


def test_a_state_that_drifts_fails(tmp_path, mypy_cache, monkeypatch):
    """The state ``load`` gives is held to GameState: one whose ``legal_actions`` takes no seat fails."""
    copy = tmp_path / "pkgs" / "driftgame"
    shutil.copytree(TESTS / "support" / "racegame", copy, ignore=shutil.ignore_patterns("__pycache__"))
    state = copy / "state.py"
    source = state.read_text(encoding="utf-8")
    drift = "def legal_actions(self, seat: int | None) -> list[LegalAction]:"
    assert drift in source
    state.write_text(source.replace(drift, "def legal_actions(self) -> list[LegalAction]:"), encoding="utf-8")
    output, status = _mypy([_bindings(tmp_path, {"drift": "driftgame"})], mypy_cache, monkeypatch, copy.parent)
    assert status == 1 and "Race" in output, output
