"""Idempotency-Key under real faults: the retry gets the first answer, or a clean new apply.

Each test runs its own gunicorn against its own Valkey, through a small TCP proxy (``FaultyLink``)
that lets the test break the app's link to the store at one exact command, deterministically:

* the move's save reaches Valkey and is applied, then its reply is held: the app times out
  (``REFEREE_REDIS_TIMEOUT``) and answers 503 ``store_unavailable`` although the move applied.
  The retry with the same Idempotency-Key must get the move's own answer (200, same body,
  ``Idempotent-Replayed: true``), not 409 ``not_your_turn`` as it did;
* the worker is SIGKILLed while its move's save is held (applied, or not yet sent): the retry,
  seconds later, gets the answer or applies the move now; it used to get 409
  ``idempotency_key_in_progress`` for 60 s;
* the worker is SIGKILLed in the middle of a create: the key is free again within seconds.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import uuid
from typing import Callable

import pytest
import requests
from support.client import bearer
from support.servers import (
    gunicorn_workers,
    start_gunicorn,
    stop_gunicorn,
    wait_for_workers,
)

from service.storage.embedded import free_port

pytestmark = pytest.mark.servers  # its own gunicorn, Valkey or cluster


class FaultyLink:
    """A TCP proxy app → Valkey.  ``arm(match, mode)``: the first client→server chunk for which
    ``match(chunk)`` is true trips it, once:

    * ``mode="swallow_reply"``: the command is forwarded, its reply (proof it ran) is dropped and
      ``tripped`` is set; later replies on that connection are dropped too;
    * ``mode="hold_command"``: the command is not forwarded (nor anything after it on that
      connection) and ``tripped`` is set.
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.tripped = threading.Event()
        self._lock = threading.Lock()
        self._match: Callable[[bytes], bool] | None = None
        self._mode = ""
        self._closed = False
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def arm(self, match: Callable[[bytes], bool], mode: str) -> None:
        with self._lock:
            self._match, self._mode = match, mode
            self.tripped.clear()

    def close(self) -> None:
        self._closed = True
        for sock in [self.listener, *self._sockets]:
            try:
                sock.close()
            except OSError:
                pass

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream_port))
            self._sockets += [client, server]
            state = {"swallow": False, "hold": False}
            threading.Thread(target=self._up, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, state), daemon=True).start()

    def _trip(self, chunk: bytes) -> str:
        with self._lock:
            if self._match is not None and self._match(chunk):
                mode, self._match = self._mode, None
                return mode
        return ""

    def _up(self, client: socket.socket, server: socket.socket, state: dict) -> None:
        try:
            while chunk := client.recv(65536):
                mode = self._trip(chunk)
                if mode == "hold_command":
                    state["hold"] = True
                    self.tripped.set()
                elif mode == "swallow_reply":
                    state["swallow"] = True
                if not state["hold"]:
                    server.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (client, server):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _down(self, server: socket.socket, client: socket.socket, state: dict) -> None:
        try:
            while chunk := server.recv(65536):
                if state["swallow"]:
                    self.tripped.set()  # the command ran: this is its reply
                    continue
                client.sendall(chunk)
        except OSError:
            pass


def writes_a_table(chunk: bytes) -> bool:
    """The Lua script that creates a table or saves a move on one (keys ``P:gofo:{ID}``, ``...:log``;
    an idempotency record of a create has no ``{``).  Each test arms it just before the request the
    fault is aimed at, and nothing else writes in between."""
    return b"EVALSHA" in chunk.upper() and b"}:log" in chunk and b"gofo:{" in chunk


@pytest.fixture
def rig(valkey_factory, tmp_path):
    """(valkey, link, start(workers, timeout) -> (proc, base))."""
    valkey = valkey_factory()
    link = FaultyLink(valkey.port)
    started = []

    def start(workers: int = 1, timeout: float = 0.5):
        proc, base = start_gunicorn(link.url, tmp_path / f"gunicorn{len(started)}.log", port=free_port(),
                                    workers=workers, extra_env={"REFEREE_REDIS_TIMEOUT": str(timeout),
                                                                "GUNICORN_ACCESSLOG": ""})
        started.append(proc)
        return proc, base

    yield valkey, link, start
    for proc in started:
        stop_gunicorn(proc)
    link.close()


def new_key() -> str:
    return f"retry-{uuid.uuid4()}"


def open_table(base: str) -> dict:
    r = requests.post(f"{base}/v1/gofo/tables", json={"seats": 3}, timeout=30)
    assert r.status_code == 201, r.text
    table = r.json()
    # One move without a key first: every worker's save script is loaded (no NOSCRIPT round trip
    # between the fault and the command it is aimed at).
    mano = table["table"]["hand"]["mano"]
    r = requests.post(f"{base}/v1/gofo/tables/{table['id']}/seats/{mano}/open", json={"amount": 2}, timeout=30,
                      headers=bearer(table['seat_tokens'][mano]))
    assert r.status_code == 200, r.text
    return table


def public(base: str, table: dict) -> dict:
    return requests.get(f"{base}/v1/gofo/tables/{table['id']}", timeout=30).json()


def decline_request(base: str, table: dict, key: str) -> Callable[[], requests.Response]:
    """The seat to act declines (a move legal once only: a re-run is 409 not_your_turn)."""
    seat = public(base, table)["hand"]["to_act"]
    url = f"{base}/v1/gofo/tables/{table['id']}/seats/{seat}/decline"
    headers = {**bearer(table['seat_tokens'][seat]), "Idempotency-Key": key}
    return lambda: requests.post(url, json={}, headers=headers, timeout=30)


def seat_view(base: str, table: dict, seat: int) -> dict:
    return requests.get(f"{base}/v1/gofo/tables/{table['id']}/seats/{seat}", timeout=30,
                        headers=bearer(table['seat_tokens'][seat])).json()


def test_a_move_answered_503_but_applied_replays_its_answer(rig):
    _, link, start = rig
    _, base = start(workers=1, timeout=0.5)
    table = open_table(base)
    before = public(base, table)
    seat = before["hand"]["to_act"]
    send = decline_request(base, table, new_key())

    link.arm(writes_a_table, "swallow_reply")
    first = send()
    assert link.tripped.is_set(), "the fault was not injected"
    assert first.status_code == 503 and first.json()["code"] == "store_unavailable", first.text
    after = public(base, table)
    assert after["version"] == before["version"] + 1, "the move applied (the 503 is the lost reply)"

    retry = send()
    assert retry.status_code == 200, retry.text
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert_move_answer(retry.json(), seat_view(base, table, seat), after)  # the move's own answer, at its version
    assert retry.json()["version"] == after["version"]
    assert public(base, table)["version"] == after["version"]  # and it was not applied twice
    again = send()
    assert again.status_code == 200 and again.json() == retry.json()


def assert_move_answer(answer: dict, view: dict, table: dict) -> None:
    """A Gofo move's answer: the mover's view at the move's version, plus what happens next."""
    assert {k: v for k, v in answer.items() if k not in ("next", "hand_result")} == view
    assert answer["next"]["seat"] == table["hand"]["to_act"]
    assert answer["hand_result"] is None  # a decline ends no hand here


@pytest.mark.parametrize("applied", [True, False], ids=["saved-then-killed", "killed-before-save"])
def test_a_worker_killed_mid_move_leaves_the_key_usable_at_once(rig, applied):
    _, link, start = rig
    proc, base = start(workers=1, timeout=20)  # the worker waits on the held save until killed
    table = open_table(base)
    before = public(base, table)
    seat = before["hand"]["to_act"]
    send = decline_request(base, table, new_key())

    link.arm(writes_a_table, "swallow_reply" if applied else "hold_command")
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(_attempt(send)), daemon=True)
    thread.start()
    assert link.tripped.wait(20), "the fault was not injected"
    (worker,) = gunicorn_workers(proc.pid)
    os.kill(worker, signal.SIGKILL)
    thread.join(30)
    assert outcome and isinstance(outcome[0], requests.RequestException), outcome  # the answer was lost
    wait_for_workers(proc.pid, 1)
    _wait_until_serving(base)

    retry = send()  # at once: no 60 s "in progress"
    assert retry.status_code == 200, retry.text
    assert retry.headers["Idempotent-Replayed"] == ("true" if applied else "false")
    assert public(base, table)["version"] == before["version"] + 1  # applied exactly once
    assert_move_answer(retry.json(), seat_view(base, table, seat), public(base, table))


def test_a_worker_killed_mid_create_frees_the_key_within_seconds(rig):
    from service.api import idempotency

    _, link, start = rig
    proc, base = start(workers=1, timeout=20)
    open_table(base)  # scripts loaded
    key = new_key()

    def send() -> requests.Response:
        return requests.post(f"{base}/v1/gofo/tables", json={"seats": 4}, headers={"Idempotency-Key": key}, timeout=30)

    link.arm(writes_a_table, "hold_command")
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(_attempt(send)), daemon=True)
    thread.start()
    assert link.tripped.wait(20), "the fault was not injected"
    (worker,) = gunicorn_workers(proc.pid)
    os.kill(worker, signal.SIGKILL)
    thread.join(30)
    wait_for_workers(proc.pid, 1)
    _wait_until_serving(base)

    # Retry the way a client would, for a bounded time: the dead create's claim expires in
    # PENDING_SECONDS, far below the budget (the old claim lasted 60 s).
    budget = idempotency.PENDING_SECONDS + idempotency.WAIT_SECONDS + 15
    assert budget < 60
    deadline = time.monotonic() + budget
    statuses = []
    while True:
        r = send()
        statuses.append((r.status_code, r.json().get("code")))
        if r.status_code == 201 or time.monotonic() > deadline:
            break
        assert r.status_code == 409 and r.json()["code"] == "idempotency_key_in_progress", r.text
        time.sleep(0.5)
    assert r.status_code == 201, statuses
    created = r.json()
    replay = send()
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == created  # one table for the key from now on


def _attempt(send: Callable[[], requests.Response]):
    try:
        return send()
    except requests.RequestException as error:
        return error


def _wait_until_serving(base: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.05)
    raise AssertionError("gunicorn did not come back")
