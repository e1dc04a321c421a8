"""Regressions found in review: each test failed before its fix."""

import time

import pytest
from support.client import bearer

EXAMPLE_KEY = "6f1c2b9e-3d4a-4c8e-9b1f-2a7d5e8c0f13"  # the key the published spec shows as example


def post(client, path, body=None, token=None, headers=None):
    return client.post(path, json=body if body is not None else {}, headers={**(headers or {}), **bearer(token)})


def get(client, path, token=None, headers=None):
    return client.get(path, headers={**(headers or {}), **bearer(token)})


# R2: the Idempotency-Key of a create is global (not bound to any client): anyone who sends the
# same key and body gets the first creator's host and seat tokens (or hands its own game, whose
# tokens it knows, to the victim).  The spec publishes an example key clients copy.
def test_r2_another_client_reusing_a_create_key_gets_its_own_table(app):
    victim = app.test_client()
    attacker = app.test_client()
    attacker.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    r1 = post(victim, "/v1/gofo/tables", {"seats": 3}, headers={"Idempotency-Key": EXAMPLE_KEY})
    r2 = post(attacker, "/v1/gofo/tables", {"seats": 3}, headers={"Idempotency-Key": EXAMPLE_KEY})
    assert r1.status_code == r2.status_code == 201
    assert r2.headers["Idempotent-Replayed"] == "false"
    assert r2.get_json()["id"] != r1.get_json()["id"]
    assert set(r2.get_json()["seat_tokens"]).isdisjoint(r1.get_json()["seat_tokens"])
    again = post(victim, "/v1/gofo/tables", {"seats": 3}, headers={"Idempotency-Key": EXAMPLE_KEY})
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json()["id"] == r1.get_json()["id"]


# R3: a 304 hides a changed body: legal_actions gains enforce_deadline when the deadline passes,
# but the ETag only names the version.
def test_r3_etag_304_hides_enforce_deadline(client):
    g = post(client, "/v1/gops/games", {"profile": "classic", "options": {"deadline_seconds": 1}}).get_json()
    url = f"/v1/gops/games/{g['id']}/seats/0"
    first = get(client, url, g["seat_tokens"][0])
    etag = first.headers["ETag"]
    assert not any(a["type"] == "enforce_deadline" for a in first.get_json()["legal_actions"])
    time.sleep(1.3)
    fresh = get(client, url, g["seat_tokens"][0]).get_json()
    assert any(a["type"] == "enforce_deadline" for a in fresh["legal_actions"])
    polled = get(client, url, g["seat_tokens"][0], headers={"If-None-Match": etag})
    assert polled.status_code == 200, "304 Not Modified although legal_actions changed"


# R4 (KB3 on Gofo): non-integer amounts / non-boolean blind are accepted and coerced.
@pytest.mark.parametrize("move,body", [("open", {"amount": 2.9}), ("open", {"amount": "2"})])
def test_r4_gofo_non_integer_amount_refused(client, move, body):
    t = post(client, "/v1/gofo/tables", {"seats": 3}).get_json()
    base = f"/v1/gofo/tables/{t['id']}"
    mano = get(client, base).get_json()["hand"]["mano"]
    r = post(client, f"{base}/seats/{mano}/{move}", body, t["seat_tokens"][mano])
    assert r.status_code == 422, (r.status_code, r.get_json()["hand"]["opening"])


def test_r4b_gofo_enter_blind_string_refused(client):
    t = post(client, "/v1/gofo/tables", {"seats": 3}).get_json()
    base = f"/v1/gofo/tables/{t['id']}"
    mano = get(client, base).get_json()["hand"]["mano"]
    assert post(client, f"{base}/seats/{mano}/open", {"amount": 1}, t["seat_tokens"][mano]).status_code == 200
    nxt = (mano + 1) % 3
    r = post(client, f"{base}/seats/{nxt}/enter", {"blind": "no"}, t["seat_tokens"][nxt])
    assert r.status_code == 422, (r.status_code, r.get_json()["hand"]["blind"])


# R5: tabletop host reads a seat that does not exist: 200 with a bogus view (moves for it are 422).
def test_r5_tabletop_host_view_of_missing_seat(client):
    t = post(client, "/v1/gofo/tables", {"seats": 3, "mode": "tabletop"}).get_json()
    r = get(client, f"/v1/gofo/tables/{t['id']}/seats/7", t["host_token"])
    assert r.status_code in (404, 422), (r.status_code, r.get_json()["hand"]["seat"])




# R6: the new _json_only pre-parse is skipped for chunked bodies (no Content-Length):
# deeply nested JSON still reaches webargs -> 500 under gunicorn.
@pytest.mark.parametrize("payload", [b"[" * 5000 + b"]" * 5000, b'{"amount": 1' + b"0" * 5000 + b"}"])
def test_r6_chunked_body_bypasses_json_guard(live_server, payload):
    import requests
    def chunks():
        for i in range(0, len(payload), 1000):
            yield payload[i:i + 1000]
    r = requests.post(f"{live_server}/v1/gofo/tables", data=chunks(),
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert r.status_code < 500, (r.status_code, r.text[:200])


def test_r6b_chunked_non_json_is_not_415(live_server):
    import requests
    r = requests.post(f"{live_server}/v1/gofo/tables", data=iter([b"seats=3"]),
                      headers={"Content-Type": "text/plain"}, timeout=10)
    assert r.status_code == 415, (r.status_code, r.text[:200])


# R7: at a tabletop table the dealer's "reshuffle" report (legal any number of times during a
# discard, even when it is another seat's turn) restarts the turn clock of the seat to act.
def test_r7_tabletop_reshuffle_restarts_other_seats_clock(client):
    t = post(client, "/v1/gofo/tables", {"seats": 3, "mode": "tabletop", "turn_seconds": 5}).get_json()
    base, host = f"/v1/gofo/tables/{t['id']}", t["host_token"]

    def play(kind, body=None):
        seat = get(client, base).get_json()["hand"]["to_act"]
        r = post(client, f"{base}/seats/{seat}/{kind}", body or {}, host)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    play("open", {"amount": 1}); play("enter", {"blind": False}); play("enter", {"blind": False})
    play("pass"); play("voy"); play("voy"); play("voy")
    hand = get(client, base).get_json()["hand"]
    assert hand["phase"] == "discard" and hand["to_act"] != hand["dealer"]
    before = hand["turn_deadline_at"]
    time.sleep(0.3)
    for _ in range(3):
        r = post(client, f"{base}/seats/{hand['dealer']}/reshuffle", {}, host)
        assert r.status_code == 200
    after = get(client, base).get_json()["hand"]
    assert after["to_act"] == hand["to_act"]
    assert after["turn_deadline_at"] == before, (before, after["turn_deadline_at"])


# Found by schemathesis: authorization is settled before the version and the idempotency record.
def test_stale_version_is_not_told_to_a_caller_without_the_right_token(client):
    g = post(client, "/v1/gops/games", {"profile": "classic"}).get_json()
    base = f"/v1/gops/games/{g['id']}"
    assert post(client, f"{base}/seats/0/resign", {}, g["seat_tokens"][0]).status_code == 200
    r = post(client, f"{base}/deadline", {"version": 1})
    assert r.status_code == 401 and "current_version" not in r.get_json()
    r = post(client, f"{base}/seats/1/commit", {"round": 1, "commitment": "a" * 64, "version": 1}, g["seat_tokens"][0])
    assert r.status_code == 403 and r.get_json()["code"] in ("not_your_seat", "seat_out")


def test_a_create_without_a_body_uses_the_defaults(client):
    r = client.post("/v1/gops/games")
    assert r.status_code == 201 and r.get_json()["game"]["rules"]["players"] == 2
    r = client.post("/v1/gofo/tables")
    assert r.status_code == 201 and r.get_json()["table"]["table"]["options"]["seats"] == 5
