"""A restarted server has lost every script: the store loads them again, and a view or a move whose
first round trip carried the rate limiter's hit still answers and still counts it."""

from __future__ import annotations

from service.web.app import create_app
from support.client import bearer


def test_views_and_moves_survive_a_flushed_script_cache(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_ENABLED": True,
                      "RATE_LIMIT_PER_MINUTE": 100, "CREATE_LIMIT_PER_HOUR": 100})
    http = app.test_client()
    game = http.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    gid, token = game["id"], game["seat_tokens"][0]
    before = http.get(f"/v1/gops/games/{gid}")
    assert before.status_code == 200
    redis_client.script_flush()  # what a restarted server has: no script
    after = http.get(f"/v1/gops/games/{gid}")
    assert after.status_code == 200 and after.get_data() == before.get_data()
    assert int(after.headers["RateLimit-Remaining"]) == int(before.headers["RateLimit-Remaining"]) - 1
    redis_client.script_flush()
    moved = http.post(f"/v1/gops/games/{gid}/seats/0/resign", json={}, headers=bearer(token))
    assert moved.status_code == 200, moved.get_json()
    assert int(moved.headers["RateLimit-Remaining"]) == int(after.headers["RateLimit-Remaining"]) - 1
