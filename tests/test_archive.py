"""A finished game's archive (service.storage.archive): its size, and that nothing a caller reads changes.

A game's final save packs its document and its whole log into one compressed value in the game's
hash (the log list is deleted).  Held here, on a real Valkey:

* the memory bound: a finished 2-player classic Gops game (13 rounds, 32-byte salts,
  played as bench plays it) takes at most 4 KiB of ``MEMORY USAGE`` over all its keys;
* every view, transcript and ETag of a finished game is byte for byte the same whether it is
  read from the archive or from the document and log stored the way every game was stored before
  archives (which is also how a game written by the previous version is stored: it loads, plays
  on, and its final move archives it);
* the packing itself is lossless on any JSON, and refuses what it could not give back.
"""

from __future__ import annotations

import json
import random
import secrets
import sys
from pathlib import Path

import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is not an installed package

from bench.redis_counts import _usage, play_gops  # noqa: E402
from service.storage import archive  # noqa: E402
from service.games.commitments import bid_commitment  # noqa: E402
from service.storage.store import Store  # noqa: E402
from support.client import bearer

KIB = 1024


@pytest.fixture
def raw(redis_url, redis_client):  # redis_client: the database is flushed first
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


def _store(app) -> Store:
    return app.extensions["referee_store"]


# ------------------------------------------------------------------ the memory bound


def test_a_finished_two_player_gops_game_takes_at_most_4_kib(app, client, raw):
    """The memory target, measured as bench measures it (bench.redis_counts._usage: MEMORY USAGE,
    SAMPLES 0, summed over every key with the game's hash tag).  Keeping the history or the log
    twice, or uncompressed, breaks it: the same game stored the old way takes ~19 KiB."""
    store = _store(app)
    for seed in (1, 2, 3):
        game = play_gops(client, random.Random(seed))
        usage = _usage(raw, store, "gops", game["id"])
        assert usage["bytes"] <= 4 * KIB, usage
        # One key: the hash, holding the archive (the log list is gone, its entries archived).
        assert usage["keys"] == 1 and not raw.exists(store.log_key("gops", game["id"])), usage
        assert archive.is_archive(raw.hget(store.key("gops", game["id"]), "doc"))


# ------------------------------------------------- archived == stored the old way


def _unarchive(raw: redis.Redis, store: Store, kind: str, id: str) -> None:
    """Store a finished game the way the previous version did: the JSON document in ``doc`` and
    the log a list of its own, same version and expiry."""
    key, log_key = store.key(kind, id), store.log_key(kind, id)
    packed = raw.hget(key, "doc")
    assert archive.is_archive(packed)
    doc, entries = archive.unpack(packed)
    ttl = raw.ttl(key)
    pipe = raw.pipeline(transaction=True)
    pipe.hset(key, "doc", doc)
    pipe.delete(log_key)
    pipe.rpush(log_key, *entries)
    pipe.expire(log_key, ttl)
    pipe.execute()


def _reads(client, kind: str, id: str, tokens: list[str]) -> list[tuple[int, bytes, str | None]]:
    base = f"/v1/{kind}/{'games' if kind == 'gops' else 'tables'}/{id}"
    responses = [client.get(base), client.get(f"{base}/transcript")]
    responses += [client.get(f"{base}/seats/{seat}", headers=bearer(token)) for seat, token in enumerate(tokens)]
    out = [(r.status_code, r.get_data(), r.headers.get("ETag")) for r in responses]
    assert all(status == 200 for status, _, _ in out), out
    return out


@pytest.mark.parametrize("options", [
    {"profile": "classic"},
    {"profile": "standard", "options": {"players": 3, "ranks": 4, "resolution": "split"}},
    {"profile": "classic", "options": {"ranks": 3}, "match": {"format": "cumulative", "games": 2}},
])
def test_views_and_transcript_are_the_same_bytes_archived_or_not(app, client, raw, options):
    store = _store(app)
    created = client.post("/v1/gops/games", json=options).get_json()
    gid, tokens = created["id"], created["seat_tokens"]
    _play_to_end(client, gid, tokens)
    assert archive.is_archive(raw.hget(store.key("gops", gid), "doc"))
    archived = _reads(client, "gops", gid, tokens)
    _unarchive(raw, store, "gops", gid)
    assert _reads(client, "gops", gid, tokens) == archived


def _play_to_end(client, gid: str, tokens: list[str], rng: random.Random | None = None) -> dict:
    """Every seat commits then reveals a random card of its hand until the game (or match) is over."""
    rng = rng or random.Random(5)
    view = client.get(f"/v1/gops/games/{gid}").get_json()
    while view["phase"] != "over":
        rnd, game_id, salts = view["round"], view["game_id"], {}
        for seat, token in enumerate(tokens):
            card = rng.choice(view["hands"][seat])
            salts[seat] = (card, secrets.token_hex(32))
            body = {"round": rnd, "commitment": bid_commitment(game_id, rnd, seat, [card], salts[seat][1])}
            r = client.post(f"/v1/gops/games/{gid}/seats/{seat}/commit", json=body, headers=bearer(token))
            assert r.status_code == 200, r.get_json()
        for seat, token in enumerate(tokens):
            card, salt = salts[seat]
            r = client.post(f"/v1/gops/games/{gid}/seats/{seat}/reveal", json={"round": rnd, "cards": [card], "salt": salt},
                            headers=bearer(token))
            assert r.status_code == 200, r.get_json()
            view = r.get_json()
    return view


def test_a_game_stored_by_the_previous_version_loads_plays_on_and_archives(app, client, raw):
    """A game in today's format (JSON document, log list: what every stored game looks like) is
    read as before, plays on, and its final move archives document and log; the transcript still
    verifies offline."""
    from service import verify

    store = _store(app)
    created = client.post("/v1/gops/games", json={"profile": "classic", "options": {"ranks": 2}}).get_json()
    gid, tokens = created["id"], created["seat_tokens"]
    key, log_key = store.key("gops", gid), store.log_key("gops", gid)
    doc = raw.hget(key, "doc")
    assert doc.startswith(b"{") and raw.llen(log_key) == 2  # the create and the deal, as ever
    before = client.get(f"/v1/gops/games/{gid}").get_data()
    # Rewrite it exactly as the previous version's code wrote it (same JSON: nothing new in it).
    raw.hset(key, "doc", json.dumps(json.loads(doc), separators=(",", ":"), sort_keys=True))
    assert client.get(f"/v1/gops/games/{gid}").get_data() == before
    final = _play_to_end(client, gid, tokens)
    assert final["phase"] == "over" and not raw.exists(log_key)
    transcript = client.get(f"/v1/gops/games/{gid}/transcript").get_json()
    assert [e["version"] for e in transcript["entries"]][:2] == [1, 1] and transcript["complete"]
    assert verify.verify(transcript).ok
    # And a finished game stored the old way (never archived) reads as it always did.
    _unarchive(raw, store, "gops", gid)
    assert client.get(f"/v1/gops/games/{gid}/transcript").get_json() == transcript


def test_retrying_the_final_reveal_of_an_archived_game_changes_nothing(app, client, raw):
    store = _store(app)
    created = client.post("/v1/gops/games", json={"profile": "classic", "options": {"ranks": 1}}).get_json()
    gid, tokens = created["id"], created["seat_tokens"]
    salts = [secrets.token_hex(32), secrets.token_hex(32)]
    for seat in (0, 1):
        body = {"round": 1, "commitment": bid_commitment(gid, 1, seat, [1], salts[seat])}
        assert client.post(f"/v1/gops/games/{gid}/seats/{seat}/commit", json=body, headers=bearer(tokens[seat])).status_code == 200
    answers = []
    for _ in range(2):  # the second: a retry of the move that ended (and archived) the game
        for seat in (0, 1):
            r = client.post(f"/v1/gops/games/{gid}/seats/{seat}/reveal", json={"round": 1, "cards": [1], "salt": salts[seat]},
                            headers=bearer(tokens[seat]))
            assert r.status_code == 200
        answers.append(r.get_data())
        if len(answers) == 1:
            stored = raw.hgetall(store.key("gops", gid))
    assert answers[0] == answers[1] and raw.hgetall(store.key("gops", gid)) == stored


def test_the_game_expires_as_a_finished_game(app, client, raw):
    store = _store(app)
    game = play_gops(client, random.Random(4), rounds=13)
    assert 0 < raw.ttl(store.key("gops", game["id"])) <= store.finished_ttl


# ------------------------------------------------------------------ the packing


def test_pack_gives_back_every_byte():
    hexes = [secrets.token_hex(32) for _ in range(3)]
    doc = json.dumps({"a": hexes[0], "b": [hexes[0], hexes[1]], "c": hexes[2].upper(), "d": "x" + hexes[1],
                      "e": '"' + hexes[2], "f": "line\nbreak \u0000 nul", "g": None}, separators=(",", ":")).encode()
    entries = [json.dumps({"salt": h, "n": i}).encode() for i, h in enumerate(hexes * 2)] + [b"{}"]
    packed = archive.pack(doc, entries)
    assert archive.is_archive(packed) and not archive.is_archive(doc)
    assert archive.unpack(packed) == (doc, entries)
    assert archive.unpack(archive.pack(b"{}", [])) == (b"{}", [])
    # Each distinct 64-hex string is kept once, as 32 bytes.
    assert int.from_bytes(packed[1:3], "big") == 3


def test_pack_refuses_what_it_could_not_give_back():
    with pytest.raises(ValueError):
        archive.pack(b'{"a":"\x00"}', [])
    with pytest.raises(ValueError):
        archive.unpack(b"{}")
    with pytest.raises(ValueError):
        archive.unpack(archive.pack(b"{}", [b'{"a":1}'] * 100)[:-8])


def test_the_format_is_frozen():
    """Archives written today must read back for as long as a finished game is kept: the preset
    dictionary never changes (a new one is a new MAGIC), and an archive made now still opens."""
    import hashlib

    from service.storage.archive_dict import ZDICT_1

    assert hashlib.sha256(ZDICT_1).hexdigest() == "893c7c3138f8155549c2fb58b3ca24db44dcfd00cc4ad6b9864a3897bfde2ddc"
    golden = bytes.fromhex("010001" + "ab" * 32 + "78f97e74bd42abc6b26ebd16751d3aaae3612e33c039718d34050d0069691ddd")
    h = b"ab" * 32
    assert archive.unpack(golden) == (b'{"auth":{"host":"%s"},"kind":"gops"}' % h,
                                      [b'{"action":{"salt":"%s","type":"deal_prizes"},"version":1}' % h])


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.sampled_from([secrets.token_hex(32) for _ in range(4)]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(st.lists(_json, min_size=1, max_size=6))
def test_pack_is_lossless_on_any_compact_json(values):
    texts = [json.dumps(v, separators=(",", ":"), sort_keys=True).encode() for v in values]
    assert archive.unpack(archive.pack(texts[0], texts[1:])) == (texts[0], texts[1:])
