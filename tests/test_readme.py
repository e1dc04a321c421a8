"""The README's curl example plays a whole game against a live server, exactly as written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.readme_blocks import fenced_block_after


def script_env(live_server: str) -> dict[str, str]:
    """The blocks' environment: ``API``, and this Python's ``python3`` first on PATH. The blocks run
    ``python3`` for every JSON read (about 150 times); a version manager's shim found first on PATH
    (pyenv's: a bash script, 0.1 CPU-s a call) would be most of the test's time."""
    return {**os.environ, "API": live_server,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("sha256sum")), reason="needs curl and sha256sum")
def test_readme_gops_example_plays_a_whole_game(live_server, tmp_path):
    script = fenced_block_after("### A whole 2-player game with curl", "bash")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path, env=script_env(live_server),
        capture_output=True, text=True, timeout=600,  # a hang, not a slow machine (a python per call)
    )
    assert result.returncode == 0, result.stderr + result.stdout
    lines = result.stdout.strip().splitlines()
    assert [l.split(":")[0] for l in lines[:13]] == [f"round {r}" for r in range(1, 14)]
    assert "'games_played': 1" in lines[13]
    assert lines[14] == "prize order matches the commitment published at creation"


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("sha256sum")), reason="needs curl and sha256sum")
def test_readme_gofo_example_plays_a_hand_to_the_payout(live_server, tmp_path):
    script = fenced_block_after("### A 5-player dealt hand with curl", "bash")
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path, env=script_env(live_server),
        capture_output=True, text=True, timeout=600,  # a hang, not a slow machine (a python per call)
    )
    assert result.returncode == 0, result.stderr + result.stdout
    out = result.stdout
    assert "refiche  -> phase betting" in out and "enter    -> phase entering" in out
    pots = [l for l in out.splitlines() if l.startswith("[{'amount': 109")]
    assert pots and "'amount': 12" in pots[0]
    assert "deck matches its commitment" in out and "does not open" not in out
    assert out.strip().endswith("every opened card opens its leaf")


def test_readme_curl_moves_send_game_id_as_the_client_guide_says():
    guide = fenced_block_after("### A whole 2-player game with curl", "bash")
    payloads = [line for line in guide.splitlines() if line.strip().startswith("-d ") and "round" in line]
    assert len(payloads) == 2 and all('\\"game_id\\": \\"$GAME_ID\\"' in p for p in payloads), payloads
    assert 'gops-bid-v1|$GAME_ID|' in guide  # and hashes the same game_id
