"""Slow and idle clients cannot starve the API (deploy/gunicorn.conf.py, service/ops/serving.py).

Against the live server (gunicorn, 2 gevent workers, the committed config).  With gthread 2×4,
twenty connections trickling a body at 1 byte / 2 s made 4 of 6 ordinary requests time out and
1,500 idle connections made every request time out.  Here:

* 20 bodies trickling at 1 byte / 2 s: 6 ordinary requests are all answered while every trickler
  is still held; the trickling ones get ``408 request_timeout`` once the body deadline
  (``REFEREE_BODY_TIMEOUT``, 10 s) passes, and are closed;
* 20 request heads trickling: ordinary requests answered while the slow ones are held; the slow
  ones closed after ``keepalive``;
* 300 idle connections from one address: at most the per-client cap (100 per worker) is held,
  the rest are answered ``429 too_many_connections`` at once; other clients are served while the
  held ones are still open, and those are closed after ``keepalive`` seconds idle;
* the cap's edge, on a one-worker server (cap 10): the 11th stream of one address gets 429, another
  address is served, and the greedy one again once it has closed a stream;
* a body declared far past the limit and sent as fast as possible: 413, the connection closed after
  the client got at most a few MB into the kernel's buffers, the worker serving others meanwhile;
* a stream whose client never reads: closed at its deadline although a write is waiting for the
  client (the open-streams gauge comes back down).

The attackers connect from other loopback addresses (127.0.0.2…), ordinary requests from
127.0.0.1: the per-client cap tells them apart as it would tell apart two machines.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time

import pytest
import requests

from support.client import GopsGame, LiveHttp, lowest
from support.sse_client import RawStream, pump

BODY_TIMEOUT = 10.0  # REFEREE_BODY_TIMEOUT's default
KEEPALIVE = 5.0  # deploy/gunicorn.conf.py: GUNICORN_KEEPALIVE's default
PER_CLIENT = 100  # REFEREE_MAX_CONNECTIONS_PER_CLIENT's default, per worker
WORKERS = 2


def host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def connect(base: str, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(host_port(base))
    return sock


def read_all(sock: socket.socket, timeout: float) -> bytes:
    """What the server sends until it closes the connection (or ``timeout``)."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return data


def closed_by_server(sock: socket.socket, timeout: float) -> bool:
    sock.settimeout(timeout)
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def problem(response: bytes) -> tuple[int, dict]:
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def ordinary_requests(base: str, game_id: str) -> None:
    """Six ordinary requests, each on a new connection, each answered (a starved server leaves them
    waiting: the client's timeout ends the test)."""
    for i in range(6):
        if i % 2:
            r = requests.post(f"{base}/v1/gops/games", json={"profile": "classic"}, timeout=30)
            assert r.status_code == 201, r.text
        else:
            r = requests.get(f"{base}/v1/gops/games/{game_id}", timeout=30)
            assert r.status_code == 200, r.text


def still_held(socks: list[socket.socket]) -> None:
    """None of ``socks`` has been answered or closed by the server yet."""
    assert not readable_now(socks), "the server let a slow client go before the ordinary requests were served"


@pytest.fixture
def game_id(live_server):
    r = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic"}, timeout=10)
    assert r.status_code == 201
    return r.json()["id"]


def trickle(socks: list[socket.socket], stop: threading.Event, every: float = 2.0) -> None:
    while not stop.wait(every):
        for sock in socks:
            try:
                sock.send(b" ")
            except OSError:
                pass


@pytest.mark.slow
def test_twenty_trickling_bodies_do_not_stop_ordinary_requests(live_server, game_id):
    host, port = host_port(live_server)
    slow = []
    for _ in range(20):
        sock = connect(live_server, "127.0.0.2")
        sock.sendall((f"POST /v1/gops/games HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{").encode())
        slow.append(sock)
    stop = threading.Event()
    trickler = threading.Thread(target=trickle, args=(slow, stop))
    trickler.start()
    try:
        time.sleep(1.0)  # every slow body is being read by now
        ordinary_requests(live_server, game_id)
        still_held(slow)  # served while the tricklers hold their connections, not after
        # The body deadline: each trickler gets a 408 problem and its connection is closed.
        for sock in slow:
            answer = read_all(sock, BODY_TIMEOUT + 60)
            status, body = problem(answer)
            assert status == 408 and body["code"] == "request_timeout"
    finally:
        stop.set()
        trickler.join()
        for sock in slow:
            sock.close()


@pytest.mark.slow
def test_trickling_request_heads_are_cut_off(live_server, game_id):
    host, port = host_port(live_server)
    slow = []
    for _ in range(20):
        sock = connect(live_server, "127.0.0.4")
        sock.sendall(f"GET /v1/gops/games/{game_id} HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode())
        slow.append(sock)
    stop = threading.Event()
    trickler = threading.Thread(target=trickle, args=(slow, stop))
    trickler.start()
    try:
        ordinary_requests(live_server, game_id)
        still_held(slow)
        for sock in slow:  # headers must arrive within keepalive seconds
            assert closed_by_server(sock, KEEPALIVE + 60)
    finally:
        stop.set()
        trickler.join()
        for sock in slow:
            sock.close()


def raw_get(base: str, path: str, source: str) -> bytes:
    host, port = host_port(base)
    sock = connect(base, source)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        return read_all(sock, 10)
    finally:
        sock.close()


def readable_now(socks: list[socket.socket]) -> set[socket.socket]:
    """The sockets with something to read (or closed by the peer), without waiting.

    poll, not select: select refuses a descriptor past 1023, and by the time this runs the suite's
    process may hold that many (it did once, in a full run)."""
    poller = select.poll()
    by_fd = {sock.fileno(): sock for sock in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    return {by_fd[fd] for fd, _events in poller.poll(0)}


def readable_within(socks: list[socket.socket], count: int, seconds: float) -> set[socket.socket]:
    """The sockets with something to read, once ``count`` of them have (or ``seconds`` have passed)."""
    poller = select.poll()
    by_fd = {sock.fileno(): sock for sock in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    readable: set[socket.socket] = set()
    deadline = time.monotonic() + seconds
    while len(readable) < count and (left := deadline - time.monotonic()) > 0:
        for fd, _events in poller.poll(left * 1000):
            readable.add(by_fd[fd])
            poller.unregister(fd)
    return readable | readable_now(socks)


@pytest.mark.slow
def test_idle_connections_are_capped_per_client_and_closed(live_server, game_id):
    idle = [connect(live_server, "127.0.0.3") for _ in range(300)]
    try:
        # Refusals are sent as each connection is accepted; held connections are closed only after
        # keepalive. Waited for as they come (a loaded machine accepts 300 connections slowly).
        readable = readable_within(idle, 300 - PER_CLIENT * WORKERS, KEEPALIVE)
        held = [sock for sock in idle if sock not in readable]
        # At most the cap is held in each worker; every other connection is refused at once.
        assert len(held) <= PER_CLIENT * WORKERS and len(readable) >= 300 - PER_CLIENT * WORKERS
        # Other clients do not notice: served while the held connections are still open.
        ordinary_requests(live_server, game_id)
        still_held(held)
        for sock in readable:
            status, body = problem(read_all(sock, 5))
            assert status == 429 and body["code"] == "too_many_connections"
        # Idle connections are closed after keepalive seconds; then the client is served again.
        for sock in held:
            assert closed_by_server(sock, KEEPALIVE + 60)
        answer = raw_get(live_server, f"/v1/gops/games/{game_id}", "127.0.0.3")
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    finally:
        for sock in idle:
            sock.close()


@pytest.fixture
def one_worker(redis_server, tmp_path):
    """A gunicorn of one worker with a cap of 10 connections per client: which worker takes a
    connection is the kernel's choice, so the cap's edge is exact only with one."""
    from support.servers import start_gunicorn, stop_gunicorn

    proc, base = start_gunicorn(redis_server.url, tmp_path / "gunicorn.log", workers=1, extra_env={
        "REFEREE_MAX_CONNECTIONS_PER_CLIENT": "10", "REFEREE_STREAM_HEARTBEAT_SECONDS": "1",
        "REFEREE_RATE_LIMIT_PER_MINUTE": "0",
        "REFEREE_CREATE_LIMIT_PER_HOUR": "0"})
    try:
        yield base
    finally:
        stop_gunicorn(proc)


@pytest.mark.servers
@pytest.mark.slow
def test_the_cap_refuses_only_the_greedy_client(one_worker):
    """A client holding its cap (streams: they stay open) gets 429 on one more; others do not."""
    r = requests.post(f"{one_worker}/v1/gops/games", json={"profile": "classic"}, timeout=10)
    game_id = r.json()["id"]
    host, port = host_port(one_worker)
    streams = [RawStream(host, port, f"/v1/gops/games/{game_id}/events?timeout=60", source="127.0.0.5")
               for _ in range(10)]
    try:
        assert pump(streams, lambda: all(s.events for s in streams), 30)
        assert all(s.status == 200 for s in streams)
        extra = RawStream(host, port, f"/v1/gops/games/{game_id}/events?timeout=60", source="127.0.0.5")
        streams.append(extra)
        assert pump([extra], lambda: extra.closed, 10)
        assert extra.status == 429 and json.loads(extra.raw.partition(b"\r\n\r\n")[2])["code"] == "too_many_connections"
        answer = raw_get(one_worker, f"/v1/gops/games/{game_id}", "127.0.0.5")
        assert answer.startswith(b"HTTP/1.1 429") and b"Retry-After: 1" in answer
        assert raw_get(one_worker, f"/v1/gops/games/{game_id}", "127.0.0.6").startswith(b"HTTP/1.1 200")
        # One connection fewer (the server notices a closed stream at its next heartbeat write):
        # the greedy client is served again.
        streams.pop(0).close()
        deadline = time.monotonic() + 15
        while not raw_get(one_worker, f"/v1/gops/games/{game_id}", "127.0.0.5").startswith(b"HTTP/1.1 200"):
            assert time.monotonic() < deadline, "the closed stream was never let go"
            time.sleep(0.5)
    finally:
        for s in streams:
            s.close()


def test_a_client_expecting_100_continue_gets_it_before_sending_its_body(live_server):
    """`Expect: 100-continue` (curl sends it for larger bodies, then waits up to 1 s): the worker reads
    the body before the application runs, so it says 100 Continue first — once — instead of making
    the client wait out its own timer."""
    host, port = host_port(live_server)
    body = json.dumps({"profile": "classic"}).encode()
    sock = connect(live_server, "127.0.0.4")
    try:
        sock.sendall(f"POST /v1/gops/games HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n".encode())
        sock.settimeout(0.9)  # under curl's 1 s: a server that waits for the body would time this out
        first = sock.recv(64)
        assert first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), first
        sock.sendall(body)
        rest = first[len(b"HTTP/1.1 100 Continue\r\n\r\n"):] + read_all(sock, 10)
    finally:
        sock.close()
    assert rest.startswith(b"HTTP/1.1 201 "), rest[:200]
    assert b"100 Continue" not in rest  # not a second time


def test_ipv4_clients_on_a_dual_stack_listener_are_counted_apart():
    from service.ops.serving import _client_key

    assert _client_key(("::ffff:10.0.0.1", 80, 0, 0)) == "10.0.0.1"
    assert _client_key(("::ffff:10.0.0.2", 80, 0, 0)) == "10.0.0.2"
    assert _client_key(("2001:db8::1", 80, 0, 0)) == _client_key(("2001:db8::ffff", 80, 0, 0)) == "2001:db8::/64"
    assert _client_key(("fe80::1%eth0", 80, 0, 0)) == "fe80::/64"
    assert _client_key(("192.0.2.7", 80)) == "192.0.2.7"
    assert _client_key("/run/referee.sock") is None


# ------------------------------------------------------- bodies too large, streams never read

BODY_LIMIT = 16 * 1024  # REFEREE_MAX_BODY_BYTES's default
HUGE = 10**12


def wait_until(condition, seconds: float, what: str) -> None:
    """Wait (generously: this bounds a hang, it does not measure speed) until ``condition()`` holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def health_checks(base: str, stop: threading.Event, answers: list[int]) -> None:
    """``GET /healthz`` on a connection of its own, again and again until ``stop``: each status."""
    session = requests.Session()
    while not stop.is_set():
        try:
            answers.append(session.get(f"{base}/healthz", timeout=20).status_code)
        except requests.RequestException:
            answers.append(0)


def flood(sock: socket.socket, head: bytes, chunk: bytes, cap: int) -> tuple[int, bool]:
    """Send ``head``, then ``chunk`` again and again as fast as the server takes it, until the server
    closes the connection or ``cap`` bytes are sent: (bytes sent, whether the server closed it)."""
    sock.sendall(head)
    sent = 0
    while sent < cap:
        try:
            sent += sock.send(chunk)
        except OSError:  # EPIPE / ECONNRESET: the server is gone from this connection
            return sent, True
        except socket.timeout:
            continue
    return sent, False


def answer_before_close(sock: socket.socket) -> bytes:
    """What the server said on a connection it has closed (what arrived before a reset included)."""
    data = b""
    sock.settimeout(10)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return data


@pytest.mark.servers
def test_a_huge_declared_body_is_refused_without_being_read(one_worker):
    """A ``Content-Length`` past the limit, the body sent as fast as the client can (the case that froze
    a worker until gunicorn killed it): 413 ``body_too_large``, and the connection is closed after a
    tiny fraction of it is read.  Meanwhile another connection to the same (only) worker is answered,
    every time.  (A chunked body is read up to the limit + 1 byte, then refused the same way.)"""
    host, port = host_port(one_worker)
    chunk = b"x" * 65536
    head = (f"POST /v1/gops/games HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {HUGE}\r\n\r\n").encode()
    answers: list[int] = []
    stop = threading.Event()
    checker = threading.Thread(target=health_checks, args=(one_worker, stop, answers))
    checker.start()
    sock = connect(one_worker, "127.0.0.7")
    try:
        wait_until(lambda: answers, 20, "the other connection is never served")
        # 64 MiB is what kernel buffers on both sides could hold many times over; 1/15,000 of HUGE.
        sent, closed = flood(sock, head, chunk, cap=64 * 1024 * 1024)
        assert closed, f"{sent} bytes of the body sent and the server still reads"
        answered = len(answers)
        wait_until(lambda: len(answers) >= answered + 3, 20, "the worker stopped serving")
        status, body = problem(answer_before_close(sock))
        assert status == 413 and body["code"] == "body_too_large"
    finally:
        stop.set()
        checker.join()
        sock.close()
    assert answers and set(answers) == {200}, answers


def open_streams(base: str) -> float:
    """``referee_open_streams`` of Gops games, as /metrics says it now."""
    for line in requests.get(f"{base}/metrics", timeout=20).text.splitlines():
        if line.startswith('referee_open_streams{kind="gops"}'):
            return float(line.rpartition(" ")[2])
    return 0.0


def ends(sock: socket.socket, timeout: float) -> bool:
    """Whether the server ends the connection (EOF or reset) within ``timeout``, reading what is left."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        return False
    return True


STREAM_SECONDS = 10  # the ?timeout= the never-reading client asks for


@pytest.mark.servers
@pytest.mark.slow
def test_a_stream_that_is_never_read_is_closed_at_its_deadline(one_worker):
    """A client opens a stream and never reads it (a 2 KiB receive buffer) while moves happen: the
    events fill its buffer, then the server's send buffer (the kernel grows it to 4 MiB), then a write
    waits for the client.  The stream ends at its deadline all the same: the open-streams gauge comes
    back down and the server resets the connection."""
    http = LiveHttp(one_worker, requests.Session())
    match = GopsGame.create(http, {"match": {"format": "cumulative", "games": 50}})  # views grow by the round
    before = open_streams(one_worker)
    host, port = host_port(one_worker)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.bind(("127.0.0.8", 0))
    try:
        sock.connect((host, port))
        sock.sendall(f"GET {match.base}/events?timeout={STREAM_SECONDS} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        opened = time.monotonic()
        wait_until(lambda: open_streams(one_worker) == before + 1, 20, "the stream never opened")
        # Each version is one event of the whole public view: play until far more than every buffer
        # between the server and the client could hold has been sent its way, or the stream is over.
        produced = 0
        while produced < 8 * 1024 * 1024 and time.monotonic() - opened < STREAM_SECONDS:
            state = match.public()
            match.play_round({seat: lowest(state, seat) for seat in state["awaiting"]})
            produced += 4 * len(requests.get(f"{one_worker}{match.base}", timeout=20).content)
        wait_until(lambda: open_streams(one_worker) == before, STREAM_SECONDS + 20,
                   f"the stream is held past its deadline ({produced} bytes of events sent its way)")
        assert ends(sock, 10)
    finally:
        sock.close()
