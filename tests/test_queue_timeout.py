"""A request that waited too long before the worker could start on it is told so, not served late.

Under 600 simultaneous connections some requests had no answer within 20 s: they sat in the listen
backlog or a busy worker's socket while the clients behind them waited too. The gevent worker
(service/ops/serving.py) asks the kernel when a request's last byte arrived; past
``REFEREE_QUEUE_TIMEOUT`` it answers ``503 queue_timeout`` with ``Retry-After`` and does nothing.

The worker is made busy by stopping it (SIGSTOP) while a move is sent: the kernel takes the
connection and the request into the stopped worker's backlog, and the request ages there. Nothing is
asserted of the clock: the request has waited at least as long as the worker was stopped.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time

import pytest
import requests
from support.client import GopsGame, LiveHttp, bearer, new_salt
from support.store import stored

from service.games import commitments

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's tcp_info: Linux"),
              pytest.mark.servers]

QUEUE_TIMEOUT = 3.0  # seconds: REFEREE_QUEUE_TIMEOUT of the server under test (room for a busy machine)
STOPPED = 4.0  # seconds the worker is stopped with the request waiting: longer than QUEUE_TIMEOUT


@pytest.fixture
def server(redis_server, tmp_path):
    from conftest import start_gunicorn, stop_gunicorn
    from support.servers import wait_for_workers

    proc, base = start_gunicorn(redis_server.url, tmp_path / "gunicorn.log", workers=1, extra_env={
        "REFEREE_QUEUE_TIMEOUT": str(QUEUE_TIMEOUT),
        "GUNICORN_KEEPALIVE": "60",  # a connection idle for STOPPED seconds stays open
        "REFEREE_RATE_LIMIT_PER_MINUTE": "0", "REFEREE_CREATE_LIMIT_PER_HOUR": "0"})
    try:
        [worker] = wait_for_workers(proc.pid, 1)
        yield base, worker
    finally:
        stop_gunicorn(proc)


def _raw_request(method: str, path: str, host: str, headers: dict[str, str], body: bytes) -> bytes:
    head = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}",
            *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One response (every answer here has a Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before a response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed inside a response: {data!r}"
        body += chunk
    return int(status_line.split()[1]), headers, body


def _queue_timeouts(base: str) -> float:
    metrics = requests.get(f"{base}/metrics", timeout=30).text
    return sum(float(line.split()[-1]) for line in metrics.splitlines()
               if line.startswith("referee_http_queue_timeouts_total "))


def test_a_move_that_waited_past_the_queue_timeout_is_refused_and_nothing_is_stored(server, redis_client):
    base, worker = server
    http = LiveHttp(base)
    game = GopsGame.create(http, {"profile": "classic"})
    before = stored(redis_client, "gops", game.id)
    salt = new_salt()
    commitment = commitments.bid_commitment(game.id, 1, 0, [5], salt)
    body = json.dumps({"game_id": game.id, "round": 1, "commitment": commitment}).encode()
    host, port = base.removeprefix("http://").split(":")
    request = _raw_request("POST", f"{game.base}/seats/0/commit", f"{host}:{port}",
                           {**bearer(game.seat_tokens[0]), "Content-Type": "application/json"}, body)

    refused_before = _queue_timeouts(base)  # (the requests that waited while the worker started count too)
    os.kill(worker, signal.SIGSTOP)
    try:
        sock = socket.create_connection((host, int(port)), timeout=60)  # the kernel accepts it meanwhile
        sock.sendall(request)
        time.sleep(STOPPED)  # the request ages in the stopped worker's backlog
    finally:
        os.kill(worker, signal.SIGCONT)
    with sock:
        status, headers, answer = _read_response(sock)

    assert status == 503, answer
    assert headers["content-type"] == "application/problem+json" and headers["retry-after"] == "1"
    problem = json.loads(answer)
    assert problem["code"] == "queue_timeout" and problem["status"] == 503
    assert stored(redis_client, "gops", game.id) == before  # the move was not made
    assert _queue_timeouts(base) == refused_before + 1

    status, view = game.commit(0, 1, [5], salt)  # sent again now, it is served
    assert status == 200 and view["commitments"]["0"] == commitment, view


def test_a_request_served_at_once_is_not_refused(server):
    """The bound is the time a request waits, not how long its connection has been open: a keep-alive
    connection idle longer than the bound between two requests still has the second served."""
    base, _ = server
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        request = _raw_request("GET", "/healthz", f"{host}:{port}", {}, b"")
        sock.sendall(request)
        status, _, answer = _read_response(sock)
        assert status == 200, answer
        time.sleep(STOPPED)  # idle, not waiting: nothing was sent
        sock.sendall(request)
        status, _, answer = _read_response(sock)
    assert status == 200, answer
