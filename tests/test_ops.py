"""Operations: liveness vs readiness, request ids, JSON logs, Prometheus metrics, deploy files."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
import requests
from support.servers import REPO_ROOT, start_gunicorn, stop_gunicorn
from support.client import FlaskHttp, GopsGame, bearer, lowest

from service.ops import metrics
from service.web.app import create_app
from service.storage.embedded import free_port
from service.ops.logs import JsonFormatter

PROBLEM = "application/problem+json"
HEX_ID = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def down_app():
    """An app whose store is unreachable (nothing listens on the port)."""
    return create_app({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "TESTING": True})


def sample(client, name: str, **labels) -> float:
    """One sample of the text exposition at /metrics (0 when absent)."""
    text = client.get("/metrics").get_data(as_text=True)
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        metric, _, rest = head.partition("{")
        got = ",".join(sorted(rest.rstrip("}").split(","))) if rest else ""
        if metric == name and got == want:
            return float(value)
    return 0.0


# ------------------------------------------------------------- health


def test_healthz_is_liveness_and_never_touches_the_store(down_app):
    client = down_app.test_client()
    response = client.get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}


def test_readyz_is_503_problem_json_while_the_store_is_away(down_app):
    response = down_app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.headers["Content-Type"].startswith(PROBLEM)
    assert response.get_json()["code"] == "store_unavailable"
    assert HEX_ID.fullmatch(response.headers["X-Request-Id"])


def test_readyz_is_ok_with_the_store(client):
    response = client.get("/readyz")
    assert response.status_code == 200 and response.get_json() == {"status": "ready"}


def test_probes_and_scrapes_are_not_rate_limited(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True, "RATE_LIMIT_PER_MINUTE": 1})
    client = app.test_client()
    for _ in range(3):
        for path in ("/healthz", "/readyz", "/metrics"):
            assert client.get(path).status_code == 200, path
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/openapi.json").status_code == 429


# --------------------------------------------------------- request ids


def test_a_sane_request_id_is_kept_and_returned(client):
    for rid in ("abc-123", "Root=1-67891233-abcdef012345678912345678", "0" * 128, "a.b_c:d/e+f="):
        response = client.get("/healthz", headers={"X-Request-Id": rid})
        assert response.headers["X-Request-Id"] == rid


@pytest.mark.parametrize("bad", ["", "x" * 129, "has space", "semi;colon", "-leading-dash", "ünïcode", "a\tb"])
def test_anything_else_is_replaced_by_a_fresh_id(client, bad):
    first = client.get("/healthz", headers={"X-Request-Id": bad}).headers["X-Request-Id"]
    second = client.get("/healthz", headers={"X-Request-Id": bad}).headers["X-Request-Id"]
    assert HEX_ID.fullmatch(first) and HEX_ID.fullmatch(second) and first != second


def test_every_response_carries_a_request_id_errors_included(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "TESTING": True})

    @app.get("/boom")
    def _boom():
        raise RuntimeError("a bug")

    client = app.test_client()
    answers = {
        404: client.get("/v1/gops/games/nope"),  # game_not_found
        405: client.delete("/v1/gops/games"),
        415: client.post("/v1/gops/games", data="x", content_type="text/plain"),
        413: client.post("/v1/gops/games", data="{" + " " * 20000 + "}", content_type="application/json"),
        422: client.post("/v1/gops/games", json={"profile": "no-such-profile"}),
        500: client.get("/boom"),
    }
    limited = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                          "RATE_LIMIT_PER_MINUTE": 1}).test_client()
    limited.get("/openapi.json")
    answers[429] = limited.get("/openapi.json")
    answers[0] = client.get("/no/such/route", headers={"X-Request-Id": "kept-404"})
    for status, response in answers.items():
        assert response.status_code == (status or 404), (status, response.get_data(as_text=True))
        rid = response.headers["X-Request-Id"]
        assert rid == "kept-404" if status == 0 else HEX_ID.fullmatch(rid), (status, rid)


def test_an_unhandled_error_is_a_500_with_its_request_id_logged(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "TESTING": True})

    @app.get("/boom")
    def _boom():
        raise RuntimeError("a bug")

    lines = capture_json_logs()
    try:
        response = app.test_client().get("/boom", headers={"X-Request-Id": "trace-500"})
    finally:
        lines.close()
    assert response.status_code == 500 and response.headers["X-Request-Id"] == "trace-500"
    entries = lines.entries()
    error = next(e for e in entries if e["level"] == "error")
    assert error["request_id"] == "trace-500" and "RuntimeError: a bug" in error["exc"]
    access = next(e for e in entries if e["msg"] == "request")
    assert access == {**access, "request_id": "trace-500", "status": 500, "path": "/boom", "method": "GET"}


# ---------------------------------------------------------------- logs


class capture_json_logs:  # noqa: N801 - used like a function
    """Attach a JsonFormatter handler to the service loggers; ``entries()`` parses what it wrote."""

    def __init__(self) -> None:
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(JsonFormatter())
        self.logger = logging.getLogger("service")
        self.logger.addHandler(self.handler)
        self.level = self.logger.level
        self.logger.setLevel(logging.INFO)

    def close(self) -> None:
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.level)

    def text(self) -> str:
        return self.stream.getvalue()

    def entries(self) -> list[dict]:
        return [json.loads(line) for line in self.text().splitlines()]  # every line is JSON


def test_one_json_request_line_per_request_without_credentials(client):
    secret = "tok-" + "9" * 40
    lines = capture_json_logs()
    try:
        client.get("/v1/gops/games/abc?token=" + secret, headers={**bearer(secret), "X-Request-Id": "req-42"})
    finally:
        lines.close()
    (entry,) = [e for e in lines.entries() if e["msg"] == "request"]
    assert entry["request_id"] == "req-42"
    assert entry["method"] == "GET" and entry["path"] == "/v1/gops/games/abc" and entry["status"] == 404
    assert entry["operation"] and entry["duration_ms"] >= 0 and entry["level"] == "info"
    assert secret not in lines.text()


def test_store_errors_are_logged_with_the_request_id(down_app):
    lines = capture_json_logs()
    try:
        down_app.test_client().get("/v1/gops/games/abc", headers={"X-Request-Id": "down-1"})
    finally:
        lines.close()
    errors = [e for e in lines.entries() if e["level"] == "error"]
    assert errors and errors[0]["request_id"] == "down-1" and "redis unavailable" in errors[0]["msg"]


# ------------------------------------------------------------- metrics


def test_metrics_count_requests_latency_games_and_streams(client):
    op = "gops.Games"
    created = sample(client, "referee_games_created_total", kind="gops")
    finished = sample(client, "referee_games_finished_total", kind="gops")
    latency = sample(client, "referee_http_request_duration_seconds_count", operation=op)
    answered = sample(client, "referee_http_requests_total", method="POST", operation=op, status="201")

    game = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    assert sample(client, "referee_games_created_total", kind="gops") == created + 1
    assert sample(client, "referee_games_active", kind="gops") == 1  # the DB is fresh for each test
    assert sample(client, "referee_http_request_duration_seconds_count", operation=op) == latency + 1
    assert sample(client, "referee_http_requests_total", method="POST", operation=op, status="201") == answered + 1

    game.play_to_end(lowest)
    assert sample(client, "referee_games_active", kind="gops") == 0
    assert sample(client, "referee_games_finished_total", kind="gops") == finished + 1

    before = sample(client, "referee_open_streams", kind="gofo")
    with metrics.stream_open("gofo"):
        assert sample(client, "referee_open_streams", kind="gofo") == before + 1
    assert sample(client, "referee_open_streams", kind="gofo") == before

    response = client.get("/metrics")
    assert response.headers["Content-Type"].startswith("text/plain")
    assert "referee_http_request_duration_seconds_bucket" in response.get_data(as_text=True)


def test_games_active_counts_only_unfinished_games_within_the_idle_ttl(app, client, redis_client):
    store = app.extensions["referee_store"]
    for i in range(3):
        GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    assert store.active_count("gops") == 3
    # One created longer ago than the idle TTL drops out (its score is its untouched expiry).
    member = redis_client.zrange(store.active_key("gops"), 0, 0)[0]
    redis_client.zadd(store.active_key("gops"), {member: time.time() - 1})
    assert store.active_count("gops") == 2
    assert redis_client.zcard(store.active_key("gops")) == 2  # and is trimmed


def test_store_errors_and_unknown_methods_are_counted_with_bounded_labels(down_app):
    client = down_app.test_client()
    before = sample(client, "referee_store_errors_total", kind="request")
    assert client.get("/v1/gops/games/abc").status_code == 503
    assert sample(client, "referee_store_errors_total", kind="request") == before + 1
    client.open("/v1/gops/games", method="BREW")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'method="BREW"' not in text and 'method="other"' in text
    assert "/v1/gops/games/abc" not in text  # paths never become labels: endpoints do


def test_metrics_token(redis_url, redis_client):
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "METRICS_TOKEN": "m-secret"}).test_client()
    refused = client.get("/metrics")
    assert refused.status_code == 401 and refused.headers["Content-Type"].startswith(PROBLEM)
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer m-secret"}).status_code == 200


@pytest.mark.servers
@pytest.mark.slow
def test_metrics_sum_every_gunicorn_worker(redis_server, tmp_path):
    """Multiprocess mode: /metrics answered by any worker counts the requests of all of them."""
    log = tmp_path / "gunicorn.log"
    proc, base = start_gunicorn(redis_server.url, log, workers=2, extra_env={"REFEREE_RATE_LIMIT_PER_MINUTE": "0"})
    try:
        n = 40
        for _ in range(n):
            requests.get(f"{base}/healthz", headers={"Connection": "close"}, timeout=10)
        time.sleep(0.2)
        totals = set()
        for _ in range(4):  # whichever worker answers the scrape, the sum is the same
            text = requests.get(f"{base}/metrics", headers={"Connection": "close"}, timeout=10).text
            line = next(x for x in text.splitlines() if x.startswith('referee_http_request_duration_seconds_count{operation="_health"}'))
            totals.add(float(line.split()[-1]))
        assert totals == {float(n)}
        entries = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
        served = [e for e in entries if e.get("path") == "/healthz"]
        assert len(served) == n and all(e["request_id"] for e in served)
        assert any(e["logger"] == "gunicorn.error" for e in entries)  # gunicorn's own lines are JSON too
    finally:
        stop_gunicorn(proc)


# ---------------------------------------------------------------- deploy


def _gunicorn_settings(argv: list[str], env: dict[str, str]):
    """What gunicorn would run with for ``argv`` (config file + command line), without starting it."""
    code = (
        "import json, sys\n"
        "from gunicorn.app.wsgiapp import WSGIApplication\n"
        "sys.argv = json.loads(sys.argv[1])\n"
        "app = WSGIApplication('%(prog)s [OPTIONS] [APP_MODULE]')\n"
        "print(json.dumps({'bind': app.cfg.bind, 'workers': app.cfg.workers}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], cwd=REPO_ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_procfile_binds_every_interface_on_port(monkeypatch):
    (web,) = [line for line in (REPO_ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")]
    env = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")}
    env["PORT"] = "5123"  # what a PaaS sets
    expanded = subprocess.run(["sh", "-c", f"printf '%s\\n' {web.split(':', 1)[1].strip()}"], env=env,
                              capture_output=True, text=True, check=True).stdout.split("\n")[:-1]
    assert expanded[0] == "gunicorn"
    settings = _gunicorn_settings(expanded, env)
    assert settings["bind"] == ["0.0.0.0:5123"]
    # while `make run` and the test servers (no --bind) stay on loopback
    default = _gunicorn_settings(["gunicorn", "-c", "deploy/gunicorn.conf.py", "service.wsgi:app"], env)
    assert default["bind"] == ["127.0.0.1:5123"]


def test_dockerfile_serves_on_every_interface():
    text = (REPO_ROOT / "deploy" / "Dockerfile").read_text()
    cmd = next(line for line in text.splitlines() if line.startswith("CMD "))
    assert "--bind 0.0.0.0:${PORT}" in cmd and "exec gunicorn -c deploy/gunicorn.conf.py" in cmd
    assert re.search(r"^USER (?!root)", text, re.M)  # not root


def test_compose_file_validates():
    import yaml

    compose = shutil.which("docker-compose")
    if compose is None:
        if os.environ.get("CI"):
            pytest.fail("docker-compose is missing (.ci/run installs Debian's)")
        pytest.skip("docker-compose not installed (apt-get install docker-compose)")
    out = subprocess.run([compose, "-f", "deploy/compose.yaml", "config"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    config = yaml.safe_load(out.stdout)
    services = config["services"]
    apis = [s for name, s in services.items() if name.startswith("api-")]
    nodes = [s for name, s in services.items() if name.startswith("valkey-")]
    assert len(apis) >= 2 and len(nodes) == 6
    for api in apis:
        assert api["environment"]["REDIS_URL"].startswith("redis+cluster://")
        assert api["build"]["dockerfile"] == "deploy/Dockerfile"
    for node in nodes:
        assert "--cluster-enabled yes" in " ".join(node["command"])
    assert "--cluster-replicas 1" in " ".join(services["cluster-init"]["command"])
    published = services["nginx"]["ports"]
    assert all(str(p).startswith("127.0.0.1:") or (isinstance(p, dict) and p.get("host_ip") == "127.0.0.1")
               for p in published), published
    assert "location = /metrics { deny all; }" in (REPO_ROOT / "deploy" / "nginx.conf").read_text()


@pytest.mark.servers
@pytest.mark.parametrize("accesslog", ["", "-"])
def test_gunicorns_access_line_is_written_only_when_asked_for(redis_url, tmp_path, accesslog):
    """service.ops.serving.Logger: with the JSON logconfig_dict gunicorn would build (and drop) an
    access line per request; it writes one only when GUNICORN_ACCESSLOG names a destination,
    and the app's own request line is there either way."""
    import requests

    from support.servers import start_gunicorn, stop_gunicorn

    log_path = tmp_path / "gunicorn.log"
    proc, base = start_gunicorn(redis_url, log_path, workers=1, extra_env={"GUNICORN_ACCESSLOG": accesslog})
    try:
        assert requests.get(f"{base}/healthz", headers={"X-Request-Id": "probe-1"}, timeout=5).status_code == 200
    finally:
        stop_gunicorn(proc)
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("logger") == "gunicorn.access" and "/healthz" in line["msg"]]
    app_lines = [line for line in lines if line.get("logger") == "service.access" and line.get("path") == "/healthz"]
    assert [line["request_id"] for line in app_lines if line.get("request_id") == "probe-1"] == ["probe-1"]
    assert len(access) == (1 if accesslog else 0)


def test_gunicorn_builds_no_access_line_nobody_asked_for():
    """The access line's atoms are never built without GUNICORN_ACCESSLOG (gunicorn's own
    Logger.access builds them from the response, request and environ it is given)."""
    from types import SimpleNamespace

    from service.ops.serving import Logger

    logger = Logger.__new__(Logger)
    logger.cfg = SimpleNamespace(accesslog=None)
    logger.access(None, None, None, 0.0)  # nothing read from these: nothing built
    logger.cfg = SimpleNamespace(accesslog="-", access_log_format="%(s)s")
    with pytest.raises(Exception):
        logger.access(None, None, None, 0.0)  # asked for: gunicorn's own code builds the line
