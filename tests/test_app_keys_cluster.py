"""An app's key and its list of games on a Redis Cluster (service.storage.apps): the app's index
sets share one hash slot, the games live on every shard, and pages hold as on one server."""

from __future__ import annotations

import io

import pytest
from redis.crc import key_slot

from service import apps as cli
from service.storage.apps import Apps
from service.web.app import create_app


@pytest.mark.servers
def test_an_apps_games_on_a_cluster(cluster, monkeypatch):
    monkeypatch.setenv("REDIS_URL", cluster.url)
    out = io.StringIO()
    assert cli.main(["issue", "acme", "--creates-per-minute", "100"], out=out) == 0
    key = {"Referee-App-Key": out.getvalue().split()[-1]}
    app = create_app({"REDIS_URL": cluster.url, "TESTING": True, "RATE_LIMIT_ENABLED": True})
    client = app.test_client()
    made = [client.post("/v1/gops/games" if i % 2 else "/v1/gofo/tables", json={}, headers=key).get_json()["id"]
            for i in range(24)]
    store = app.extensions["referee_store"]
    assert len({store.redis.keyslot(store.key("gops", id)) for id in made}) > 1  # games on several slots
    apps: Apps = app.extensions["referee_apps"]
    assert key_slot(apps.games_key("acme", "gops").encode()) == key_slot(apps.games_key("acme", "gofo").encode())
    seen, cursor = [], None
    while True:
        page = client.get("/v1/apps/me/games?limit=5" + (f"&cursor={cursor}" if cursor else ""), headers=key)
        assert page.status_code == 200, page.get_data(as_text=True)
        seen += [game["id"] for game in page.get_json()["games"]]
        cursor = page.get_json()["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(made))
    # The app's stream of changes (written after each save: another slot than the game's).
    streaming = create_app({"REDIS_URL": cluster.url, "TESTING": True, "STREAM_MAX_SECONDS": 1}).test_client()
    body = streaming.get("/v1/apps/me/events", headers={**key, "Last-Event-ID": "0-0"}).get_data(as_text=True)
    assert body.count("event: created") == len(made)
    assert [line.split('"id":"')[1][:12] for line in body.split("\n") if line.startswith("data:")] == made
    assert cli.main(["revoke", "acme"], out=io.StringIO()) == 0
    refused = client.get("/v1/apps/me/games", headers=key)
    assert refused.status_code == 401 and refused.get_json()["code"] == "app_key_revoked"
