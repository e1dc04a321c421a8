"""The schemathesis run of tests/test_fuzz.py (fixture ``fuzz_run`` in tests/conftest.py: in one
pytest process started with the session, so it goes on beside the other tests; under xdist started
by the test, handed out first); ``test_schemathesis`` waits for it and
checks what it found.  The CLI runs ``tests/test_fuzz.py`` as its hooks module (``HOOKS``).

Environment (all optional; tests/test_fuzz.py says what each does): ``REFEREE_FUZZ_EXAMPLES``,
``REFEREE_FUZZ_SCENARIOS``, ``REFEREE_FUZZ_SEED``, ``REFEREE_FUZZ_WORKERS``, ``REFEREE_FUZZ_ARGS``,
``REFEREE_FUZZ_TIMEOUT``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
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


class BackgroundFuzz:
    """The whole schemathesis run, checked by :func:`test_schemathesis`.

    The run is a CLI process against a gunicorn of its own (2 workers) on a Valkey of its own (the
    session's is flushed before every test): it shares nothing with the other tests, so it runs
    beside them (``tests/conftest.py``, fixtures ``fuzz_run`` and ``fuzz_beside``) instead of after
    them: in one process from the session's start; under xdist on the worker that draws the test
    first, while the other worker runs the rest.
    Its examples are drawn from a fixed seed, so what it sends does not depend on when it runs.

    The rate limiter stays on (its code runs on every request, RateLimit-* headers included), with
    limits no run reaches: the fuzzer creates hundreds of games, the default allows 120 an hour.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.log_path = directory / "gunicorn.log"
        self.output_path = directory / "schemathesis.out"
        self.stats_path = directory / "stats.json"
        self.valkey = self.server = self.cli = None
        self.command: list[str] = []
        self.failed: Exception | None = None  # what stopped start()

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
        self.command = [
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
        env = dict(os.environ, **{STATS_ENV: str(self.stats_path)})
        env.pop("SCHEMATHESIS_HOOKS", None)
        # cwd: schemathesis keeps caches (.schemathesis/, .hypothesis/) in the working directory.
        with open(self.output_path, "wb") as output:
            self.cli = subprocess.Popen(self.command, cwd=self.directory, env=env, stdin=subprocess.DEVNULL,
                                        stdout=output, stderr=subprocess.STDOUT)
        self.started = time.monotonic()
        return self

    def wait(self) -> tuple[int | None, str]:
        """(exit code, output) of the CLI; exit code None when it did not finish within TIMEOUT."""
        try:
            code = self.cli.wait(timeout=max(1.0, TIMEOUT - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.cli.kill()
            self.cli.wait()
            code = None
        return code, self.output_path.read_text(errors="replace")

    def stop(self) -> None:
        from support.servers import stop_process

        if self.cli is not None and self.cli.poll() is None:
            self.cli.kill()
            self.cli.wait()
        if self.server is not None:
            stop_process(self.server)
        if self.valkey is not None:
            self.valkey.stop()
