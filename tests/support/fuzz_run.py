"""The schemathesis run of tests/test_fuzz.py, one per pytest session however many processes it
has: started when the session's first test starts (fixture ``fuzz_run`` in tests/conftest.py) by
whichever process gets there first, it goes on beside all the other tests on both pytest-xdist
workers; ``test_schemathesis``, handed out last, waits for it (in whichever process draws it) and
checks what it found.  The CLI runs ``tests/test_fuzz.py`` as its hooks module (``HOOKS``).

The processes of a session meet in one directory (``shared_directory``): the first to take
``fuzz.lock`` (an exclusive ``flock``) starts the run and holds the lock until the run has ended and
its exit code is written (``exit_code``); the others never start one, and wait by taking the same
lock shared, which the system grants the moment the owner lets go: no polling.

Environment (all optional; tests/test_fuzz.py says what each does): ``REFEREE_FUZZ_EXAMPLES``,
``REFEREE_FUZZ_SCENARIOS``, ``REFEREE_FUZZ_SEED``, ``REFEREE_FUZZ_WORKERS``, ``REFEREE_FUZZ_ARGS``,
``REFEREE_FUZZ_TIMEOUT``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

HOOKS = Path(__file__).resolve().parent.parent / "test_fuzz.py"

EXAMPLES = int(os.environ.get("REFEREE_FUZZ_EXAMPLES") or 50)
SCENARIOS = int(os.environ.get("REFEREE_FUZZ_SCENARIOS") or 300)
SEED = int(os.environ.get("REFEREE_FUZZ_SEED") or 20260601)
WORKERS = os.environ.get("REFEREE_FUZZ_WORKERS") or "1"
EXTRA_ARGS = shlex.split(os.environ.get("REFEREE_FUZZ_ARGS", ""))
TIMEOUT = int(os.environ.get("REFEREE_FUZZ_TIMEOUT") or 1500)  # seconds for the whole CLI run
STATS_ENV = "REFEREE_FUZZ_STATS"  # where the hooks write what they saw (JSON), when set


def shared_directory(tmp_path_factory, config) -> Path:
    """Where a session's processes meet for the run: under pytest-xdist the directory holding every
    worker's temporary directory (the session's own), in one process a directory of its own."""
    if hasattr(config, "workerinput"):
        directory = tmp_path_factory.getbasetemp().parent / "fuzz"
        directory.mkdir(exist_ok=True)
        return directory
    return tmp_path_factory.mktemp("fuzz")


class BackgroundFuzz:
    """The whole schemathesis run, checked by ``test_schemathesis``.

    The run is a CLI process against a gunicorn of its own (2 workers) on a Valkey of its own (the
    session's is flushed before every test): it shares nothing with the other tests, so it runs
    beside them instead of after them.  Its examples are drawn from a fixed seed, so what it sends
    does not depend on when it runs.

    :meth:`claim` starts it in the first process of the session to get there; :meth:`wait`, in any
    of them, returns its exit code and output once it has ended.

    The rate limiter stays on (its code runs on every request, RateLimit-* headers included), with
    limits no run reaches: the fuzzer creates hundreds of games, the default allows 120 an hour.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.lock_path = directory / "fuzz.lock"
        self.code_path = directory / "exit_code"  # written when the run ended: {"code": int | None} or {"failed": str}
        self.command_path = directory / "command.json"
        self.log_path = directory / "gunicorn.log"
        self.output_path = directory / "schemathesis.out"
        self.stats_path = directory / "stats.json"
        self.valkey = self.server = self.cli = None
        self.lock_fd: int | None = None  # held (exclusive) by the process that runs it, until it ended
        self.ended: threading.Thread | None = None
        self.failed: Exception | None = None  # what stopped start()

    def claim(self) -> bool:
        """Start the run if no process of this session has: whether this one did."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process runs it
            os.close(fd)
            return False
        if self.code_path.exists():  # it ran already
            os.close(fd)
            return False
        self.lock_fd = fd
        try:
            self.start()
        except Exception as error:  # said by test_schemathesis, not by every test of the session
            self.failed = error
            self._end({"failed": repr(error)})
            return True
        self.ended = threading.Thread(target=self._wait_for_cli, name="fuzz-run", daemon=True)
        self.ended.start()
        return True

    def start(self) -> "BackgroundFuzz":
        from service.storage.embedded import start_server
        from support.servers import start_gunicorn

        self.valkey = start_server(appendonly=False, data_dir=self.directory / "valkey")
        self.server, base = start_gunicorn(self.valkey.url, self.log_path, workers=2, extra_env={
            "REFEREE_RATE_LIMIT_PER_MINUTE": "10000000",
            "REFEREE_CREATE_LIMIT_PER_HOUR": "10000000",
            "REFEREE_KEY_PREFIX": f"fuzz-{uuid.uuid4().hex[:8]}",
            "GUNICORN_ACCESSLOG": "",  # thousands of lines; the CLI report has a curl for every failure
            # Event streams (GET .../events) last until their timeout: here a second, not 5 minutes.
            "REFEREE_STREAM_MAX_SECONDS": "1",
        })
        config_path = self.directory / "schemathesis.toml"
        # The stateful phase gets its own budget: each scenario is a create plus a few linked calls.
        config_path.write_text(f"[phases.stateful.generation]\nmax-examples = {SCENARIOS}\n")
        command = [
            sys.executable, str(HOOKS), "--config-file", str(config_path), "run", f"{base}/openapi.json",
            "--checks", "all",
            "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", str(EXAMPLES),
            "--seed", str(SEED),
            "--workers", WORKERS,
            "--generation-database", "none",  # reproducible: no replay of earlier runs' examples
            "--request-timeout", "15",
            "--suppress-health-check", "too_slow",  # generation speed on a busy 2-core box, not the API's
            "--output-sanitize", "false",  # throwaway server: show tokens and keys, for exact curl reproductions
            "--no-color",
            *EXTRA_ARGS,
        ]
        self.command_path.write_text(json.dumps(command))
        env = dict(os.environ, **{STATS_ENV: str(self.stats_path)})
        env.pop("SCHEMATHESIS_HOOKS", None)
        # cwd: schemathesis keeps caches (.schemathesis/, .hypothesis/) in the working directory.
        with open(self.output_path, "wb") as output:
            self.cli = subprocess.Popen(command, cwd=self.directory, env=env, stdin=subprocess.DEVNULL,
                                        stdout=output, stderr=subprocess.STDOUT)
        self.started = time.monotonic()
        return self

    def _wait_for_cli(self) -> None:
        try:
            code = self.cli.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.cli.kill()
            self.cli.wait()
            code = None
        self._end({"code": code})

    def _end(self, result: dict) -> None:
        """Say how the run ended and let the waiting processes in."""
        self.code_path.write_text(json.dumps(result))
        os.close(self.lock_fd)
        self.lock_fd = None

    @property
    def command(self) -> list[str]:
        return json.loads(self.command_path.read_text()) if self.command_path.exists() else []

    def wait(self) -> tuple[int | None, str]:
        """(exit code, output) of the CLI once it has ended, in whichever process runs it; exit code
        None when it did not finish within TIMEOUT.  Raises RuntimeError when it could not start."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)  # granted when the run's process lets go of it
        finally:
            os.close(fd)
        if not self.code_path.exists():
            raise RuntimeError(f"the process running schemathesis ended before it did ({self.directory})")
        result = json.loads(self.code_path.read_text())
        if "failed" in result:
            raise RuntimeError(f"the fuzz run could not start: {result['failed']}")
        return result["code"], self.output_path.read_text(errors="replace")

    def stop(self, *, wait: bool) -> None:
        """After this process's last test: with ``wait``, the run is let end first (another process
        may still draw ``test_schemathesis``); else it is stopped now (the session is being cut short)."""
        from support.servers import stop_gunicorn

        if self.cli is not None and self.cli.poll() is None and not wait:
            self.cli.kill()
        if self.ended is not None:
            self.ended.join()
        if self.server is not None:
            stop_gunicorn(self.server)
        if self.valkey is not None:
            self.valkey.stop()
