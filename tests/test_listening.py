"""How gunicorn listens (deploy/gunicorn.conf.py, service.ops.serving.settle_reuse_port).

Each worker has a listening socket of its own (``SO_REUSEPORT``), so the kernel spreads a burst
of connections over the workers; with one socket shared by every worker, whichever worker woke
first took most bursts whole (measured: all 16 connections by one worker in 8 bursts of 12, on
2 cores), and the server ran on one core.  An address already in use stops gunicorn with an
error, another gunicorn with ``reuse_port`` included; a Unix socket is still served (shared).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests
from support.servers import REPO_ROOT, free_port, start_gunicorn, stop_gunicorn

from bench.procfs import children, socket_owners, tcp_sockets

pytestmark = [pytest.mark.slow, pytest.mark.servers]  # servers: its own gunicorn, Valkey or cluster


@pytest.fixture
def two_workers(redis_server, tmp_path):
    proc, base = start_gunicorn(redis_server.url, tmp_path / "gunicorn.log", workers=2)
    try:
        yield proc, base
    finally:
        stop_gunicorn(proc)


def test_each_worker_listens_on_a_socket_of_its_own(two_workers):
    proc, base = two_workers
    port = int(base.rsplit(":", 1)[1])
    listening = {inode for inode, state in tcp_sockets(port).items() if state == "listen"}
    owners = socket_owners(listening)
    workers = set(children(proc.pid))
    assert len(workers) == 2
    assert proc.pid not in owners, "the arbiter listens: the workers would share its socket"
    assert set(owners) == workers
    assert len(listening) == 2 and owners[min(workers)].isdisjoint(owners[max(workers)])


def test_a_burst_of_connections_is_spread_over_the_workers(two_workers):
    """32 connections opened at once, each kept open after one request, three times: every
    time, each worker holds at least 4 of them (by the kernel's hash, one worker gets fewer than
    4 of 32 once in ~400,000 bursts; with one shared socket, most bursts went to one worker)."""
    proc, base = two_workers
    port = int(base.rsplit(":", 1)[1])
    workers = set(children(proc.pid))
    for burst in range(3):
        conns = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(32)]
        try:
            for c in conns:
                c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            for c in conns:  # answered, so accepted; still open (keep-alive)
                assert c.recv(4096).startswith(b"HTTP/1.1 200")
            ours = {c.getsockname()[1] for c in conns}
            established = {inode for inode, state in tcp_sockets(port).items() if state == "established"}
            held = {pid: len(inodes) for pid, inodes in socket_owners(established).items() if pid in workers}
            assert sum(held.values()) >= len(ours)
            assert len(held) == 2 and min(held.values()) >= 4, f"burst {burst}: connections per worker {held}"
        finally:
            for c in conns:
                c.close()


def _gunicorn(port: int, redis_url: str, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, REDIS_URL=redis_url, HOST="127.0.0.1", PORT=str(port), WEB_CONCURRENCY="2")
    return subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", *extra,
                             "service.wsgi:app"], cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_an_address_in_use_stops_gunicorn_with_an_error(redis_server):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        proc = _gunicorn(port, redis_server.url)
        out, _ = proc.communicate(timeout=60)
    finally:
        holder.close()
    assert proc.returncode == 1
    assert f"127.0.0.1:{port} is already in use" in out
    assert "Booting worker" not in out


def test_a_second_server_does_not_share_the_port_of_the_first(two_workers, redis_server):
    """The first's workers listen with SO_REUSEPORT; a second gunicorn with it too could bind
    beside them and take half their connections. It stops instead, and the first serves on."""
    _proc, base = two_workers
    port = int(base.rsplit(":", 1)[1])
    second = _gunicorn(port, redis_server.url)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 1 and "is already in use" in out
    assert requests.get(f"{base}/healthz", timeout=10).status_code == 200


def test_a_unix_socket_is_served_by_its_workers_sharing_it(redis_server, tmp_path):
    path = tmp_path / "referee.sock"
    proc = _gunicorn(free_port(), redis_server.url, "--bind", f"unix:{path}")
    try:
        deadline = time.monotonic() + 60
        answer = b""
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists():
                try:
                    with socket.socket(socket.AF_UNIX) as s:
                        s.settimeout(10)
                        s.connect(str(path))
                        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        answer = s.recv(4096)
                        break
                except OSError:
                    pass
            time.sleep(0.1)
        assert answer.startswith(b"HTTP/1.1 200"), answer
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=60)
    assert "reuse_port off" in out


def _start_on_port_0(redis_url: str) -> tuple[subprocess.Popen, list[str], int]:
    """gunicorn asked for any free port: (the process, its output lines so far, growing, and the
    port it announced), once it announced one."""
    import re
    import threading

    proc = _gunicorn(0, redis_url)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True).start()
    announced = None
    deadline = time.monotonic() + 60
    while announced is None and time.monotonic() < deadline and proc.poll() is None:
        announced = re.search(r"Listening at: ?(\S*) \(", "".join(lines))
        time.sleep(0.1)
    try:
        assert announced, "".join(lines)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", announced.group(1)), announced.group(0)
    except AssertionError:
        stop_gunicorn(proc)
        raise
    return proc, lines, int(announced.group(1).rsplit(":", 1)[1])


def _workers(proc: subprocess.Popen, besides: set[int] = frozenset()) -> set[int]:
    """The master's 2 workers, none of ``besides`` (after a reload: the new ones only)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        workers = set(children(proc.pid))
        if len(workers) == 2 and not workers & besides:
            return workers
        time.sleep(0.1)
    raise AssertionError(f"gunicorn's workers: {children(proc.pid)} (not wanted: {besides})")


def _listening_on_one_shared_socket(proc: subprocess.Popen, port: int, workers: set[int]) -> None:
    ours = {inode for inode, state in tcp_sockets(port).items() if state == "listen"}
    assert len(ours) == 1  # one socket on that port, held by the arbiter and both workers
    assert set(socket_owners(ours)) == workers | {proc.pid}
    every_listener = {inode for inode, state in tcp_sockets(None).items() if state == "listen"}
    assert socket_owners(every_listener, sorted(workers)) == {w: ours for w in workers}  # and no other
    for _ in range(5):
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=60).status_code == 200


def test_port_0_gives_the_workers_one_port_they_share(redis_server):
    """Port 0 asks for any free port. With a socket per worker each would get a different one
    (and gunicorn announced "Listening at: " with none); so the workers share the arbiter's."""
    proc, lines, port = _start_on_port_0(redis_server.url)
    try:
        _listening_on_one_shared_socket(proc, port, _workers(proc))
    finally:
        stop_gunicorn(proc)
        proc.stdout.close()
    assert "reuse_port off" in "".join(lines)


def test_a_reload_keeps_the_workers_on_the_shared_socket(redis_server):
    """SIGHUP reads the configuration again (``reuse_port`` on) and starts new workers; without
    deploy/gunicorn.conf.py's on_reload each bound a free port of its own, and the announced
    port, held by the arbiter alone, answered nobody."""
    proc, lines, port = _start_on_port_0(redis_server.url)
    try:
        first = _workers(proc)
        proc.send_signal(signal.SIGHUP)
        _listening_on_one_shared_socket(proc, port, _workers(proc, besides=first))
    finally:
        stop_gunicorn(proc)
        proc.stdout.close()
    assert "as before the reload" in "".join(lines)
