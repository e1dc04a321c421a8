"""`python -m bench.apps --smoke` runs the app bench at tiny sizes and reports its shape.

The figures depend on the machine; what is checked is what must hold anywhere: the key's creates
(10 × the address's limit) were all made, the address alone was refused right after its limit,
every followed game's changes reached the app stream exactly once, every sampled move was timed on
both streams, and the memory readings are there.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path_factory.mktemp("bench") / "apps.json"
    proc = subprocess.run([sys.executable, "-m", "bench.apps", "--smoke", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, json.loads(out.read_text())


def test_the_key_creates_ten_times_what_the_address_may(run):
    _, report = run
    sizes = report["meta"]["sizes"]
    key, alone = report["creates"]["with_key"], report["creates"]["without_key"]
    assert key["asked"] == key["created"] == sizes["key_creates"] == 10 * sizes["address_limit"]
    assert key["refused"] == 0 and key["refusals"] == {}
    assert key["n"] == key["created"] and positive(key["p50_ms"]) and key["p50_ms"] <= key["p99_ms"]
    assert key["key_limits"]["creates_per_hour"] == sizes["key_creates"] + sizes["games"]
    assert alone["created"] == alone["address_limit_per_hour"] == sizes["address_limit"]
    assert alone["first_refusal"] == {"status": 429, "code": "rate_limited"}


def test_the_app_stream_has_every_change_once_and_both_streams_are_timed(run):
    _, report = run
    sizes, follow = report["meta"]["sizes"], report["following"]
    assert follow["games"] == sizes["games"] and follow["sampled_games"] == sizes["sampled"]
    assert follow["moves"] == 4 * sizes["rounds"] * sizes["games"] and follow["caught_up"] is True
    check = follow["app_stream"]
    assert check["events"] == check["expected"] == sizes["games"] + follow["moves"]
    assert check["missing"] == check["duplicated"] == check["unexpected"] == check["resets"] == 0
    assert check["ids_increasing"] is True
    assert check["kinds"] == {"created": sizes["games"], "state": follow["moves"]}
    sampled_moves = 4 * sizes["rounds"] * sizes["sampled"]
    assert follow["sampled_moves_not_delivered"] == 0
    for name in ("move_to_app_stream", "move_to_game_stream"):
        entry = follow[name]
        assert entry["n"] == sampled_moves and entry["p50_ms"] <= entry["p99_ms"], (name, entry)
        assert 0 <= entry["negative"] <= entry["n"]
    assert follow["move"]["n"] == follow["moves"] and positive(follow["moves_per_s"])


def test_memory_errors_and_meta(run):
    proc, report = run
    memory = report["memory"]
    for reading in ("before", "after_create", "after_play"):
        assert positive(memory[reading]["worker_rss_kib"]) and positive(memory[reading]["redis_used_memory"])
    assert memory["after_play"]["redis_used_memory"] > memory["before"]["redis_used_memory"]
    assert set(memory["per_game"]) == {"worker_rss_kib", "redis_bytes", "redis_bytes_created_not_played"}
    assert positive(memory["per_game"]["redis_bytes"])
    assert report["errors"] == 0 and report["error_samples"] == [] and report["failures"] == []
    meta = report["meta"]
    assert meta["mode"] == "smoke" and meta["gunicorn"]["worker_class"] and meta["git"]["commit"]
    assert "FAIL" not in proc.stdout
