"""Around /play: what `make run` prints first, the icon browsers ask for, the spec's examples, and
the files the walkthroughs leave in the checkout."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from service import config, run

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def settings(monkeypatch):
    def load(**env):
        for name in ("HOST", "PORT", "REFEREE_PUBLIC_URL"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return config.load()

    return load


def test_make_run_names_the_address_phones_open(settings):
    # Listening on every interface: the address of this machine on its network, and /play.
    line = run.startup_message(settings(HOST="0.0.0.0", PORT="8000"), "a store", "192.168.1.20")
    first = line.splitlines()[0]
    assert first == "referee: play at http://192.168.1.20:8000/play (phones on this network)", line
    assert line.splitlines()[1] == ("referee API at http://192.168.1.20:8000/  spec http://192.168.1.20:8000/openapi.json"
                                    "  docs http://192.168.1.20:8000/docs  store a store"), line
    # The default, this computer only: it says so, and how to let phones in.
    line = run.startup_message(settings(), "a store", "192.168.1.20")
    assert line.startswith("referee: play at http://127.0.0.1:8000/play (this computer only: HOST=0.0.0.0"), line
    # The address players are given, when set.
    line = run.startup_message(settings(HOST="0.0.0.0", REFEREE_PUBLIC_URL="http://table.example:8000"), "s", "10.0.0.5")
    assert line.startswith("referee: play at http://table.example:8000/play\n"), line
    # No network: the loopback address, never 0.0.0.0.
    line = run.startup_message(settings(HOST="0.0.0.0"), "s", None)
    assert line.startswith("referee: play at http://127.0.0.1:8000/play") and "0.0.0.0" not in line, line
    lan = run.lan_address()
    assert lan is None or ipaddress.ip_address(lan).version == 4


@pytest.mark.servers
@pytest.mark.slow
def test_ctrl_c_on_make_run_stops_without_tracebacks(tmp_path):
    """`python -m service.run` (what `make run` runs), a phone's event stream open, then Ctrl-C
    (SIGINT to the terminal's whole process group): gunicorn's workers finish and exit without a
    SystemExit traceback, and the program exits 0."""
    from service.storage.embedded import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TEST_REDIS_URL")}
    env.update(PORT=str(port), HOST="127.0.0.1", REFEREE_DATA_DIR=str(tmp_path / "valkey"),
               PYTHONUNBUFFERED="1", WEB_CONCURRENCY="2",
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.run"], cwd=tmp_path, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)  # a terminal's foreground group of its own
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")
            try:
                if requests.get(f"{base}/play", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.1)
        assert log.read_text().splitlines()[0].startswith(f"referee: play at {base}/play")
        for _ in range(4):  # a request on each worker, most likely
            requests.get(f"{base}/healthz", timeout=10)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=120) == 0, log.read_text(errors="replace")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    said = log.read_text(errors="replace")
    assert "Traceback" not in said and "SystemExit" not in said, said
    assert "Worker exiting" in said, said


def test_browsers_get_the_referees_icon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert r.get_data() == (ROOT / "service/web/play/static/icon.svg").read_bytes()
    # Allowed by the docs pages' policy: an image of this server.
    assert "img-src 'self'" in client.get("/docs").headers["Content-Security-Policy"]


def test_the_specs_examples_speak_of_games():
    spec = json.loads((ROOT / "openapi/openapi.json").read_text(encoding="utf-8"))
    summaries = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "examples" and isinstance(value, dict):
                    summaries.extend(e.get("summary", "") for e in value.values() if isinstance(e, dict))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert "Two players, 13 cards each, ties carry the prize over" in summaries
    assert not [s for s in summaries if re.search(r"\bseed\b", s)], summaries


def test_files_the_walkthroughs_write_are_ignored_by_git():
    written = set()
    for doc in ("README.md", "docs/verify.md", "docs/client-guide.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        written |= set(re.findall(r"> ([\w.-]+\.json)\b", text))
        written |= {m for m in re.findall(r"^`([\w.-]+\.ts)`:$", text, re.MULTILINE)}
        if "npm install" in text:
            written |= {"package.json", "package-lock.json", "node_modules/x"}
    written |= {f.replace(".ts", ".js") for f in written if f.endswith(".ts")}
    assert {"game.json", "table.json", "final.json", "transcript.json", "play.ts"} <= written, written
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *sorted(written)], cwd=ROOT,
                             capture_output=True, text=True, timeout=60).stdout.split()
    assert sorted(ignored) == sorted(written)


@pytest.mark.slow
def test_gunicorn_announces_the_address_it_listens_at(redis_server):
    """Each worker binds a socket of its own (reuse_port): gunicorn's "Listening at:" still names
    the address, not nothing."""
    from service.storage.embedded import free_port
    from test_listening import _gunicorn

    port = free_port()
    # Stopped while its workers may still be loading the app: they take a signal only once loaded,
    # so gunicorn waits out its graceful timeout (20 s) before it kills them; here 1 s.
    proc = _gunicorn(port, redis_server.url, "--graceful-timeout", "1")
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if "Booting worker" in line:
                break
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    said = "".join(lines)
    assert re.search(rf'"Listening at: http://127\.0\.0\.1:{port} \(\d+\)"', said), said
