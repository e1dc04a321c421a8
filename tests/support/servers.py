"""Real servers for the tests: gunicorn serving the app (``start_gunicorn``, ``stop_gunicorn``) and
the gunicorn master's workers as /proc sees them (``gunicorn_workers``, ``wait_for_workers``)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.procfs import children
from service.storage.valkey import _preexec_die_with_parent, free_port

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def start_gunicorn(redis_url: str, log_path: Path, port: int | None = None,
                   workers: int = 2, extra_env: dict | None = None,
                   timeout: float = 60.0):
    """Start gunicorn on 127.0.0.1:port; return (process, base_url) once every worker has loaded the
    app and listens, and ``GET /openapi.json`` answers 200. Raises RuntimeError with the log tail.

    No polling: gunicorn tells its readiness on a systemd notification socket (``NOTIFY_SOCKET``),
    its master ``READY=1``, each worker ``WORKER_READY=pid`` (tests/support/gunicorn_ready.py)."""
    import requests

    port = port or free_port()
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_CONCURRENCY=str(workers),
        PYTHONUNBUFFERED="1",
        REFEREE_CHECK_VIEWS="1",  # every view sent is held to its schema's dump (service.api.views.dumped)
        # stop_gunicorn's quick stop still waits this long for a worker that cannot take the signal
        # yet (one restarted after a kill, still loading the app): 1 s, not the default 20.
        GUNICORN_GRACEFUL_TIMEOUT="1",
    )
    env.update(extra_env or {})
    base = f"http://127.0.0.1:{port}"
    with Readiness() as readiness:
        env["NOTIFY_SOCKET"] = readiness.path
        log = open(log_path, "ab")
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(READY_CONF), "service.wsgi:app"],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_preexec_die_with_parent if sys.platform.startswith("linux") else None,
        )
        log.close()
        if readiness.wait(proc, int(env["WEB_CONCURRENCY"]), timeout):
            try:
                if requests.get(f"{base}/openapi.json", timeout=timeout).status_code == 200:
                    return proc, base
            except requests.RequestException:
                pass
    stop_gunicorn(proc)
    tail = log_path.read_bytes()[-4000:].decode(errors="replace")
    raise RuntimeError(f"gunicorn did not serve {base}/openapi.json (exit {proc.returncode}):\n{tail}")


READY_CONF = Path(__file__).resolve().parent / "gunicorn_ready.py"


class Readiness:
    """A systemd notification socket (``NOTIFY_SOCKET``) in a directory of its own: what gunicorn's
    master and workers say there, waited for together with the process's exit (a pidfd)."""

    def __enter__(self) -> "Readiness":
        self.directory = tempfile.mkdtemp(prefix="referee-notify-")
        self.path = os.path.join(self.directory, "notify")
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.socket.bind(self.path)
        return self

    def __exit__(self, *exc: object) -> None:
        self.socket.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def wait(self, proc: subprocess.Popen, workers: int, timeout: float) -> bool:
        """True once the master said ``READY=1`` and ``workers`` workers said they are ready; False
        when the process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        pidfd = os.pidfd_open(proc.pid)
        master, ready = False, set()
        try:
            while not (master and len(ready) >= workers):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                readable, _, _ = select.select([self.socket, pidfd], [], [], left)
                if self.socket in readable:
                    for line in self.socket.recv(4096).decode(errors="replace").splitlines():
                        if line == "READY=1":
                            master = True
                        elif line.startswith("WORKER_READY="):
                            ready.add(line.partition("=")[2])
                elif pidfd in readable:  # exited before it was ready
                    return False
            return True
        finally:
            os.close(pidfd)


def stop_gunicorn(proc: subprocess.Popen, timeout: float = 20.0) -> int:
    """Stop a test's gunicorn at once: SIGQUIT, gunicorn's quick shutdown. SIGTERM would drain it,
    waiting up to the graceful timeout (20 s by default) for every open event stream, whose client may
    have left long ago (a stream learns that only when it next writes). The tests of a graceful stop
    send their own signals."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def gunicorn_workers(master_pid: int) -> list[int]:
    """PIDs of the gunicorn master's children (its workers), from /proc."""
    return children(master_pid)


def wait_for_workers(master_pid: int, n: int, timeout: float = 30.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = gunicorn_workers(master_pid)
        if len(pids) >= n:
            return pids
        time.sleep(0.02)
    raise AssertionError(f"gunicorn has {len(gunicorn_workers(master_pid))} workers, expected {n}")
