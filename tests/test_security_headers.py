"""Security headers on every kind of response: success, problem, 404, 405, 413 (and 415, 429, 304)."""

from __future__ import annotations

import pytest
from support.client import bearer

from service.web.app import create_app

GAMES = "/v1/gops/games"


def assert_security_headers(response, api: bool = True) -> None:
    headers = response.headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"
    if api:
        assert headers["Cache-Control"] == "no-store"


def assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == code


@pytest.fixture
def game(client):
    response = client.post(GAMES, json={"profile": "classic"})
    assert response.status_code == 201
    assert_security_headers(response)
    return response.get_json()


def test_success(client, game):
    response = client.get(f"{GAMES}/{game['id']}")
    assert response.status_code == 200
    assert_security_headers(response)
    response = client.get(f"{GAMES}/{game['id']}/seats/0", headers=bearer(game['seat_tokens'][0]))
    assert response.status_code == 200
    assert_security_headers(response)


def test_not_modified(client, game):
    etag = client.get(f"{GAMES}/{game['id']}").headers["ETag"]
    response = client.get(f"{GAMES}/{game['id']}", headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert_security_headers(response)


def test_problem_responses(client, game):
    response = client.get(f"{GAMES}/{game['id']}/seats/0")
    assert_problem(response, 401, "missing_token")
    assert_security_headers(response)
    response = client.post(f"{GAMES}/{game['id']}/seats/0/reveal", json={"round": 1, "cards": [1], "salt": "00" * 32},
                           headers=bearer(game['seat_tokens'][0]))
    assert_problem(response, 409, "wrong_phase")
    assert_security_headers(response)
    response = client.post(GAMES, json={"profile": "nope"})
    assert response.status_code == 422
    assert_security_headers(response)
    response = client.post(GAMES, data="{not json", content_type="application/json")
    assert_problem(response, 400, "malformed_json")
    assert_security_headers(response)


def test_not_found(client):
    for path in ("/no/such/route", "/v1/no/such/route", f"{GAMES}/NoSuchGame99"):
        response = client.get(path)
        assert response.status_code == 404 and response.mimetype == "application/problem+json"
        assert_security_headers(response, api=path.startswith("/v1/"))


def test_method_not_allowed(client, game):
    for method, path in (("GET", GAMES), ("DELETE", f"{GAMES}/{game['id']}"), ("PUT", f"{GAMES}/{game['id']}/seats/0/commit")):
        response = client.open(path, method=method)
        assert_problem(response, 405, "method_not_allowed")
        assert_security_headers(response)


def test_body_too_large(client):
    padding = "x" * 20_000
    response = client.post(GAMES, data=f'{{"profile": "{padding}"}}', content_type="application/json")
    assert_problem(response, 413, "body_too_large")
    assert_security_headers(response)


def test_unsupported_media_type(client):
    response = client.post(GAMES, data="profile=classic", content_type="application/x-www-form-urlencoded")
    assert_problem(response, 415, "unsupported_media_type")
    assert_security_headers(response)


def test_rate_limited(redis_url, redis_client):
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                         "RATE_LIMIT_PER_MINUTE": 1}).test_client()
    client.get(f"{GAMES}/NoSuchGame99")
    response = client.get(f"{GAMES}/NoSuchGame99")
    assert_problem(response, 429, "rate_limited")
    assert_security_headers(response)


def test_outside_the_api(client):
    for path in ("/openapi.json", "/healthz", "/docs"):
        response = client.get(path)
        assert response.status_code == 200
        assert_security_headers(response, api=False)


@pytest.mark.slow
def test_live_server(live_server):
    import requests

    for method, path, status in (("GET", "/openapi.json", 200), ("GET", f"{GAMES}/NoSuchGame99", 404),
                                 ("GET", GAMES, 405), ("POST", GAMES, 413)):
        response = requests.request(method, live_server + path, timeout=30,
                                    **({"data": "{" + " " * 20_000 + "}", "headers": {"Content-Type": "application/json"}}
                                       if status == 413 else {}))
        assert response.status_code == status
        assert_security_headers(response, api=path.startswith("/v1/"))


def test_headers_the_application_set_are_kept():
    """The middleware adds only what a response lacks (names compared case-insensitively)."""
    from service.web.security_headers import SecurityHeaders

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("cache-control", "max-age=60"),
                                  ("X-Frame-Options", "SAMEORIGIN")])
        return [b"ok"]

    sent = {}
    body = SecurityHeaders(app)({"PATH_INFO": "/v1/x"}, lambda status, headers, exc_info=None: sent.update(status=status, headers=headers))
    assert b"".join(body) == b"ok"
    names = [name.lower() for name, _ in sent["headers"]]
    assert names.count("cache-control") == 1 and ("cache-control", "max-age=60") in sent["headers"]
    assert names.count("x-frame-options") == 1 and ("X-Frame-Options", "SAMEORIGIN") in sent["headers"]
    assert ("X-Content-Type-Options", "nosniff") in sent["headers"]
    assert ("Referrer-Policy", "no-referrer") in sent["headers"]
    sent.clear()
    SecurityHeaders(app)({"PATH_INFO": "/play"}, lambda status, headers, exc_info=None: sent.update(headers=headers))
    assert ("Cache-Control", "no-store") not in sent["headers"]
