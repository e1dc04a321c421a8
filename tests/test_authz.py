"""The authorization matrix of every operation of both games that takes a token, how tokens are kept,
and what each view may show.

For each token-taking operation (a seat's view, every move under ``/seats/{seat}/…``, the table
operations: a reported prize, the deadline) and each wrong credential: the exact status and problem
``code``, ``application/problem+json``, every stored key (the game's or table's hash and log
included) byte-for-byte unchanged, and no byte of what the caller may not see (tests/support/authz.py
builds each game's scene and knows its secrets: a pending reveal's salt, the shuffled prize order,
another seat's cards, a folded hand, the deck order and salts of the hand in progress, token hashes).
The operations come from the generated spec, so a new one is covered (or fails loudly for want of a
sample body).

Then what is each game's own: Gops resigned seats, reveals and how tokens are made and kept; Gofo
seats the table does not have, tabletop tables where the host acts for any seat, and random dealt
hands (seeded random legal play, 5 seats, several hands) whose every view shows no card the viewer
may not see, checked against the stored state.
"""

from __future__ import annotations

import ast
import base64
import copy
import glob
import hashlib
import inspect
import json
import math
import random
import re
import secrets
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from support.authz import (
    GAMES,
    GOFO_OPS,
    GOPS_OPS,
    TABLES,
    GofoScene,
    GopsScene,
    Op,
    assert_problem,
    cards_in,
    gofo_scene,
    gops_scene,
)
from support.client import FlaskHttp, LiveHttp, bearer
from support.store import dump, restore, snapshot, stored, stored_doc
from support.sweep_size import sized_seeds

from service.api import auth, common
from service.games.gofo import deal as deal_rules
from service.games.gofo.records import HandRecord
from service.openapi import generate

SCENES = {"gops": GopsScene, "gofo": GofoScene}


def cases(which=lambda op: True, callers=None) -> tuple[list[tuple], list[str]]:
    """(game, op) for every game and every operation ``which`` keeps, or (game, op, who) for each of
    ``callers(scene class)``; and their ids."""
    out, ids = [], []
    for game, scene in SCENES.items():
        for op in filter(which, scene.ops):
            if callers is None:
                out.append((game, op))
                ids.append(f"{game}-{op.name}")
            else:
                out += [(game, op, who) for who in callers(scene)]
                ids += [f"{game}-{op.name}-{who}" for who in callers(scene)]
    return out, ids


def every(which=lambda op: True):
    argvalues, ids = cases(which)
    return pytest.mark.parametrize("game,op", argvalues, ids=ids)


def names(op: Op) -> str:
    return op.name


def seat_op(op: Op) -> bool:
    return op.seat_op


def table_op(op: Op) -> bool:
    return not op.seat_op


#: Each scene is built once in a process and put back before each test that asks for it: every key
#: restored byte for byte in the freshly flushed store (one round trip; building a Gofo scene is some
#: 150 requests). Built again once older than this many seconds: far within the 600 s deadlines
#: the scenes' games and tables are created with, so no test meets a deadline that passed.
SCENE_SECONDS = 120.0
_built_scenes: dict[str, tuple[float, Any, list]] = {}


def kept_scene(build, client, redis_client):
    made_at, scene, keys = _built_scenes.get(build.__name__, (-math.inf, None, None))
    if time.monotonic() - made_at > SCENE_SECONDS:
        scene = build(client, redis_client)
        _built_scenes[build.__name__] = (time.monotonic(), scene, dump(redis_client))
    else:
        restore(redis_client, keys)
    return copy.deepcopy(scene)


@pytest.fixture(name="gops_scene")
def gops_scene_fixture(client, redis_client) -> GopsScene:
    return kept_scene(gops_scene, client, redis_client)


@pytest.fixture(name="gofo_scene")
def gofo_scene_fixture(client, redis_client) -> GofoScene:
    return kept_scene(gofo_scene, client, redis_client)


@pytest.fixture
def scene(request, game):
    """The scene of the test's ``game``."""
    return request.getfixturevalue(f"{game}_scene")


def call(client, op: Op, id: str, seat: int, headers=None, query: str = "", body=None):
    path = op.path(id, seat) + query
    if op.method == "GET":
        return client.get(path, headers=headers or {})
    return client.post(path, json=op.body if body is None else body, headers=headers or {})


def refused(client, redis_client, scene, op: Op, status: int, code: str, *, id=None, seat=None, **kw):
    before = snapshot(redis_client)
    response = call(client, op, id or scene.id, scene.actor if seat is None else seat, **kw)
    assert_problem(response, status, code)
    assert snapshot(redis_client) == before
    scene.assert_nothing_secret(response)
    return response


NOT_AUTHORIZATION = ("missing_token", "invalid_token", "not_your_seat", "host_not_allowed", "no_such_seat")


# ------------------------------------------------------------ both games: the operations


MUST_COVER = {
    "gops": ({"getGopsSeatView", "commitGopsBid", "revealGopsBid", "chooseGopsPrize", "resignGopsSeat",
              "reportGopsPrize", "enforceGopsDeadline"}, 4, GAMES),
    "gofo": ({"getGofoSeatView", "enforceGofoDeadline", "gofoOpen", "gofoNoVer", "gofoReportReshuffle"}, 15, TABLES),
}


@pytest.mark.parametrize("game", list(SCENES))
def test_the_matrix_covers_every_token_operation(game):
    names, min_moves, collection = MUST_COVER[game]
    ops = SCENES[game].ops
    assert names <= {op.name for op in ops}
    moves = [op for op in ops if op.seat_op and op.method == "POST"]
    assert len(moves) >= min_moves
    missing = [op.template for op in ops if op.method == "POST" and op.body is None]
    assert not missing, f"new {game} moves without a sample body in tests/support/authz.py: {missing}"
    # Every operation under the game or table that is not a public read declares the bearer scheme.
    for template, item in generate()["paths"].items():
        if template.startswith(collection + "/"):
            for method, op in item.items():
                if method == "post" or (method == "get" and "{seat}" in template):
                    assert op.get("security"), (method, template)


# ------------------------------------------------------------ both games: positive controls


@pytest.mark.parametrize("game", list(SCENES))
def test_the_right_token_passes_authorization_everywhere(client, redis_client, scene, game):
    """The matrix is not vacuous: the awaited seat's own token gets past authorization on every seat
    operation (to the rules: a 200 or a 409/422)."""
    for op in [op for op in scene.ops if op.seat_op]:
        before = snapshot(redis_client)
        response = call(client, op, scene.id, scene.actor, headers=bearer(scene.seat(scene.actor)))
        assert response.status_code in (200, 409, 422), (op.name, response.get_json())
        if response.status_code != 200:
            assert response.get_json()["code"] not in NOT_AUTHORIZATION
            assert snapshot(redis_client) == before
        if op.method == "POST" and response.status_code == 200:
            break  # the state moved on: the remaining moves were checked above
    # Lower-case scheme and surrounding spaces are the same scheme (RFC 9110 §11.1).
    view = next(op for op in scene.ops if op.method == "GET")
    r = client.get(view.path(scene.id, 1), headers={"Authorization": f"bearer   {scene.seat(1)}  "})
    assert r.status_code == 200


TABLE_CALLERS, TABLE_CALLER_IDS = cases(table_op, lambda scene: scene.table_callers)


@pytest.mark.parametrize("game,op,who", TABLE_CALLERS, ids=TABLE_CALLER_IDS)
def test_host_and_any_seat_pass_authorization_for_table_operations(client, redis_client, scene, game, op, who):
    """Authorized; the rules then refuse (tests/support/authz.py says what: ``table_refusal``)."""
    before = snapshot(redis_client)
    response = call(client, op, scene.id, 0, headers=bearer(scene.token_of(who)))
    assert_problem(response, 409, scene.table_refusal(op))
    assert snapshot(redis_client) == before
    scene.assert_nothing_secret(response)


# ------------------------------------------------------------ both games: the matrix


@every()
def test_no_token(client, redis_client, scene, op):
    refused(client, redis_client, scene, op, 401, "missing_token")


@every()
def test_a_token_of_another_game_or_table(client, redis_client, scene, op):
    """Tokens of unrelated games and tables of either game, host or seat."""
    for token in scene.foreign_tokens():
        refused(client, redis_client, scene, op, 401, "invalid_token", headers=bearer(token))


@every()
def test_unknown_game_or_table(client, redis_client, scene, op):
    """No such game or table: 404 whoever asks (a token of another game proves nothing)."""
    for unknown in scene.unknown_ids():
        for headers in scene.unknown_callers():
            refused(client, redis_client, scene, op, 404, "game_not_found", id=unknown, headers=headers)


@every(seat_op)
def test_another_seats_token(client, redis_client, scene, op):
    for other in scene.other_seats:
        response = refused(client, redis_client, scene, op, 403, "not_your_seat", headers=bearer(scene.seat(other)))
        assert f"seat {other}" in response.get_json()["detail"]


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


@every()
def test_malformed_tokens(client, redis_client, scene, op):
    for token in (scene.seat(scene.actor), scene.host):
        for headers in _malformed(token).values():
            refused(client, redis_client, scene, op, 401, "invalid_token", headers=headers)
        for headers in _unusable(token).values():
            refused(client, redis_client, scene, op, 401, "missing_token", headers=headers)


@every()
def test_token_in_query_string_is_ignored(client, redis_client, scene, op):
    token = scene.seat(scene.actor)
    for query in (f"?token={token}", f"?access_token={token}", f"?authorization=Bearer%20{token}"):
        refused(client, redis_client, scene, op, 401, "missing_token", query=query)


@pytest.mark.parametrize("game", list(SCENES))
def test_token_in_the_body_is_ignored_or_refused(client, redis_client, scene, game):
    """A token in a JSON body never authenticates: a read ignores the body (401); a move's schema
    refuses unknown fields before authorization (422 naming the field); a form body is not JSON (415)."""
    token = scene.seat(scene.actor)
    before = snapshot(redis_client)
    view = next(op for op in scene.ops if op.method == "GET")
    response = client.get(view.path(scene.id, scene.actor), json={"token": token})
    assert_problem(response, 401, "missing_token")
    for op in [op for op in scene.ops if op.method == "POST"]:
        for field in ("token", "access_token", "authorization"):
            response = call(client, op, scene.id, scene.actor, body={**op.body, field: token})
            assert_problem(response, 422, "invalid_request")
            assert field in response.get_json()["errors"]
            scene.assert_nothing_secret(response)
        response = client.post(op.path(scene.id, scene.actor), data={"token": token})
        assert_problem(response, 415, "unsupported_media_type")
    assert snapshot(redis_client) == before


# ------------------------------------------------------------ Gops only


GOPS_SEAT_OPS = [op for op in GOPS_OPS if op.seat_op]
GOPS_TABLE_OPS = [op for op in GOPS_OPS if not op.seat_op]


def _gops_op(name: str) -> Op:
    return next(op for op in GOPS_OPS if op.name == name)


def test_a_seat_sees_its_own_reveal_and_reaches_the_rules(client, gops_scene):
    """Seat 0 sees its own pending reveal (no other seat does); the awaited seat's token gets past
    authorization to the rules (here: choosing is not this phase's move)."""
    scene = gops_scene
    response = client.get(f"{GAMES}/{scene.id}/seats/0", headers=bearer(scene.seat(0)))
    assert response.status_code == 200
    assert response.get_json()["my_reveal"]["salt"] == scene.secret_salt
    scene.assert_nothing_secret(response, may_see_seat0_reveal=True)
    response = call(client, _gops_op("chooseGopsPrize"), scene.id, 1, headers=bearer(scene.seat(1)))
    assert_problem(response, 409, "wrong_phase")


@pytest.mark.parametrize("op", GOPS_SEAT_OPS, ids=names)
def test_a_seat_the_game_does_not_have(client, redis_client, gops_scene, op):
    """As at a Gofo table: 404 no_such_seat for a token of the game, whichever (a seat's, the host's),
    as ``/seats/00`` is a 404; 401 first without a valid token."""
    scene = gops_scene
    players = len(scene.a["seat_tokens"])
    for seat in (players, 7, 99, 10**6):
        for token in (scene.seat(0), scene.seat(1), scene.host):
            response = refused(client, redis_client, scene, op, 404, "no_such_seat", seat=seat, headers=bearer(token))
            assert str(seat) in response.get_json()["detail"]
        refused(client, redis_client, scene, op, 401, "missing_token", seat=seat)
    for spelling in ("00", "+1", "01", "%2B1"):  # a seat written another way matches no route: 404 too
        response = client.get(f"{GAMES}/{scene.id}/seats/{spelling}", headers=bearer(scene.seat(1)))
        assert response.status_code == 404 and response.mimetype == "application/problem+json"


@pytest.mark.parametrize("op", GOPS_SEAT_OPS, ids=names)
def test_host_token_where_a_seat_is_required(client, redis_client, gops_scene, op):
    response = refused(client, redis_client, gops_scene, op, 403, "not_your_seat", headers=bearer(gops_scene.host))
    assert "host" in response.get_json()["detail"]


@pytest.mark.parametrize("op", [op for op in GOPS_SEAT_OPS if op.method == "POST"], ids=names)
def test_resigned_seat_may_not_move(client, redis_client, gops_scene, op):
    refused(client, redis_client, gops_scene, op, 403, "seat_out", seat=2, headers=bearer(gops_scene.seat(2)))


def test_resigned_seat_reads_only_its_own_view(client, redis_client, gops_scene):
    scene = gops_scene
    before = snapshot(redis_client)
    response = client.get(f"{GAMES}/{scene.id}/seats/2", headers=bearer(scene.seat(2)))
    assert response.status_code == 200
    body = response.get_json()
    assert body["seat"] == 2 and body["legal_actions"] == [] and body["my_reveal"] is None
    scene.assert_nothing_secret(response)
    assert snapshot(redis_client) == before


@pytest.mark.parametrize("op", GOPS_TABLE_OPS, ids=names)
def test_resigned_seat_may_not_act_for_the_table(client, redis_client, gops_scene, op):
    refused(client, redis_client, gops_scene, op, 403, "seat_out", headers=bearer(gops_scene.seat(2)))


def test_public_reads_never_show_secrets(client, gops_scene):
    scene = gops_scene
    for path in (f"{GAMES}/{scene.id}", f"{GAMES}/{scene.id}/transcript"):
        for headers in ({}, bearer(scene.seat(1)), bearer(scene.host)):
            response = client.get(path, headers=headers)
            assert response.status_code == 200
            scene.assert_nothing_secret(response)
    transcript = client.get(f"{GAMES}/{scene.id}/transcript").get_json()
    reveal = next(e for e in transcript["entries"] if e["action"]["type"] == "reveal")
    assert reveal["action"]["cards"] is None and reveal["action"]["salt"] is None
    deal = next(e for e in transcript["entries"] if e["action"]["type"] == "deal_prizes")
    assert deal["action"]["order"] is None and deal["action"]["salt"] is None


def test_seat_views_show_only_their_own_seat(client, gops_scene):
    scene = gops_scene
    for seat in (1, 2):
        response = client.get(f"{GAMES}/{scene.id}/seats/{seat}", headers=bearer(scene.seat(seat)))
        assert response.status_code == 200
        scene.assert_nothing_secret(response)
        assert response.get_json()["my_reveal"] is None


# ------------------------------------------------------------ Gops only: the tokens


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


def test_tokens_are_stored_only_as_sha256(client, redis_client, gops_scene):
    scene = gops_scene
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


def test_comparisons_are_constant_time(client, gops_scene, monkeypatch):
    scene = gops_scene
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
    deadline = time.monotonic() + 60  # a generous bound on the wait, left as soon as the log shows the requests
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


# ------------------------------------------------------------ Gofo only


GOFO_SEAT_OPS = [op for op in GOFO_OPS if op.seat_op]


@pytest.mark.parametrize("op", GOFO_SEAT_OPS, ids=names)
def test_host_token_at_a_dealt_table(client, redis_client, gofo_scene, op):
    for seat in (gofo_scene.to_act, gofo_scene.folded):
        refused(client, redis_client, gofo_scene, op, 403, "host_not_allowed", seat=seat,
                headers=bearer(gofo_scene.host))


@pytest.mark.parametrize("op", GOFO_SEAT_OPS, ids=names)
def test_a_seat_the_table_does_not_have(client, redis_client, gofo_scene, op):
    """A seat the table does not have: 404 no_such_seat for a token of the table (view or move);
    401 first for a caller without a valid token (the seat count is not told to strangers)."""
    scene = gofo_scene
    for seat in (5, 6, 7, 99, 10**6):
        for token in (scene.seat(0), scene.seat(scene.to_act), scene.host):
            response = refused(client, redis_client, scene, op, 404, "no_such_seat", seat=seat, headers=bearer(token))
            assert str(seat) in response.get_json()["detail"]
        refused(client, redis_client, scene, op, 401, "missing_token", seat=seat)
        refused(client, redis_client, scene, op, 401, "invalid_token", seat=seat, headers=bearer(scene.b["seat_tokens"][0]))


# ----------------------------------------------------------- Gofo only: tabletop tables


@pytest.fixture
def tabletop(client):
    data = client.post(TABLES, json={"seats": 3, "mode": "tabletop", "turn_seconds": 600}).get_json()
    other = client.post(TABLES, json={"seats": 3, "mode": "tabletop"}).get_json()
    return data, other


@pytest.mark.parametrize("op", GOFO_SEAT_OPS, ids=names)
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


# ------------------------------------------------------------- Gofo only: what views show


def test_views_at_the_scene_show_only_what_the_viewer_may_see(client, redis_client, gofo_scene):
    scene = gofo_scene
    hands = scene.doc["state"]["hand"]["hands"]
    before = snapshot(redis_client)
    for seat in range(5):
        response = client.get(f"{TABLES}/{scene.id}/seats/{seat}", headers=bearer(scene.seat(seat)))
        assert response.status_code == 200
        mine = response.get_json()["hand"]["my_cards"]
        assert mine == (hands[seat] if seat != scene.folded else [])
        scene.assert_nothing_secret(response, may_see=set(mine))
    for path in ("", "/ledger", "/transcript"):
        for headers in ({}, bearer(scene.seat(0)), bearer(scene.host)):
            response = client.get(f"{TABLES}/{scene.id}{path}", headers=headers)
            assert response.status_code == 200
            scene.assert_nothing_secret(response)
            body = response.get_json()
            assert "my_cards" not in json.dumps(body)
    transcript = client.get(f"{TABLES}/{scene.id}/transcript").get_json()
    shuffles = [e for e in transcript["entries"] if e["action"]["type"] in ("shuffle", "reshuffle")]
    assert shuffles and all(e["action"]["order"] is None for e in shuffles)
    assert transcript["deals"] == []
    assert snapshot(redis_client) == before


def test_the_folded_seat_sees_nothing_of_its_old_hand(client, gofo_scene):
    scene = gofo_scene
    response = client.get(f"{TABLES}/{scene.id}/seats/{scene.folded}", headers=bearer(scene.seat(scene.folded)))
    hand = response.get_json()["hand"]
    assert hand["my_cards"] == [] and hand["legal_actions"] == [] and hand["my_value"] is None
    assert not cards_in(response.get_json()) & set(scene.folded_cards)


def test_idempotent_replay_is_private_to_the_token(client, redis_client, gofo_scene):
    """A move sent with an Idempotency-Key replays its answer (with the mover's cards) only to the
    same token: another seat's token with the same key and body is refused as usual."""
    scene = gofo_scene
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


# ------------------------------------------- Gofo only: random dealt hands, nothing leaks


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
        doc = stored_doc(self.redis, "gofo", self.id)
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
        assert {o["card"] for o in deal["openings"]} == deal_rules.opened_cards(HandRecord.from_dict(result)) <= public_cards

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


@pytest.mark.parametrize("seed", sized_seeds([11, 23, 37]))
def test_random_dealt_hands_never_show_a_card_they_must_not(client, redis_client, seed):
    observer = _play_random_hands(FlaskHttp(client), redis_client, seed, hands=4, max_steps=400)
    assert observer.checks > 100 and len(observer.public_by_hand) >= 4


@pytest.mark.slow
def test_random_dealt_hands_on_the_live_server(live_server, redis_client):
    observer = _play_random_hands(LiveHttp(live_server), redis_client, 5, hands=3, max_steps=300)
    assert len(observer.public_by_hand) >= 3
