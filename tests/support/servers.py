"""Real servers for the tests: gunicorn serving the app (``start_gunicorn``, ``stop_process``) and
the gunicorn master's workers as /proc sees them (``gunicorn_workers``, ``wait_for_workers``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.procfs import children
from service.storage.valkey import _preexec_die_with_parent, free_port

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def start_gunicorn(redis_url: str, log_path: Path, port: int | None = None,
                   workers: int = 2, extra_env: dict | None = None,
                   timeout: float = 60.0):
    """Start gunicorn on 127.0.0.1:port; return (process, base_url) once
    ``GET /openapi.json`` answers 200. Raises RuntimeError with the log tail."""
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
        **(extra_env or {}),
    )
    log = open(log_path, "ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "service.wsgi:app"],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_preexec_die_with_parent if sys.platform.startswith("linux") else None,
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if requests.get(f"{base}/openapi.json", timeout=2).status_code == 200:
                return proc, base
        except requests.RequestException:
            pass
        time.sleep(0.1)
    stop_process(proc)
    tail = log_path.read_bytes()[-4000:].decode(errors="replace")
    raise RuntimeError(f"gunicorn did not serve {base}/openapi.json (exit {proc.returncode}):\n{tail}")


def stop_process(proc: subprocess.Popen, timeout: float = 20.0) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
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
