"""`python -m bench.thinking --smoke` runs every phase of the thinking bench and reports its shape.

The figures depend on the machine (and the smoke sizes are far too small to mean anything); what is
checked is that every phase measured both probes and its own load, that every ratio the targets
need is there, that no request failed, and that the worker count is the one the bench is about.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.servers]

PHASES = ("baseline", "hints", "bot_matches", "bot_move")
LOAD = {"baseline": {"read"}, "hints": {"hint"}, "bot_matches": {"bot_game"}, "bot_move": {"commit", "reveal", "move"}}
TARGETS = {"healthz_p99_hints_vs_baseline", "move_p99_hints_vs_baseline", "healthz_p99_bot_matches_vs_baseline",
           "move_p99_bot_matches_vs_baseline", "bot_answered_move_p99_vs_plain_move"}


def positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def latency_shape(entry: dict, name: str) -> None:
    """n samples; p50 ≤ p99 when there are any (a stalled probe may have sent none in a phase)."""
    assert isinstance(entry["n"], int) and entry["n"] >= 0, (name, entry)
    if entry["n"]:
        assert positive(entry["p50_ms"]) and entry["p50_ms"] <= entry["p99_ms"], (name, entry)
    else:
        assert entry["p50_ms"] is None and entry["p99_ms"] is None, (name, entry)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path_factory.mktemp("bench") / "thinking.json"
    proc = subprocess.run([sys.executable, "-m", "bench.thinking", "--smoke", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, json.loads(out.read_text())


def test_every_phase_measured_its_probes_and_its_load(run):
    _, report = run
    assert tuple(report["phases"]) == PHASES
    rounds = report["meta"]["sizes"]["rounds"]
    for name, phase in report["phases"].items():
        assert set(phase["probes"]) == {"healthz", "move"}, name
        for probe, entry in phase["probes"].items():
            latency_shape(entry, f"{name} {probe}")
            assert len(entry["p99_ms_by_round"]) == len(entry["p99_vs_baseline_by_round"]) == rounds
        assert set(phase["load"]) == LOAD[name], name
        for label, entry in phase["load"].items():
            latency_shape(entry, f"{name} {label}")
            assert entry["n"] >= 1, (name, label)  # every client sends at least one request a phase
            if label != "move":  # the bot_move phase's commits and reveals together
                assert positive(entry["per_s"]), (name, label, entry)
        assert phase["clients"] >= 1 and len(phase["seconds"]) == rounds
        assert len(phase["worker_cpu_share"]) == rounds and all(len(w) == 1 for w in phase["worker_cpu_share"])
        assert all(0 < b <= 1 for b in phase["machine_busy"])
    baseline = report["phases"]["baseline"]["probes"]
    assert baseline["healthz"]["n"] > 0 and baseline["move"]["n"] > 0  # the reference every ratio divides by
    assert baseline["healthz"]["p99_vs_baseline"] == baseline["move"]["p99_vs_baseline"] == 1.0
    assert report["phases"]["bot_matches"]["games_played"] >= 1
    assert report["phases"]["bot_move"]["load"]["move"]["n"] == (
        report["phases"]["bot_move"]["load"]["commit"]["n"] + report["phases"]["bot_move"]["load"]["reveal"]["n"])
    assert set(report["phases"]["bot_move"]["bot_answered_vs_plain"]) == {
        "p99_ratio", "p50_ratio", "p99_ratio_vs_baseline_move"}


def test_targets_errors_and_meta(run):
    proc, report = run
    assert {row["figure"] for row in report["targets"]} == TARGETS
    for row in report["targets"]:
        assert isinstance(row["met"], bool) and positive(row["target"]), row
        assert row["now"] is None or positive(row["now"]), row
        assert f"{'PASS' if row['met'] else 'FAIL'}  {row['figure']}" in proc.stdout, row
    assert report["errors"] == 0 and report["error_samples"] == []
    meta = report["meta"]
    assert meta["mode"] == "smoke" and meta["gunicorn"]["workers"] == 1 and meta["gunicorn"]["worker_class"]
    assert report["setup"]["probe_games_made"] >= 1
