"""A failing shard of a Redis Cluster delays only its own games; a shard with no replica is not waited for.

One cluster of three primaries, each with a replica, for the module; the tests run in file order and
each breaks a different shard (a replica killed, a replica paused then resumed, a whole shard killed).
The API runs in-process (the Flask test client) against it, as each gunicorn worker would.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import redis
from redis.cluster import RedisCluster, key_slot

from service.storage.embedded import start_cluster
from service.storage.store import Change, Store
from service.web.app import create_app
from support.client import FlaskHttp, GopsGame, lowest

pytestmark = [pytest.mark.slow, pytest.mark.servers]  # servers: its own gunicorn, Valkey or cluster

WAIT_TIMEOUT_MS = 1500


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = start_cluster(base_dir=tmp_path_factory.mktemp("shards"))
    try:
        yield c
    finally:
        c.cleanup()


@pytest.fixture(scope="module")
def app(cluster):
    return create_app({
        "REDIS_URL": cluster.url,
        "TESTING": True,
        "RATE_LIMIT_ENABLED": True,
        "RATE_LIMIT_PER_MINUTE": 100000,
        "CREATE_LIMIT_PER_HOUR": 100000,
        "REDIS_WAIT_TIMEOUT_MS": WAIT_TIMEOUT_MS,
        "REDIS_TIMEOUT": 10.0,  # a read outlasts the WAIT
    })


def store_of(app) -> Store:
    return app.extensions["referee_store"]


def wait_calls(cluster, node) -> int:
    """How many WAIT commands ``node`` has run (INFO commandstats): counted, not timed."""
    stats = cluster.info(node, "commandstats").get("cmdstat_wait")
    if not stats:
        return 0
    if isinstance(stats, dict):
        return int(stats["calls"])
    return int(dict(part.split("=") for part in str(stats).split(","))["calls"])


def replicas_online(cluster, primary) -> int:
    return int(cluster.info(primary, "replication").get("connected_slaves", 0))


def until(predicate, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def new_game(store: Store, cluster, avoid=()) -> tuple[str, object]:
    """A game (a bare document) whose primary is not one of ``avoid``; its id and primary."""
    for n in range(1000):
        id = f"shard{n}-{os.getpid()}"
        primary = cluster.primary_for(store.key("gops", id))
        if primary not in avoid:
            store.create("gops", id, {"n": 0}, [])
            return id, primary
    raise AssertionError("no slot on another primary")


def test_a_shard_without_a_replica_is_written_without_waiting(app, cluster):
    store = store_of(app)
    id, primary = new_game(store, cluster)
    (replica,) = cluster.replicas_of(primary)
    record = store.save(store.load("gops", id), Change({"n": 1}, [{"n": 1}])).record  # a replica online: WAIT 1
    assert wait_calls(cluster, primary) >= 1
    replica.kill()
    until(lambda: replicas_online(cluster, primary) == 0, "the primary saw its replica go")
    before = wait_calls(cluster, primary)
    for n in range(2, 12):
        record = store.save(record, Change({"n": n}, [{"n": n}])).record
    assert record.version == 12
    # The first save after the replica went WAITs and times out, then the store counts the replicas
    # (none) and stops waiting: not one WAIT of its full timeout per move.
    assert wait_calls(cluster, primary) - before <= 1


def test_a_version_is_announced_after_its_wait(app, cluster):
    store = store_of(app)
    broken = {p for p in cluster.running() if cluster.info(p, "replication").get("role") == "master"
              and replicas_online(cluster, p) == 0}
    id, primary = new_game(store, cluster, avoid=broken)
    (replica,) = cluster.replicas_of(primary)
    record = store.load("gops", id)
    channel = store.channel("gops", id)
    listener = cluster.client(primary).pubsub()
    listener.ssubscribe(channel)
    until(lambda: listener.get_message(timeout=0.1) is not None, "subscribed")
    saved: dict[str, float] = {}

    def save():
        saved["start"] = time.monotonic()
        store.save(record, Change({"n": 1}, [{"n": 1}]))

    os.kill(replica.pid, signal.SIGSTOP)  # online but silent: the WAIT runs to its timeout
    try:
        thread = threading.Thread(target=save)
        thread.start()
        message = None
        deadline = time.monotonic() + 60
        while message is None and time.monotonic() < deadline:
            message = listener.get_message(timeout=0.5)
        heard = time.monotonic()
        thread.join(60)
    finally:
        os.kill(replica.pid, signal.SIGCONT)
        listener.close()
    assert message is not None and int(message["data"]) == 2
    # A lower bound only (a loaded machine makes it later, never earlier): the announcement came
    # after the WAIT's whole timeout, i.e. after the move was as durable as its answer says.
    assert heard - saved["start"] >= WAIT_TIMEOUT_MS / 1000 * 0.95


def test_a_dead_shard_delays_no_move_of_a_game_on_another(app, cluster):
    store = store_of(app)
    client = app.test_client()
    http = FlaskHttp(client)
    game = GopsGame.create(http, {"profile": "classic"})
    game_primary = cluster.primary_for(store.key("gops", game.id))
    active_primary = cluster.primary_for(store.active_key("gops"))
    # A client whose rate-limit counters live on a shard that holds neither the game nor the set of
    # active games: killing that shard leaves both working, and only the counters unreachable.
    for n in range(1, 255):
        address = f"127.0.1.{n}"
        dead = cluster.primary_for(store.rate_key(address, "req"))
        if dead not in (game_primary, active_primary):
            break
    else:
        raise AssertionError("no address whose counters sit on a third shard")
    client.environ_base["REMOTE_ADDR"] = address
    assert key_slot(store.rate_key(address, "req").encode()) == key_slot(store.rate_key(address, "x").encode())

    for node in (*cluster.replicas_of(dead), dead):  # the whole shard: no failover can save it
        node.kill()
    skipped = _skipped("ratelimit")
    final = game.play_to_end(lowest)
    assert final["phase"] == "over"
    moves = final["version"]
    # Every request of the game went on without its counters. Only the first tried their shard
    # (within the budget); the rest did not wait for it at all.
    assert _skipped("ratelimit") - skipped >= moves - 1

    # The set of active games on a dead shard: a create and a finished game go on without it.
    active_primary_replicas = cluster.replicas_of(active_primary)
    if active_primary is not game_primary:
        for node in (*active_primary_replicas, active_primary):
            node.kill()
        skipped = _skipped("active")
        for _ in range(100):  # a create whose own shard is dead is refused (503): that is its game's shard
            status, body = http.post("/v1/gops/games", {"profile": "classic"})
            if status == 201:
                break
            assert status == 503 and body["code"] == "store_unavailable", body
        assert status == 201, body
        other = GopsGame(http, body["id"], body["host_token"], body["seat_tokens"], body)
        assert other.play_to_end(lowest)["phase"] == "over"
        assert _skipped("active") - skipped >= 1


def _skipped(kind: str) -> float:
    from service.ops import metrics

    return metrics.SIDELINE_SKIPPED.labels(kind=kind)._value.get()


def test_the_sidelines_refuse_a_failed_node_until_the_cooldown_ends(cluster):
    from service.storage.sidelines import Sidelines, Skipped

    live = next(p for p in cluster.running() if cluster.info(p, "replication").get("role") == "master")
    # Discovered from a running primary: the tests before kill primaries (the url's first node may be gone).
    sidelines = Sidelines(RedisCluster(host=live.host, port=live.port), budget=0.2, cooldown=0.5)
    key = next(f"k{n}" for n in range(10000) if cluster.primary_for(f"k{n}") is live)
    assert sidelines.execute("test", key, "SET", key, "1") in (True, b"OK", "OK")
    address = (live.host, live.port)
    sidelines._down_until[address] = time.monotonic() + 60  # as after an error there
    with pytest.raises(Skipped):
        sidelines.execute("test", key, "GET", key)
    sidelines._down_until[address] = 0.0
    assert sidelines.execute("test", key, "GET", key) == b"1"
