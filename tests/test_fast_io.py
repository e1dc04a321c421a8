"""The fast paths of a move's I/O do what the slow ones did: the pool's readiness test
(service.storage.redis_client.Parser), the stored JSON (service.storage.store) and the response JSON
(service.web.json_provider)."""

from __future__ import annotations

import datetime
import json
import time

import pytest

from service.web.json_provider import JSONProvider
from service.storage.redis_client import Parser, make_client
from service.storage.records import dump as _dump, load as _load
from service.storage.store import Change, Store


def _wait_readable(connection, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not connection.can_read(0.05):
        assert time.monotonic() < deadline, "the reply never arrived"


def _both(connection):
    """(our answer, redis-py's own hiredis parser's answer) to "is anything waiting?" now."""
    from redis._parsers import _HiredisParser

    def answer(can_read):
        try:
            return can_read(connection._parser, 0)
        except Exception as error:  # noqa: BLE001 - the answer compared may be an exception
            return type(error)
    return answer(Parser.can_read), answer(_HiredisParser.can_read)


def test_the_readiness_test_answers_as_redis_pys_in_every_state(redis_url, redis_client):
    client = make_client(redis_url, timeout=2.0)
    pool = client.connection_pool
    connection = pool.get_connection()
    assert isinstance(connection._parser, Parser)
    assert _both(connection) == (False, False)  # nothing sent, nothing waiting
    connection.send_command("ECHO", "one")
    connection.send_command("ECHO", "two")
    _wait_readable(connection)
    time.sleep(0.05)
    assert _both(connection) == (True, True)  # replies waiting in the socket
    assert connection.read_response() == b"one"  # reads (and buffers) both
    assert _both(connection) == (True, True)  # the socket is drained; the parser holds "two"
    assert connection.read_response() == b"two"
    assert _both(connection) == (False, False)
    connection.send_command("CLIENT", "SETNAME", "doomed")
    assert connection.read_response() == b"OK"
    victim = next(c for c in redis_client.client_list() if c.get("name") == "doomed")
    redis_client.client_kill_filter(_id=victim["id"])
    time.sleep(0.1)
    ours, theirs = _both(connection)
    assert ours is theirs and issubclass(ours, Exception)  # closed by the server: refused alike
    pool.release(connection)
    assert client.ping() is True  # the pool replaced it


def test_stored_json_is_the_json_modules_text_for_ascii_documents_and_reads_back():
    doc = {"b": [1, 2, {"z": None, "a": True}], "a": 1796154267.38, "n": {"2": "x", "10": "y"},
           "scores": ["39/2", "52"], "deadline_at": None}
    assert _dump(doc) == json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    assert _load(_dump(doc)) == doc
    odd = {"name": "Peña ♠", 3: "three", "tiny": 1e-05}
    assert _load(_dump(odd)) == json.loads(json.dumps(odd))  # int keys become strings, as before
    assert _load(json.dumps(odd)) == _load(_dump(odd))  # documents the json module wrote load the same


def test_the_store_keeps_non_ascii_text(redis_url, redis_client):
    import redis

    store = Store(redis.Redis.from_url(redis_url), prefix="fastio", finished_ttl=100, idle_ttl=1000)
    record = store.create("gofo", "n1", {"seat_names": ["Peña", "Müller ♣"]}, [{"name": "Ñandú"}])
    store.save(record, Change({"seat_names": ["Peña", "Zoë"]}, [{"name": "Zoë"}]))
    assert store.load("gofo", "n1").doc == {"seat_names": ["Peña", "Zoë"]}
    assert store.transcript("gofo", "n1") == [{"name": "Ñandú"}, {"name": "Zoë"}]


@pytest.fixture
def provider():
    from flask import Flask

    app = Flask(__name__)
    app.json_provider_class = JSONProvider
    app.json = JSONProvider(app)
    with app.app_context():
        yield app.json


def test_response_json_is_flasks_for_ascii_data(provider):
    data = {"z": [3, 2, 1], "a": {"seat": 0, "cards": [4]}, "phase": "commit", "pot_value": 8.5}
    expected = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    assert provider.response(data).get_data(as_text=True) == expected
    assert provider.response(data).mimetype == "application/json"


def test_response_json_keeps_flasks_conversions_and_falls_back_when_orjson_refuses(provider):
    when = datetime.datetime(2026, 12, 1, 20, 0, tzinfo=datetime.UTC)
    body = json.loads(provider.response({"at": when, 7: "seven"}).get_data())
    assert body == {"at": "Tue, 01 Dec 2026 20:00:00 GMT", "7": "seven"}
    assert json.loads(provider.response({"big": 2**70}).get_data()) == {"big": 2**70}
    assert json.loads(provider.response({"name": "Peña ♠"}).get_data()) == {"name": "Peña ♠"}
    with pytest.raises(TypeError):
        provider.response({"what": object()})
