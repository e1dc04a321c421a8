"""The ``app`` fixture's app is built once and lent to test after test (tests/support/apps.py): what a
test changes of it must not reach the next test."""

from __future__ import annotations

import pytest

from service.storage.live import Hub, hub_for
from service.web.app import create_app
from service.config import settings
from support.apps import SharedApp, set_settings


@pytest.fixture
def shared(redis_url, redis_client):
    shared = SharedApp(lambda: create_app({"REDIS_URL": redis_url, "TESTING": True, "STREAM_MAX_SECONDS": 1}))
    yield shared
    shared.close()


def test_one_app_is_lent_again_and_again(shared):
    first = shared.lend()
    first.test_client().get("/healthz")
    shared.give_back()
    assert shared.lend() is first
    shared.give_back()
    assert shared.builds == 1


def test_config_a_test_set_is_put_back(shared):
    app = shared.lend()
    set_settings(app, stream_max_seconds=300)
    app.config["SOMETHING_NEW"] = True
    shared.give_back()
    app = shared.lend()
    assert settings(app).stream_max_seconds == 1 and "SOMETHING_NEW" not in app.config


def test_a_test_may_add_a_route_and_the_next_gets_an_app_without_it(shared):
    served = shared.lend()
    served.test_client().get("/healthz")  # Flask refuses new routes once an app served a request...
    shared.give_back()
    app = shared.lend()
    assert app is served

    @app.get("/boom")  # ...but a test gets the app as if new
    def boom():
        raise RuntimeError("boom")

    assert app.test_client().get("/boom").status_code == 500
    shared.give_back()
    again = shared.lend()
    assert again is not app and shared.builds == 2
    assert again.test_client().get("/boom").status_code == 404


def test_the_store_forgets_what_it_read(shared, redis_client):
    app = shared.lend()
    client = app.test_client()
    created = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    assert client.get(f"/v1/gops/games/{created['id']}").status_code == 200
    store = app.extensions["referee_store"]
    assert store.cache.latest("gops", created["id"]) is not None
    store.finished_ttl = 1  # a test may set what it needs on the store itself
    shared.give_back()
    redis_client.flushdb()
    app = shared.lend()
    store = app.extensions["referee_store"]
    assert store.cache.latest("gops", created["id"]) is None and store.finished_ttl != 1
    assert app.test_client().get(f"/v1/gops/games/{created['id']}").status_code == 404


def test_a_live_hub_a_test_started_is_stopped_and_dropped(shared):
    app = shared.lend()
    hub = hub_for(app)
    assert isinstance(hub, Hub) and app.extensions["referee_live"] is hub
    shared.give_back()
    assert hub._stopping
    assert "referee_live" not in shared.lend().extensions


def test_the_app_fixture_lends_one_app_per_environment(shared_apps, monkeypatch):
    """An app reads the environment when it is built: a test that set another one gets an app of it."""
    from service import config

    default = shared_apps(config.load())
    assert shared_apps(config.load()) is default
    monkeypatch.setenv("REFEREE_CORS_ORIGINS", "https://a.example")
    other = shared_apps(config.load())
    assert other is not default
    app = other.lend()
    try:
        answer = app.test_client().get("/healthz", headers={"Origin": "https://a.example"})
        assert answer.headers.get("Access-Control-Allow-Origin") == "https://a.example"
    finally:
        other.give_back()
