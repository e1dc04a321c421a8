"""Connections opened and never used, from many addresses, leave a full worker room for moves.

One gevent worker with 150 connections (``GUNICORN_WORKER_CONNECTIONS``), so its share for streams
(``REFEREE_STREAM_SHARE``, 0.75) is 112.  Flooded from ten loopback addresses, each under the
per-address cap: 300 streams (112 open, the rest refused ``503 too_many_streams`` with
``Retry-After``), then 400 connections from eight more addresses that never send a request, each
opened again as soon as the server closes it.  The worker is full; a new connection that has sent
nothing for ``NEW_CONNECTION_GRACE`` is idle and closed first (service/ops/serving.py), so a whole
Gops round played from 127.0.0.1 meanwhile is answered.  When only kept-alive connections counted
as idle, the silent ones held every free connection until their ``keepalive`` (5 s) ran out, and
being opened again at once, queued ahead of the moves: a move waited more than 30 s.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time

import pytest
import requests

from support.gops_helpers import spec_commitment

pytestmark = pytest.mark.servers  # its own gunicorn, Valkey or cluster

WORKER_CONNECTIONS = 150
SHARE = int(WORKER_CONNECTIONS * 0.75)  # REFEREE_STREAM_SHARE's default


def host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def connect(base: str, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(host_port(base))
    return sock


@pytest.fixture
def crowded_worker(redis_server, tmp_path):
    from conftest import start_gunicorn, stop_gunicorn

    proc, base = start_gunicorn(redis_server.url, tmp_path / "gunicorn.log", workers=1, extra_env={
        "GUNICORN_WORKER_CONNECTIONS": str(WORKER_CONNECTIONS),
        "REFEREE_RATE_LIMIT_PER_MINUTE": "0", "REFEREE_CREATE_LIMIT_PER_HOUR": "0"})
    try:
        yield base
    finally:
        stop_gunicorn(proc)


class Reconnecting:
    """Idle connections from ``sources`` (50 each), each opened again when the server closes it."""

    def __init__(self, base: str, sources: list[str]) -> None:
        self.base = base
        self.socks = {connect(base, source): source for source in sources for _ in range(50)}
        self.reopened = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            poller = select.poll()
            by_fd = {sock.fileno(): sock for sock in self.socks}
            for fd in by_fd:
                poller.register(fd, select.POLLIN)
            for fd, _ in poller.poll(100):
                sock = by_fd[fd]
                try:
                    closed = sock.recv(65536) == b""
                except OSError:
                    closed = True
                if closed and not self.stop.is_set():
                    source = self.socks.pop(sock)
                    sock.close()
                    try:
                        self.socks[connect(self.base, source)] = source
                        self.reopened += 1
                    except OSError:
                        pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        for sock in self.socks:
            sock.close()


def complete(data: bytes) -> bool:
    """Whether ``data`` holds a response's head, and its whole body if it says how long it is."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return True  # a stream: its head is enough


def first_answers(socks: list[socket.socket], wait: float) -> dict[socket.socket, bytes]:
    """What each socket received until its answer was complete (a stream: its head), within ``wait`` s."""
    got = {sock: b"" for sock in socks}
    poller = select.poll()
    by_fd = {sock.fileno(): sock for sock in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    waiting = set(by_fd)
    deadline = time.monotonic() + wait
    while waiting and time.monotonic() < deadline:
        for fd, _ in poller.poll(200):
            sock = by_fd[fd]
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            got[sock] += chunk
            if not chunk or complete(got[sock]):
                poller.unregister(fd)
                waiting.discard(fd)
    return got


@pytest.mark.slow
def test_a_flood_of_streams_and_idle_connections_leaves_moves_answered(crowded_worker):
    base = crowded_worker
    host, port = host_port(base)
    created = requests.post(f"{base}/v1/gops/games", json={"profile": "classic"}, timeout=20)
    assert created.status_code == 201, created.text
    game = created.json()
    gid, game_id, tokens = game["id"], game["game"]["game_id"], game["seat_tokens"]

    streams = [connect(base, f"127.0.0.{40 + i // 50}") for i in range(300)]  # 6 addresses x 50
    for sock in streams:
        sock.sendall(f"GET /v1/gops/games/{gid}/events?timeout=60 HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    idle = None
    try:
        answered = first_answers(streams, wait=30)
        idle = Reconnecting(base, [f"127.0.0.{50 + n}" for n in range(8)])  # 400 silent connections
        opened = [s for s, head in answered.items() if head.startswith(b"HTTP/1.1 200")]
        refused = [answer.partition(b"\r\n\r\n") for answer in answered.values() if answer.startswith(b"HTTP/1.1 503")]
        assert len(opened) == SHARE and len(opened) + len(refused) == len(streams)
        assert all(b"Retry-After: 5" in head and json.loads(body)["code"] == "too_many_streams"
                   for head, _, body in refused)

        # Meanwhile a player makes a whole round, each request on a connection of its own.
        salts = ["a" * 64, "b" * 64]
        moves = [(f"/v1/gops/games/{gid}/seats/{seat}/commit",
                  {"round": 1, "commitment": spec_commitment(game_id, 1, seat, [13 - seat], salts[seat])}, seat)
                 for seat in (0, 1)]
        moves += [(f"/v1/gops/games/{gid}/seats/{seat}/reveal",
                   {"round": 1, "cards": [13 - seat], "salt": salts[seat]}, seat) for seat in (0, 1)]
        for path, body, seat in moves:
            r = requests.post(f"{base}{path}", json=body, timeout=30,
                              headers={"Authorization": f"Bearer {tokens[seat]}", "Connection": "close"})
            assert r.status_code == 200, (path, r.status_code, r.text)
        view = requests.get(f"{base}/v1/gops/games/{gid}", timeout=30, headers={"Connection": "close"})
        assert view.status_code == 200 and view.json()["round"] == 2
    finally:
        if idle is not None:
            idle.close()
        for sock in streams:
            sock.close()
