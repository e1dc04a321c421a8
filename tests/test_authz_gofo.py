"""The authorization matrix of every Gofo operation that takes a token, and what each view may show.

For each token-taking operation (a seat's view, every move under ``/seats/{seat}/{move}``, the
deadline) and each wrong credential: the exact status and problem ``code``, ``application/problem+json``,
every stored key (the table's hash and ``:log`` list included) byte-for-byte unchanged, and no byte of
what the caller may not see (another seat's cards, a folded hand, the deck order and salts of the hand
in progress, token hashes).  The move list comes from the generated spec, so a new move is covered (or
fails loudly for want of a sample body).

Then random dealt hands (seeded random legal play, 5 seats, several hands): at every step the public
view and each seat's view show no card the viewer may not see, checked against the stored state.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import secrets
from dataclasses import dataclass
from typing import Any

import pytest
from support.client import FlaskHttp, LiveHttp, bearer

from service.games.gofo import deal as deal_rules
from service.games.gofo.cards import DECK
from service.openapi import generate
from support import store as support_store
from support.store import snapshot, stored

TABLES = "/v1/gofo/tables"
SPEC = generate()
CARDS = set(DECK)
CARD_IN_TEXT = re.compile(r"(?<![\w-])(?:1[12]|[3-7])[ocbe](?![\w-])")


# ------------------------------------------------------------ the operations


# A plausible body per move (the matrix refuses before the rules look at it).
BODIES: dict[str, dict[str, Any]] = {
    "open": {"amount": 1}, "look": {}, "enter": {"blind": False}, "decline": {}, "raise": {"amount": 1},
    "pass": {}, "ver": {}, "no-ver": {}, "voy": {}, "corta": {"amount": 1}, "refiche": {"amount": 1},
    "discard": {"cards": []}, "show": {"cards": ["6e", "7e", "11e", "12e", "4o"]}, "declare": {"points": 20},
    "muck": {}, "reshuffle": {}, "inaugurate": {"front": 20},
}


@dataclass(frozen=True)
class Op:
    name: str
    method: str
    template: str  # {table_id}, {seat}
    body: dict | None
    seat_op: bool  # a seat's own (tabletop: or the host) vs anyone at the table

    def path(self, table_id: str, seat: int) -> str:
        return self.template.replace("{table_id}", table_id).replace("{seat}", str(seat))


def _ops() -> list[Op]:
    ops = []
    for template, item in SPEC["paths"].items():
        if not template.startswith(f"{TABLES}/{{table_id}}"):
            continue
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            security = op.get("security", [])
            if not any("bearerAuth" in s for s in security) or {} in security:
                continue  # no token needed (a spectator's stream): tests/test_events.py authorizes it
            suffix = template.rsplit("/", 1)[1]
            seat_op = "{seat}" in template
            body = None if method == "get" else (BODIES.get(suffix) if seat_op else {})
            ops.append(Op(op["operationId"], method.upper(), template, body, seat_op))
    return ops


OPS = _ops()
SEAT_OPS = [op for op in OPS if op.seat_op]
MOVES = [op for op in SEAT_OPS if op.method == "POST"]
TABLE_OPS = [op for op in OPS if not op.seat_op]
ids = lambda op: op.name


def test_the_matrix_covers_every_token_operation():
    names = {op.name for op in OPS}
    assert {"getGofoSeatView", "enforceGofoDeadline", "gofoOpen", "gofoNoVer", "gofoReportReshuffle"} <= names
    assert len(MOVES) >= 15
    missing = [op.template for op in MOVES if op.body is None]
    assert not missing, f"new Gofo moves without a sample body in BODIES: {missing}"
    # Every operation under the table that is not a public read declares the bearer scheme.
    for template, item in SPEC["paths"].items():
        if template.startswith(TABLES + "/"):
            for method, op in item.items():
                if method == "post" or (method == "get" and "{seat}" in template):
                    assert op.get("security"), (method, template)


# ---------------------------------------------------------------- the scene


@dataclass
class Scene:
    """A 5-seat dealt table mid-hand, a 3-seat tabletop table, and unrelated tables.

    Dealt table ``a``, hand 1: mano opened, everyone entered (one blind), the blind entrant raised,
    ``folded`` saw his two cards and folded, everyone else saw; speaking round 1 (all voy), each live
    seat threw two cards face up; speaking round 2 awaits ``to_act`` (mano).
    """

    a: dict
    t: dict  # tabletop
    b: dict  # another dealt table
    g: dict  # a Gops game
    to_act: int
    folded: int
    folded_cards: list[str]
    doc: dict  # the stored document of ``a`` at the scene

    @property
    def id(self) -> str:
        return self.a["id"]

    def seat(self, n: int) -> str:
        return self.a["seat_tokens"][n]

    @property
    def host(self) -> str:
        return self.a["host_token"]

    def foreign_tokens(self) -> list[str]:
        return [self.b["host_token"], *self.b["seat_tokens"], self.t["host_token"], *self.t["seat_tokens"],
                self.g["host_token"], *self.g["seat_tokens"]]

    def all_tokens(self) -> list[str]:
        return [self.host, *self.a["seat_tokens"], *self.foreign_tokens()]

    def face_up(self) -> set[str]:
        hand = self.doc["state"]["hand"]
        return {c for d in hand["discard_log"] for c in (d["cards"] or [])} | {c for k in hand["kept"] for c in k}

    def hidden_cards(self) -> set[str]:
        """Every card of table ``a`` no caller of a refusal may see: all hands, the stock, the pile
        (folded hands) except what was thrown face up."""
        hand = self.doc["state"]["hand"]
        cards = {c for h in hand["hands"] for c in h} | set(hand["stock"]) | set(hand["pile"]) | set(self.folded_cards)
        return cards - self.face_up()

    def secret_strings(self) -> list[str]:
        """Salts and keys of the hand in progress, token hashes, the tokens themselves."""
        deal = self.doc["deals"]["1"]
        out = [*deal["salts"], *deal["reshuffle_keys"], *self.all_tokens()]
        out += [hashlib.sha256(t.encode()).hexdigest() for t in self.all_tokens()]
        out.append(",".join(deal["order"]))
        out.append(json.dumps(deal["order"]))
        return out


def stored_doc(redis_client, table_id: str) -> dict:
    return support_store.stored_doc(redis_client, "gofo", table_id)


def _post(client, path, body, token=None):
    r = client.post(path, json=body, headers=bearer(token) if token else {})
    assert r.status_code == 200, (path, body, r.get_json())
    return r.get_json()


@pytest.fixture
def scene(client, redis_client) -> Scene:
    created = client.post(TABLES, json={"seats": 5, "turn_seconds": 600})
    assert created.status_code == 201
    a = created.get_json()
    t = client.post(TABLES, json={"seats": 3, "mode": "tabletop"}).get_json()
    b = client.post(TABLES, json={"seats": 5}).get_json()
    g = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    base, tokens = f"{TABLES}/{a['id']}", a["seat_tokens"]

    def hand():
        return client.get(base).get_json()["hand"]

    def play(move, **body):
        seat = hand()["to_act"]
        return seat, _post(client, f"{base}/seats/{seat}/{move}", body, tokens[seat])

    def legal(seat):
        view = client.get(f"{base}/seats/{seat}", headers=bearer(tokens[seat])).get_json()
        return {x["type"] for x in view["hand"]["legal_actions"]}

    mano = hand()["mano"]
    order = [(mano + k) % 5 for k in range(5)]
    play("open", amount=1)
    play("enter", blind=False)
    play("enter", blind=True)
    _, view = play("enter", blind=False)
    folded_cards = view["hand"]["my_cards"]
    assert len(folded_cards) == 2
    play("enter", blind=False)
    play("pass")  # mano does not raise; the blind entrant does
    play("raise", amount=1)
    while hand()["phase"] in ("raising", "betting"):
        seat = hand()["to_act"]
        moves = legal(seat)
        play("no-ver" if seat == order[3] and "no_ver" in moves else "ver" if "ver" in moves else "pass")
    while hand()["phase"] == "speaking":
        play("voy")
    while hand()["phase"] == "discard":
        seat = hand()["to_act"]
        mine = client.get(f"{base}/seats/{seat}", headers=bearer(tokens[seat])).get_json()["hand"]["my_cards"]
        play("discard", cards=mine[:2])
    h = hand()
    assert h["phase"] == "speaking" and h["round"] == 2 and h["to_act"] == mano
    assert h["status"][order[3]] == "folded" and len(h["discards"]) == 4
    doc = stored_doc(redis_client, a["id"])
    assert not set(folded_cards) & {c for d in h["discards"] for c in d["cards"]}
    return Scene(a, t, b, g, mano, order[3], folded_cards, doc)




def table_state(redis_client, table_id: str):
    return stored(redis_client, "gofo", table_id)


def cards_in(node: Any, skip_draws: bool = True) -> set[str]:
    """Every card named anywhere in a JSON value (as a value or inside a text); the first-dealer
    draw (``table.draws``, its own deck) left out."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if skip_draws and key == "draws":
                continue
            found |= cards_in(value, skip_draws)
    elif isinstance(node, list):
        for value in node:
            found |= cards_in(value, skip_draws)
    elif isinstance(node, str):
        if node in CARDS:
            found.add(node)
        else:
            found |= {c for c in CARD_IN_TEXT.findall(node) if c in CARDS}
    return found


def assert_nothing_secret(response, scene: Scene, may_see: set[str] = frozenset()) -> None:
    raw = response.get_data(as_text=True)
    for secret in scene.secret_strings():
        assert secret not in raw
    for value in response.headers.values():
        assert not CARD_IN_TEXT.search(value) or not (set(CARD_IN_TEXT.findall(value)) & scene.hidden_cards())
    body = response.get_json(silent=True)
    if isinstance(body, dict) and isinstance(body.get("entries"), list):  # a transcript
        body = {**body, "entries": [e for e in body["entries"] if e["action"]["type"] != "dealer_draw"]}
    leaked = cards_in(body) & (scene.hidden_cards() - set(may_see))
    assert not leaked, f"the response shows cards the caller may not see: {sorted(leaked)}"


def assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"https://referee.example/problems/{code}"
    if status == 401:
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="referee"'


def call(client, op: Op, table_id: str, seat: int, headers=None, query: str = "", body=None):
    path = op.path(table_id, seat) + query
    if op.method == "GET":
        return client.get(path, headers=headers or {})
    return client.post(path, json=op.body if body is None else body, headers=headers or {})


def refused(client, redis_client, scene: Scene, op: Op, status: int, code: str, *, table_id=None,
            seat=None, **kw):
    table_id = table_id or scene.id
    before, before_table = snapshot(redis_client), table_state(redis_client, scene.id)
    response = call(client, op, table_id, scene.to_act if seat is None else seat, **kw)
    assert_problem(response, status, code)
    assert table_state(redis_client, scene.id) == before_table
    assert snapshot(redis_client) == before
    assert_nothing_secret(response, scene)
    return response


# --------------------------------------------------------- positive controls


def test_the_right_token_passes_authorization_everywhere(client, redis_client, scene):
    """The matrix is not vacuous: the seat to act's own token gets past authorization on every
    seat operation (to the rules: a 200 or a 409/422), and any token of the table on the deadline."""
    for op in SEAT_OPS:
        before = snapshot(redis_client)
        response = call(client, op, scene.id, scene.to_act, headers=bearer(scene.seat(scene.to_act)))
        assert response.status_code in (200, 409, 422), (op.name, response.get_json())
        if response.status_code != 200:
            assert response.get_json()["code"] not in ("missing_token", "invalid_token", "not_your_seat",
                                                       "host_not_allowed", "no_such_seat")
            assert snapshot(redis_client) == before
        if op.method == "POST" and response.status_code == 200:
            break  # the state moved on (voy, corta...): the remaining moves were checked above
    # Lower-case scheme and surrounding spaces are the same scheme.
    r = client.get(f"{TABLES}/{scene.id}/seats/1", headers={"Authorization": f"bearer   {scene.seat(1)}  "})
    assert r.status_code == 200


@pytest.mark.parametrize("who", ["host", "seat0", "to_act", "folded"])
def test_anyone_at_the_table_passes_authorization_for_the_deadline(client, redis_client, scene, who):
    token = {"host": scene.host, "seat0": scene.seat(0), "to_act": scene.seat(scene.to_act),
             "folded": scene.seat(scene.folded)}[who]
    before = snapshot(redis_client)
    response = client.post(f"{TABLES}/{scene.id}/deadline", json={}, headers=bearer(token))
    assert_problem(response, 409, "deadline_not_passed")
    assert snapshot(redis_client) == before
    assert_nothing_secret(response, scene)


# ------------------------------------------------------------------ the matrix


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_no_token(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 401, "missing_token")


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_another_tables_token(client, redis_client, scene, op):
    """Tokens of another Gofo table (dealt or tabletop, host or seat) and of a Gops game."""
    for token in scene.foreign_tokens():
        refused(client, redis_client, scene, op, 401, "invalid_token", headers=bearer(token))


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_unknown_table(client, redis_client, scene, op):
    """No such table: 404 whoever asks; a Gops game's id is not a Gofo table."""
    for table_id in ("NoSuchTable99", scene.g["id"]):
        for headers in ({}, bearer(scene.seat(scene.to_act)), bearer(scene.host), bearer(scene.g["seat_tokens"][0])):
            refused(client, redis_client, scene, op, 404, "game_not_found", table_id=table_id, headers=headers)


@pytest.mark.parametrize("op", SEAT_OPS, ids=ids)
def test_another_seats_token(client, redis_client, scene, op):
    for other in range(5):
        if other == scene.to_act:
            continue
        response = refused(client, redis_client, scene, op, 403, "not_your_seat", headers=bearer(scene.seat(other)))
        assert f"seat {other}" in response.get_json()["detail"]


@pytest.mark.parametrize("op", SEAT_OPS, ids=ids)
def test_host_token_at_a_dealt_table(client, redis_client, scene, op):
    for seat in (scene.to_act, scene.folded):
        refused(client, redis_client, scene, op, 403, "host_not_allowed", seat=seat, headers=bearer(scene.host))


@pytest.mark.parametrize("op", SEAT_OPS, ids=ids)
def test_a_seat_out_of_range(client, redis_client, scene, op):
    """A seat the table does not have: 404 no_such_seat for a token of the table (view or move);
    401 first for a caller without a valid token (the seat count is not told to strangers)."""
    for seat in (5, 6, 7, 99, 10**6):
        for token in (scene.seat(0), scene.seat(scene.to_act), scene.host):
            response = refused(client, redis_client, scene, op, 404, "no_such_seat", seat=seat, headers=bearer(token))
            assert str(seat) in response.get_json()["detail"]
        refused(client, redis_client, scene, op, 401, "missing_token", seat=seat)
        refused(client, redis_client, scene, op, 401, "invalid_token", seat=seat, headers=bearer(scene.b["seat_tokens"][0]))


def _malformed(token: str) -> dict[str, dict[str, str]]:
    return {
        "garbage": {"Authorization": "Bearer not-a-token"},
        "random_well_formed": bearer(secrets.token_urlsafe(32)),
        "right_token_truncated": bearer(token[:-1]),
        "right_token_extended": bearer(token + "A"),
        "right_token_hash": bearer(hashlib.sha256(token.encode()).hexdigest()),
    }


def _unusable(token: str) -> dict[str, dict[str, str]]:
    """Headers the referee does not read a token from at all: 401 missing_token."""
    return {
        "too_long": bearer(token + "A" * 300),
        "non_ascii": {"Authorization": f"Bearer {token[:-2]}é"},
        "basic_scheme": {"Authorization": "Basic " + base64.b64encode(f"{token}:".encode()).decode()},
        "basic_raw": {"Authorization": f"Basic {token}"},
        "no_scheme": {"Authorization": token},
        "empty_bearer": {"Authorization": "Bearer "},
        "token_header": {"X-Api-Key": token, "Token": token},
        "cookie": {"Cookie": f"token={token}"},
    }


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_malformed_tokens(client, redis_client, scene, op):
    for token in (scene.seat(scene.to_act), scene.host):
        for headers in _malformed(token).values():
            refused(client, redis_client, scene, op, 401, "invalid_token", headers=headers)
        for headers in _unusable(token).values():
            refused(client, redis_client, scene, op, 401, "missing_token", headers=headers)


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_token_in_query_string_is_ignored(client, redis_client, scene, op):
    token = scene.seat(scene.to_act)
    for query in (f"?token={token}", f"?access_token={token}", f"?authorization=Bearer%20{token}"):
        refused(client, redis_client, scene, op, 401, "missing_token", query=query)


def test_token_in_the_body_is_ignored_or_refused(client, redis_client, scene):
    """A token in a JSON body never authenticates: a read ignores the body (401); a move's schema
    refuses unknown fields (422 naming the field); a form body is not JSON (415)."""
    token = scene.seat(scene.to_act)
    before = snapshot(redis_client)
    response = client.get(f"{TABLES}/{scene.id}/seats/{scene.to_act}", json={"token": token})
    assert_problem(response, 401, "missing_token")
    for op in [*MOVES, *TABLE_OPS]:
        for field in ("token", "access_token", "authorization"):
            response = call(client, op, scene.id, scene.to_act, body={**op.body, field: token})
            assert_problem(response, 422, "invalid_request")
            assert field in response.get_json()["errors"]
            assert_nothing_secret(response, scene)
        response = client.post(op.path(scene.id, scene.to_act), data={"token": token})
        assert_problem(response, 415, "unsupported_media_type")
    assert snapshot(redis_client) == before


# ----------------------------------------------------------- tabletop tables


@pytest.fixture
def tabletop(client):
    data = client.post(TABLES, json={"seats": 3, "mode": "tabletop", "turn_seconds": 600}).get_json()
    other = client.post(TABLES, json={"seats": 3, "mode": "tabletop"}).get_json()
    return data, other


@pytest.mark.parametrize("op", SEAT_OPS, ids=ids)
def test_tabletop_host_acts_for_any_seat(client, redis_client, tabletop, op):
    """At a tabletop table the host's token passes authorization for every seat (the rules decide);
    another seat's token does not; seats out of range are 404."""
    data, other = tabletop
    table_id = data["id"]
    mano = client.get(f"{TABLES}/{table_id}").get_json()["hand"]["mano"]
    for seat in range(3):
        before = snapshot(redis_client)
        response = call(client, op, table_id, seat, headers=bearer(data["host_token"]))
        assert response.status_code in (200, 409, 422), (op.name, seat, response.get_json())
        if response.status_code == 200:
            body = response.get_json()
            assert body["hand"]["seat"] == seat and "my_cards" not in body["hand"]
            if op.method == "GET":
                assert snapshot(redis_client) == before
        else:
            assert response.mimetype == "application/problem+json"
            assert response.get_json()["code"] not in ("missing_token", "invalid_token", "not_your_seat",
                                                       "host_not_allowed", "no_such_seat")
            assert snapshot(redis_client) == before
        for wrong in range(3):
            if wrong == seat:
                continue
            before = snapshot(redis_client)
            response = call(client, op, table_id, seat, headers=bearer(data["seat_tokens"][wrong]))
            assert_problem(response, 403, "not_your_seat")
            assert snapshot(redis_client) == before
        for headers, status, code in (({}, 401, "missing_token"),
                                      (bearer(other["host_token"]), 401, "invalid_token"),
                                      (bearer(other["seat_tokens"][seat]), 401, "invalid_token")):
            before = snapshot(redis_client)
            assert_problem(call(client, op, table_id, seat, headers=headers), status, code)
            assert snapshot(redis_client) == before
    before = snapshot(redis_client)
    assert_problem(call(client, op, table_id, 3, headers=bearer(data["host_token"])), 404, "no_such_seat")
    assert snapshot(redis_client) == before
    assert mano in range(3)


def test_tabletop_host_opens_for_mano(client, redis_client, tabletop):
    data, _ = tabletop
    base = f"{TABLES}/{data['id']}"
    mano = client.get(base).get_json()["hand"]["mano"]
    r = client.post(f"{base}/seats/{mano}/open", json={"amount": 1}, headers=bearer(data["host_token"]))
    assert r.status_code == 200 and r.get_json()["hand"]["opening"] == 1
    entry = json.loads(stored(redis_client, "gofo", data["id"])[1][-1])
    assert entry["by"] == "host" and entry["seat"] == mano


# ------------------------------------------------------------- what views show


def test_views_at_the_scene_show_only_what_the_viewer_may_see(client, redis_client, scene):
    hands = scene.doc["state"]["hand"]["hands"]
    before = snapshot(redis_client)
    for seat in range(5):
        response = client.get(f"{TABLES}/{scene.id}/seats/{seat}", headers=bearer(scene.seat(seat)))
        assert response.status_code == 200
        mine = response.get_json()["hand"]["my_cards"]
        assert mine == (hands[seat] if seat != scene.folded else [])
        assert_nothing_secret(response, scene, may_see=set(mine))
    for path in ("", "/ledger", "/transcript"):
        for headers in ({}, bearer(scene.seat(0)), bearer(scene.host)):
            response = client.get(f"{TABLES}/{scene.id}{path}", headers=headers)
            assert response.status_code == 200
            assert_nothing_secret(response, scene)
            body = response.get_json()
            assert "my_cards" not in json.dumps(body)
    transcript = client.get(f"{TABLES}/{scene.id}/transcript").get_json()
    shuffles = [e for e in transcript["entries"] if e["action"]["type"] in ("shuffle", "reshuffle")]
    assert shuffles and all(e["action"]["order"] is None for e in shuffles)
    assert transcript["deals"] == []
    assert snapshot(redis_client) == before


def test_the_folded_seat_sees_nothing_of_its_old_hand(client, scene):
    response = client.get(f"{TABLES}/{scene.id}/seats/{scene.folded}", headers=bearer(scene.seat(scene.folded)))
    hand = response.get_json()["hand"]
    assert hand["my_cards"] == [] and hand["legal_actions"] == [] and hand["my_value"] is None
    assert not cards_in(response.get_json()) & set(scene.folded_cards)


def test_idempotent_replay_is_private_to_the_token(client, redis_client, scene):
    """A move sent with an Idempotency-Key replays its answer (with the mover's cards) only to the
    same token: another seat's token with the same key and body is refused as usual."""
    key = secrets.token_urlsafe(16)
    path = f"{TABLES}/{scene.id}/seats/{scene.to_act}/voy"
    first = client.post(path, json={}, headers={**bearer(scene.seat(scene.to_act)), "Idempotency-Key": key})
    assert first.status_code == 200 and first.get_json()["hand"]["my_cards"]
    for token in (scene.seat((scene.to_act + 1) % 5), scene.host, scene.b["seat_tokens"][scene.to_act]):
        before = snapshot(redis_client)
        response = client.post(path, json={}, headers={**bearer(token), "Idempotency-Key": key})
        assert response.status_code in (401, 403), response.get_json()
        assert not cards_in(response.get_json()) & set(first.get_json()["hand"]["my_cards"])
        assert snapshot(redis_client) == before
    response = client.post(path, json={}, headers={"Idempotency-Key": key})
    assert_problem(response, 401, "missing_token")


# ------------------------------------------- random dealt hands: nothing leaks


WEIGHTS = {"enter": 5, "decline": 1, "ver": 6, "no_ver": 1, "voy": 4, "corta": 1, "pass": 4,
           "raise": 1, "refiche": 1, "open": 1, "discard": 1, "look": 1}


def _random_move(rng: random.Random, legal: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    choices = [a for a in legal if a["type"] != "look"] or legal
    action = rng.choices(choices, weights=[WEIGHTS.get(a["type"], 1) for a in choices])[0]
    kind = action["type"]
    if kind in ("open", "raise", "corta", "refiche"):
        hi = min(action["max"], action["min"] + rng.choice([0, 1, 3, 10]))
        return kind, {"amount": rng.randint(action["min"], hi)}
    if kind == "enter":
        return kind, {"blind": bool(action.get("blind"))}
    if kind == "discard":
        n = rng.randint(0, min(action["max"], len(action["cards"])))
        return kind, {"cards": rng.sample(list(action["cards"]), n)}
    return kind.replace("_", "-"), {}


class Observer:
    """Checks every view of a table against the stored truth, step by step."""

    def __init__(self, http, redis_client, table_id: str, tokens: list[str]) -> None:
        self.http, self.redis, self.id, self.tokens = http, redis_client, table_id, tokens
        self.base = f"{TABLES}/{table_id}"
        self.hand_number = None
        self.last_live: list[str] | None = None  # statuses at the last step of the hand in progress
        self.seen: dict[int, set[str]] = {}  # every card each seat was shown during the hand
        self.discards_seen: list[dict] = []
        self.public_by_hand: dict[int, set[str]] = {}
        self.checks = 0

    def step(self) -> dict[str, Any]:
        doc = stored_doc(self.redis, self.id)
        state = doc["state"]
        hand = state["hand"]
        number = state["hand_number"]
        status, public = self.http.get(self.base)
        assert status == 200
        if number != self.hand_number:
            self._hand_finished(public)
            self.hand_number, self.seen, self.discards_seen = number, {}, []
        secrets_now = [*doc["deals"][str(number)]["salts"], *doc["deals"][str(number)]["reshuffle_keys"]]
        face_up = {c for d in hand["discard_log"] for c in (d["cards"] or [])} | {c for k in hand["kept"] for c in k}
        previous = self._previous_public(public)
        views = {None: public}
        for seat in range(len(self.tokens)):
            status, views[seat] = self.http.get(f"{self.base}/seats/{seat}", self.tokens[seat])
            assert status == 200
        for seat, view in views.items():
            raw = json.dumps(view)
            for secret in secrets_now:
                assert secret not in raw
            visible = set()
            if seat is not None:
                truth = hand["hands"][seat] if hand["status"][seat] in ("pending", "in") else []
                expected = truth if hand["looked"][seat] else truth[2:]
                assert view["hand"]["my_cards"] == expected, (seat, view["hand"]["my_cards"], truth)
                visible = set(expected)
                self.seen.setdefault(seat, set()).update(expected)
            elif view["hand"] is not None:
                assert "my_cards" not in view["hand"] and "legal_actions" not in view["hand"]
            shown_now = cards_in(view["hand"])
            leaked = shown_now - visible - face_up
            assert not leaked, f"hand {number}: {'public' if seat is None else f'seat {seat}'} view shows {sorted(leaked)}"
            table_cards = cards_in({k: v for k, v in view["table"].items() if k != "draws"})
            assert table_cards <= previous, (seat, sorted(table_cards - previous))
            self.checks += 1
        self.discards_seen = hand["discard_log"]
        self.last_live = list(hand["status"])
        return public

    def _previous_public(self, public: dict[str, Any]) -> set[str]:
        result = public["table"]["last_result"]
        if result is None:
            return set()
        return self.public_by_hand[result["hand"]]

    def _hand_finished(self, public: dict[str, Any]) -> None:
        result = public["table"]["last_result"]
        if self.hand_number is None or result is None:
            return
        assert result["hand"] == self.hand_number
        # The finished hand's discards continue what was seen during the hand.
        assert result["discards"][: len(self.discards_seen)] == self.discards_seen
        # Only seats still in are shown; an uncontested hand shows nobody.
        for seat, shown in enumerate(result["shown"]):
            if shown is not None:
                assert result["reason"] == "canto" and self.last_live[seat] == "in", (seat, result)
        thrown = {c for d in result["discards"] for c in (d["cards"] or [])} | {c for k in result["kept"] for c in k}
        shown = {c for s in result["shown"] if s for c in s}
        public_cards = thrown | shown
        self.public_by_hand[result["hand"]] = public_cards
        # A hand that was not shown (folded, declined, or won uncontested) never comes out: what the
        # seat was shown stays closed unless the card became public some other way (thrown face up,
        # or re-dealt after a reshuffle and shown by a seat still in at the canto).
        published = cards_in(public["table"]["last_deal"]) | cards_in(result)
        for seat, cards in self.seen.items():
            if result["shown"][seat] is None:
                assert not (cards - public_cards) & published, (seat, sorted(cards), result)
        deal = public["table"]["last_deal"]
        # what opens is decided from the public record (tests/gofo/test_secrecy.py attacks it)
        assert {o["card"] for o in deal["openings"]} == deal_rules.opened_cards(result) <= public_cards

    def transcript_and_ledger(self) -> None:
        status, transcript = self.http.get(f"{self.base}/transcript")
        assert status == 200
        status, ledger = self.http.get(f"{self.base}/ledger")
        assert status == 200
        current_face_up = {c for d in self.discards_seen for c in (d["cards"] or [])}
        for entry in transcript["entries"]:
            if entry["action"]["type"] == "dealer_draw":
                continue
            cards = cards_in(entry["action"])
            if entry["hand"] == self.hand_number:
                allowed = current_face_up
            else:
                allowed = self.public_by_hand.get(entry["hand"], set())
            assert cards <= allowed, (entry, sorted(cards - allowed))
            if entry["hand"] == self.hand_number and entry["action"]["type"] in ("shuffle", "reshuffle"):
                assert entry["action"]["order"] is None
        for deal in transcript["deals"]:
            assert cards_in(deal) <= self.public_by_hand[deal["hand"]]
        for result in ledger["results"]:
            assert cards_in(result) <= self.public_by_hand[result["hand"]]


def _play_random_hands(http, redis_client, seed: int, hands: int, max_steps: int) -> Observer:
    rng = random.Random(seed)
    status, created = http.post(TABLES, {"seats": 5, "caja": 60, "refill": 10, "initial_front": 20})
    assert status == 201
    tokens = created["seat_tokens"]
    observer = Observer(http, redis_client, created["id"], tokens)
    for step in range(max_steps):
        public = observer.step()
        if step % 7 == 0:
            observer.transcript_and_ledger()
        if public["table"]["hand_number"] > hands:
            break
        hand = public["hand"]
        seat = hand["to_act"]
        assert seat is not None, hand
        # Sometimes a seat that may look (mano after opening, a pending seat) looks first.
        lookers = [s for s in range(5) if s != seat and not hand["looked"][s] and hand["status"][s] in ("pending", "in")]
        if lookers and rng.random() < 0.15:
            looker = rng.choice(lookers)
            status, view = http.post(f"{observer.base}/seats/{looker}/look", {}, tokens[looker])
            assert status in (200, 409), view
            continue
        status, view = http.get(f"{observer.base}/seats/{seat}", tokens[seat])
        kind, body = _random_move(rng, view["hand"]["legal_actions"])
        status, data = http.post(f"{observer.base}/seats/{seat}/{kind}", body, tokens[seat])
        assert status == 200, (kind, body, data)
    else:
        pytest.fail(f"seed {seed}: {hands} hands did not finish in {max_steps} steps")
    observer.step()
    observer.transcript_and_ledger()
    return observer


@pytest.mark.parametrize("seed", [11, 23, 37])
def test_random_dealt_hands_never_show_a_card_they_must_not(client, redis_client, seed):
    observer = _play_random_hands(FlaskHttp(client), redis_client, seed, hands=4, max_steps=400)
    assert observer.checks > 100 and len(observer.public_by_hand) >= 4


@pytest.mark.slow
def test_random_dealt_hands_on_the_live_server(live_server, redis_client):
    observer = _play_random_hands(LiveHttp(live_server), redis_client, 5, hands=3, max_steps=300)
    assert len(observer.public_by_hand) >= 3
