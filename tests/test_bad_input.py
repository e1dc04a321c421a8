"""Hypothesis sweep of bad input at every operation of both games (Flask test client, real Valkey).

The operations come from the generated spec (``service.openapi.generate()``, every path under
``/v1/gops/`` or ``/v1/gofo/``), so a new endpoint is swept as soon as it exists.  Each request gets a
random or adversarial body (any JSON, wrong types per field, huge / negative / fractional numbers,
unicode, long strings, NUL bytes, deep nesting, non-JSON, empty), random path parameters (unicode,
``..``, ``%00``, very long), random headers (garbage Authorization, huge headers, wrong Content-Type,
bad Idempotency-Key / If-None-Match) and sometimes a method the path does not have.  Between fuzzed
requests, plausible moves and near misses of them keep the game or table progressing so the fuzz
reaches every phase (tests/support/sweep_gops.py, tests/support/sweep_gofo.py).

The only acceptable outcomes (the oracle ``check`` of tests/support/sweep.py):

* a 2xx whose JSON body matches the operation's response schema in the spec,
  and only for a body that matches the operation's request schema;
* 304 for a GET with a matching ``If-None-Match``;
* a 4xx ``application/problem+json`` with ``type/title/status/detail/code``,
  ``status`` equal to the HTTP status, after which every stored key (hash,
  log list, idempotency records) is byte-identical to before.

Never a 5xx.  After any request the stored record is consistent (the hash's
version equals the log's distinct versions 1..N).

Then each game's own fixed requests: for Gops, exact reproductions of bugs the sweep found once (a 500
on absurdly nested JSON or a 5000-digit number, non-integers accepted as integers, a trailing newline
accepted in a hex field, an HTML redirect for an empty path segment); for Gofo, fixed adversarial
bodies at every move of a dealt and a tabletop table, and bad table options.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType

import jsonschema
import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st
from support import sweep_gofo, sweep_gops
from support.chance import seeded_referee
from support.client import bearer
from support.store import snapshot, stored
from support.sweep import NOT_JSON, PROBLEM, sweep

from service.games import commitments
from service.games.gofo.cards import DECK


@dataclass(frozen=True)
class Game:
    """One game's sweep: its driver (``OPERATIONS``, ``one_request``, ``action_sequence``), the
    operations it must reach, and how many examples each sweep draws."""

    name: str
    driver: ModuleType
    must_cover: frozenset[str]
    min_moves: int  # POST operations under /seats/{seat}/
    one_request_examples: int
    sequence_examples: int


GAMES = [
    Game("gops", sweep_gops, frozenset({"createGopsGame", "commitGopsBid", "revealGopsBid", "getGopsTranscript"}),
         min_moves=4, one_request_examples=700, sequence_examples=120),
    Game("gofo", sweep_gofo, frozenset({"createGofoTable", "getGofoTable", "getGofoSeatView", "getGofoLedger",
                                        "getGofoTranscript", "enforceGofoDeadline", "gofoOpen", "gofoNoVer",
                                        "gofoDiscard", "gofoShow", "gofoReportReshuffle"}),
         min_moves=15, one_request_examples=500, sequence_examples=60),
]
by_name = pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)


@pytest.fixture
def raw(redis_url):
    client = redis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        client.close()


# ------------------------------------------------------------ both games: the sweep


@by_name
def test_the_sweep_covers_every_operation(game):
    operations = game.driver.OPERATIONS
    assert game.must_cover <= {o.name for o in operations}
    posts = [o for o in operations if o.method == "POST"]
    assert all(o.body_schema is not None for o in posts)
    assert len([o for o in posts if "{seat}" in o.template]) >= game.min_moves


@by_name
def test_every_operation_refuses_garbage_cleanly(client, raw, redis_client, game):
    """One adversarial request at any operation of a fresh game or table (any setup)."""

    @sweep(game.one_request_examples)
    @given(data=st.data())
    def one_request(data):
        with seeded_referee():
            game.driver.one_request(client, raw, data.draw)

    one_request()


@by_name
def test_random_action_sequences(client, raw, redis_client, game):
    """Plausible moves, near misses and garbage interleaved: every phase of every setup gets fuzzed."""

    @sweep(game.sequence_examples)
    @given(data=st.data())
    def action_sequence(data):
        with seeded_referee():
            game.driver.action_sequence(client, raw, data.draw)

    action_sequence()


# ------------------------------------------- Gops: bugs the sweep found once, exact reproductions


def _game(client) -> tuple[str, list[str]]:
    data = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    return data["id"], data["seat_tokens"]


@pytest.mark.parametrize("path", ["/v1/gops/games", "/seats/0/commit"])
def test_kb1_deeply_nested_body_is_400_not_500(client, raw, redis_client, path):
    game_id, tokens = _game(client)
    url = path if path.startswith("/v1") else f"/v1/gops/games/{game_id}{path}"
    before = stored(raw, "gops", game_id)
    r = client.post(url, data="[" * 5000 + "]" * 5000, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert stored(raw, "gops", game_id) == before
    assert r.status_code == 400 and r.get_json()["code"] == "malformed_json", r.get_data()


def test_kb2_integer_with_5000_digits_is_4xx_not_500(client, raw, redis_client):
    game_id, tokens = _game(client)
    body = '{"round": 1' + "0" * 5000 + ', "commitment": "' + "a" * 64 + '"}'
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", data=body, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert r.status_code in (400, 422), r.get_data()


@pytest.mark.parametrize("body", [
    {"round": 1.5}, {"round": "1"}, {"round": 1, "version": 2.9},
])
def test_kb3_non_integers_are_refused(client, raw, redis_client, body):
    game_id, tokens = _game(client)
    salt = "ab" * 32
    commitment = commitments.bid_commitment(game_id, 1, 0, [5], salt)
    before = stored(raw, "gops", game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"commitment": commitment, **body},
                    headers=bearer(tokens[0]))
    assert r.status_code == 422, r.get_data()[:200]
    assert stored(raw, "gops", game_id) == before


def test_kb4_commitment_with_trailing_newline_is_refused(client, raw, redis_client):
    game_id, tokens = _game(client)
    salt = "ab" * 32
    commitment = commitments.bid_commitment(game_id, 1, 0, [5], salt)
    before = stored(raw, "gops", game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"round": 1, "commitment": commitment + "\n"},
                    headers=bearer(tokens[0]))
    assert r.status_code == 422, r.get_data()[:200]
    assert stored(raw, "gops", game_id) == before


def test_kb5_empty_path_segment_is_a_problem_404(client, redis_client):
    r = client.get("/v1/gops/games//transcript")
    assert r.status_code == 404 and r.mimetype == PROBLEM, (r.status_code, r.headers.get("Location"))


@pytest.mark.parametrize("body", [
    b'\xef\xbb\xbf{"round": 1, "commitment": "' + b"a" * 64 + b'"}',  # a UTF-8 byte order mark
    '{"round": 1, "commitment": "{}"}'.replace("{}", "a" * 64).encode("utf-16"),  # UTF-16, with its mark
    b'{"round": 1, "commitment": "\xff\xfe"}',  # not UTF-8
])
def test_a_body_that_is_not_utf8_json_text_is_malformed_json(client, raw, body):
    """The body is parsed once, as webargs parses it (UTF-8 text): what the json module would
    also take as bytes (a BOM, UTF-16) is refused as webargs refused it, 400 malformed_json."""
    game_id, tokens = _game(client)
    before = stored(raw, "gops", game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", data=body, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert r.status_code == 400 and r.get_json()["code"] == "malformed_json", r.get_data()
    assert stored(raw, "gops", game_id) == before


@pytest.mark.parametrize("body, key", [
    ('{"round": 1, "commitment": "%s", "round": 2}' % ("a" * 64), "round"),  # at the top: the last would win
    ('{"round": 1, "commitment": "%s", "version": {"x": 1, "x": 2}}' % ("a" * 64), "x"),  # inside (a 422 else)
    ('{"round": 1, "commitment": "%s", "round": 1}' % ("a" * 64), "round"),  # twice the same value too
])
def test_a_body_holding_a_key_twice_is_refused(client, raw, body, key):
    """The json module keeps a repeated key's last value; a proxy in front may read the first. No body
    with a key twice in one object, at any depth, is taken: 400 duplicate_key naming it, nothing stored."""
    game_id, tokens = _game(client)
    before = stored(raw, "gops", game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", data=body, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert r.status_code == 400 and r.mimetype == PROBLEM, r.get_data()
    problem = r.get_json()
    assert problem["code"] == "duplicate_key" and f'"{key}"' in problem["detail"], problem
    assert stored(raw, "gops", game_id) == before


def test_a_gofo_move_with_its_amount_twice_is_refused(client, raw):
    """``{"amount": 300, "amount": 3}`` opened 3: a proxy reading the first value saw a move of 300."""
    table_id, tokens, _ = _table(client)
    mano = client.get(f"{TABLES}/{table_id}").get_json()["hand"]["to_act"]
    before = stored(raw, "gofo", table_id)
    r = client.post(f"{TABLES}/{table_id}/seats/{mano}/open", data='{"amount": 300, "amount": 3}',
                    content_type="application/json", headers=bearer(tokens[mano]))
    assert r.status_code == 400 and r.get_json()["code"] == "duplicate_key", r.get_data()
    assert '"amount"' in r.get_json()["detail"]
    assert stored(raw, "gofo", table_id) == before


def test_a_create_with_a_key_twice_in_a_nested_object_creates_nothing(client, raw):
    keys = set(raw.scan_iter())
    r = client.post("/v1/gofo/tables", data='{"seats": 3, "bots": [{"seat": 1, "level": 2, "seat": 2}]}',
                    content_type="application/json")
    assert r.status_code == 400 and r.get_json()["code"] == "duplicate_key", r.get_data()
    assert set(raw.scan_iter()) - keys == set()


def test_a_chunked_body_with_a_key_twice_is_refused_too(live_server):
    """A body without a Content-Length (chunked) is parsed in the same one place under gunicorn."""
    import requests

    body = b'{"seats": 3, "seats": 5}'
    r = requests.post(f"{live_server}/v1/gofo/tables", data=iter([body[:10], body[10:]]),
                      headers={"Content-Type": "application/json"}, timeout=30)
    assert r.status_code == 400 and r.json()["code"] == "duplicate_key", (r.status_code, r.text[:200])


def test_a_move_s_body_is_parsed_once(client, monkeypatch):
    """``_json_only`` parses the body (service.web.json_body) and webargs takes that parse (service.api.common.Blueprint):
    the json module reads a move's body once, and the move is applied as sent."""
    import webargs.core

    from service.web import json_body

    game_id, tokens = _game(client)
    parses: list[str] = []
    real, decoder = json.loads, json_body.DECODER

    def counting(parse):
        def parsing(text, *args, **kwargs):
            parses.append(text if isinstance(text, str) else text.decode())
            return parse(text, *args, **kwargs)
        return parsing

    monkeypatch.setattr(webargs.core.json, "loads", counting(real))  # how webargs would parse it again
    monkeypatch.setattr(json_body, "DECODER", type("Counting", (), {"decode": staticmethod(counting(decoder.decode))}))
    body = {"round": 1, "commitment": "a" * 64}
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json=body,
                    headers=bearer(tokens[0]))
    assert [real(p) for p in parses] == [body]  # (before the answer is read: that is json too)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["commitments"] == {"0": "a" * 64}


# ---------------------------------------------- Gofo: fixed adversarial requests at every move


TABLES = sweep_gofo.TABLES
MOVE_OPS, POST_OPS = sweep_gofo.MOVE_OPS, sweep_gofo.POST_OPS


def _table(client, mode="dealt"):
    data = client.post(TABLES, json={"seats": 3, "mode": mode}).get_json()
    return data["id"], data["seat_tokens"], data["host_token"]


ADVERSARIAL = [
    ("deep_list", "[" * 5000 + "]" * 5000, "application/json"),
    ("deep_object", '{"a":' * 3000 + "1" + "}" * 3000, "application/json"),
    ("huge_int", '{"amount": 1' + "0" * 5000 + "}", "application/json"),
    ("float", '{"amount": 1.5, "blind": true, "points": 20.0}', "application/json"),
    ("string_int", '{"amount": "2", "points": "20"}', "application/json"),
    ("nan", '{"amount": NaN}', "application/json"),
    ("bool_as_int", '{"amount": true, "blind": 1, "points": false}', "application/json"),
    ("null_body", "null", "application/json"),
    ("array_body", "[]", "application/json"),
    ("bad_card", '{"cards": ["3o\\n", "13o", "3x", "3O", "03o"]}', "application/json"),
    ("too_many_cards", json.dumps({"cards": list(DECK[:6])}), "application/json"),
    ("dup_cards", json.dumps({"cards": ["3o", "3o", "3o", "3o", "3o"]}), "application/json"),
    ("count_and_cards", json.dumps({"cards": ["3o"], "count": 4}), "application/json"),
    ("negative_count", json.dumps({"count": -1}), "application/json"),
    ("version_float", '{"version": 1.0}', "application/json"),
    ("bom", "\ufeff{}", "application/json"),
    ("not_json", "{'amount': 1}", "application/json"),
    ("form", "amount=1", "application/x-www-form-urlencoded"),
    ("text", "{}", "text/plain"),
    ("huge", '{"x": "' + "a" * 40000 + '"}', "application/json"),
]


@pytest.mark.parametrize("mode", ["dealt", "tabletop"])
@pytest.mark.parametrize("label,data,ctype", ADVERSARIAL, ids=[a[0] for a in ADVERSARIAL])
def test_every_move_refuses_fixed_garbage(client, raw, redis_client, mode, label, data, ctype):
    """Each move and the deadline, with the right token (the host's at a tabletop table): a 2xx only
    for a body the spec allows, otherwise a 4xx problem that changes nothing."""
    table_id, tokens, host = _table(client, mode)
    public = client.get(f"{TABLES}/{table_id}").get_json()
    seat = public["hand"]["to_act"]
    token = tokens[seat] if mode == "dealt" else host
    for name, op in [*MOVE_OPS.items(), ("deadline", next(o for o in POST_OPS if o.template.endswith("/deadline")))]:
        path = op.template.replace("{table_id}", table_id).replace("{seat}", str(seat))
        before = stored(raw, "gofo", table_id), snapshot(raw)
        r = client.post(path, data=data.encode("utf-8"), content_type=ctype,
                        headers=bearer(token))
        assert r.status_code < 500, (name, label, r.status_code, r.get_data()[:300])
        if r.status_code >= 400:
            assert r.mimetype == PROBLEM and r.get_json()["status"] == r.status_code, (name, label, r.get_data()[:300])
            assert (stored(raw, "gofo", table_id), snapshot(raw)) == before, (name, label, r.get_json())
        else:
            body = json.loads(data) if ctype == "application/json" else NOT_JSON
            assert body is not NOT_JSON and op.body_schema is not None

            assert jsonschema.Draft7Validator(op.body_schema).is_valid(body), (name, label, r.status_code)
            break  # the table moved on


@pytest.mark.parametrize("body", [
    {"seats": 2.0}, {"seats": "5"}, {"seats": True}, {"seats": 0}, {"seats": 10**30}, {"caja": -1},
    {"caja": 5, "refill": 10}, {"initial_front": 0}, {"mode": "DEALT"}, {"mode": None}, {"turn_seconds": 4},
    {"turn_seconds": 86401}, {"turn_seconds": 1.5}, {"seats": 5, "extra": 1}, [], None, "x",
    {"caja": 1, "refill": 1, "initial_front": 1}, {"caja": 1_000_000, "refill": 1_000_000, "initial_front": 1_000_000},
])
def test_create_refuses_bad_options_cleanly(client, raw, redis_client, body):
    before = snapshot(raw)
    r = client.post(TABLES, data=json.dumps(body), content_type="application/json")
    assert r.status_code < 500, r.get_data()[:300]
    if r.status_code != 201:
        assert 400 <= r.status_code < 500 and r.mimetype == PROBLEM, r.get_data()[:300]
        assert snapshot(raw) == before
