"""The client guide's SDK section (docs/client-guide.md), run as written: generate each client into sdk/
from the committed spec, install it, and run its Python and TypeScript programs against a live server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support.readme_blocks import CLIENT_GUIDE, fenced_block_after
from support.sdk import node_toolchain

REPO_ROOT = Path(__file__).resolve().parent.parent
SPEC = REPO_ROOT / "openapi" / "openapi.json"
VENV_BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


def sh(script: str, cwd: Path, env: dict, timeout: float = 300) -> str:
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{script}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    return proc.stdout


def checkout_like(tmp_path: Path) -> Path:
    """A directory laid out like the repo for the guide's commands: openapi/openapi.json."""
    (tmp_path / "openapi").mkdir(parents=True)
    shutil.copyfile(SPEC, tmp_path / "openapi" / "openapi.json")
    return tmp_path


def python_env(tmp_path: Path) -> dict:
    """A fresh venv whose pip and python come first on PATH. The project venv's packages are
    visible to it (a .pth file), so `pip install openapi-python-client` finds it installed; what
    the guide installs lands in this venv only."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = subprocess.run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "referee-test-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # The project venv's scripts (openapi-python-client) after this venv's pip and python.
    path = os.pathsep.join([str(venv / "bin"), str(VENV_BIN), os.environ["PATH"]])
    return dict(os.environ, PATH=path,
                PIP_DISABLE_PIP_VERSION_CHECK="1", VIRTUAL_ENV=str(venv))


def test_readme_python_sdk_installs_and_plays_a_round(live_server, tmp_path):
    work = checkout_like(tmp_path / "repo")
    env = python_env(tmp_path)
    sh(fenced_block_after("**Python** (", "sh", CLIENT_GUIDE), work, env)
    assert (work / "sdk" / "python" / "card_game_referee_client" / "__init__.py").is_file()
    (tmp_path / "run").mkdir()
    program = tmp_path / "run" / "example.py"  # run away from sdk/: the installed package is imported
    program.write_text(fenced_block_after("**Python** (", "python", CLIENT_GUIDE))
    out = sh(f"python {program}", tmp_path / "run", dict(env, API=live_server), timeout=120)
    lines = out.strip().splitlines()
    assert re.fullmatch(r"round 1 bids \{'0': \[1\], '1': \[13\]\} scores \['0', '\d+'\]", lines[0]), out
    assert lines[1] == "seat 0 may now: ['commit', 'resign']", out


def test_readme_typescript_sdk_compiles_and_plays_a_round(live_server, tmp_path):
    work = checkout_like(tmp_path)
    env = dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}", API=live_server)
    generate, install = fenced_block_after("**TypeScript** (", "sh", CLIENT_GUIDE).strip().splitlines()[1:]
    assert install.startswith("npm install typescript@5 @types/node@20")
    sh(generate, work, env)  # `pip install openapi-generator-cli` is the test extra's; npm's: the pinned toolchain
    assert (work / "sdk" / "typescript" / "index.ts").is_file()
    (work / "node_modules").symlink_to(node_toolchain(), target_is_directory=True)
    (work / "play.ts").write_text(fenced_block_after("`play.ts`:", "ts", CLIENT_GUIDE))
    out = sh(fenced_block_after("`play.ts`:", "sh", CLIENT_GUIDE), work, env, timeout=240)
    assert re.fullmatch(r'round 1 bids \{"0":\[1\],"1":\[13\]\} scores \["0","\d+"\]', out.strip()), out
