"""Configuration: one table of variables (service.config.Settings), read in one place, checked at the start."""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service import config
from service.config import ConfigError, Settings

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG_MODULE = REPO_ROOT / "service" / "config.py"
ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
# The functions of service/config.py that touch the environment, and why.
CONFIG_ENVIRONMENT_FUNCTIONS = {
    "load",  # reads it, through Settings.from_environ: only the variables of the table
    "set_for_workers",  # gunicorn's configuration tells its workers (PROMETHEUS_MULTIPROC_DIR, ...)
    "child_environment",  # hands the environment on to a child process (service.run)
}


def environment_uses(source: str) -> list[tuple[int, str | None]]:
    """(line, enclosing function) of every use of the process environment through ``os``."""
    tree = ast.parse(source)
    os_names: set[str] = set()
    uses: list[tuple[int, str | None]] = []
    enclosing: dict[ast.AST, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):  # the outermost function first: it names nested ones too
                if inner is not node:
                    enclosing.setdefault(inner, node.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "os" or (alias.name.startswith("os.") and alias.asname is None):
                    os_names.add(alias.asname or "os")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "posix", "nt"):
            uses += [(node.lineno, enclosing.get(node)) for alias in node.names if alias.name in ENVIRONMENT_NAMES]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES
                and isinstance(node.value, ast.Name) and node.value.id in os_names):
            uses.append((node.lineno, enclosing.get(node)))
    return sorted(uses, key=lambda use: use[0])


# ----------------------------------------------------------------------- one place reads it


# What the scan must recognise (and what it must not take for the process environment).
SCAN_SAMPLES = [
    ("import os\nx = os.environ.get('X')", True),
    ("import os\nx = os.environ['X']", True),
    ("import os\nx = os.getenv('X')", True),
    ("import os as system\nx = system.environ.get('X')", True),
    ("import os.path\nx = os.environ", True),
    ("from os import environ", True),
    ("from os import getenv as g", True),
    ("def f():\n    import os\n    return os.environ.get('X')", True),
    ("from flask import request\nx = request.environ.get('HTTP_X')", False),
    ("def app(environ, start):\n    return environ.get('PATH_INFO')", False),
    ("import os\nx = os.path.join('a', 'b')", False),
]


def test_only_service_config_reads_the_environment():
    """Every module of service/ and deploy/ takes its settings from service.config, so a variable
    the table (docs/configuration.md) lacks cannot be read."""
    assert [bool(environment_uses(source)) for source, _ in SCAN_SAMPLES] == [found for _, found in SCAN_SAMPLES]
    readers = {}
    for path in sorted([*REPO_ROOT.glob("service/**/*.py"), *REPO_ROOT.glob("deploy/**/*.py")]):
        if path == CONFIG_MODULE:
            continue
        uses = environment_uses(path.read_text(encoding="utf-8"))
        if uses:
            readers[str(path.relative_to(REPO_ROOT))] = [line for line, _ in uses]
    assert readers == {}


def test_service_config_touches_the_environment_only_to_read_the_table_and_hand_it_on():
    uses = environment_uses(CONFIG_MODULE.read_text(encoding="utf-8"))
    assert uses and {function for _, function in uses} == CONFIG_ENVIRONMENT_FUNCTIONS


def test_the_server_sets_only_the_variables_it_tells_its_workers(tmp_path):
    with pytest.raises(KeyError):
        config.set_for_workers("REFEREE_KEY_PREFIX", "x")
    # In a process of its own: prometheus-client reads its variable when it is first imported.
    code = ("import sys; from service import config;"
            " config.set_for_workers('PROMETHEUS_MULTIPROC_DIR', sys.argv[1]);"
            " config.set_for_workers('REFEREE_WORKER_CONCURRENCY', '12');"
            " settings = config.load(); print(settings.metrics_dir, settings.worker_concurrency)")
    done = _run([sys.executable, "-c", code, str(tmp_path)])
    assert done.stdout == f"{tmp_path} 12\n", done.stderr


# ----------------------------------------------------------------------------- the table


def test_the_committed_page_is_the_generated_table():
    """docs/configuration.md is ``python -m service.config --markdown docs/configuration.md``."""
    committed = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == config.markdown()


def test_every_variable_is_in_the_table_once_with_an_example_that_takes_effect():
    table = config.markdown()
    fields = config.variables()
    names = [spec.metadata["variable"] for spec in fields]
    assert len(names) == len(set(names))
    for spec in fields:
        name, example = spec.metadata["variable"], spec.metadata["example"]
        assert table.count(f"| `{name}` |") == 1, name
        value = getattr(Settings.from_environ({name: example}), spec.name)
        assert value == spec.metadata["kind"].parse(example) != spec.default, name


def test_defaults_are_the_documented_ones():
    assert Settings.from_environ({}) == Settings()
    defaults = Settings()
    assert (defaults.store_url, defaults.redis_timeout, defaults.redis_max_connections) == ("redis://127.0.0.1:6379/0", 1.0, 100)
    assert (defaults.key_prefix, defaults.finished_game_ttl, defaults.idle_game_ttl) == ("referee", 7 * 86400, 30 * 86400)
    assert (defaults.max_body_bytes, defaults.rate_limit_per_minute, defaults.create_limit_per_hour) == (16 * 1024, 1200, 120)
    assert (defaults.check_views, defaults.rate_limit_enabled, defaults.public_url) == (None, None, None)
    assert defaults.rate_limit_create_routes == ("POST /v1/gops/games", "POST /v1/gofo/tables")
    assert (defaults.stream_max_seconds, defaults.stream_heartbeat_seconds, defaults.long_poll_default_seconds) == (300.0, 15.0, 30.0)


def test_the_app_reads_its_settings_as_attributes_and_refuses_a_name_no_setting_has(redis_url):
    """create_app takes Flask's own keys and settings named in capitals; the app then holds one typed
    Settings (service.config.settings), none of them as app.config strings, and a misspelt name stops it."""
    from service.web.app import create_app

    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "KEY_PREFIX": "t", "RATE_LIMIT_PER_MINUTE": 7})
    settings = config.settings(app)
    assert (settings.store_url, settings.key_prefix, settings.rate_limit_per_minute) == (redis_url, "t", 7)
    assert (settings.check_views, settings.rate_limit_enabled) == (True, False)  # as TESTING decides, unless set
    assert "POST /v1/gops/games" in settings.rate_limit_create_routes  # every game's create, added by the app
    assert app.testing and not {"REDIS_URL", "KEY_PREFIX", "RATE_LIMIT_PER_MINUTE", "CHECK_VIEWS"} & set(app.config)
    assert app.extensions["referee_store"].prefix == "t"
    with pytest.raises(KeyError, match="RATE_LIMT_PER_MINUTE"):
        create_app({"REDIS_URL": redis_url, "RATE_LIMT_PER_MINUTE": 7})


def test_empty_means_unset_except_where_empty_is_a_value():
    every_empty = {spec.metadata["variable"]: "" for spec in config.variables()}
    settings = Settings.from_environ(every_empty)
    assert settings == dataclasses.replace(Settings(), forwarded_allow_ips="")  # trust no proxy


# ------------------------------------------------------------------------- bad values


@pytest.mark.parametrize("name,value,expected", [
    ("REFEREE_RATE_LIMIT_PER_MINUTE", "lots", "integer ≥ 0"),
    ("REFEREE_CREATE_LIMIT_PER_HOUR", "-1", "integer ≥ 0"),
    ("REFEREE_IDLE_GAME_TTL", "0", "integer ≥ 1"),
    ("PORT", "70000", "integer 0–65535"),
    ("WEB_CONCURRENCY", "two", "integer ≥ 1"),
    ("REFEREE_BODY_TIMEOUT", "0", "seconds > 0"),
    ("REFEREE_STREAM_MAX_SECONDS", "nan", "seconds > 0"),
    ("REFEREE_ACCESS_LOG", "yes", "0 or 1"),
    ("GUNICORN_LOGLEVEL", "loud", "one of debug, info, warning, error, critical"),
    ("REDIS_URL", "localhost:6379", "redis://, rediss://, unix://, redis+cluster:// or rediss+cluster:// URL"),
    ("REFEREE_PUBLIC_URL", "javascript:alert(1)", "http(s) origin"),
])
def test_a_bad_value_is_refused_naming_the_variable(name, value, expected):
    with pytest.raises(ConfigError) as caught:
        Settings.from_environ({name: value})
    assert str(caught.value) == f"{name}={value!r} is not valid: expected {expected}"
    assert (caught.value.variable, caught.value.value) == (name, value)


def test_the_app_refuses_to_start_on_a_bad_value(monkeypatch, redis_url):
    from service.web.app import create_app

    monkeypatch.setenv("REFEREE_MAX_BODY_BYTES", "16k")
    with pytest.raises(ConfigError, match="REFEREE_MAX_BODY_BYTES='16k' is not valid"):
        create_app({"REDIS_URL": redis_url, "TESTING": True})


def _run(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=REPO_ROOT, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120, check=False)


def test_gunicorn_refuses_to_start_on_a_bad_value():
    """The server's own start: gunicorn reads deploy/gunicorn.conf.py and stops, naming the variable."""
    check = [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "--check-config", "service.wsgi:app"]
    assert _run(check).returncode == 0
    refused = _run(check, GUNICORN_TIMEOUT="soon")
    assert refused.returncode != 0
    assert "GUNICORN_TIMEOUT='soon' is not valid: expected integer ≥ 0" in refused.stderr


def test_the_command_line_checks_the_environment():
    ok = _run([sys.executable, "-m", "service.config", "--check"])
    assert ok.returncode == 0, ok.stderr
    refused = _run([sys.executable, "-m", "service.config", "--check"], REFEREE_CORS_ORIGINS="*",
                   REFEREE_TRUSTED_PROXIES="one")
    assert refused.returncode == 1
    assert refused.stderr == "configuration: REFEREE_TRUSTED_PROXIES='one' is not valid: expected integer ≥ 0\n"
