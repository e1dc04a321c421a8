"""One stream for all of an app's games (service.api.app_events): every change of every game the app
created, resumable with Last-Event-ID on another API process after the one serving it is killed."""

from __future__ import annotations

import io
import os
import signal
from urllib.parse import urlsplit

import pytest
import requests
from support.client import bearer
from support.servers import gunicorn_workers, start_gunicorn, stop_gunicorn
from support.sse_client import RawStream, pump

from service import apps as cli
from service import config
from service.web.app import create_app

EVENTS = "/v1/apps/me/events"


@pytest.fixture
def issue(redis_url, redis_client, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)

    def issue(name: str) -> dict[str, str]:
        out = io.StringIO()
        assert cli.main(["issue", name], out=out) == 0
        return {"Referee-App-Key": out.getvalue().split()[-1]}

    return issue


def stream(base: str, headers: dict[str, str]) -> RawStream:
    parts = urlsplit(base)
    return RawStream(parts.hostname, parts.port, EVENTS, headers)


def changes(events) -> list[tuple[str, str, int]]:
    return [(e.event, e.json()["id"], e.json()["version"]) for e in events]


def test_an_event_says_who_did_what_never_what_is_secret(app, issue):
    """A commit and a reveal say which seat did them, not the commitment, the card or the salt."""
    import hashlib

    acme = issue("acme")
    client = create_app({**app.config, "REDIS_URL": config.settings(app).store_url, "STREAM_MAX_SECONDS": 1}).test_client()
    game = client.post("/v1/gops/games", json={"profile": "classic"}, headers=acme).get_json()
    salt = "a1" * 32
    commitment = hashlib.sha256(f"gops-bid-v1|{game['id']}|1|0|13|{salt}".encode()).hexdigest()
    seat0 = bearer(game["seat_tokens"][0])
    assert client.post(f"/v1/gops/games/{game['id']}/seats/0/commit", headers=seat0,
                       json={"game_id": game["id"], "round": 1, "commitment": commitment}).status_code == 200
    body = client.get(EVENTS, headers={**acme, "Last-Event-ID": "0-0"}).get_data(as_text=True)
    assert '"actions":[{"by":"seat:0","type":"commit"}]' in body
    assert commitment not in body and salt not in body


class Changes:
    """Creates and moves through one API process, noting the app's events each should cause."""

    def __init__(self, base: str, key: dict[str, str]) -> None:
        self.base, self.key, self.expected = base, key, []

    def create(self, path: str = "/v1/gops/games") -> dict:
        game = requests.post(self.base + path, json={}, headers=self.key, timeout=10).json()
        self.expected.append(("created", game["id"], 1))
        return game

    def name(self, game: dict, seat: int, name: str, path: str = "/v1/gops/games") -> None:
        answer = requests.post(f"{self.base}{path}/{game['id']}/seats/{seat}/name", json={"name": name},
                               headers=bearer(game["seat_tokens"][seat]), timeout=10)
        assert answer.status_code == 200, answer.text
        self.expected.append(("state", game["id"], answer.json()["version"]))

    def resign(self, game: dict, seat: int) -> None:
        answer = requests.post(f"{self.base}/v1/gops/games/{game['id']}/seats/{seat}/resign", json={},
                               headers=bearer(game["seat_tokens"][seat]), timeout=10)
        assert answer.status_code == 200, answer.text
        self.expected.append(("finished", game["id"], answer.json()["version"]))


def test_changes_of_the_apps_games_only(app, issue):
    acme, other = issue("acme"), issue("other")
    client = create_app({**app.config, "REDIS_URL": config.settings(app).store_url, "STREAM_MAX_SECONDS": 1}).test_client()
    mine = client.post("/v1/gops/games", json={}, headers=acme).get_json()
    client.post("/v1/gops/games", json={}, headers=other)
    client.post("/v1/gops/games", json={})  # nobody's
    client.post(f"/v1/gops/games/{mine['id']}/seats/0/resign", json={}, headers=bearer(mine["seat_tokens"][0]))
    body = client.get(EVENTS, headers={**acme, "Last-Event-ID": "0-0"}).get_data(as_text=True)
    lines = [line for line in body.split("\n") if line.startswith(("event:", "data:"))]
    href = f"/v1/gops/games/{mine['id']}"
    assert lines == [
        "event: created", f'data: {{"game":"gops","id":"{mine["id"]}","version":1,"href":"{href}","actions":'
                          '[{"by":"host","type":"create"},{"by":"referee","type":"deal_prizes"}]}',
        "event: finished", f'data: {{"game":"gops","id":"{mine["id"]}","version":2,"href":"{href}","actions":'
                           '[{"by":"seat:0","type":"resign"}]}',
    ]
    # Without Last-Event-ID: only what comes next (nothing here).
    assert "event:" not in client.get(EVENTS, headers=acme).get_data(as_text=True)
    refused = client.get(EVENTS)
    assert refused.status_code == 401 and refused.get_json()["code"] == "app_key_required"
    refused = client.get(EVENTS, headers={**acme, "Last-Event-ID": "7"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_cursor"


def test_a_trimmed_stream_says_so(app, issue, monkeypatch):
    from service.storage import apps as stored

    monkeypatch.setattr(stored, "EVENTS_MAXLEN", 1)
    acme = issue("acme")
    client = create_app({**app.config, "REDIS_URL": config.settings(app).store_url, "STREAM_MAX_SECONDS": 1}).test_client()
    for _ in range(300):  # XADD MAXLEN ~ trims whole nodes of 100 entries: some are gone
        client.post("/v1/gops/games", json={}, headers=acme)
    body = client.get(EVENTS, headers={**acme, "Last-Event-ID": "1-0"}).get_data(as_text=True)
    assert "event: reset" in body and body.index("event: reset") < body.index("event: created")


API_ENV = {"REFEREE_RATE_LIMIT_PER_MINUTE": "100000", "REFEREE_CREATE_LIMIT_PER_HOUR": "100000",
           "REFEREE_STREAM_HEARTBEAT_SECONDS": "2"}


def _two_apis(url: str, tmp_path):
    """Two API processes (one worker each) on the store at ``url``."""
    return [start_gunicorn(url, tmp_path / f"api{i}.log", workers=1, extra_env=API_ENV) for i in range(2)]


@pytest.fixture
def two_apis(redis_server, tmp_path):
    started = _two_apis(redis_server.url, tmp_path)
    try:
        yield started
    finally:
        for proc, _ in started:
            stop_gunicorn(proc)


@pytest.mark.servers
def test_the_stream_resumes_on_another_process_after_a_kill(two_apis, issue):
    _resumes_after_a_kill(two_apis, issue("acme"))


@pytest.mark.servers
def test_on_a_cluster_the_stream_resumes_on_another_process_after_a_kill(cluster, tmp_path, monkeypatch):
    """The same on the embedded Redis Cluster: the app's stream and index in one slot, its games on
    every shard, the entry written right after each save."""
    monkeypatch.setenv("REDIS_URL", cluster.url)
    out = io.StringIO()
    assert cli.main(["issue", "acme"], out=out) == 0
    started = _two_apis(cluster.url, tmp_path)
    try:
        _resumes_after_a_kill(started, {"Referee-App-Key": out.getvalue().split()[-1]})
    finally:
        for proc, _ in started:
            stop_gunicorn(proc)


def _resumes_after_a_kill(two_apis, key: dict[str, str]) -> None:
    """Changes made through one process reach a stream served by the other; that process is killed,
    the games go on, and a stream resumed with Last-Event-ID on the survivor misses and repeats nothing."""
    (killed, one), (_, two) = two_apis
    first = stream(one, key)
    assert pump([first], lambda: first.status is not None and first.comments is not None
                and "retry" in first.raw.decode(errors="replace"), 10)
    assert first.status == 200
    moves = Changes(two, key)  # every change made through the other process
    games = [moves.create() for _ in range(3)]
    table = moves.create("/v1/gofo/tables")
    moves.name(games[0], 1, "Ana")
    moves.name(table, 0, "Bea", "/v1/gofo/tables")
    moves.resign(games[1], 0)
    assert pump([first], lambda: len(first.events) >= len(moves.expected), 15), changes(first.events)
    assert changes(first.events) == moves.expected

    # The process serving the stream dies at once (no goodbye); meanwhile the games go on.
    for pid in [*gunicorn_workers(killed.pid), killed.pid]:
        os.kill(pid, signal.SIGKILL)
    killed.wait()
    first.close()
    seen = len(moves.expected)
    moves.name(games[2], 0, "Cai")
    moves.create()
    moves.resign(games[0], 1)

    again = stream(two, {**key, "Last-Event-ID": first.events[-1].id})
    assert pump([again], lambda: len(again.events) >= len(moves.expected) - seen, 15), changes(again.events)
    assert changes(again.events) == moves.expected[seen:]
    ids = [e.id for e in first.events + again.events]
    assert len(set(ids)) == len(ids) == len(moves.expected)
    again.close()


def test_a_move_of_an_apps_game_adds_its_event_in_the_saves_round_trip(redis_url, issue):
    """On one server the entry on the app's stream is written by the move's own save script: a move
    of an app's game is as many round trips as any other (one, on the record the worker kept)."""
    import sys
    from pathlib import Path

    import redis

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is not an installed package
    from bench.redis_counts import CountingProxy, Counter_

    key = issue("acme")
    direct = redis.Redis.from_url(redis_url)
    port = direct.connection_pool.connection_kwargs["port"]
    with CountingProxy(port) as proxy:
        client = create_app({"REDIS_URL": proxy.url, "TESTING": True}).test_client()
        counter = Counter_(proxy, direct)
        for headers in (key, {}):
            game = client.post("/v1/gops/games", json={}, headers=headers).get_json()
            client.post(f"/v1/gops/games/{game['id']}/seats/0/name", json={"name": "warm"},  # scripts loaded
                        headers=bearer(game["seat_tokens"][0]))
            for i in range(3):
                counter.measure("app" if headers else "keyless", lambda: client.post(
                    f"/v1/gops/games/{game['id']}/seats/0/name", json={"name": f"n{i}"},
                    headers=bearer(game["seat_tokens"][0])))
    direct.close()
    samples = counter.samples
    for label in ("app", "keyless"):
        assert [s["round_trips"] for s in samples[label]] == [1, 1, 1], samples[label]
        assert all(s["client_commands"] == ["EVALSHA"] for s in samples[label]), samples[label]
    assert all(s["server_commands"].get("xadd") == 1 for s in samples["app"]), samples["app"]
    assert not any("xadd" in s["server_commands"] for s in samples["keyless"])
