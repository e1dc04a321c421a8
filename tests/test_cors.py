"""CORS (service.web.cors, flask-cors): off by default, exact origins or *, never credentials."""

from __future__ import annotations

import pytest

from service import config
from service.web import cors
from service.web.app import create_app

GAMES = "/v1/gops/games"
PREFLIGHT = {
    "Origin": "https://play.example.org",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, idempotency-key, if-none-match",
}


@pytest.fixture
def make_client(redis_url, redis_client):
    def make(origins, **overrides):
        settings = {"REDIS_URL": redis_url, "TESTING": True, "CORS_ORIGINS": origins, "RATE_LIMIT_ENABLED": True}
        return create_app({**settings, **overrides}).test_client()

    return make


def header_set(response, name):
    return {item.strip().lower() for item in response.headers.get(name, "").split(",") if item.strip()}


def test_off_by_default(client, monkeypatch):
    monkeypatch.delenv("REFEREE_CORS_ORIGINS", raising=False)
    assert config.load().cors_origins == ""
    response = client.get(f"{GAMES}/NoSuchGame99", headers={"Origin": "https://play.example.org"})
    assert response.status_code == 404
    assert not [h for h, _ in response.headers.items() if h.lower().startswith("access-control-")]
    response = client.options(f"{GAMES}/x/seats/0/commit", headers=PREFLIGHT)
    assert not [h for h, _ in response.headers.items() if h.lower().startswith("access-control-")]


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("REFEREE_CORS_ORIGINS", "https://a.example, https://b.example")
    assert cors.origins(config.load().cors_origins) == ["https://a.example", "https://b.example"]


@pytest.mark.parametrize("value,expected", [
    ("", []), (None, []), (" , ", []),
    ("https://a.example", ["https://a.example"]),
    ("https://a.example/, http://localhost:5173", ["https://a.example", "http://localhost:5173"]),
    ("*", ["*"]), ("https://a.example,*", ["*"]),
    (["https://a.example"], ["https://a.example"]),
])
def test_parsing(value, expected):
    assert cors.origins(value) == expected


def test_listed_origin(make_client):
    client = make_client("https://play.example.org, http://localhost:5173")
    game = client.post(GAMES, json={"profile": "classic"}, headers={"Origin": "https://play.example.org"})
    assert game.status_code == 201
    assert game.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    assert "Access-Control-Allow-Credentials" not in game.headers
    assert "origin" in header_set(game, "Vary")
    response = client.get(f"{GAMES}/{game.get_json()['id']}", headers={"Origin": "http://localhost:5173"})
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    exposed = header_set(response, "Access-Control-Expose-Headers")
    assert {"etag", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"} <= exposed


def test_other_origins_get_no_grant(make_client):
    client = make_client("https://play.example.org")
    for origin in ("https://evil.example", "https://play.example.org.evil.example", "http://play.example.org", "null"):
        response = client.get(f"{GAMES}/NoSuchGame99", headers={"Origin": origin})
        assert "Access-Control-Allow-Origin" not in response.headers
        response = client.options(f"{GAMES}/x/seats/0/commit", headers={**PREFLIGHT, "Origin": origin})
        assert "Access-Control-Allow-Origin" not in response.headers


def test_preflight(make_client):
    client = make_client("https://play.example.org")
    response = client.options(f"{GAMES}/x/seats/0/commit", headers=PREFLIGHT)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    assert {"authorization", "content-type", "idempotency-key", "if-none-match"} <= header_set(
        response, "Access-Control-Allow-Headers")
    assert "post" in header_set(response, "Access-Control-Allow-Methods")
    assert "delete" not in header_set(response, "Access-Control-Allow-Methods")
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    # A header we do not take is not granted.
    response = client.options(f"{GAMES}/x/seats/0/commit", headers={
        **PREFLIGHT, "Access-Control-Request-Headers": "x-custom"})
    assert "x-custom" not in header_set(response, "Access-Control-Allow-Headers")


def test_wildcard(make_client):
    client = make_client("*")
    response = client.get(f"{GAMES}/NoSuchGame99", headers={"Origin": "https://anyone.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response.headers
    response = client.options(f"{GAMES}/x/seats/0/commit", headers={**PREFLIGHT, "Origin": "https://anyone.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_errors_are_readable_cross_origin(make_client):
    """A browser client must be able to read the problem body and Retry-After of a refusal."""
    client = make_client("https://play.example.org", RATE_LIMIT_PER_MINUTE=2)
    origin = {"Origin": "https://play.example.org"}
    response = client.get(f"{GAMES}/NoSuchGame99/seats/0", headers=origin)
    assert response.status_code == 404 and response.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    response = client.post(GAMES, json={"profile": "nope"}, headers=origin)
    assert response.status_code == 422 and response.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    response = client.get(f"{GAMES}/NoSuchGame99", headers=origin)
    assert response.status_code == 429
    assert response.headers["Access-Control-Allow-Origin"] == "https://play.example.org"
    assert "retry-after" in header_set(response, "Access-Control-Expose-Headers")
    # Security headers stay on CORS responses.
    assert response.headers["X-Content-Type-Options"] == "nosniff"
