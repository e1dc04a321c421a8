"""Hypothesis sweep of bad input at every Gops operation (Flask test client, real Valkey).

The operations come from the generated spec (``service.openapi.generate()``),
so a new endpoint is swept as soon as it exists.  Each request gets a random
or adversarial body (any JSON, wrong types per field, huge / negative /
fractional numbers, unicode, long strings, NUL bytes, deep nesting, non-JSON,
empty), random path parameters (unicode, ``..``, ``%00``, very long), random
headers (garbage Authorization, huge headers, wrong Content-Type, bad
Idempotency-Key / If-None-Match) and sometimes a method the path does not
have.  Between fuzzed requests, plausible moves keep the game progressing so
the fuzz reaches every phase.

The only acceptable outcomes:

* a 2xx whose JSON body matches the operation's response schema in the spec,
  and only for a body that matches the operation's request schema;
* 304 for a GET with a matching ``If-None-Match``;
* a 4xx ``application/problem+json`` with ``type/title/status/detail/code``,
  ``status`` equal to the HTTP status, after which every stored key (hash,
  log list, idempotency records) is byte-identical to before.

Never a 5xx.  After any request the stored game is consistent (the hash's
version equals the log's distinct versions 1..N).

Bugs the sweep found once (a 500 on absurdly nested JSON or a 5000-digit
number, non-integers accepted as integers, a trailing newline accepted in a hex
field, an HTML redirect for an empty path segment) keep an exact reproduction
at the end of this file.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

from service.games import commitments
from support.chance import seeded_referee
from support.store import snapshot, stored
from support.sweep import (
    ID_NASTIES,
    PROBLEM,
    SEAT_NASTIES,
    Body,
    Operation,
    bodies,
    check,
    headers,
    near_miss,
    operations_under,
    sweep,
)
from support.client import bearer


OPERATIONS = operations_under("/v1/gops/")
POST_OPS = [o for o in OPERATIONS if o.method == "POST"]


def test_the_sweep_covers_every_operation():
    names = {o.name for o in OPERATIONS}
    assert {"createGopsGame", "commitGopsBid", "revealGopsBid", "getGopsTranscript"} <= names
    assert all(o.body_schema is not None for o in POST_OPS)


# ------------------------------------------------------------ the world


@dataclass
class World:
    client: Any
    raw: redis.Redis
    id: str
    host: str
    tokens: list[str]
    bids: dict[tuple[int, int], tuple[list[int], str]] = field(default_factory=dict)
    poisoned: set[tuple[int, int, str]] = field(default_factory=set)
    kind: str = "gops"

    @property
    def base(self) -> str:
        return f"/v1/gops/games/{self.id}"

    def public(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.get_data()
        return r.get_json()


# Deterministic prize orders: the sequences' draws depend on the game's course, and hypothesis
# needs the same draws to give the same game when it replays or shrinks an example.
GAME_SETUPS = [
    {"profile": "classic", "options": {"ranks": 4, "prize_order": "descending"}},
    {"profile": "standard", "options": {"players": 3, "ranks": 3, "resolution": "split", "prize_order": "ascending"}},
    {"profile": "standard", "options": {"ranks": 4, "open_prizes": 2, "prize_order": "explicit", "explicit_order": [2, 4, 1, 3]}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported"}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported", "visibility": "blind"}},
    {"profile": "standard", "options": {"ranks": 4, "bid_cards": 2, "prize_order": "ascending"}},
    {"profile": "classic", "options": {"ranks": 3, "deadline_seconds": 600, "prize_order": "descending"},
     "match": {"format": "best_of", "games": 3}},
]
# One request at a fresh game does not depend on the game's course: shuffled orders are fine there.
SINGLE_SETUPS = [*GAME_SETUPS, {"profile": "classic"}, {"profile": "standard", "options": {"players": 7}}]


def new_world(client, raw, setup: dict[str, Any]) -> World:
    raw.flushdb()
    r = client.post("/v1/gops/games", json=setup)
    assert r.status_code == 201, r.get_data()
    data = r.get_json()
    return World(client, raw, data["id"], data["host_token"], data["seat_tokens"])


# ------------------------------------------------------------ strategies


@st.composite
def paths(draw, world: World, op: Operation, players: int) -> tuple[str, bool, int | None]:
    """The request path; whether it targets ``op`` as routed; the seat if any."""
    routed = True
    game_id = urllib.parse.quote(world.id, safe="")
    if "{game_id}" in op.template and draw(st.integers(0, 4)) == 0:
        routed = False
        choice = draw(st.one_of(st.sampled_from(ID_NASTIES), st.text(min_size=1, max_size=30)))
        game_id = choice if draw(st.booleans()) and choice in ID_NASTIES else urllib.parse.quote(choice, safe="")
    seat: int | None = draw(st.integers(0, players - 1))
    seat_text = str(seat)
    if "{seat}" in op.template and draw(st.integers(0, 4)) == 0:
        seat_text = draw(st.one_of(st.sampled_from(SEAT_NASTIES), st.integers().map(str)))
        # werkzeug's int converter takes any run of decimal digits ("00", "１"): still this route.
        seat = int(seat_text) if seat_text.isdecimal() else None
        routed = routed and seat is not None
    path = op.template.replace("{game_id}", game_id).replace("{seat}", seat_text)
    return path, routed, seat


# ------------------------------------------------------- plausible moves


def plausible_move(world: World, state: dict[str, Any], draw) -> tuple[str, dict[str, Any], str] | None:
    """A legal-looking move for the current phase (so the fuzz sees every phase)."""
    phase, round_ = state["phase"], state["round"]
    awaiting = state["awaiting"]
    if phase == "commit" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        hand = state["hands"][seat]
        k = state["rules"]["bid_cards"]
        cards = draw(st.permutations(hand))[:k]
        salt = draw(st.text("0123456789abcdef", min_size=64, max_size=64))
        world.bids[(state["game_number"], round_, seat)] = (cards, salt)
        commitment = commitments.bid_commitment(state["game_id"], round_, seat, cards, salt)
        return f"{world.base}/seats/{seat}/commit", {"round": round_, "commitment": commitment}, world.tokens[seat]
    if phase == "reveal" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        bid = world.bids.get((state["game_number"], round_, seat))
        if bid is None:
            return None
        cards, salt = bid
        return f"{world.base}/seats/{seat}/reveal", {"round": round_, "cards": cards, "salt": salt}, world.tokens[seat]
    if phase == "choose" and state["chooser"] is not None:
        seat = state["chooser"]
        return f"{world.base}/seats/{seat}/choose", {"rank": draw(st.sampled_from(state["row"]))}, world.tokens[seat]
    if phase == "prize":
        left = [r for r in range(1, state["rules"]["ranks"] + 1) if r not in state["turned"]]
        if left:
            return f"{world.base}/prize", {"rank": draw(st.sampled_from(left))}, world.host
    return None


# ---------------------------------------------------------------- sweeps


@pytest.fixture
def raw(redis_url):
    client = redis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        client.close()


def fuzz_one(world: World, draw, players: int) -> None:
    op = draw(st.sampled_from(OPERATIONS))
    method = op.method if draw(st.integers(0, 9)) else draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))
    path, routed, seat = draw(paths(world, op, players))
    body = draw(bodies(op if method == "POST" else None)) if method != "GET" else Body(None, None, None, "none")
    hdrs = draw(headers(world, seat))
    check(world, op, method, path, routed, body, hdrs, snapshot(world.raw))


@sweep(700)
@given(data=st.data())
def test_every_operation_refuses_garbage_cleanly(client, raw, redis_client, data):
    """One adversarial request at any operation of a fresh game (any setup)."""
    with seeded_referee():
        setup = data.draw(st.sampled_from(SINGLE_SETUPS))
        world = new_world(client, raw, setup)
        fuzz_one(world, data.draw, len(world.tokens))


@sweep(120)
@given(data=st.data())
def test_random_action_sequences(client, raw, redis_client, data):
    """Plausible moves interleaved with garbage: every phase of every setup gets fuzzed."""
    with seeded_referee():
        _gops_action_sequence(client, raw, data)


def _gops_action_sequence(client, raw, data) -> None:
    setup = data.draw(st.sampled_from(GAME_SETUPS))
    world = new_world(client, raw, setup)
    players = len(world.tokens)
    for _ in range(data.draw(st.integers(5, 40))):
        kind = data.draw(st.sampled_from(["move", "move", "near", "near", "fuzz", "fuzz", "resign", "deadline"]))
        state = world.public()
        if kind in ("move", "near"):
            move = plausible_move(world, state, data.draw)
            if move is None:
                continue
            path, payload, token = move
            op = next(o for o in POST_OPS if path.endswith(o.template.rsplit("/", 1)[1]))
            if kind == "near":
                payload = data.draw(near_miss(payload, state["version"]))
            body = Body(json.dumps(payload).encode(), "application/json", payload, kind)
            response = check(world, op, "POST", path, True, body, bearer(token),
                             snapshot(world.raw))
            seat_round = (state["game_number"], state["round"], path.split("/seats/")[-1].split("/")[0])
            if kind == "near" and response.status_code == 200 and path.endswith("/commit"):
                world.poisoned.add(seat_round)  # a near-miss commitment may be unrevealable
            if kind == "move" and state["phase"] != "over" and seat_round not in world.poisoned:
                assert response.status_code == 200, response.get_data()
        elif kind in ("resign", "deadline") and data.draw(st.integers(0, 5)) == 0:
            seat = data.draw(st.integers(0, players - 1))
            suffix = f"/seats/{seat}/resign" if kind == "resign" else "/deadline"
            op = next(o for o in POST_OPS if o.template.endswith(suffix.rsplit("/", 1)[1]))
            token = world.tokens[seat] if kind == "resign" else world.host
            body = Body(b"{}", "application/json", {}, kind)
            check(world, op, "POST", world.base + suffix, True, body, bearer(token),
                  snapshot(world.raw))
        else:
            fuzz_one(world, data.draw, players)


# ------------------------------------------- bugs the sweep found once: exact reproductions


def _game(client) -> tuple[str, list[str]]:
    data = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    return data["id"], data["seat_tokens"]


def _stored(raw, game_id):
    return stored(raw, "gops", game_id)


@pytest.mark.parametrize("path", ["/v1/gops/games", "/seats/0/commit"])
def test_kb1_deeply_nested_body_is_400_not_500(client, raw, redis_client, path):
    game_id, tokens = _game(client)
    url = path if path.startswith("/v1") else f"/v1/gops/games/{game_id}{path}"
    before = _stored(raw, game_id)
    r = client.post(url, data="[" * 5000 + "]" * 5000, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert _stored(raw, game_id) == before
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
    before = _stored(raw, game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"commitment": commitment, **body},
                    headers=bearer(tokens[0]))
    assert r.status_code == 422, r.get_data()[:200]
    assert _stored(raw, game_id) == before


def test_kb4_commitment_with_trailing_newline_is_refused(client, raw, redis_client):
    game_id, tokens = _game(client)
    salt = "ab" * 32
    commitment = commitments.bid_commitment(game_id, 1, 0, [5], salt)
    before = _stored(raw, game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"round": 1, "commitment": commitment + "\n"},
                    headers=bearer(tokens[0]))
    assert r.status_code == 422, r.get_data()[:200]
    assert _stored(raw, game_id) == before


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
    before = _stored(raw, game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", data=body, content_type="application/json",
                    headers=bearer(tokens[0]))
    assert r.status_code == 400 and r.get_json()["code"] == "malformed_json", r.get_data()
    assert _stored(raw, game_id) == before


def test_a_move_s_body_is_parsed_once(client, monkeypatch):
    """``_json_only`` parses the body and webargs takes that parse (service.api.common.Blueprint):
    the json module reads a move's body once, and the move is applied as sent."""
    import webargs.core

    from service.web import app as app_module

    game_id, tokens = _game(client)
    parses: list[str] = []
    real = json.loads

    def counting(text, *args, **kwargs):
        parses.append(text if isinstance(text, str) else text.decode())
        return real(text, *args, **kwargs)

    assert app_module.json is webargs.core.json  # the json module both use
    monkeypatch.setattr(app_module.json, "loads", counting)
    body = {"round": 1, "commitment": "a" * 64}
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json=body,
                    headers=bearer(tokens[0]))
    assert [real(p) for p in parses] == [body]  # (before the answer is read: that is json too)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["commitments"] == {"0": "a" * 64}
