"""Views read shared records (``Store.read``): parsed once per stored bytes, never changed by a read.

A worker keeps the records its views parsed, keyed by the stored document's bytes, and hands the
same record (its doc and the game state its first view parsed) to every later read of the same
bytes. That is only right if no view changes anything it is given. Here real games of both kinds
(several Gops rules and matches, dealt Gofo hands, a tabletop table) are played, every view is read
after every move, twice (the second from the cache), and after each read every shared record
still in the cache must be exactly what its bytes parse to, state included; the cached read must
send the same bytes as an uncached one; and a move must never get a shared record.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is not an installed package

from bench.redis_counts import open_gofo, play_gofo_hand  # noqa: E402
from bench.http import bid_commitment  # noqa: E402
from service.web.app import create_app  # noqa: E402
from service.storage.records import record_from  # noqa: E402
from service.storage.store import Store  # noqa: E402
from support.client import bearer


class Reader:
    """Reads every view of a game twice, then checks every shared record the store kept."""

    def __init__(self, app, cached_app) -> None:
        self.client, self.plain = cached_app.test_client(), app.test_client()
        self.store: Store = cached_app.extensions["referee_store"]
        self.reads = self.hits = 0

    def views(self, paths: list[tuple[str, dict[str, str]]]) -> None:
        for path, headers in paths:
            before = len(self.store.cache._shared)
            first = self.client.get(path, headers=headers)
            second = self.client.get(path, headers=headers)
            uncached = self.plain.get(path, headers=headers)
            assert first.status_code == 200, (path, first.get_json())
            assert second.get_data() == first.get_data() == uncached.get_data(), path
            assert second.headers["ETag"] == first.headers["ETag"] == uncached.headers["ETag"]
            self.reads += 2
            self.hits += 1 + (len(self.store.cache._shared) == before)
            self.check()

    def check(self) -> None:
        for raw, record in list(self.store.cache._shared.items()):
            fresh = record_from(record.kind, record.id, record.version, raw)
            assert record.shared and record.doc == fresh.doc, (record.kind, record.id, record.version)
            if record.state is not None:  # the state the first view parsed, unchanged by every view since
                assert orjson.dumps(record.state.to_dict(), option=orjson.OPT_SORT_KEYS) == \
                    orjson.dumps(fresh.doc["state"], option=orjson.OPT_SORT_KEYS), (record.kind, record.id)


@pytest.fixture
def reader(redis_url, redis_client):
    plain = create_app({"REDIS_URL": redis_url, "TESTING": True, "READ_CACHE_SIZE": 0})
    cached = create_app({"REDIS_URL": redis_url, "TESTING": True, "READ_CACHE_SIZE": 64})
    return Reader(plain, cached)


def _gops_views(gid: str, tokens: list[str]) -> list[tuple[str, dict[str, str]]]:
    return [(f"/v1/gops/games/{gid}", {})] + [
        (f"/v1/gops/games/{gid}/seats/{seat}", bearer(token)) for seat, token in enumerate(tokens)]


@pytest.mark.parametrize("body", [
    {"profile": "classic"},
    {"profile": "standard", "options": {"players": 3, "resolution": "split", "deadline_seconds": 60}},
    {"profile": "classic", "match": {"format": "best_of", "games": 3}},
    {"profile": "standard", "options": {"open_prizes": 3}},
    {"profile": "standard", "options": {"visibility": "dealer_sees_prize", "dealer_seat": 0}},
])
def test_gops_views_change_nothing_they_share(reader, body):
    client, rng = reader.client, random.Random(5)
    created = client.post("/v1/gops/games", json=body)
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    gid, tokens = game["id"], game["seat_tokens"]
    reader.views(_gops_views(gid, tokens))
    for _ in range(80):
        views = [client.get(f"/v1/gops/games/{gid}/seats/{s}", headers=bearer(t)).get_json()
                 for s, t in enumerate(tokens)]
        if views[0]["phase"] == "over" or all(not v["legal_actions"] for v in views):
            break
        for seat, view in enumerate(views):
            legal = [a for a in view["legal_actions"] if a["type"] in ("commit", "choose_prize")]
            if not legal:
                continue
            action = legal[0]
            if action["type"] == "choose_prize":
                move = ("choose", {"rank": rng.choice(action["ranks"])})
            else:
                card = rng.choice(action["hand"])
                game_id = view["game_id"]
                salt = f"{rng.getrandbits(256):064x}"
                move = ("commit", {"round": action["round"],
                                   "commitment": bid_commitment(game_id, action["round"], seat, [card], salt)})
                view.setdefault("_reveal", {"round": action["round"], "cards": [card], "salt": salt})
            answer = client.post(f"/v1/gops/games/{gid}/seats/{seat}/{move[0]}", json=move[1], headers=bearer(tokens[seat]))
            assert answer.status_code == 200, answer.get_json()
        reader.views(_gops_views(gid, tokens))
        for seat, view in enumerate(views):
            if "_reveal" in view:
                answer = client.post(f"/v1/gops/games/{gid}/seats/{seat}/reveal", json=view["_reveal"],
                                     headers=bearer(tokens[seat]))
                assert answer.status_code == 200, answer.get_json()
                reader.views(_gops_views(gid, tokens))
    final = client.get(f"/v1/gops/games/{gid}").get_json()
    assert final["phase"] == "over" or body.get("match"), final["phase"]
    assert reader.hits >= reader.reads // 2 and reader.reads > 40


def test_gofo_views_change_nothing_they_share(reader):
    client, rng = reader.client, random.Random(8)
    table = open_gofo(client)

    def views():
        tid = table["id"]
        reader.views([(f"/v1/gofo/tables/{tid}", {})] + [
            (f"/v1/gofo/tables/{tid}/seats/{seat}", bearer(token)) for seat, token in enumerate(table["tokens"])])

    def measure(label, fn):
        result = fn()
        if label == "gofo_move":
            views()
        return result

    for _ in range(2):
        play_gofo_hand(client, table, rng, measure)
    tabletop = client.post("/v1/gofo/tables", json={"seats": 3, "caja": 60, "refill": 10, "initial_front": 20,
                                                    "mode": "tabletop"}).get_json()
    tid = tabletop["id"]
    reader.views([(f"/v1/gofo/tables/{tid}", {}), (f"/v1/gofo/tables/{tid}/seats/0", bearer(tabletop["host_token"]))]
                 + [(f"/v1/gofo/tables/{tid}/seats/{s}", bearer(t)) for s, t in enumerate(tabletop["seat_tokens"])])
    assert reader.reads > 100


def test_a_move_never_gets_a_shared_record(reader):
    """A move applies to its own record: the shared one a view read stays as its bytes say."""
    client = reader.client
    game = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    gid, tokens = game["id"], game["seat_tokens"]
    reader.views(_gops_views(gid, tokens))
    store = reader.store
    shared = store.read("gops", gid)
    assert shared.shared and shared.state is not None and store.read("gops", gid) is shared
    own = store.load("gops", gid)
    assert not own.shared and own is not shared and own.doc is not shared.doc
    salt = "ab" * 32
    body = {"round": 1, "commitment": bid_commitment(game["game"]["game_id"], 1, 0, [13], salt)}
    assert client.post(f"/v1/gops/games/{gid}/seats/0/commit", json=body, headers=bearer(tokens[0])).status_code == 200
    reader.check()  # the record read before the move: unchanged
    after = store.read("gops", gid)
    assert after is not shared and after.version == shared.version + 1
    assert client.get(f"/v1/gops/games/{gid}/seats/0", headers=bearer(tokens[0])).get_json()["version"] == after.version


def test_the_cache_keeps_at_most_its_size(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "READ_CACHE_SIZE": 3})
    client, store = app.test_client(), app.extensions["referee_store"]
    ids = [client.post("/v1/gops/games", json={"profile": "classic"}).get_json()["id"] for _ in range(5)]
    for gid in ids:
        assert client.get(f"/v1/gops/games/{gid}").status_code == 200
    assert [r.id for r in store.cache._shared.values()] == ids[2:]  # the oldest went first
    assert client.get(f"/v1/gops/games/{ids[0]}").status_code == 200  # read again: parsed again
    assert [r.id for r in store.cache._shared.values()] == ids[3:] + ids[:1]
    off = create_app({"REDIS_URL": redis_url, "TESTING": True, "READ_CACHE_SIZE": 0})
    assert off.test_client().get(f"/v1/gops/games/{ids[1]}").status_code == 200
    assert off.extensions["referee_store"].cache._shared == {}
    missing = client.get("/v1/gops/games/nosuchgame")
    assert missing.status_code == 404 and missing.get_json()["code"] == "game_not_found"


def test_a_kept_view_is_sent_again_until_the_clock_changes_it(reader, monkeypatch):
    """A view is serialized once per stored bytes, seat and what of the clock it shows
    (``views.shared_view``): a second read sends the kept bytes without making the view; a
    passed deadline (``enforce_deadline`` offered, the ``-late`` ETag) is another view, kept too;
    and a kept seat view goes to nobody but that seat's token holder."""
    from service.api import common
    from service.games.gops import referee

    clock = [1_000_000.0]
    monkeypatch.setattr(common, "now", lambda: clock[0])
    made: list[int | None] = []
    view = referee.view

    def counted(doc, version, seat, now, state=None):
        made.append(seat)
        return view(doc, version, seat, now, state)

    monkeypatch.setattr(referee, "view", counted)
    client = reader.client
    game = client.post("/v1/gops/games", json={"profile": "standard", "options": {"deadline_seconds": 30}}).get_json()
    gid, tokens = game["id"], game["seat_tokens"]
    seat0 = (f"/v1/gops/games/{gid}/seats/0", bearer(tokens[0]))

    made.clear()
    first = client.get(seat0[0], headers=seat0[1])
    again = client.get(seat0[0], headers=seat0[1])
    assert first.status_code == again.status_code == 200 and again.get_data() == first.get_data()
    assert made == [0], made  # made once, then sent as kept
    assert first.headers["ETag"] == again.headers["ETag"] == '"v1"'
    assert {"type": "enforce_deadline"} not in first.get_json()["legal_actions"]
    public = [client.get(f"/v1/gops/games/{gid}") for _ in range(2)]
    assert made == [0, None] and public[0].get_data() == public[1].get_data()

    # Another seat's token, or none, never gets the kept view of seat 0; seat 1's own view is its own.
    other = client.get(seat0[0], headers=bearer(tokens[1]))
    assert other.status_code == 403 and other.get_json()["code"] == "not_your_seat"
    assert client.get(seat0[0]).status_code == 401
    seat1 = client.get(f"/v1/gops/games/{gid}/seats/1", headers=bearer(tokens[1]))
    assert seat1.status_code == 200 and seat1.get_json()["seat"] == 1 and seat1.get_data() != first.get_data()
    assert seat1.get_data() == reader.plain.get(f"/v1/gops/games/{gid}/seats/1", headers=bearer(tokens[1])).get_data()
    assert made[-2:] == [1, 1]  # made for the cached app and for the uncached one
    del made[-2:]

    clock[0] += 31  # the commit phase's deadline has passed: the same stored bytes, another view
    late = client.get(seat0[0], headers=seat0[1])
    assert late.status_code == 200 and late.headers["ETag"] == '"v1-late"'
    assert {"type": "enforce_deadline"} in late.get_json()["legal_actions"]
    assert client.get(seat0[0], headers=seat0[1]).get_data() == late.get_data()
    assert client.get(f"/v1/gops/games/{gid}").get_data() == public[0].get_data()  # the public view: no clock in it
    assert made == [0, None, 0], made
    unchanged = client.get(seat0[0], headers={**seat0[1], "If-None-Match": '"v1-late"'})
    assert unchanged.status_code == 304 and unchanged.get_data() == b"" and unchanged.headers["ETag"] == '"v1-late"'
    plain = reader.plain.get(seat0[0], headers=seat0[1])  # the uncached app sends the same bytes
    assert plain.get_data() == late.get_data() and plain.headers["ETag"] == late.headers["ETag"]

    record = reader.store.read("gops", gid)
    assert set(record.views) == {(0, False), (0, True), (1, False), (None, False)}
    reader.check()
