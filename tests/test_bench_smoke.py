"""`python -m bench --smoke` runs every part of the benchmark harness (bench/) and reports sane figures.

The figures themselves depend on the machine; what is checked is that every section is there and
means something: rates and ratios above zero, percentiles ordered, no failed request, round trips
counted (the bare handler's pipeline must count as exactly 1 round trip of 3 commands, which
checks the counting itself), memory measured on real keys.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.servers]  # servers: its own gunicorn, Valkey or cluster

HTTP_WORKLOADS = ("gops", "gofo", "read_gops_public", "read_gops_seat", "read_gofo_public", "read_gofo_seat")
COUNTED = ("gops_create", "gops_commit", "gops_reveal", "gops_public_view", "gops_seat_view",
           "gofo_create", "gofo_move", "gofo_seat_view", "gofo_public_view")


def positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    # the first run may install the open-spiel wheel (pip); later runs take ~20 s
    proc = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "== Targets ==" in proc.stdout and "ratio" in proc.stdout
    # the README's tables are rendered from such a report
    md = subprocess.run([sys.executable, "-m", "bench.report_md", str(out)], cwd=REPO, capture_output=True,
                        text=True, timeout=60, check=True).stdout
    assert "| gops moves |" in md and "| Gops commit |" in md and "engine_gops_rules_vs_openspiel" in md
    return json.loads(out.read_text())


def test_http_section(report):
    http = report["http"]
    for name in HTTP_WORKLOADS:
        assert http[name], name
        for conns, entry in http[name].items():
            assert int(conns) > 0
            assert positive(entry["ratio"]) and all(positive(r) for r in entry["ratios"]), (name, entry)
            assert len(entry["ratios"]) >= 2  # A B A B: at least two rounds
            for side in ("referee", "bare"):
                s = entry[side]
                assert s["errors"] == 0, (name, side, s["error_samples"])
                assert positive(s["units_per_s"]) and positive(s["cpu_ms_per_unit"])
                for lat in s["latency"].values():
                    assert lat["n"] > 0 and 0 < lat["p50_ms"] <= lat["p99_ms"]
                rounds = len(entry["ratios"])
                assert len(s["machine_busy"]) == rounds and all(0 < b <= 1 for b in s["machine_busy"])
                assert len(s["workers_cpu_share"]) == rounds
                assert all(len(w) >= 1 and w == sorted(w) for w in s["workers_cpu_share"])  # a share per worker
    assert http["gops"][conns]["referee"]["games"] >= 0
    for target in http["read_targets"].values():
        assert target["bytes"] > 100


def test_redis_counts(report):
    counts = report["redis"]
    for label in COUNTED:
        e = counts[label]
        assert e["requests"] >= 1
        assert e["round_trips"] >= 1 and e["commands"] >= e["round_trips"], (label, e)
        off = e["without_rate_limit"]
        assert 1 <= off["round_trips"] <= e["round_trips"]
    assert counts["gops_commit"]["requests"] == 26  # every commit of a whole game was counted
    for label in ("gops_commit", "gops_reveal", "gofo_move"):
        # on the worker that made or read the game's last change, and on one that did not
        assert counts[label]["round_trips"] == 1, (label, counts[label])
        assert counts[label]["without_latest_record"]["round_trips"] == 2, (label, counts[label])
    assert counts["bare_post"]["round_trips"] == 1 and counts["bare_post"]["commands"] == 3
    assert counts["bare_post"]["typical_client_commands"] == ["HINCRBY", "RPUSH", "EXPIRE"]
    assert counts["bare_get"]["round_trips"] == 1 and counts["bare_get"]["commands"] == 1


def test_memory(report):
    memory = report["memory"]
    for label in ("gops_finished_game", "gofo_idle_table", "gofo_table_after_1_hand", "gofo_per_hand"):
        assert positive(memory[label]["bytes"]), label
    assert memory["gops_finished_game"]["keys"] >= 1
    assert memory["gofo_table_after_1_hand"]["bytes"] > memory["gofo_idle_table"]["bytes"]


def test_engines(report):
    engine = report["engine"]
    assert positive(engine["gops_vs_openspiel"]["ratio"])
    assert positive(engine["gops_vs_openspiel"]["openspiel_games_per_cpu_s"])
    assert positive(engine["gofo"]["hands_per_cpu_s"]) and engine["gofo"]["actions_per_hand"] >= 5


def test_targets_and_meta(report):
    assert {row["figure"] for row in report["targets"]} == {
        "moves_ratio_16", "reads_ratio_16", "cpu_ms_per_move", "round_trips_per_commit_reveal",
        "round_trips_per_commit_reveal_without_latest_record",
        "memory_kib_per_finished_gops_game", "engine_gops_rules_vs_openspiel"}
    assert all(isinstance(row["met"], bool) for row in report["targets"])
    assert report["meta"]["mode"] == "smoke" and report["meta"]["gunicorn"]["worker_class"]


def test_per_request_breakdown_runs():
    """``python -m bench.per_request`` (bench/README.md "A worker's profile") measures every row."""
    proc = subprocess.run([sys.executable, "-m", "bench.per_request", "--rounds", "1", "--seconds", "0.3"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if " requests/s " in line]
    assert len(rows) == 7, proc.stdout
    for row in rows:
        ms = float(row.split(" ms ")[0].split()[-1])
        assert ms > 0, row
        server_ms = float(row.split(" Valkey ")[1].split()[0])  # the server's CPU per request beside it
        assert server_ms >= 0, row
        busy = float(row.split("machine busy ")[1].split(",")[0])
        assert 0 < busy <= 1, row
        shares = json.loads(row.split("workers' CPU ")[1])  # one round: each worker's share of a core
        assert len(shares) == 1 and len(shares[0]) == 2 and max(shares[0]) > 0, row
