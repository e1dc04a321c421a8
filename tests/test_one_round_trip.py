"""``redis_client.one_round_trip``: a request's first round trip (the rate limiter's deferred hit
and the game's HMGET) without redis-py's pipeline object, answering exactly as the pipeline did.

Against a real Valkey: the same replies as ``pipeline(transaction=False).execute(raise_on_error=
False)`` for good commands and failing ones (an unknown script, a wrong type), every reply read
so the pooled connection is never left out of step; a connection the server closed is replaced; one
that dies between two replies raises the client's ConnectionError and is given back; a server that
is down raises it too (the app's 503). Through the app: a
server whose script cache was flushed (a restart) still answers views and moves, and still counts
the hit.
"""

from __future__ import annotations

import pytest
import redis

from service.web.app import create_app
from service.storage.redis_client import make_client, one_round_trip, pool_exhausted

LIMITER_LIKE = "redis.call('INCR', KEYS[1]) return redis.call('GET', KEYS[1])"


@pytest.fixture
def client(redis_url, redis_client):
    # One connection: a round trip that kept it would leave the next one waiting, then refused.
    c = make_client(redis_url, timeout=2.0, max_connections=1, pool_timeout=0.5)
    yield c
    c.close()


def _pipeline(client, commands):
    pipe = client.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    return pipe.execute(raise_on_error=False)


def _same(a, b) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and str(a).split("caused error: ")[-1] == str(b).split("caused error: ")[-1]
    return a == b


def test_replies_are_the_pipelines(client):
    sha = client.script_load(LIMITER_LIKE)
    client.hset("g", mapping={"version": 3, "doc": b"\x00{\"a\": 1}" * 300})
    client.set("s", "a string")
    cases = [
        [("EVALSHA", sha, 1, "count"), ("HMGET", "g", "version", "doc")],
        [("EVALSHA", "0" * 40, 1, "count"), ("HMGET", "g", "version", "doc")],  # NOSCRIPT, then the read
        [("EVALSHA", sha, 1, "count"), ("HMGET", "s", "version", "doc")],  # WRONGTYPE
        [("EVALSHA", sha, 1, "count"), ("HMGET", "missing", "version", "doc")],
        [("HMGET", "g", "version", "doc")],
    ]
    for commands in cases:
        ours = one_round_trip(client, *commands)
        theirs = _pipeline(client, commands)
        if commands[0][0] == "EVALSHA" and commands[0][1] == sha:  # the counter moved on between the two
            ours[0], theirs[0] = int(ours[0]), int(theirs[0]) - 1
        assert len(ours) == len(theirs) == len(commands)
        assert all(_same(a, b) for a, b in zip(ours, theirs)), (commands, ours, theirs)
    (before,) = one_round_trip(client, ("CLIENT", "ID"))
    nosuch = one_round_trip(client, ("EVALSHA", "0" * 40, 1, "count"), ("HMGET", "g", "version"))
    assert isinstance(nosuch[0], redis.exceptions.NoScriptError) and nosuch[1] == [b"3"]
    # Nothing was left unread: had a reply stayed on the socket, the pool's checkout test would
    # have reconnected (another client id). The same connection, given back every time.
    assert one_round_trip(client, ("CLIENT", "ID")) == [before]
    assert client.get("s") == b"a string"


def _own_id(client) -> int:
    (own,) = one_round_trip(client, ("CLIENT", "ID"))
    return int(own)


def test_a_connection_the_server_closed_is_replaced(client, redis_client):
    client.set("k", "v")
    old = _own_id(client)
    redis_client.client_kill_filter(_id=old)  # this client's connection only
    assert one_round_trip(client, ("GET", "k"), ("GET", "k")) == [b"v", b"v"]
    assert _own_id(client) != old


def test_a_connection_that_dies_during_the_round_trip_raises_and_is_given_back(client):
    """The server closes the connection after the first reply (it killed itself): the second reply
    never comes. The client's ConnectionError, as its pipeline raised (its retry policy here tries
    once), the connection given back, and the next round trip answers on a new one."""
    client.set("k", "v")
    own = _own_id(client)
    with pytest.raises(redis.exceptions.ConnectionError):
        one_round_trip(client, ("CLIENT", "KILL", "ID", own, "SKIPME", "NO"), ("GET", "k"))
    assert one_round_trip(client, ("GET", "k")) == [b"v"]  # the pool's one connection, given back
    assert _own_id(client) != own


def test_a_server_that_is_down_raises_the_clients_connection_error():
    down = make_client("redis://127.0.0.1:1/0", timeout=0.2, max_connections=1, pool_timeout=0.2)
    for _ in range(2):  # the pool's one connection given back: the second try fails the same way
        with pytest.raises(redis.exceptions.ConnectionError) as error:
            one_round_trip(down, ("HMGET", "g", "version", "doc"))
        assert not pool_exhausted(error.value)


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
    moved = http.post(f"/v1/gops/games/{gid}/seats/0/resign", json={}, headers={"Authorization": f"Bearer {token}"})
    assert moved.status_code == 200, moved.get_json()
    assert int(moved.headers["RateLimit-Remaining"]) == int(after.headers["RateLimit-Remaining"]) - 1
