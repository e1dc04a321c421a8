"""Around /play: what `make run` prints first, the icon browsers ask for, the spec's examples, and
the files the walkthroughs leave in the checkout."""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
from pathlib import Path

import pytest

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
    assert "docs http://192.168.1.20:8000/docs" in line and "store a store" in line
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
