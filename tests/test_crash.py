"""Crash tests: SIGKILLed gunicorn workers, and a SIGKILLed (then restarted) Valkey.

Each test runs its own gunicorn (``conftest.start_gunicorn``) against its own
Valkey (``valkey_factory``), so killing things never disturbs the session's
shared servers.

* Workers SIGKILLed mid-game: a client that retries on connection errors (safe:
  an identical commit/reveal repeat changes nothing) plays a whole game while a
  thread keeps SIGKILLing gunicorn workers, preferably while a request is in
  flight.  Every move lands exactly once and every acknowledged move survives.
* Valkey SIGKILLed mid-game (AOF, ``appendfsync always``): while it is down the
  API answers 503 ``store_unavailable`` quickly; after a restart on the same
  port and data dir the same gunicorn continues the game from the last
  acknowledged move; nothing acknowledged is lost and nothing half-applied is
  visible (versions and transcript agree; the transcript replays).
* Valkey frozen (SIGSTOP): the API must still answer 503 within seconds.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import requests
from support.client import Http, bearer, new_salt
from support.servers import (
    gunicorn_workers,
    start_gunicorn,
    stop_gunicorn,
    wait_for_workers,
)
from support.store import logged_entries, stored_version

from bench.procfs import socket_owners, tcp_sockets
from service.games import commitments, gops
from service.storage.embedded import free_port

pytestmark = pytest.mark.servers  # its own gunicorn, Valkey or cluster

PROBLEM = "application/problem+json"
MAX_WORKER_KILLS = 30
RANK_SUM = 91  # 1 + 2 + ... + 13


# ------------------------------------------------------------------ helpers


class RetryingHttp(Http):
    """``requests`` with retries on connection-level failures (and, optionally, 503).

    A move sent again after a lost response is safe: an identical commit or
    reveal is a no-op that returns the current view.
    """

    RETRIABLE = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)

    def __init__(self, base: str, retry_503: bool = False, give_up_after: float = 60.0,
                 in_flight: threading.Event | None = None, gate: threading.Event | None = None) -> None:
        self.base = base
        self.session = requests.Session()
        self.retry_503 = retry_503
        self.give_up_after = give_up_after
        self.in_flight = in_flight  # set while a request is on the wire
        self.gate = gate  # when given, each request waits until it is set
        self.retries = 0          # connection errors survived
        self.attempts = 0         # requests sent (each retry counts)
        self.unavailable = 0      # 503s survived

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        hdrs = {**(headers or {}), **bearer(token)}
        deadline = time.monotonic() + self.give_up_after
        attempt = 0
        while True:
            attempt += 1
            if self.gate is not None:
                self.gate.wait(timeout=30)
            self.attempts += 1
            try:
                if self.in_flight is not None:
                    self.in_flight.set()
                try:
                    r = self.session.request(method, self.base + path, headers=hdrs, timeout=10,
                                             json=body if method == "POST" else None)
                    data = r.json() if r.content else None
                finally:
                    if self.in_flight is not None:
                        self.in_flight.clear()
            except (*self.RETRIABLE, ValueError) as exc:
                self.retries += 1
                if time.monotonic() > deadline:
                    raise AssertionError(f"{method} {path}: still failing after {attempt} attempts: {exc!r}")
                self.session.close()
                self.session = requests.Session()
                time.sleep(min(0.02 * attempt, 0.5))
                continue
            if r.status_code == 503 and self.retry_503 and time.monotonic() < deadline:
                self.unavailable += 1
                time.sleep(min(0.05 * attempt, 0.5))
                continue
            return r.status_code, data

    def post(self, path, body=None, token=None):
        return self.request("POST", path, body if body is not None else {}, token)

    def get(self, path, token=None):
        return self.request("GET", path, None, token)


@dataclass
class Ack:
    """A move the API answered 200 to."""

    kind: str
    seat: int
    round: int
    payload: dict[str, Any]
    version: int
    at: float


class Player:
    """Plays a 2-seat classic game move by move over ``http``, recording every acknowledgement."""

    def __init__(self, http: RetryingHttp) -> None:
        self.http = http
        self.acks: list[Ack] = []
        headers = {"Idempotency-Key": f"crash-{os.getpid()}-{time.time_ns()}"}
        # The create is retried too: the Idempotency-Key makes a retry return the same game.
        status, data = http.request("POST", "/v1/gops/games", {"profile": "classic"}, headers=headers)
        assert status == 201, data
        self.id = data["id"]
        self.tokens = data["seat_tokens"]
        self.created = data
        self.salts: dict[tuple[int, int], str] = {}

    @property
    def base(self) -> str:
        return f"/v1/gops/games/{self.id}"

    def public(self) -> dict[str, Any]:
        status, data = self.http.get(self.base)
        assert status == 200, data
        return data

    @staticmethod
    def bid(seat: int, round_: int) -> list[int]:
        # Seat 0 bids upwards, seat 1 downwards: every card is spent exactly once.
        return [round_] if seat == 0 else [14 - round_]

    def move_payload(self, kind: str, seat: int, round_: int, game_id: str) -> dict[str, Any]:
        salt = self.salts.setdefault((seat, round_), new_salt())
        cards = self.bid(seat, round_)
        if kind == "commit":
            return {"round": round_, "commitment": commitments.bid_commitment(game_id, round_, seat, cards, salt)}
        return {"round": round_, "cards": cards, "salt": salt}

    def move(self, kind: str, seat: int, round_: int, game_id: str) -> tuple[int, Any]:
        payload = self.move_payload(kind, seat, round_, game_id)
        status, data = self.http.post(f"{self.base}/seats/{seat}/{kind}", payload, self.tokens[seat])
        if status == 200:
            self.acks.append(Ack(kind, seat, round_, payload, data["version"], time.monotonic()))
        return status, data

    def play_round(self) -> dict[str, Any]:
        """Finish the current round from wherever it is (commit or reveal phase)."""
        state = self.public()
        round_, game_id = state["round"], state["game_id"]
        assert state["phase"] in ("commit", "reveal"), state
        kinds = ("commit", "reveal") if state["phase"] == "commit" else ("reveal",)
        for kind in kinds:
            for seat in (0, 1):
                if kind == state["phase"] and seat not in state["awaiting"]:
                    continue
                status, data = self.move(kind, seat, round_, game_id)
                assert status == 200, (kind, seat, round_, data)
        return data

    def play_rounds(self, n: int) -> None:
        for _ in range(n):
            self.play_round()

    def play_to_end(self) -> dict[str, Any]:
        for _ in range(20):
            state = self.public()
            if state["phase"] == "over":
                return state
            self.play_round()
        raise AssertionError("the game did not end")


def check_transcript(player: Player, final: dict[str, Any]) -> list[dict[str, Any]]:
    """Exactly one entry per applied change, consecutive versions, acks all present, replayable."""
    status, transcript = player.http.get(f"{player.base}/transcript")
    assert status == 200, transcript
    entries = transcript["entries"]
    versions = [e["version"] for e in entries]
    assert versions == sorted(versions), "transcript out of order"
    assert sorted(set(versions)) == list(range(1, final["version"] + 1)), f"gaps or extras: {versions}"
    # Version 1 is the creation (create + the referee's deal); every later version is one move.
    moves = [e for e in entries if e["version"] > 1]
    assert len(moves) == final["version"] - 1, "a version with more than one move (a duplicate?)"
    assert all(e["by"] != "referee" for e in moves)
    # The game as played: 13 rounds x (2 commits + 2 reveals), each exactly once.
    keyed = [(e["action"]["type"], e["action"]["seat"], e["action"]["round"]) for e in moves]
    assert len(keyed) == len(set(keyed)) == 13 * 4, keyed
    for ack in player.acks:
        matching = [e for e in moves
                    if (e["action"]["type"], e["action"]["seat"], e["action"]["round"]) == (ack.kind, ack.seat, ack.round)]
        assert len(matching) == 1, ack
        action = matching[0]["action"]
        for key, value in ack.payload.items():
            assert action[key] == value, (ack, action)
        assert matching[0]["version"] <= ack.version, (ack, matching[0])
    # The result is consistent and re-verifiable offline.
    result = final["game_result"]
    assert sum(Fraction(s) for s in result["scores"]) + result["unclaimed"] == RANK_SUM
    assert final["result"]["totals"] == result["scores"]
    rules = gops.Rules.from_dict(transcript["rules"])
    match = gops.MatchRules.from_dict(transcript["match"])
    replayed = gops.replay(player.id, rules, match, [(e["action"], e["at"]) for e in entries[1:]])
    assert replayed.result.to_dict() == final["result"]
    assert [str(s) for s in replayed.game.scores] == final["scores"]
    assert commitments.prize_order_commitment(player.id, result["prize_order"], result["prize_salt"]) \
        == player.created["game"]["prize_commitment"]
    return entries


def workers_serving(master_pid: int, port: int) -> list[int]:
    """The workers holding an open client connection on ``port`` right now."""
    established = {inode for inode, state in tcp_sockets(port).items() if state == "established"}
    return list(socket_owners(established, gunicorn_workers(master_pid)))


def server_log_errors(log_path: Path) -> list[str]:
    text = log_path.read_text(errors="replace")
    return [line for line in text.splitlines()
            if "Traceback" in line or "unhandled error" in line or '" 500 ' in line]


@pytest.fixture
def gunicorn_factory(tmp_path):
    started = []

    def factory(redis_url: str, workers: int = 2, **env: str):
        log_path = tmp_path / f"gunicorn{len(started)}.log"
        proc, base = start_gunicorn(redis_url, log_path, port=free_port(), workers=workers,
                                    extra_env={"GUNICORN_ACCESSLOG": "-", **env})
        started.append(proc)
        return proc, base, log_path

    yield factory
    for proc in started:
        stop_gunicorn(proc)


# ------------------------------------------------- gunicorn workers SIGKILLed


def test_game_survives_workers_sigkilled_mid_game(valkey_factory, gunicorn_factory):
    valkey = valkey_factory()
    workers = 3
    master, base, log_path = gunicorn_factory(valkey.url, workers=workers)
    port = int(base.rsplit(":", 1)[1])
    wait_for_workers(master.pid, workers)

    in_flight = threading.Event()
    gate = threading.Event()  # the killer holds the next request while gunicorn respawns
    gate.set()
    http = RetryingHttp(base, in_flight=in_flight, gate=gate, give_up_after=60)
    player = Player(http)
    stop = threading.Event()
    kills: list[tuple[float, int]] = []
    errors: list[BaseException] = []
    rng = random.Random()

    def killer() -> None:
        last_attempt = -1
        try:
            while not stop.is_set() and len(kills) < MAX_WORKER_KILLS:
                # Find the worker holding our keep-alive connection while it is idle, then
                # kill it as soon as the next request is sent (it may be mid-save).
                serving = workers_serving(master.pid, port)[:1]
                if not in_flight.wait(timeout=0.2):
                    continue
                # At most one kill per request sent, and not at every one: kills spread over the game.
                if http.attempts == last_attempt or rng.random() < 0.5:
                    time.sleep(0.001)
                    continue
                last_attempt = http.attempts
                time.sleep(rng.uniform(0, 0.003))
                pids = gunicorn_workers(master.pid)
                roll = rng.random()
                if roll < 0.1:
                    victims = pids  # every worker at once
                elif roll < 0.3 or not serving:
                    victims = [rng.choice(pids)] if pids else []  # any worker, maybe an idle one
                else:
                    victims = serving
                for pid in victims:
                    try:
                        os.kill(pid, signal.SIGKILL)
                        kills.append((time.monotonic(), pid))
                    except ProcessLookupError:
                        pass
                if victims:
                    # Hold the client's next request until gunicorn has respawned, so every
                    # kill is followed by progress, however fast the machine is.
                    gate.clear()
                    try:
                        wait_for_workers(master.pid, workers)
                        stop.wait(rng.uniform(0, 0.05))
                    finally:
                        gate.set()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            gate.set()

    thread = threading.Thread(target=killer, daemon=True)
    started = time.monotonic()
    thread.start()
    try:
        final = player.play_to_end()
    finally:
        stop.set()
        thread.join(timeout=40)
    assert not errors, errors
    assert master.poll() is None, "the gunicorn master died"
    wait_for_workers(master.pid, workers)

    assert len(kills) >= 5, f"only {len(kills)} workers killed"
    assert http.retries >= 1, "no kill ever hit a request in flight"
    print(f"\n{len(kills)} workers SIGKILLed, {http.retries} client retries, "
          f"{len(player.acks)} acks in {time.monotonic() - started:.1f}s")

    # Read the end state with a fresh client that retries nothing but a connection reset before any
    # answer: each worker listens on a socket of its own, and a connection the kernel queued on a
    # killed worker's socket is reset (deploy/README.md, "Listening"); no request reached the app then.
    for attempt in range(3):
        try:
            final = requests.get(f"{base}{player.base}", timeout=10).json()
            break
        except requests.ConnectionError:
            if attempt == 2:
                raise
            time.sleep(0.5)
    assert final["phase"] == "over"
    entries = check_transcript(player, final)
    assert final["version"] == 1 + 13 * 4
    # Every move acknowledged before a kill is in the transcript afterwards.
    last_kill = kills[-1][0]
    acked_before = [a for a in player.acks if a.at < last_kill]
    assert acked_before, "no move was acknowledged before the last kill"
    applied = {(e["action"]["type"], e["action"]["seat"], e["action"]["round"]) for e in entries if e["version"] > 1}
    assert all((a.kind, a.seat, a.round) in applied for a in acked_before)
    assert not [line for line in server_log_errors(log_path) if "Traceback" in line or " 500 " in line]


# --------------------------------------------------- Valkey SIGKILLed (AOF)


def stored_consistency(valkey_url: str, game_id: str) -> tuple[int, list[dict[str, Any]]]:
    """Raw check of the keys: the hash's version equals the log's distinct versions 1..N."""
    import redis

    client = redis.Redis.from_url(valkey_url, decode_responses=True)
    try:  # the log read the store's way: a list, or (the game over) its archive
        version = stored_version(client, "gops", game_id)
        log = logged_entries(client, "gops", game_id)
    finally:
        client.close()
    versions = [e["version"] for e in log]
    assert sorted(set(versions)) == list(range(1, version + 1)), (version, versions)
    return version, log


def assert_unavailable(http: RetryingHttp, method: str, path: str, body: Any = None,
                       token: str | None = None) -> None:
    """The API answers 503 store_unavailable problem+json: its own bound on a store reply (1 s by
    default) ends the wait, not the client's 60 s (a hang fails with the client's timeout)."""
    r = http.session.request(method, http.base + path, json=body if method == "POST" else None,
                             headers=bearer(token), timeout=60)
    assert r.status_code == 503, (method, path, r.status_code, r.text)
    assert r.headers["Content-Type"].startswith(PROBLEM)
    data = r.json()
    assert data["code"] == "store_unavailable" and data["status"] == 503, data
    assert {"type", "title", "detail"} <= set(data)


def test_game_survives_valkey_sigkill_and_restart(valkey_factory, gunicorn_factory, tmp_path):
    data_dir = tmp_path / "valkey-aof"
    # appendfsync always: an acknowledged write is on disk before the reply.
    valkey = valkey_factory(data_dir=data_dir, appendfsync="always")
    _, base, log_path = gunicorn_factory(valkey.url, workers=2)
    http = RetryingHttp(base)
    player = Player(http)

    # Half a game, acknowledged move by move.
    player.play_rounds(6)
    acked_version = player.acks[-1].version
    assert [a.version for a in player.acks] == list(range(2, acked_version + 1))
    before = player.public()
    assert before["version"] == acked_version == 1 + 6 * 4

    # Crash: SIGKILL, no clean shutdown, no AOF flush on exit.
    valkey.kill()
    seat = 0
    next_commit = player.move_payload("commit", seat, 7, before["game_id"])
    # While it is down: every operation is a 503 problem+json, never a 500 or a hang.
    for method, path, body, token in [
        ("GET", player.base, None, None),
        ("GET", f"{player.base}/seats/{seat}", None, player.tokens[seat]),
        ("GET", f"{player.base}/transcript", None, None),
        ("POST", f"{player.base}/seats/{seat}/commit", next_commit, player.tokens[seat]),
        ("POST", "/v1/gops/games", {"profile": "classic"}, None),
        ("GET", "/readyz", None, None),  # /healthz stays 200: the process itself is alive
    ]:
        assert_unavailable(http, method, path, body, token)

    # Restart on the same port and data dir: the AOF is replayed.
    restarted = valkey_factory(port=valkey.port, data_dir=data_dir, appendfsync="always")
    assert restarted.url == valkey.url
    version, _ = stored_consistency(restarted.url, player.id)
    assert version == acked_version, f"acknowledged writes lost: stored {version}, acknowledged {acked_version}"

    # The same gunicorn reconnects by itself (a few 503s at most while its pool notices).
    recovery = RetryingHttp(base, retry_503=True, give_up_after=10)
    status, after = recovery.get(player.base)
    assert status == 200, after
    assert after == {**before, "deadline_at": after["deadline_at"]}
    # The move refused while Valkey was down applies now, once.
    player.http = recovery
    status, data = player.move("commit", seat, 7, before["game_id"])
    assert status == 200 and data["version"] == acked_version + 1, data

    # Crash again with a move in flight: it is either acknowledged (and must
    # survive) or refused with 503 (and then must be repeatable), never half-applied.
    outcome: dict[str, Any] = {}

    def send() -> None:
        outcome["result"] = player.move("commit", 1, 7, before["game_id"])

    player.http = RetryingHttp(base)  # no 503 retries: report what the crash did
    sender = threading.Thread(target=send)
    sender.start()
    time.sleep(random.uniform(0, 0.01))
    restarted.kill()
    sender.join(timeout=20)
    status, data = outcome["result"]
    assert status in (200, 503), (status, data)
    last_acked = player.acks[-1].version
    restarted = valkey_factory(port=valkey.port, data_dir=data_dir, appendfsync="always")
    version, _ = stored_consistency(restarted.url, player.id)
    assert version >= last_acked, f"acknowledged writes lost: stored {version}, acknowledged {last_acked}"
    assert version in (acked_version + 1, acked_version + 2)
    # Repeat it (a no-op if it was applied before the crash), then finish the game.
    player.http = recovery
    status, data = player.move("commit", 1, 7, before["game_id"])
    assert status == 200 and data["version"] == acked_version + 2, data
    final = player.play_to_end()
    assert final["phase"] == "over"
    check_transcript(player, final)
    version, _ = stored_consistency(restarted.url, player.id)
    assert version == final["version"] == 1 + 13 * 4
    assert not [line for line in server_log_errors(log_path) if "Traceback" in line or " 500 " in line]


def test_frozen_valkey_answers_503_not_a_hang(valkey_factory, gunicorn_factory):
    valkey = valkey_factory()
    _, base, _ = gunicorn_factory(valkey.url, workers=1)
    http = RetryingHttp(base)
    player = Player(http)
    os.kill(valkey.pid, signal.SIGSTOP)
    try:
        assert_unavailable(http, "GET", player.base)
    finally:
        os.kill(valkey.pid, signal.SIGCONT)
