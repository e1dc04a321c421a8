"""Round records keep each seat's ``sealed`` fingerprint, not the commitments and reveals.

The commitments and reveals of a played round are kept once, in the game's log; the stored document
has only their seals (the first 16 hex digits of each commitment, :mod:`service.games.gops.records`).  A
retried commit or reveal of an earlier round, or of an earlier game of a match, is still
recognised by them as an exact repeat (a no-op success) and anything else for that round is still
refused as before; a document stored before the change (records with ``commitments`` and
``reveals``) is read as before.
"""

from __future__ import annotations

import json

import pytest

from service.games import commitments as C
from service.games import gops as G
from service.errors import RefereeError
from support import store as support_store
from support.gops_helpers import Driver, det_salt, expect_error, new_game
from support.client import FlaskHttp, GopsGame, new_salt

MATCH_OF_TWO = {"format": "cumulative", "games": 2}


def _raw_doc(redis_client, game_id: str) -> str:
    """The stored document's text as it is in Redis (a game not yet over: not an archive)."""
    fields, _log = support_store.stored(redis_client, "gops", game_id)
    doc = fields["doc"]
    assert isinstance(doc, str) and doc.startswith("{"), "the game is archived already"
    return doc


class Played:
    """A game played over HTTP, every commit and reveal it made remembered (by game, round, seat)."""

    def __init__(self, table: GopsGame) -> None:
        self.table = table
        self.moves: dict[tuple[str, int, int], tuple[list[int], str, str]] = {}  # -> cards, salt, commitment

    def commit_round(self) -> tuple[str, int]:
        state = self.table.public()
        game_id, round_ = state["game_id"], state["round"]
        for seat in state["awaiting"]:
            cards, salt = [min(state["hands"][seat])], new_salt()
            status, data = self.table.commit(seat, round_, cards, salt, game_id=game_id)
            assert status == 200, data
            self.moves[(game_id, round_, seat)] = (cards, salt, C.bid_commitment(game_id, round_, seat, cards, salt))
        return game_id, round_

    def reveal_round(self, game_id: str, round_: int) -> dict:
        data = None
        for (gid, rnd, seat), (cards, salt, _c) in self.moves.items():
            if (gid, rnd) == (game_id, round_):
                status, data = self.table.reveal(seat, round_, cards, salt)
                assert status == 200, data
        return data

    def play_round(self) -> dict:
        return self.reveal_round(*self.commit_round())


# ------------------------------------------------------------------ (a), (b): the stored document


def test_the_stored_document_holds_no_salt_nor_commitment_of_a_resolved_round(http, redis_client):
    played = Played(GopsGame.create(http, {"profile": "classic"}))
    for _ in range(12):
        played.play_round()
    game_id, round_ = played.commit_round()  # round 13: committed, not yet revealed
    assert round_ == 13
    raw = _raw_doc(redis_client, played.table.id)
    resolved = [(k, m) for k, m in played.moves.items() if k[1] < 13]
    assert len(resolved) == 24
    for (_gid, _rnd, seat), (_cards, salt, commitment) in resolved:
        assert salt not in raw and commitment not in raw
        assert commitment[:16] in raw  # its seal
    history = json.loads(raw)["state"]["game"]["history"]
    for record in history:
        assert "commitments" not in record and "reveals" not in record
        assert record["sealed"] == {str(s): played.moves[(game_id, record["round"], s)][2][:16] for s in (0, 1)}
    # the current round's commitments are still kept in full (they are checked by the reveals)
    assert all(played.moves[(game_id, 13, s)][2] in raw for s in (0, 1))
    # The game over (archived), its document still has none of them: they are in the log only.
    final = played.reveal_round(game_id, 13)
    assert final["phase"] == "over"
    doc = support_store.stored_doc(redis_client, "gops", played.table.id)
    text = json.dumps(doc)
    log = json.dumps(support_store.logged_entries(redis_client, "gops", played.table.id))
    for (_gid, _rnd, _seat), (_cards, salt, commitment) in played.moves.items():
        assert salt not in text and commitment not in text
        assert salt in log and commitment in log


def test_a_classic_games_history_is_small(http, redis_client):
    played = Played(GopsGame.create(http, {"profile": "classic"}))
    for _ in range(12):
        played.play_round()
    played.commit_round()
    raw = _raw_doc(redis_client, played.table.id)
    # Measured before the change (records with commitments and reveals, ~440 bytes each): the stored
    # document in round 13 was 6,706 bytes (5,316 of them the 12 records); the finished game's 13
    # records 5,780 bytes.  Now ~140 bytes a record (47 of them its seals): 3,145 and 1,918.
    assert len(raw) < 3500, len(raw)
    assert len(json.dumps(json.loads(raw)["state"]["game"]["history"], separators=(",", ":"))) < 12 * 160
    game_id, round_ = played.table.public()["game_id"], 13
    played.reveal_round(game_id, round_)
    doc = support_store.stored_doc(redis_client, "gops", played.table.id)
    history = doc["state"]["game"]["history"]
    assert len(history) == 13
    assert len(json.dumps(history, separators=(",", ":"))) < 13 * 160


# ------------------------------------------------------------------ (c): retries over HTTP


def test_retries_of_earlier_rounds_and_games_are_repeats_over_http(http, redis_client):
    table = GopsGame.create(http, {"profile": "classic", "options": {"ranks": 3}, "match": MATCH_OF_TWO})
    played = Played(table)
    first = table.public()["game_id"]
    for _ in range(3):
        played.play_round()
    second = table.public()["game_id"]
    assert second != first and table.public()["phase"] == "commit"
    played.play_round()
    assert table.public()["round"] == 2
    stored = lambda: support_store.stored(redis_client, "gops", table.id)
    before = stored()
    for game_id, round_, code in ((second, 1, "wrong_round"), (first, 2, "wrong_game")):
        for seat in (0, 1):
            cards, salt, commitment = played.moves[(game_id, round_, seat)]
            status, data = http.post(f"{table.base}/seats/{seat}/commit",
                                     {"round": round_, "commitment": commitment, "game_id": game_id},
                                     table.seat_tokens[seat])
            assert status == 200, data
            status, data = table.reveal(seat, round_, cards, salt, game_id=game_id)
            assert status == 200, data
            assert stored() == before
            # another commitment for that round, a wrong salt or other cards: refused as before
            other = C.bid_commitment(game_id, round_, seat, cards, new_salt())
            status, data = http.post(f"{table.base}/seats/{seat}/commit",
                                     {"round": round_, "commitment": other, "game_id": game_id},
                                     table.seat_tokens[seat])
            assert status == 409 and data["code"] == code, data
            status, data = table.reveal(seat, round_, cards, new_salt(), game_id=game_id)
            assert status == 409 and data["code"] == code, data
            status, data = table.reveal(seat, round_, [cards[0] % 3 + 1], salt, game_id=game_id)
            assert status == 409 and data["code"] == code, data
            assert stored() == before


# ------------------------------------------------------------------ (c), (d): the engine


Moves = dict[tuple[int, int, int], tuple[tuple[int, ...], str, str]]  # (game, round, seat) -> cards, salt, commitment


def _match_driver() -> tuple[Driver, Moves]:
    """Game 1 of a 2-game match played (3 rounds), and round 1 of game 2; every move remembered."""
    d = Driver(new_game("m", profile="classic", ranks=3, prize_order="ascending",
                        match=G.make_match_rules("cumulative", games=2)))
    moves: Moves = {}
    for bids in ([1, 2], [2, 3], [3, 1], [2, 1]):
        game, round_ = d.g.number, d.g.round
        for seat, card in enumerate(bids):
            commitment, salt = d.commit(seat, card)
            moves[(game, round_, seat)] = ((card,), salt, commitment)
        for seat, card in enumerate(bids):
            d.reveal(seat, card)
    assert d.g.number == 2 and d.g.round == 2 and d.state.phase == "commit"
    assert d.state.games[0].result.game_id == "m-1" and d.g.game_id == "m-2"
    return d, moves


def _old_form(doc: dict, moves: Moves) -> dict:
    """``doc`` (a stored state) with every round record as it was stored before: commitments and
    reveals in place of ``sealed``."""

    def old(record: dict, game: int) -> dict:
        seats = list(record["sealed"])
        rest = {k: v for k, v in record.items() if k not in ("round", "sealed")}
        return {"round": record["round"],
                "commitments": {s: moves[(game, record["round"], int(s))][2] for s in seats},
                "reveals": {s: {"cards": list(moves[(game, record["round"], int(s))][0]),
                                "salt": moves[(game, record["round"], int(s))][1]} for s in seats},
                **rest}

    game = dict(doc["game"], history=[old(r, doc["game"]["number"]) for r in doc["game"]["history"]])
    games = [dict(g, history=[old(r, g["game"]) for r in g["history"]]) for g in doc["games"]]
    return dict(doc, game=game, games=games)


def _retries(state: G.Gops, moves: Moves) -> None:
    """Exact retries of game 2 round 1 and of game 1 (every round) are no-ops; anything else for those
    rounds is refused with the code it always had."""
    before = state.to_dict()
    for (game, round_, seat), (cards, salt, commitment) in moves.items():
        if (game, round_) == (2, 2):
            continue
        named = [game] if game == 1 else [None, 2]
        for number in named:
            assert state.apply(G.Commit(seat, round_, commitment, number)) is False
            assert state.apply(G.Reveal(seat, round_, cards, salt, number)) is False
            assert state.to_dict() == before
            code = "wrong_game" if game == 1 else "wrong_round"
            other = C.bid_commitment(f"m-{game}", round_, seat, cards, det_salt("other", game, round_, seat))
            assert other[:16] != commitment[:16]
            expect_error(state, G.Commit(seat, round_, other, number), code)
            expect_error(state, G.Reveal(seat, round_, cards, det_salt("wrong", round_, seat), number), code)
            expect_error(state, G.Reveal(seat, round_, (cards[0] % 3 + 1,), salt, number), code)
    # and a retry that names no game searches only the current one
    cards, salt, commitment = moves[(1, 3, 0)]
    expect_error(state, G.Commit(0, 3, commitment), "wrong_round")
    expect_error(state, G.Reveal(0, 3, cards, salt), "wrong_round")


def test_the_seals_are_the_commitments_first_16_hex_digits():
    d, moves = _match_driver()
    doc = d.state.to_dict()
    records = [(1, r) for r in doc["games"][0]["history"]] + [(2, r) for r in doc["game"]["history"]]
    assert len(records) == 4
    for game, record in records:
        assert record["sealed"] == {str(s): moves[(game, record["round"], s)][2][:16] for s in (0, 1)}
        assert "commitments" not in record and "reveals" not in record
    # no view or public transcript shows them
    assert all("sealed" not in r for r in G.view(d.state)["history"])


def test_retries_of_earlier_rounds_and_games_are_repeats_in_the_engine():
    d, moves = _match_driver()
    _retries(d.state, moves)
    # also from the stored form
    _retries(G.Gops.from_dict(json.loads(json.dumps(d.state.to_dict()))), moves)


def test_a_state_stored_before_the_change_still_recognises_retries():
    d, moves = _match_driver()
    old = _old_form(d.state.to_dict(), moves)
    text = json.dumps(old)
    assert "sealed" not in text and all(salt in text and commitment in text for _c, salt, commitment in moves.values())
    state = G.Gops.from_dict(json.loads(json.dumps(old)))
    assert json.dumps(state.to_dict()) == text  # read and kept as it was, byte for byte
    _retries(state, moves)
    # the game goes on from it: new records are sealed, the old ones stay as they were
    cards = {0: 3, 1: 2}
    for seat in (0, 1):
        salt = det_salt("go on", seat)
        state.apply(G.Commit(seat, 2, C.bid_commitment("m-2", 2, seat, [cards[seat]], salt)))
        moves[(2, 2, seat)] = ((cards[seat],), salt, C.bid_commitment("m-2", 2, seat, [cards[seat]], salt))
    for seat in (0, 1):
        state.apply(G.Reveal(seat, 2, (cards[seat],), moves[(2, 2, seat)][1]))
    history = state.game.history
    assert history[0].commitments is not None and history[0].sealed is None
    assert history[1].sealed == {s: moves[(2, 2, s)][2][:16] for s in (0, 1)} and history[1].commitments is None
    assert state.apply(G.Reveal(1, 2, (2,), moves[(2, 2, 1)][1])) is False
    assert state.apply(G.Commit(0, 1, moves[(2, 1, 0)][2])) is False
    with pytest.raises(RefereeError):
        state.apply(G.Commit(0, 1, moves[(2, 2, 0)][2]))
