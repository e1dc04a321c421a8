"""The servers a bench run measures: one real Valkey and two gunicorns on it.

Both gunicorns use ``deploy/gunicorn.conf.py`` unchanged (same worker class, workers and
threads, whatever that file says today); only the port, ``REDIS_URL`` and the app differ.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import procfs

REPO = Path(__file__).resolve().parent.parent
GUNICORN_CONF = REPO / "deploy" / "gunicorn.conf.py"
HOST = "127.0.0.1"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

#: The referee under load: its per-client rate limits would refuse a benchmark (one client
#: address), so they are raised out of reach, not switched off: the limiter still runs per request.
#: The Redis timeout (503 store_unavailable past it) is raised from 1 s to 10 s: on a machine busy
#: enough to stall Valkey that long, a run should measure slowness, not fail; it costs nothing per request.
REFEREE_ENV = {
    "REFEREE_RATE_LIMIT_PER_MINUTE": str(10**9),
    "REFEREE_CREATE_LIMIT_PER_HOUR": str(10**9),
    "REFEREE_REDIS_TIMEOUT": "10",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # in the child, before exec: SIGTERM when the bench dies
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort
        pass


def gunicorn_settings() -> dict:
    """worker_class / workers / threads as deploy/gunicorn.conf.py sets them now."""
    scope: dict = {"__file__": str(GUNICORN_CONF)}
    exec(compile(GUNICORN_CONF.read_text(), str(GUNICORN_CONF), "exec"), scope)
    return {k: scope.get(k) for k in ("worker_class", "workers", "threads", "worker_connections")}


def _http_status(port: int, path: str, timeout: float = 1.0) -> int | None:
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            head = sock.recv(64)
            return int(head[9:12]) if head.startswith(b"HTTP/1.") else None
    except (OSError, ValueError):
        return None


class Gunicorn:
    """``python -m gunicorn -c deploy/gunicorn.conf.py APP`` on a free port."""

    def __init__(self, name: str, app: str, redis_url: str, log_dir: Path, env: dict[str, str] | None = None):
        self.name = name
        self.app = app
        self.port = free_port()
        self.env = dict(os.environ, HOST=HOST, PORT=str(self.port), REDIS_URL=redis_url,
                        PYTHONUNBUFFERED="1", **(env or {}))
        self.log_path = Path(log_dir) / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> Gunicorn:
        self.spawn()
        return self.wait_ready(timeout)

    def spawn(self) -> None:
        """Start the master (from the main thread: PR_SET_PDEATHSIG follows the *thread*)."""
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), self.app],
            cwd=str(REPO), env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=_die_with_parent,
        )
        log.close()

    def wait_ready(self, timeout: float = 60.0) -> Gunicorn:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} gunicorn exited: {self.log_tail()}")
            if _http_status(self.port, "/healthz") == 200 and len(self.worker_pids()) >= 1:
                time.sleep(0.3)  # let the other workers boot too
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} gunicorn did not answer /healthz: {self.log_tail()}")

    def log_tail(self, n: int = 3000) -> str:
        try:
            return self.log_path.read_bytes()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def worker_pids(self) -> list[int]:
        return procfs.children(self.proc.pid) if self.proc is not None else []

    def worker_cpu_seconds(self) -> dict[int, float]:
        """User + system CPU used so far by each worker (not the master)."""
        used = {}
        for pid in self.worker_pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            used[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        return used

    def cpu_seconds(self) -> float:
        """User + system CPU used so far by the workers (not the master)."""
        return sum(self.worker_cpu_seconds().values())


    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def worker_shares(before: dict[int, float], after: dict[int, float], elapsed: float) -> list[float]:
    """Each worker's CPU between two ``worker_cpu_seconds`` readings, as a share of one core,
    smallest first: [0.0, 1.0] on 2 workers says one worker served the whole phase."""
    return sorted(round((after[pid] - before.get(pid, 0.0)) / elapsed, 2) for pid in after) if elapsed > 0 else []


def machine_busy() -> tuple[int, int]:
    """(busy, total) CPU ticks of the machine so far (/proc/stat); see :func:`busy_share`."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)  # idle, iowait


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of the machine's CPU time that was busy between two ``machine_busy`` readings."""
    total = after[1] - before[1]
    return round((after[0] - before[0]) / total, 2) if total > 0 else 0.0
