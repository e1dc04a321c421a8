"""The authorization matrix of every Gops operation that takes a token, and how tokens are kept.

For each operation and each wrong credential: the exact status and problem
``code``, the stored game (raw Redis hash, transcript list, every other key)
byte-for-byte unchanged, and no secret in the answer (a pending reveal's salt,
the shuffled prize order or its salt, any token hash).
"""

from __future__ import annotations

import ast
import base64
import glob
import hashlib
import inspect
import json
import re
import secrets
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from service.api import auth
from service.games import commitments
from service.api import common
from support.store import snapshot, stored_doc
from support.client import bearer

GAMES = "/v1/gops/games"


# ---------------------------------------------------------------- the scene


@dataclass
class Scene:
    """A 3-seat game mid-round plus an unrelated game.

    Round 1 of game ``a``: every seat committed; seat 0 revealed (its cards and
    salt are secret until seat 1 reveals); seat 2 resigned; seat 1 is awaited.
    """

    a: dict
    b: dict
    secret_salt: str
    secret_card: int
    prize_order: list[int]
    prize_salt: str

    @property
    def id(self) -> str:
        return self.a["id"]

    def seat(self, n: int) -> str:
        return self.a["seat_tokens"][n]

    @property
    def host(self) -> str:
        return self.a["host_token"]

    def token_hashes(self) -> list[str]:
        tokens = [self.a["host_token"], *self.a["seat_tokens"], self.b["host_token"], *self.b["seat_tokens"]]
        return [hashlib.sha256(t.encode()).hexdigest() for t in tokens]


@pytest.fixture
def scene(client, redis_client) -> Scene:
    created = client.post(GAMES, json={"profile": "standard", "options": {"players": 3, "deadline_seconds": 600}})
    assert created.status_code == 201
    a = created.get_json()
    b = client.post(GAMES, json={"profile": "classic"}).get_json()
    game_id = a["game"]["game_id"]
    hands = a["game"]["hands"]
    salts = [secrets.token_hex(32) for _ in range(3)]
    cards = [hands[0][5], hands[1][6], hands[2][7]]
    for seat in range(3):
        commitment = commitments.bid_commitment(game_id, 1, seat, [cards[seat]], salts[seat])
        r = client.post(f"{GAMES}/{a['id']}/seats/{seat}/commit", json={"round": 1, "commitment": commitment},
                        headers=bearer(a["seat_tokens"][seat]))
        assert r.status_code == 200, r.get_json()
    r = client.post(f"{GAMES}/{a['id']}/seats/0/reveal", json={"round": 1, "cards": [cards[0]], "salt": salts[0]},
                    headers=bearer(a["seat_tokens"][0]))
    assert r.status_code == 200, r.get_json()
    r = client.post(f"{GAMES}/{a['id']}/seats/2/resign", json={}, headers=bearer(a["seat_tokens"][2]))
    assert r.status_code == 200, r.get_json()
    state = r.get_json()
    assert state["phase"] == "reveal" and state["awaiting"] == [1] and state["resigned"] == [2]
    doc = stored_doc(redis_client, "gops", a["id"])
    game = doc["state"]["game"]
    return Scene(a, b, salts[0], cards[0], game["prize_order"], game["prize_salt"])




def assert_nothing_secret(response, scene: Scene, may_see_seat0_reveal: bool = False) -> None:
    raw = response.get_data(as_text=True)
    if not may_see_seat0_reveal:
        assert scene.secret_salt not in raw
    assert scene.prize_salt not in raw
    assert json.dumps(scene.prize_order) not in raw and ",".join(map(str, scene.prize_order)) not in raw
    for digest in scene.token_hashes():
        assert digest not in raw
    for token in [scene.host, *scene.a["seat_tokens"], scene.b["host_token"], *scene.b["seat_tokens"]]:
        assert token not in raw
    for value in response.headers.values():
        assert scene.secret_salt not in value and scene.prize_salt not in value
    body = response.get_json(silent=True)
    if isinstance(body, dict) and "game_id" in body:  # a state: check the structure too
        assert body["prize_order"] is None and body["prize_salt"] is None
        if not may_see_seat0_reveal:
            assert body.get("my_reveal") is None


def assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"https://referee.example/problems/{code}"
    if status == 401:
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="referee"'


# ------------------------------------------------------------ the operations


@dataclass(frozen=True)
class Op:
    name: str
    method: str
    path: str  # {id}, {seat}
    body: dict | None
    seat_op: bool  # only that seat may use it (else the host or any seat)


OPS = [
    Op("seat_view", "GET", "/v1/gops/games/{id}/seats/{seat}", None, True),
    Op("commit", "POST", "/v1/gops/games/{id}/seats/{seat}/commit", {"round": 1, "commitment": "ab" * 32}, True),
    Op("reveal", "POST", "/v1/gops/games/{id}/seats/{seat}/reveal", {"round": 1, "cards": [1], "salt": "cd" * 32}, True),
    Op("choose", "POST", "/v1/gops/games/{id}/seats/{seat}/choose", {"rank": 13}, True),
    Op("resign", "POST", "/v1/gops/games/{id}/seats/{seat}/resign", {}, True),
    Op("report_prize", "POST", "/v1/gops/games/{id}/prize", {"rank": 13}, False),
    Op("enforce_deadline", "POST", "/v1/gops/games/{id}/deadline", {}, False),
]
SEAT_OPS = [op for op in OPS if op.seat_op]
TABLE_OPS = [op for op in OPS if not op.seat_op]


def call(client, op: Op, game_id: str, seat: int = 1, headers=None, query: str = "", body=None):
    path = op.path.format(id=game_id, seat=seat) + query
    if op.method == "GET":
        return client.get(path, headers=headers or {})
    return client.post(path, json=op.body if body is None else body, headers=headers or {})


def refused(client, redis_client, scene: Scene, op: Op, status: int, code: str, **kw):
    before = snapshot(redis_client)
    response = call(client, op, kw.pop("game_id", scene.id), **kw)
    assert_problem(response, status, code)
    assert snapshot(redis_client) == before
    assert_nothing_secret(response, scene)
    return response


# --------------------------------------------------------- positive controls


def test_the_right_token_is_accepted(client, scene):
    """The matrix is not vacuous: seat 1's own token passes authorization on every seat operation."""
    response = client.get(f"{GAMES}/{scene.id}/seats/1", headers=bearer(scene.seat(1)))
    assert response.status_code == 200
    assert_nothing_secret(response, scene)
    response = client.get(f"{GAMES}/{scene.id}/seats/0", headers=bearer(scene.seat(0)))
    assert response.status_code == 200
    assert response.get_json()["my_reveal"]["salt"] == scene.secret_salt  # the seat sees its own reveal
    # Lower-case scheme is the same scheme (RFC 9110 §11.1).
    assert client.get(f"{GAMES}/{scene.id}/seats/1", headers={"Authorization": f"bearer {scene.seat(1)}"}).status_code == 200
    # The right seat gets past authorization to the rules (here: choosing is not this phase's move).
    response = call(client, OPS[3], scene.id, 1, headers=bearer(scene.seat(1)))
    assert_problem(response, 409, "wrong_phase")


@pytest.mark.parametrize("op", TABLE_OPS, ids=lambda op: op.name)
@pytest.mark.parametrize("who", ["host", "seat0", "seat1"])
def test_host_and_any_seat_pass_authorization_for_table_operations(client, redis_client, scene, op, who):
    token = scene.host if who == "host" else scene.seat(int(who[-1]))
    before = snapshot(redis_client)
    response = call(client, op, scene.id, headers=bearer(token))
    # Authorized; the rules then refuse (no prize to report in this order; the deadline has not passed).
    assert_problem(response, 409, "wrong_phase" if op.name == "report_prize" else "deadline_not_passed")
    assert snapshot(redis_client) == before
    assert_nothing_secret(response, scene)


# ------------------------------------------------------------------ the matrix


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_no_token(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 401, "missing_token")


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_another_games_token(client, redis_client, scene, op):
    for token in (scene.b["host_token"], *scene.b["seat_tokens"]):
        refused(client, redis_client, scene, op, 401, "invalid_token", headers=bearer(token))


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_unknown_game(client, redis_client, scene, op):
    """No such game: 404 whoever asks (a token of another game proves nothing)."""
    for headers in ({}, bearer(scene.seat(1)), bearer(scene.host)):
        refused(client, redis_client, scene, op, 404, "game_not_found", game_id="NoSuchGame99", headers=headers)


@pytest.mark.parametrize("op", SEAT_OPS, ids=lambda op: op.name)
def test_another_seats_token(client, redis_client, scene, op):
    for other in (0, 2):
        response = refused(client, redis_client, scene, op, 403, "not_your_seat", headers=bearer(scene.seat(other)))
        assert f"seat {other}" in response.get_json()["detail"]


@pytest.mark.parametrize("op", SEAT_OPS, ids=lambda op: op.name)
def test_a_seat_out_of_range(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 403, "not_your_seat", seat=7, headers=bearer(scene.seat(1)))


@pytest.mark.parametrize("op", SEAT_OPS, ids=lambda op: op.name)
def test_host_token_where_a_seat_is_required(client, redis_client, scene, op):
    response = refused(client, redis_client, scene, op, 403, "not_your_seat", headers=bearer(scene.host))
    assert "host" in response.get_json()["detail"]


@pytest.mark.parametrize("op", [op for op in SEAT_OPS if op.method == "POST"], ids=lambda op: op.name)
def test_resigned_seat_may_not_move(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 403, "seat_out", seat=2, headers=bearer(scene.seat(2)))


def test_resigned_seat_reads_only_its_own_view(client, redis_client, scene):
    before = snapshot(redis_client)
    response = client.get(f"{GAMES}/{scene.id}/seats/2", headers=bearer(scene.seat(2)))
    assert response.status_code == 200
    body = response.get_json()
    assert body["seat"] == 2 and body["legal_actions"] == [] and body["my_reveal"] is None
    assert_nothing_secret(response, scene)
    assert snapshot(redis_client) == before


@pytest.mark.parametrize("op", TABLE_OPS, ids=lambda op: op.name)
def test_resigned_seat_may_not_act_for_the_table(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 403, "seat_out", headers=bearer(scene.seat(2)))


def _malformed(scene: Scene) -> dict[str, dict[str, str]]:
    token = scene.seat(1)
    return {
        "garbage": {"Authorization": "Bearer not-a-token"},
        "random_well_formed": bearer(secrets.token_urlsafe(32)),
        "right_token_truncated": bearer(token[:-1]),
        "right_token_extended": bearer(token + "A"),
        "right_token_hash": bearer(hashlib.sha256(token.encode()).hexdigest()),
    }


def _unusable(scene: Scene) -> dict[str, dict[str, str]]:
    """Headers the referee does not read a token from at all: 401 missing_token."""
    token = scene.seat(1)
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


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_malformed_tokens(client, redis_client, scene, op):
    for headers in _malformed(scene).values():
        refused(client, redis_client, scene, op, 401, "invalid_token", headers=headers)
    for headers in _unusable(scene).values():
        refused(client, redis_client, scene, op, 401, "missing_token", headers=headers)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_token_in_query_string_is_ignored(client, redis_client, scene, op):
    token = scene.seat(1)
    for query in (f"?token={token}", f"?access_token={token}", f"?authorization=Bearer%20{token}"):
        refused(client, redis_client, scene, op, 401, "missing_token", query=query)


def test_token_in_the_body_is_ignored_or_refused(client, redis_client, scene):
    """A token in a JSON body never authenticates.  A read ignores the body (401); a move's
    schema refuses unknown fields before authorization (422 naming the field)."""
    token = scene.seat(1)
    before = snapshot(redis_client)
    response = client.get(f"{GAMES}/{scene.id}/seats/1", json={"token": token})
    assert_problem(response, 401, "missing_token")
    for op in OPS[1:]:
        for field in ("token", "access_token", "authorization"):
            response = call(client, op, scene.id, body={**op.body, field: token})
            assert_problem(response, 422, "invalid_request")
            assert field in response.get_json()["errors"]
            assert_nothing_secret(response, scene)
        # As a form body it is not JSON at all.
        path = op.path.format(id=scene.id, seat=1)
        response = client.post(path, data={"token": token})
        assert_problem(response, 415, "unsupported_media_type")
    assert snapshot(redis_client) == before


def test_public_reads_never_show_secrets(client, scene):
    for path in (f"{GAMES}/{scene.id}", f"{GAMES}/{scene.id}/transcript"):
        for headers in ({}, bearer(scene.seat(1)), bearer(scene.host)):
            response = client.get(path, headers=headers)
            assert response.status_code == 200
            assert_nothing_secret(response, scene)
    transcript = client.get(f"{GAMES}/{scene.id}/transcript").get_json()
    reveal = next(e for e in transcript["entries"] if e["action"]["type"] == "reveal")
    assert reveal["action"]["cards"] is None and reveal["action"]["salt"] is None
    deal = next(e for e in transcript["entries"] if e["action"]["type"] == "deal_prizes")
    assert deal["action"]["order"] is None and deal["action"]["salt"] is None


def test_seat_views_show_only_their_own_seat(client, scene):
    for seat in (1, 2):
        response = client.get(f"{GAMES}/{scene.id}/seats/{seat}", headers=bearer(scene.seat(seat)))
        assert response.status_code == 200
        assert_nothing_secret(response, scene)
        assert response.get_json()["my_reveal"] is None


# ------------------------------------------------------------- the tokens


TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{43,}$")


def test_tokens_are_256_bit_urlsafe_and_unique(client, redis_client):
    seen = set()
    for players in (2, 3, 7):
        data = client.post(GAMES, json={"profile": "standard", "options": {"players": players}}).get_json()
        tokens = [data["host_token"], *data["seat_tokens"]]
        assert len(tokens) == players + 1
        for token in tokens:
            assert TOKEN_RE.match(token), token
            assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) >= 32
        seen.update(tokens)
    assert len(seen) == 2 + 1 + 3 + 1 + 7 + 1
    assert auth.TOKEN_BYTES >= 32


def test_tokens_come_from_secrets(client, monkeypatch):
    calls = []
    real = auth.secrets.token_urlsafe

    def spy(nbytes=None):
        value = real(nbytes)
        calls.append((nbytes, value))
        return value

    monkeypatch.setattr(auth.secrets, "token_urlsafe", spy)
    data = client.post(GAMES, json={"profile": "classic"}).get_json()
    made = {value: nbytes for nbytes, value in calls}
    for token in (data["host_token"], *data["seat_tokens"]):
        assert made[token] >= 32
    assert "secrets.token_urlsafe(TOKEN_BYTES)" in inspect.getsource(auth.new_token)


def _every_stored_string(redis_client) -> list[str]:
    out = []
    for key, (kind, value) in snapshot(redis_client).items():
        out.append(key)
        if isinstance(value, dict):
            out += list(value) + list(value.values())
        elif isinstance(value, list):
            out += [v if isinstance(v, str) else json.dumps(v) for v in value]
        else:
            out.append(str(value))
    return out


def test_tokens_are_stored_only_as_sha256(client, redis_client, scene):
    stored = _every_stored_string(redis_client)
    blob = "\n".join(stored)
    tokens = [scene.host, *scene.a["seat_tokens"], scene.b["host_token"], *scene.b["seat_tokens"]]
    for token in tokens:
        assert token not in blob
        assert token[:20] not in blob  # not even a prefix
        assert hashlib.sha256(token.encode()).hexdigest() in blob
    doc = stored_doc(redis_client, "gops", scene.id)
    assert doc["auth"] == {"host": auth.token_hash(scene.host),
                           "seats": [auth.token_hash(t) for t in scene.a["seat_tokens"]]}


def test_tokens_of_an_idempotent_create_are_not_stored_in_plain(client, redis_client):
    """A create retried with an Idempotency-Key replays its tokens, yet Redis never holds them readable."""
    key = secrets.token_urlsafe(16)
    first = client.post(GAMES, json={"profile": "classic"}, headers={"Idempotency-Key": key})
    again = client.post(GAMES, json={"profile": "classic"}, headers={"Idempotency-Key": key})
    assert first.status_code == 201 and again.get_json()["seat_tokens"] == first.get_json()["seat_tokens"]
    blob = "\n".join(_every_stored_string(redis_client))
    data = first.get_json()
    for token in (data["host_token"], *data["seat_tokens"]):
        assert token not in blob and token[:20] not in blob
        assert base64.b64encode(token.encode()).decode()[:20] not in blob
    assert key not in blob  # the key itself is the encryption secret


def test_comparisons_are_constant_time(client, scene, monkeypatch):
    assert "hmac.compare_digest" in inspect.getsource(auth.same_hash)
    # identify() compares with same_hash only: no ==/!= anywhere in it.
    tree = ast.parse(textwrap.dedent(inspect.getsource(common.identify)))
    ops = [type(op) for node in ast.walk(tree) if isinstance(node, ast.Compare) for op in node.ops]
    assert ast.Eq not in ops and ast.NotEq not in ops
    # And every stored hash is compared, whichever seat the token is (no early exit).
    calls = []
    real = auth.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    for token in (scene.host, scene.seat(0), scene.seat(2), "garbage"):
        calls.clear()
        client.get(f"{GAMES}/{scene.id}/seats/2", headers=bearer(token))
        assert len(calls) == 1 + 3


# ---------------------------------------------------------- gunicorn's log


def _gunicorn_logs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.getbasetemp()
    return [Path(p) for p in glob.glob(str(base / "**" / "gunicorn*.log"), recursive=True)]


@pytest.mark.slow
def test_access_log_never_contains_a_token(live_server, tmp_path_factory):
    session = requests.Session()
    created = session.post(f"{live_server}{GAMES}", json={"profile": "classic"}, timeout=30).json()
    game_id, token, host = created["id"], created["seat_tokens"][0], created["host_token"]
    base = f"{live_server}{GAMES}/{game_id}"
    assert session.get(f"{base}/seats/0", headers=bearer(token), timeout=30).status_code == 200
    assert session.get(f"{base}/seats/0?token={token}&access_token={token}", timeout=30).status_code == 401
    assert session.get(f"{base}/seats/0", auth=(token, host), timeout=30).status_code == 401  # Basic
    assert session.post(f"{base}/seats/1/resign", json={}, headers=bearer(token), timeout=30).status_code == 403
    assert session.post(f"{base}/seats/0/commit", json={"round": 1, "commitment": "ab" * 32},
                        headers={**bearer(token), "Idempotency-Key": token}, timeout=30).status_code == 200
    marker = f"/v1/gops/games/{game_id}/seats/0/commit"
    deadline = time.monotonic() + 10
    logs: list[Path] = []
    while time.monotonic() < deadline:
        logs = [p for p in _gunicorn_logs(tmp_path_factory) if marker in p.read_text(errors="replace")]
        if logs:
            break
        time.sleep(0.1)
    assert logs, "the live server's access log did not show the requests"
    for path in logs:
        text = path.read_text(errors="replace")
        lines = [line for line in text.splitlines() if game_id in line]
        assert len(lines) >= 5  # the requests above were logged (paths only)...
        for secret in (token, host, *created["seat_tokens"], token[:16],
                       base64.b64encode(f"{token}:{host}".encode()).decode()):
            assert secret not in text  # ...but never a token, whatever carried it
        assert "?token=" not in text and "access_token" not in text
