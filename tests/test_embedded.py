"""The embedded Valkey server, the gunicorn config, and ``python -m service.run``."""

from __future__ import annotations

import base64
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import time

import pytest
import redis

from support.servers import REPO_ROOT
from service.storage.valkey import _ping, free_port, start_server
from support.client import bearer


def test_session_server_answers_ping(redis_server, redis_client):
    assert redis_client.ping() is True
    redis_client.set("k", "v")
    assert redis_client.get("k") == "v"


def test_redis_client_starts_on_an_empty_db(redis_client):
    assert redis_client.dbsize() == 0


@pytest.mark.servers
def test_server_is_valkey_9_with_aof(valkey_factory):
    srv = valkey_factory()
    info = redis.Redis.from_url(srv.url).info("server")
    assert info.get("valkey_version", "").startswith("9.")
    r = redis.Redis.from_url(srv.url, decode_responses=True)
    assert r.config_get("appendonly") == {"appendonly": "yes"}
    assert r.config_get("appendfsync") == {"appendfsync": "always"}
    assert r.config_get("save") == {"save": ""}
    assert r.config_get("bind")["bind"] == "127.0.0.1"
    assert srv.url == f"redis://127.0.0.1:{srv.port}/0"


@pytest.mark.servers
def test_appendfsync_always_survives_an_immediate_crash(valkey_factory, tmp_path):
    srv = valkey_factory(data_dir=tmp_path / "always", appendfsync="always")
    port = srv.port
    r = redis.Redis.from_url(srv.url)
    for i in range(50):
        r.set(f"k{i}", i)
    srv.kill()
    again = valkey_factory(port=port, data_dir=tmp_path / "always")
    assert redis.Redis.from_url(again.url).get("k49") == b"49"


@pytest.mark.servers
def test_two_servers_get_distinct_free_ports(valkey_factory):
    a, b = valkey_factory(), valkey_factory()
    assert a.port != b.port
    assert a.ping() and b.ping()


@pytest.mark.servers
@pytest.mark.parametrize("hard", [False, True], ids=["sigterm", "sigkill"])
def test_data_survives_restart_on_same_port_and_dir(valkey_factory, tmp_path, hard):
    data_dir = tmp_path / "aof"
    srv = valkey_factory(data_dir=data_dir)
    port = srv.port
    r = redis.Redis.from_url(srv.url, decode_responses=True)
    r.set("game:1", "state-1")
    r.hset("game:2", mapping={"a": "1", "b": "2"})
    r.close()

    if hard:
        # crash: what reached the AOF file survives; with everysec Valkey may
        # hold the last writes back briefly while an fsync is slow.
        srv.wait_aof_written()
        srv.kill()
    else:
        assert srv.stop() == 0
    assert not _ping("127.0.0.1", port)
    assert (data_dir / "appendonlydir").is_dir()

    again = valkey_factory(port=port, data_dir=data_dir)
    assert again.port == port
    r = redis.Redis.from_url(again.url, decode_responses=True)
    assert r.get("game:1") == "state-1"
    assert r.hgetall("game:2") == {"a": "1", "b": "2"}
    r.close()


@pytest.mark.servers
def test_restart_method_keeps_port_and_data(valkey_factory):
    srv = valkey_factory()
    port = srv.port
    redis.Redis.from_url(srv.url).set("x", "1")
    srv.wait_aof_written()
    srv.restart(hard=True)
    assert srv.port == port
    assert redis.Redis.from_url(srv.url).get("x") == b"1"


@pytest.mark.servers
def test_stop_is_idempotent_and_context_manager_cleans_up():
    with start_server() as srv:
        data_dir = srv.data_dir
        assert srv.ping()
    assert not srv.is_running()
    assert srv.stop() is None
    assert not data_dir.exists()  # temp dir created by us is removed


@pytest.mark.servers
def test_server_dies_with_its_parent(tmp_path):
    """A killed parent must not leave an orphan Valkey behind."""
    code = (
        "import sys; from service.storage.embedded import start_server\n"
        f"s = start_server(data_dir={str(tmp_path)!r})\n"
        "print(s.port, flush=True); import time; time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              cwd=REPO_ROOT, env=_env_with_repo())
    port = int(parent.stdout.readline())
    assert _ping("127.0.0.1", port)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _ping("127.0.0.1", port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _ping("127.0.0.1", port)


def test_gunicorn_config_reads_environment(monkeypatch):
    conf = REPO_ROOT / "deploy" / "gunicorn.conf.py"
    for name in ("HOST", "PORT", "WEB_CONCURRENCY", "GUNICORN_THREADS", "FORWARDED_ALLOW_IPS", "GUNICORN_WORKER_CLASS"):
        monkeypatch.delenv(name, raising=False)
    default = runpy.run_path(str(conf))
    assert default["bind"] == "127.0.0.1:8000"
    assert (default["workers"], default["threads"]) == (2, 4)
    assert default["worker_class"] == "service.ops.serving.Worker"  # gevent (the serving model)

    monkeypatch.setenv("PORT", "5123")
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_THREADS", "8")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.1")
    monkeypatch.setenv("GUNICORN_WORKER_CLASS", "gthread")
    conf_env = runpy.run_path(str(conf))
    assert conf_env["bind"] == "0.0.0.0:5123"
    assert (conf_env["workers"], conf_env["threads"]) == (3, 8)
    assert conf_env["forwarded_allow_ips"] == "10.0.0.1"
    assert conf_env["worker_class"] == "gthread"

    # The access log must never carry credentials: no request headers and no
    # %(u)s (gunicorn decodes it from a Basic Authorization header).
    fmt = conf_env["access_log_format"]
    assert "%(u)s" not in fmt and "}i)" not in fmt and "%(q)s" not in fmt


def _env_with_repo(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


@pytest.mark.servers
@pytest.mark.slow
def test_service_run_starts_embedded_valkey_and_serves(tmp_path):
    """``python -m service.run`` without REDIS_URL: embedded Valkey under
    ./data/valkey, gunicorn on $PORT, Ctrl-C stops both, exit code propagates."""
    port = free_port()
    env = _env_with_repo(PORT=str(port), HOST="127.0.0.1", WEB_CONCURRENCY="2")
    env.pop("REDIS_URL", None)
    env.pop("REFEREE_DATA_DIR", None)
    out_path = tmp_path / "run.log"
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.run"],
            cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,  # so we can "Ctrl-C" its whole group
        )

    def output() -> str:
        return out_path.read_bytes().decode(errors="replace")

    try:
        # The banner line, with the embedded Valkey's URL.
        deadline = time.monotonic() + 30
        while "referee API at" not in output() and time.monotonic() < deadline:
            if proc.poll() is not None and "referee API at" not in output():
                pytest.fail(f"service.run exited {proc.returncode}:\n{output()}")
            time.sleep(0.1)
        banner = next(line for line in output().splitlines() if "referee API at" in line)
        base = f"http://127.0.0.1:{port}"
        assert f"{base}/openapi.json" in banner and f"{base}/docs" in banner
        valkey_port = int(re.search(r"redis://127\.0\.0\.1:(\d+)/0", banner).group(1))
        assert (tmp_path / "data" / "valkey" / "appendonlydir").is_dir()

        import requests

        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = requests.get(f"{base}/openapi.json", timeout=2).status_code
                if status == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        assert status == 200, output()
        assert requests.get(f"{base}/openapi.json", timeout=5).json().get("openapi")

        # Credentials never reach the access log.
        secret = "s3cr3t-token-value"
        basic = base64.b64encode(b"alice-basic-user:pw").decode()
        requests.get(f"{base}/openapi.json", headers=bearer(secret), timeout=5)
        requests.get(f"{base}/openapi.json", headers={"Authorization": f"Basic {basic}"}, timeout=5)
        time.sleep(0.5)
        # One JSON request line per request, with its request id (service.ops.logs).
        lines = [json.loads(line) for line in output().splitlines() if line.startswith("{")]
        served = [e for e in lines if e.get("msg") == "request" and e.get("path") == "/openapi.json"]
        assert served and served[-1]["method"] == "GET" and served[-1]["status"] == 200 and served[-1]["request_id"]
        assert secret not in output() and "alice-basic-user" not in output()

        # Ctrl-C: SIGINT to the whole foreground group, like a terminal does.
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=60)
        assert code == 0, output()
        assert not _ping("127.0.0.1", valkey_port)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.servers
def test_supervisor_restarts_a_dead_server_on_the_same_data(tmp_path):
    from service.storage.embedded import Supervisor

    srv = start_server(data_dir=tmp_path / "sup")
    messages: list[str] = []
    supervisor = Supervisor(srv, interval=0.05, log=messages.append).start()
    try:
        redis.Redis.from_url(srv.url).set("kept", "yes")
        port, first_pid = srv.port, srv.pid
        os.kill(first_pid, signal.SIGKILL)  # a crash, not a stop
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (supervisor.restarts and srv.ping()):
            time.sleep(0.05)
        assert supervisor.restarts == 1 and srv.ping(), messages
        assert srv.port == port and srv.pid != first_pid
        assert redis.Redis.from_url(srv.url).get("kept") == b"yes"  # appendfsync always: nothing lost
        assert any("restarting on the same data" in m for m in messages)
    finally:
        supervisor.stop()
    time.sleep(0.3)
    assert not srv.is_running() and not _ping("127.0.0.1", port)  # stopped for good: no restart


@pytest.mark.servers
@pytest.mark.slow
def test_service_run_restarts_a_killed_embedded_valkey(tmp_path):
    """``make run``'s Valkey SIGKILLed: restarted on the same data, the API recovers by itself."""
    import requests

    port = free_port()
    env = _env_with_repo(PORT=str(port), HOST="127.0.0.1", WEB_CONCURRENCY="1")
    env.pop("REDIS_URL", None)
    env.pop("REFEREE_DATA_DIR", None)
    out_path = tmp_path / "run.log"
    with open(out_path, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.run"], cwd=tmp_path, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def output() -> str:
        return out_path.read_bytes().decode(errors="replace")

    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        game = None
        while time.monotonic() < deadline and proc.poll() is None and game is None:
            try:
                r = requests.post(f"{base}/v1/gops/games", json={"profile": "classic"}, timeout=5)
                game = r.json() if r.status_code == 201 else None
            except requests.RequestException:
                pass
            time.sleep(0.2)
        assert game is not None, output()
        valkey_port = int(re.search(r"redis://127\.0\.0\.1:(\d+)/0", output()).group(1))
        pid = redis.Redis(port=valkey_port).info("server")["process_id"]
        os.kill(pid, signal.SIGKILL)

        deadline = time.monotonic() + 20
        status = None
        while time.monotonic() < deadline:
            try:
                r = requests.get(f"{base}/v1/gops/games/{game['id']}", timeout=5)
                status = r.status_code
                if status == 200:
                    break
                assert status == 503 and r.json()["code"] == "store_unavailable", r.text
            except requests.RequestException:
                pass
            time.sleep(0.1)
        assert status == 200, output()
        assert r.json()["id"] == game["id"]  # the same data: the game survived the crash
        assert redis.Redis(port=valkey_port).info("server")["process_id"] != pid
        # The supervisor says so once start() has returned; the API may reach the new server first.
        deadline = time.monotonic() + 15
        while "embedded Valkey restarted" not in output() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "embedded Valkey restarted" in output()
        assert requests.get(f"{base}/readyz", timeout=5).status_code == 200

        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0, output()
        assert not _ping("127.0.0.1", valkey_port)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_the_command_line_explains_itself_and_refuses_what_it_does_not_know(tmp_path):
    """``python -m service.storage.embedded --help`` prints its usage and starts nothing (it used to start
    a server keeping its data in a directory named "--help"); an unknown option is an error."""
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "service.storage.embedded", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=20, check=False, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})

    shown = run("--help")
    assert shown.returncode == 0 and "usage: python -m service.storage.embedded" in shown.stdout
    assert "--cluster" in shown.stdout and "DATA_DIR" in shown.stdout
    refused = run("--bogus")
    assert refused.returncode == 2 and "unrecognized arguments: --bogus" in refused.stderr
    assert list(tmp_path.iterdir()) == []  # no server started, no data directory made
