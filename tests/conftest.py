"""Shared fixtures: a real Valkey (embedded), the Flask app, and a live gunicorn.

Fixtures
--------
redis_server  (session)  object with ``.url``: an embedded Valkey on a free
                         port, without persistence, or ``$TEST_REDIS_URL``
                         when set (then it is an ``ExternalRedis``).
redis_url     (session)  ``redis_server.url`` as a string.
redis_client  (function) ``redis.Redis`` (``decode_responses=True``) on that
                         server; the DB is flushed before each test.
valkey_factory (function) ``valkey_factory(port=None, data_dir=None, **kw)``
                         starts extra private embedded servers (crash/restart
                         tests); all stopped at the end of the test.
app           (function) ``service.web.app.create_app({"REDIS_URL": url, "TESTING": True,
                         "STREAM_MAX_SECONDS": 0.1})`` on a freshly flushed DB: built
                         once per process and environment, its config, extensions
                         and store caches put back after each test
                         (tests/support/apps.py).
client        (function) ``app.test_client()``.
live_server   (session)  base URL (``http://127.0.0.1:PORT``, no trailing
                         slash) of real gunicorn (deploy/gunicorn.conf.py,
                         2 workers) serving service.wsgi:app against
                         redis_server (tests/support/servers.py starts it).
fuzz_run      (session)  the session's schemathesis run (tests/support/fuzz_run.py):
                         when test_schemathesis is selected, ``fuzz_beside`` starts it
                         with the first test of the first process to get there; the test,
                         handed out last, waits for it in whichever process draws it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # bench/ (not an installed package) holds helpers some tests use
    sys.path.insert(0, str(REPO_ROOT))

from support.servers import start_gunicorn, stop_gunicorn  # noqa: E402

try:  # property tests talk to a real server: wall-clock deadlines only flake
    from hypothesis import settings as _hyp_settings

    # The default profile draws the same data on every run (derandomize: the seed is fixed by each
    # test's source), so `make test` passes or fails the same way on any machine at any load.
    # HYPOTHESIS_PROFILE=explore draws fresh random data each run, to hunt for new failures.
    _hyp_settings.register_profile("referee", deadline=None, derandomize=True, database=None)
    _hyp_settings.register_profile("explore", deadline=None)
    _hyp_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "referee"))
except ImportError:  # pragma: no cover
    pass


def pytest_configure(config):
    """``REFEREE_CPU_REPORT=DIR``: each test phase's CPU time written under DIR (tests/support/cpu_report.py)."""
    if os.environ.get("REFEREE_CPU_REPORT"):
        from support.cpu_report import CpuReport

        config.pluginmanager.register(CpuReport(Path(os.environ["REFEREE_CPU_REPORT"])), "referee-cpu-report")


class ExternalRedis:
    """Stands in for an EmbeddedServer when $TEST_REDIS_URL is used."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __repr__(self) -> str:
        return f"<ExternalRedis {self.url}>"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    url = os.environ.get("TEST_REDIS_URL")
    if url:
        yield ExternalRedis(url)
        return
    from service.storage.embedded import start_server

    # No AOF: with the default ``appendfsync always`` every write waited for a disk flush (the bad-input
    # sweeps spent half their time there). Nothing restarts this server; the tests of what survives a
    # crash or a restart start servers of their own (valkey_factory).
    server = start_server(appendonly=False, data_dir=tmp_path_factory.mktemp("valkey"))
    try:
        yield server
    finally:
        server.stop()


#: Fixtures that make a test a browser test, or one that starts servers of its own (a second Valkey,
#: gunicorn or cluster): marked ``browser`` / ``servers`` here, left out by ``make test-fast``. A
#: test that starts them itself (start_gunicorn, service.run, a cluster) says so with
#: ``@pytest.mark.servers``.
BROWSER_FIXTURES = frozenset({"browser", "offline_page"})
SERVER_FIXTURES = frozenset({"valkey_factory", "fuzz_run", "cluster"})


FUZZ_TEST = "test_fuzz.py::test_schemathesis"


def pytest_collection_modifyitems(session, config, items):
    """The ``browser`` and ``servers`` markers from the fixtures; and test_schemathesis last: the fuzz
    run it checks goes on from the session's first test beside all the others (``fuzz_beside``), so
    the test only waits for what is left of it, while no other test waits behind it."""
    for item in items:
        if not BROWSER_FIXTURES.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.browser)
        if not SERVER_FIXTURES.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.servers)
    items.sort(key=lambda item: item.nodeid.endswith(FUZZ_TEST))  # stable: the rest keep their order


@pytest.fixture(scope="session", autouse=True)
def fuzz_beside(request, tmp_path_factory):
    """The schemathesis run (tests/support/fuzz_run.py, ``BackgroundFuzz``) when test_schemathesis
    is selected: started with the first test of whichever process of the session (one, or each
    pytest-xdist worker) gets there first, so it runs beside the others on both cores;
    test_schemathesis, in whichever process, waits for it (``fuzz_run``) and checks what it found."""
    if not any(item.nodeid.endswith(FUZZ_TEST) for item in request.session.items):
        yield None
        return
    from support.fuzz_run import BackgroundFuzz, shared_directory

    run = BackgroundFuzz(shared_directory(tmp_path_factory, request.config))
    run.claim()
    try:
        yield run
    finally:  # a session cut short (-x, Ctrl-C) stops it; else it ends for whoever draws the test
        run.stop(wait=not (request.session.shouldfail or request.session.shouldstop))


@pytest.fixture(scope="session")
def fuzz_run(fuzz_beside):
    """The session's schemathesis run, started by ``fuzz_beside``."""
    return fuzz_beside


@pytest.fixture(scope="session")
def redis_url(redis_server) -> str:
    return redis_server.url


@pytest.fixture
def redis_client(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def valkey_factory(tmp_path):
    from service.storage.embedded import start_server

    started = []

    def factory(port=None, data_dir=None, **kwargs):
        if data_dir is None:
            data_dir = tmp_path / f"valkey{len(started)}"
        server = start_server(port=port, data_dir=data_dir, **kwargs)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def shared_apps(redis_url):
    """The apps the ``app`` fixture lends, one per environment (``service.config.load()``) a test
    asked for one in: each built once in this process (tests/support/apps.py)."""
    from service.web.app import create_app
    from support.apps import SharedApp

    # A stream read through the test client is read whole, so it lasts its whole cap: at 0.1 s, a sweep
    # or an authorization matrix that reaches .../events (hundreds of times) gets its answer instead
    # of waiting out the 300 s default, or a second each time. A stream sends the current version at
    # once; a test that waits for a later one sets a longer cap for itself.
    # A reply from the store may take 10 s, not 1: on a loaded machine the 1 s default once answered a
    # behaviour-replay move 503 (tests of a slow or frozen store run apps or servers of their own).
    overrides = {"REDIS_URL": redis_url, "TESTING": True, "STREAM_MAX_SECONDS": 0.1, "REDIS_TIMEOUT": 10.0}
    apps: dict = {}
    yield lambda settings: apps.setdefault(settings, SharedApp(lambda: create_app(overrides)))
    for shared in apps.values():
        shared.close()


@pytest.fixture
def app(redis_url, redis_client, shared_apps):
    """``create_app`` on the session's store, flushed: one app lent to test after test, put back as
    built after each (tests/support/apps.py), instead of 0.3 s of building for every test."""
    from service import config

    shared = shared_apps(config.load())
    try:
        yield shared.lend()
    finally:
        shared.give_back()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def http(client):
    """The test client as tests/support/client.py's ``Http``: what GopsGame and GofoTable drive."""
    from support.client import FlaskHttp

    return FlaskHttp(client)


@pytest.fixture(scope="session")
def live_server(redis_server, tmp_path_factory):
    log_path = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    # The whole suite shares this server from one address: limits far above what it sends
    # (tests/test_ratelimit.py checks the limiter on its own servers).
    limits = {"REFEREE_RATE_LIMIT_PER_MINUTE": "100000", "REFEREE_CREATE_LIMIT_PER_HOUR": "100000",
              "REFEREE_REDIS_TIMEOUT": "10"}  # as the shared apps' (above): the machine may be loaded
    proc, base = start_gunicorn(redis_server.url, log_path, extra_env=limits)
    try:
        yield base
    finally:
        stop_gunicorn(proc)


# Browser tests: headless Debian chromium driven by Playwright (tests/support/browser.py).
from support.browser import browser, offline_page  # noqa: E402,F401  (fixtures)
# The Python SDK generated from the committed spec (tests/test_sdk_clients.py, tests/test_sdk_match.py).
from support.sdk import python_sdk  # noqa: E402,F401  (fixture)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """An embedded Redis Cluster for the module's tests (``service.storage.embedded.start_cluster``;
    tests/test_cluster.py starts its own, with debug commands)."""
    from service.storage.embedded import start_cluster

    c = start_cluster(base_dir=tmp_path_factory.mktemp("cluster"))
    try:
        yield c
    finally:
        c.cleanup()
