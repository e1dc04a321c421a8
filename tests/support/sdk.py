"""The generated SDKs and their toolchain: ``run`` a command (its output is the failure message),
``node_toolchain``, the pinned TypeScript and @types/node of ``tests/sdk``, and the session fixture
``python_sdk``, the package openapi-python-client generates from the committed spec (registered in
tests/conftest.py)."""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
SPEC = REPO_ROOT / "openapi" / "openapi.json"
SDK_TESTS = REPO_ROOT / "tests" / "sdk"
CACHE = Path(os.environ.get("REFEREE_SDK_CACHE", REPO_ROOT / ".cache" / "sdk-tests"))
PY_PACKAGE = "referee_client"


def run(cmd: list[str], *, cwd: Path | None = None, timeout: float = 180, env: dict | None = None) -> str:
    """Run a command; on failure, fail the test with its output."""
    try:
        proc = subprocess.run(
            [str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\n{exc.stdout or ''}\n{exc.stderr or ''}")
    if proc.returncode != 0:
        pytest.fail(
            f"exit {proc.returncode}: {' '.join(map(str, cmd))}\n--- stdout\n{proc.stdout[-6000:]}\n--- stderr\n{proc.stderr[-6000:]}"
        )
    return proc.stdout


def node_toolchain() -> Path:
    """node_modules with the pinned TypeScript and @types/node, installed once into the cache.

    Two pytest-xdist workers may ask at once (tests/test_sdk_clients.py, tests/test_readme_sdk.py):
    the check and the install hold an exclusive lock, or one worker's ``npm ci`` (which first removes
    node_modules) would pull ``tsc`` from under the other's running compile."""
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            pytest.fail(f"`{tool}` is not on PATH: the TypeScript client test needs Node.js and npm")
    home = CACHE / "node"
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)  # released when the file closes
        return _install_node_toolchain(home)


def _install_node_toolchain(home: Path) -> Path:
    lock = SDK_TESTS / "package-lock.json"
    node_version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    stamp = hashlib.sha256(
        (SDK_TESTS / "package.json").read_bytes() + lock.read_bytes() + node_version.encode()
    ).hexdigest()
    stamp_file = home / ".installed"
    tsc = home / "node_modules" / "typescript" / "bin" / "tsc"
    if stamp_file.exists() and stamp_file.read_text() == stamp and tsc.is_file():
        return home / "node_modules"
    stamp_file.unlink(missing_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(SDK_TESTS / name, home / name)
    env = dict(os.environ, npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")
    run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline",
         "--cache", CACHE / "npm-cache"],
        cwd=home, env=env, timeout=240,
    )
    stamp_file.write_text(stamp)
    return home / "node_modules"


@pytest.fixture(scope="session")
def python_sdk(tmp_path_factory):
    """The package openapi-python-client generates from the committed spec, imported."""
    out = tmp_path_factory.mktemp("python-sdk")
    config = out / "config.json"
    # No post hooks (they would only reformat with ruff); every warning fails the generation.
    config.write_text(json.dumps({"post_hooks": [], "package_name_override": PY_PACKAGE}))
    run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", SPEC,
         "--output-path", out / PY_PACKAGE, "--meta", "none", "--config", config, "--fail-on-warning"],
        cwd=out, timeout=120,
    )
    sys.path.insert(0, str(out))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(PY_PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PY_PACKAGE or m.startswith(PY_PACKAGE + ".")]:
            del sys.modules[name]
