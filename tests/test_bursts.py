"""Bursts: more requests at once than a worker has Redis connections, floods of streams and of idle
keep-alive connections, and still every move and read is answered.

Each test runs its own one-worker gunicorn (the committed config) against the suite's Valkey, and
sends its load from plain sockets, so that every request is in the server at the same moment:

* **more requests than Redis connections**: the store is held still (``CLIENT PAUSE``) while 150
  ``GET``s of one game arrive, on a worker whose pool has 10 connections (redis-py's default was
  100, refusing the 101st at once): they wait for a connection and all get ``200``;
* a request that finds no connection free within ``REFEREE_REDIS_POOL_TIMEOUT`` gets ``503
  store_busy`` with ``Retry-After``;
* **streams from many addresses**, more than the worker's connections: the worker keeps its share
  for streams (``REFEREE_STREAM_SHARE``), answers the streams past it ``503 too_many_streams``
  with ``Retry-After``, and moves are answered meanwhile;
* **idle keep-alive connections** filling the worker: the oldest idle ones are closed to make room,
  so a new client is answered without waiting for their keep-alive timeout.

The load comes from several loopback addresses (127.0.0.2…), under the per-client connection cap.
"""

from __future__ import annotations

import json
import selectors
import socket
import time

import pytest
import redis
import requests

from support.client import GopsGame, LiveHttp, new_salt
from support.sse_client import RawStream, pump

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 10)]  # 8 clients


@pytest.fixture
def serve(redis_server, tmp_path):
    """``serve(**env)``: the base URL of a one-worker gunicorn started with ``env``."""
    from support.servers import start_gunicorn, stop_gunicorn

    started = []

    def start(**env: str) -> str:
        env = {"REFEREE_RATE_LIMIT_PER_MINUTE": "0", "REFEREE_CREATE_LIMIT_PER_HOUR": "0", **env}
        proc, base = start_gunicorn(redis_server.url, tmp_path / f"gunicorn{len(started)}.log", workers=1,
                                    extra_env=env)
        started.append(proc)
        return base

    yield start
    for proc in started:
        stop_gunicorn(proc)


def host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def send_get(base: str, path: str, source: str, keep_alive: bool = False) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(30)
    sock.connect(host_port(base))
    connection = "keep-alive" if keep_alive else "close"
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\nConnection: {connection}\r\n\r\n".encode())
    return sock


def read_answers(socks: list[socket.socket], within: float) -> dict[socket.socket, bytes]:
    """Everything each socket receives until the server closes it (at most ``within`` seconds)."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    received = {sock: b"" for sock in socks}
    deadline = time.monotonic() + within
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            try:
                chunk = key.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except ConnectionResetError:
                chunk = b""
            if chunk:
                received[key.fileobj] += chunk
            else:
                selector.unregister(key.fileobj)
    selector.close()
    return received


def status_of(answer: bytes) -> int | None:
    head = answer.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 and head[1].isdigit() else None


def problem_of(answer: bytes) -> tuple[dict[str, str], dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode().split("\r\n")[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers, json.loads(body)


def create_game(base: str) -> GopsGame:
    return GopsGame.create(LiveHttp(base), {"profile": "classic"})


@pytest.mark.servers
def test_more_requests_than_redis_connections_wait_for_one(serve, redis_server):
    base = serve(REFEREE_REDIS_MAX_CONNECTIONS="10", REFEREE_REDIS_TIMEOUT="10")
    game = create_game(base)
    path = f"/v1/gops/games/{game.id}"
    admin = redis.Redis.from_url(redis_server.url)
    try:
        admin.execute_command("CLIENT", "PAUSE", "1500", "ALL")  # every command waits: all 150 in flight
        socks = [send_get(base, path, ADDRESSES[i % len(ADDRESSES)]) for i in range(150)]
        answers = read_answers(socks, within=60)
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
        admin.close()
    statuses = [status_of(answer) for answer in answers.values()]
    assert statuses.count(200) == 150, sorted(set(statuses), key=str)
    for sock in socks:
        sock.close()


@pytest.mark.servers
def test_a_request_with_no_redis_connection_in_time_is_told_when_to_retry(serve, redis_server):
    base = serve(REFEREE_REDIS_MAX_CONNECTIONS="2", REFEREE_REDIS_POOL_TIMEOUT="0.5", REFEREE_REDIS_TIMEOUT="10")
    game = create_game(base)
    path = f"/v1/gops/games/{game.id}"
    admin = redis.Redis.from_url(redis_server.url)
    try:
        admin.execute_command("CLIENT", "PAUSE", "3000", "ALL")  # 2 requests hold the 2 connections
        socks = [send_get(base, path, ADDRESSES[i % len(ADDRESSES)]) for i in range(6)]
        answers = read_answers(socks, within=60)
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
        admin.close()
    busy = [answer for answer in answers.values() if status_of(answer) == 503]
    assert busy, [answer[:100] for answer in answers.values()]
    for answer in busy:
        headers, body = problem_of(answer)
        assert body["code"] == "store_busy" and headers["content-type"] == "application/problem+json"
        assert int(headers["retry-after"]) >= 1
    for sock in socks:
        sock.close()


def play_a_round(game: GopsGame) -> list[int]:
    """Both seats commit and reveal once: the statuses of the four moves."""
    state = game.public()
    salts = {seat: new_salt() for seat in (0, 1)}
    cards = {seat: [sorted(state["hands"][seat])[0]] for seat in (0, 1)}
    statuses = [game.commit(seat, state["round"], cards[seat], salts[seat], game_id=state["game_id"])[0]
                for seat in (0, 1)]
    statuses += [game.reveal(seat, state["round"], cards[seat], salts[seat])[0] for seat in (0, 1)]
    return statuses


@pytest.mark.servers
def test_a_flood_of_streams_from_many_addresses_leaves_moves_answered(serve):
    base = serve(GUNICORN_WORKER_CONNECTIONS="60", REFEREE_STREAM_SHARE="0.5",
                 REFEREE_STREAM_HEARTBEAT_SECONDS="1")
    game = create_game(base)
    host, port = host_port(base)
    path = f"/v1/gops/games/{game.id}/events?timeout=120"
    streams = [RawStream(host, port, path, source=ADDRESSES[i % len(ADDRESSES)]) for i in range(80)]
    try:
        # 30 streams (half of 60) are held; the other 50 are refused at once, told when to retry.
        assert pump(streams, lambda: all(s.events or s.closed for s in streams), 60)
        held = [s for s in streams if s.events and not s.closed]
        refused = [s for s in streams if s.closed]
        assert len(held) == 30 and len(refused) == 50, (len(held), len(refused))
        for s in refused:
            assert s.status == 503 and s.response_headers.get("retry-after"), s.raw[:300]
            assert json.loads(s.raw.partition(b"\r\n\r\n")[2])["code"] == "too_many_streams"
        # Moves get through, and the held streams see them.
        assert play_a_round(game) == [200, 200, 200, 200]
        version = game.public()["version"]
        assert pump(held, lambda: all(int(s.events[-1].id) >= version for s in held), 30)
    finally:
        for s in streams:
            s.close()


@pytest.mark.servers
def test_idle_keep_alive_connections_make_room_for_a_new_client(serve):
    base = serve(GUNICORN_WORKER_CONNECTIONS="40", GUNICORN_KEEPALIVE="60")
    game = create_game(base)
    path = f"/v1/gops/games/{game.id}"
    # 40 clients each make one request and keep their connection open: the worker is full.
    idle = [send_get(base, path, ADDRESSES[i % len(ADDRESSES)], keep_alive=True) for i in range(40)]
    for sock in idle:
        assert sock.recv(65536).startswith(b"HTTP/1.1 200"), "the idle clients were answered"
    try:
        # A new client is answered long before those connections' 60 s keep-alive runs out.
        answer = requests.get(base + path, timeout=20)
        assert answer.status_code == 200
        assert play_a_round(game) == [200, 200, 200, 200]
    finally:
        for sock in idle:
            sock.close()


def test_a_pool_that_stays_busy_is_told_apart_from_a_store_that_is_away(redis_url):
    """The 503 says which: ``store_busy`` (retry soon) only when the pool had no connection free."""
    from service.storage.redis_client import make_client, pool_exhausted

    client = make_client(redis_url, timeout=2.0, max_connections=1, pool_timeout=0.2)
    held = client.connection_pool.get_connection()
    try:
        with pytest.raises(redis.exceptions.ConnectionError) as busy:
            client.ping()
    finally:
        client.connection_pool.release(held)
    assert pool_exhausted(busy.value)
    assert client.ping() is True

    from service.storage.embedded import free_port

    away = make_client(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
    with pytest.raises(redis.exceptions.ConnectionError) as refused:
        away.ping()
    assert not pool_exhausted(refused.value)


def test_the_live_update_subscriber_has_a_connection_of_its_own(app):
    """Under a burst the requests' pool is all taken: the subscriber must not wait for it (it would
    drop and reconnect, and every stream of the process would miss news)."""
    from service.storage import live

    hub = live.hub_for(app)
    assert hub.client.connection_pool is not app.extensions["referee_store"].redis.connection_pool


def test_streams_woken_together_share_one_read_of_the_store(app, client):
    """News without a version (the hub reconnected) wakes every stream of a game at once: a read
    that began after a stream asked answers it, so five streams cost two reads, not five."""
    import threading

    from support.client import FlaskHttp
    from service.api import events

    game = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    store = app.extensions["referee_store"]
    reads, release = [], threading.Event()

    class SlowStore:
        def read(self, kind, id):
            reads.append(id)
            release.wait(30)
            return store.read(kind, id)

    cache = events.EventCache()
    with app.test_request_context():
        viewer = events._gops_viewer(store.read("gops", game.id), None)
    found = []

    def stream() -> None:
        with app.test_request_context():
            found.append(cache.event(SlowStore(), "gops", game.id, viewer, None).version)

    first = threading.Thread(target=stream)
    first.start()
    while not reads:
        time.sleep(0.01)
    others = [threading.Thread(target=stream) for _ in range(4)]
    for thread in others:
        thread.start()
    time.sleep(1.0)  # the four ask while the first read is under way
    release.set()
    for thread in [first, *others]:
        thread.join(30)
    assert len(found) == 5 and len(set(found)) == 1
    assert len(reads) == 2, reads  # the first stream's, and one begun after the other four asked
