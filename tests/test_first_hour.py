"""The README's "First hour", walked as a newcomer would: `make run` (python -m service.run, no
REDIS_URL: the embedded Valkey), the docs page in a browser with no network, the curl game, an SDK."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from support.readme_blocks import CLIENT_GUIDE, README, fenced_block_after

REPO_ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.slow, pytest.mark.servers]  # servers: its own gunicorn, Valkey or cluster


def first_hour() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## First hour")
    return text[start:text.index("\n## ", start + 1)]


def make_dry_run(target: str) -> list[str]:
    """The commands `make <target>` runs on a fresh clone (-B: as if nothing were installed yet)."""
    # Run as a top-level make even inside `make test` (CI): no inherited MAKEFLAGS/MAKELEVEL, and no
    # "Entering/Leaving directory" lines.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    out = subprocess.run(["make", "--no-print-directory", "-n", "-B", target], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return out.splitlines()


def test_make_run_installs_only_what_serving_needs():
    run = make_dry_run("run")
    installs = [line for line in run if "pip install" in line]
    assert installs and all(re.search(r"pip install .*-e \.$", line) for line in installs), installs
    assert not any("[test]" in line for line in run), run
    assert run[-1].endswith("-m service.run")
    tests = [line for line in make_dry_run("test") if "pip install" in line]
    assert tests and all("-e '.[test]'" in line for line in tests), tests


@pytest.fixture
def make_run_server(tmp_path):
    """`python -m service.run` (what `make run` runs) on a free port, with no REDIS_URL."""
    from service.storage.embedded import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TEST_REDIS_URL")}
    env.update(PORT=str(port), HOST="127.0.0.1", REFEREE_DATA_DIR=str(tmp_path / "valkey"), PYTHONUNBUFFERED="1")
    log = open(tmp_path / "run.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "service.run"], cwd=tmp_path, env=env,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "run.log").read_text(errors="replace")
            try:
                if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, (tmp_path / "run.log").read_text(errors="replace")
            time.sleep(0.1)
        yield base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # service.run stops gunicorn, then its Valkey
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_first_hour(make_run_server, offline_page, tmp_path):
    base = make_run_server
    steps = first_hour()
    assert "make run" in steps and "/docs" in steps and "/redoc" in steps and "*SDKs*" in steps

    # 2. The docs page, in a browser that can reach nothing but this server.
    spec = requests.get(f"{base}/openapi.json", timeout=30).json()
    assert spec["servers"][0]["url"] == base
    summaries = [op["summary"] for item in spec["paths"].values() for op in item.values() if "summary" in op]
    page = offline_page(base)
    page.goto(f"{base}/docs")
    # a function, not a string: a string would be eval()ed, which the page's CSP forbids
    page.wait_for_function("n => document.querySelectorAll('.opblock').length >= n", arg=len(summaries))
    assert page.get_by_text(summaries[0], exact=True).first.is_visible()
    assert page.blocked == [] and page.errors == []

    # 3. The curl game, as written.
    env = dict(os.environ, API=base, PATH=f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}")
    curl = subprocess.run(["bash", "-euo", "pipefail", "-c", fenced_block_after("## First hour", "bash")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert curl.returncode == 0, curl.stderr
    assert curl.stdout.strip() == "commit 1 2"

    # 4. The SDK: the client guide's Python client, generated as the guide says, plays a round.
    (tmp_path / "openapi").mkdir()
    (tmp_path / "openapi" / "openapi.json").write_bytes((REPO_ROOT / "openapi" / "openapi.json").read_bytes())
    generate = [l for l in fenced_block_after("**Python** (", "sh", CLIENT_GUIDE).splitlines() if "generate" in l]
    gen = subprocess.run(["bash", "-euo", "pipefail", "-c", generate[0]], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    (tmp_path / "example.py").write_text(fenced_block_after("**Python** (", "python", CLIENT_GUIDE))
    run = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env=dict(env, PYTHONPATH=str(tmp_path / "sdk" / "python")))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("round 1 bids {'0': [1], '1': [13]}"), run.stdout
