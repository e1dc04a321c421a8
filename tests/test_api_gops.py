"""Whole Gops games over HTTP (Flask test client on a real Valkey), and every refusal."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from service.games import commitments, gops
from support.client import FlaskHttp, GopsGame, bearer, lowest, match_prize, new_salt, seat_biased
from support import store as support_store


@pytest.fixture
def http(client):
    return FlaskHttp(client)


def stored(redis_client, game_id):
    """The raw stored state and transcript, to prove a refusal changed nothing."""
    return support_store.stored(redis_client, "gops", game_id)


def total(scores):
    return sum(Fraction(s) for s in scores)


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("players", [2, 3, 7])
@pytest.mark.parametrize("resolution,unclaimed", [
    ("none", "carryover"), ("none", "discard"), ("split", "discard"),
    ("highest_unique", "carryover"), ("highest_unique", "discard"),
])
def test_complete_game_for_each_tie_rule(http, players, resolution, unclaimed):
    table = GopsGame.create(http, {"profile": "standard", "options": {
        "players": players, "resolution": resolution, "unclaimed": unclaimed}})
    assert len(table.seat_tokens) == players
    final = table.play_to_end(match_prize if players == 2 else seat_biased)
    result = final["game_result"]
    assert final["phase"] == "over" and final["result"]["winners"] == result["winners"]
    # Every prize is either awarded (exactly) or unclaimed.
    assert total(result["scores"]) + result["unclaimed"] == 91
    assert all(h == [] for h in final["hands"])
    # The shuffled order is revealed and matches the commitment published at creation.
    created = table.created["game"]
    assert created["prize_order"] is None and created["prize_commitment"]
    assert commitments.prize_order_commitment(table.id, result["prize_order"], result["prize_salt"]) == created["prize_commitment"]
    assert final["turned"] == result["prize_order"]


def test_predictable_bots_tie_every_round_classic(http):
    """000 §06: two bots bidding the prize's value tie forever; with carryover the last pot is set aside."""
    table = GopsGame.create(http, {"profile": "classic"})
    final = table.play_to_end(match_prize)
    assert final["game_result"]["scores"] == ["0", "0"]
    assert final["game_result"]["unclaimed"] == 91
    assert final["game_result"]["winners"] == [0, 1]  # a draw


def test_split_scores_are_exact(http):
    table = GopsGame.create(http, {"options": {"players": 3, "resolution": "split", "prize_order": "descending"}})
    table.play_round({0: [1], 1: [1], 2: [1]})  # the K (13) split three ways
    assert table.public()["scores"] == ["13/3", "13/3", "13/3"]


def test_seed_000_worked_example(http):
    """8♦ tied with two nines, then 5♦ taken by J♠ for 13 points (000 §06)."""
    order = [8, 5] + [r for r in range(1, 14) if r not in (8, 5)]
    table = GopsGame.create(http, {"profile": "classic", "options": {"prize_order": "explicit", "explicit_order": order}})
    state = table.play_round({0: [9], 1: [9]})
    assert state["carry"] == [8] and state["scores"] == ["0", "0"]
    assert state["row"] == [5] and state["pot_value"] == 13
    state = table.play_round({0: [7], 1: [11]})
    assert state["scores"] == ["0", "13"] and state["won"][1] == [8, 5]
    assert 9 not in state["hands"][0] and 9 not in state["hands"][1] and 11 not in state["hands"][1]
    assert state["history"][1]["pot"] == [8, 5] and state["history"][1]["winners"] == [1]


def test_match_to_92(http):
    table = GopsGame.create(http, {"profile": "classic", "match": {"format": "target"}})
    assert table.public()["match"]["target"] == 92
    final = table.play_to_end(seat_biased)
    result = final["result"]
    assert result["format"] == "target" and len(result["winners"]) == 1
    totals = [Fraction(t) for t in result["totals"]]
    assert max(totals) >= 92 and totals[result["winners"][0]] == max(totals)
    assert result["games_played"] == len(final["games"]) >= 2
    # Each game of a match has its own id in commitments, and its own revealed order.
    assert [g["game_id"] for g in final["games"]] == [f"{table.id}-{n}" for n in range(1, result["games_played"] + 1)]
    for g in final["games"]:
        assert commitments.prize_order_commitment(g["game_id"], g["prize_order"], g["prize_salt"]) == g["prize_commitment"]


def test_best_of_three_and_cumulative(http):
    table = GopsGame.create(http, {"match": {"format": "best_of", "games": 3}})
    final = table.play_to_end(seat_biased)
    assert final["result"]["format"] == "best_of" and final["result"]["games_played"] >= 2
    table = GopsGame.create(http, {"match": {"format": "cumulative", "games": 2}})
    final = table.play_to_end(seat_biased)
    assert final["result"]["games_played"] == 2


def test_reported_prizes_at_the_table(http):
    table = GopsGame.create(http, {"options": {"ranks": 3, "prize_order": "reported"}})
    assert table.public()["phase"] == "prize"
    status, data = http.post(f"{table.base}/prize", {"rank": 2}, table.host_token)
    assert status == 200 and data["phase"] == "commit" and data["row"] == [2]
    table.play_round({0: [3], 1: [1]})
    status, data = http.post(f"{table.base}/prize", {"rank": 2}, table.seat_tokens[1])
    assert status == 409 and data["code"] == "prize_already_seen"
    status, data = http.post(f"{table.base}/prize", {"rank": 1}, table.seat_tokens[1])
    assert status == 200
    table.play_round({0: [1], 1: [2]})
    http.post(f"{table.base}/prize", {"rank": 3}, table.host_token)
    final = table.play_round({0: [2], 1: [3]})
    assert final["phase"] == "over" and final["game_result"]["scores"] == ["2", "4"]


def test_open_prizes_winner_chooses(http):
    table = GopsGame.create(http, {"options": {"ranks": 4, "open_prizes": 2, "prize_order": "ascending"}})
    assert table.public()["row"] == [1, 2]
    state = table.play_round({0: [4], 1: [1]})
    assert state["phase"] == "choose" and state["chooser"] == 0
    status, data = http.post(f"{table.base}/seats/1/choose", {"rank": 2}, table.seat_tokens[1])
    assert status == 409 and data["code"] == "not_your_turn"
    status, data = http.post(f"{table.base}/seats/0/choose", {"rank": 2}, table.seat_tokens[0])
    assert status == 200 and data["scores"][0] == "2" and data["row"] == [1, 3]


def test_open_prizes_owed_picks_are_taken_from_the_refilled_row(http):
    """Over HTTP: the winner of a round after two carried ties takes 1, 2 and then 4
    from the row refilled between picks and wins 7–3; the tied rounds name no winner."""
    from service import verify

    table = GopsGame.create(http, {"options": {
        "players": 2, "ranks": 4, "prize_order": "explicit", "explicit_order": [1, 2, 3, 4],
        "open_prizes": 2, "resolution": "none", "unclaimed": "carryover"}})
    table.play_round({0: [1], 1: [1]})
    table.play_round({0: [2], 1: [2]})
    state = table.play_round({0: [4], 1: [3]})
    assert state["phase"] == "choose" and state["chooser"] == 0 and state["picks_owed"] == 3
    rows = []
    for rank in (1, 2, 4):
        rows.append(table.public()["row"])
        status, data = http.post(f"{table.base}/seats/0/choose", {"rank": rank}, table.seat_tokens[0])
        assert status == 200, data
    assert rows == [[1, 2], [2, 3], [3, 4]]
    table.play_round({0: [3], 1: [4]})
    status, final = http.post(f"{table.base}/seats/1/choose", {"rank": 3}, table.seat_tokens[1])
    assert status == 200 and final["phase"] == "over"
    assert final["scores"] == ["7", "3"] and final["result"]["winners"] == [0]
    assert [r["winners"] for r in final["history"]] == [[], [], [0], [1]]
    assert final["history"][2]["chosen"] == [1, 2, 4]
    report = verify.verify(table.transcript())
    assert report.ok, report.problems


def test_blind_hides_the_prize_until_the_bids_are_in(http):
    table = GopsGame.create(http, {"options": {"visibility": "blind", "ranks": 3}})
    state = table.public()
    assert state["row"] == [None] and state["pot_value"] is None
    assert table.seat_view(0)["row"] == [None]
    after = table.play_round({0: [3], 1: [1]})
    prize = after["history"][0]["pot"][0]
    assert after["scores"][0] == str(prize)


def test_dealer_sees_prize(http):
    table = GopsGame.create(http, {"options": {"players": 3, "visibility": "dealer_sees_prize", "dealer_seat": 2}})
    assert table.seat_view(2)["row"][0] is not None
    assert table.seat_view(0)["row"] == [None] and table.public()["row"] == [None]


def test_multi_card_bids(http):
    table = GopsGame.create(http, {"options": {"bid_cards": 2, "ranks": 5, "prize_order": "ascending"}})
    assert table.public()["rounds"] == 2
    state = table.play_round({0: [5, 1], 1: [4, 3]})  # 6 vs 7
    assert state["history"][0]["winners"] == [1]
    final = table.play_round({0: [2, 3], 1: [1, 2]})
    assert final["phase"] == "over" and final["hands"] == [[4], [5]]


def test_resign_ends_two_player_game(http):
    table = GopsGame.create(http, {"profile": "classic"})
    status, data = http.post(f"{table.base}/seats/0/resign", None, table.seat_tokens[0])
    assert status == 200 and data["phase"] == "over"
    assert data["result"]["winners"] == [1] and data["game_result"]["termination"] == "forfeit"


def test_deadline_enforced(http, monkeypatch):
    import service.api.common as common

    clock = [1_000_000.0]
    monkeypatch.setattr(common, "now", lambda: clock[0])
    table = GopsGame.create(http, {"options": {"players": 3, "deadline_seconds": 30}})
    salt = new_salt()
    assert table.commit(0, 1, [5], salt)[0] == 200
    status, data = http.post(f"{table.base}/deadline", None, table.seat_tokens[0])
    assert status == 409 and data["code"] == "deadline_not_passed"
    clock[0] += 31
    assert {"type": "enforce_deadline"} in table.seat_view(0)["legal_actions"]
    status, data = http.post(f"{table.base}/deadline", None, table.host_token)
    assert status == 200 and data["forfeited"] == {"1": "deadline", "2": "deadline"}
    assert data["phase"] == "over" and data["result"]["winners"] == [0]


# ----------------------------------------------------------------- secrecy


def test_reveals_are_withheld_until_every_seat_revealed(http):
    table = GopsGame.create(http, {"options": {"players": 3}})
    salts = {s: new_salt() for s in range(3)}
    for s in range(3):
        table.commit(s, 1, [s + 1], salts[s])
    table.reveal(0, 1, [1], salts[0])
    mine = table.seat_view(0)
    assert mine["my_reveal"] == {"cards": [1], "salt": salts[0]}
    other = table.seat_view(1)
    assert other["my_reveal"] is None and other["revealed"] == [0]
    assert "history" in other and other["history"] == []
    for entry in table.transcript()["entries"]:
        if entry["action"]["type"] == "reveal":
            assert entry["action"]["cards"] is None and entry["action"]["salt"] is None
        if entry["action"]["type"] == "deal_prizes":
            assert entry["action"]["order"] is None and entry["action"]["salt"] is None
    body = json.dumps([table.public(), other, table.transcript()])
    assert salts[0] not in body
    table.reveal(1, 1, [2], salts[1])
    table.reveal(2, 1, [3], salts[2])
    reveals = [e["action"] for e in table.transcript()["entries"] if e["action"]["type"] == "reveal"]
    assert [r["cards"] for r in reveals] == [[1], [2], [3]]


def _readable(client, table: GopsGame, seats) -> list[tuple[str, str, object]]:
    """Everything the public and ``seats`` can read now: (what, ETag, body) for the public view, each
    seat's view and the transcript."""
    out = []
    paths = [("public", table.base, None), ("transcript", f"{table.base}/transcript", None)]
    paths += [(f"seat {s}", f"{table.base}/seats/{s}", table.seat_tokens[s]) for s in seats]
    for what, path, token in paths:
        r = client.get(path, headers=bearer(token))
        assert r.status_code == 200, r.get_json()
        out.append((what, r.headers.get("ETag"), r.get_json()))
    return out


def _normalized(readable, table: GopsGame) -> str:
    """The readable documents with what differs between two otherwise identical games (the id, the
    times) replaced, so the rest can be compared byte for byte."""
    def scrub(value):
        if isinstance(value, dict):
            return {k: (None if k == "at" else scrub(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return "<id>" if value == table.id else value
    return json.dumps([(what, etag, scrub(body)) for what, etag, body in readable], sort_keys=True)


def test_no_one_can_read_a_commitment_before_committing(client, http):
    """until every seat of the round has committed, the public, the other seats, the
    transcript and the ETags show only *that* a seat committed. Two games that differ only in seat 0's
    bid look exactly alike to everyone else, ETags included."""
    seen = []
    for bid in (2, 5):
        table = GopsGame.create(http, {"options": {"players": 3, "ranks": 5, "prize_order": "ascending"}})
        salt = new_salt()
        before = _readable(client, table, (1, 2))
        status, mine = table.commit(0, 1, [bid], salt)
        assert status == 200
        commitment = commitments.bid_commitment(table.id, 1, 0, [bid], salt)
        assert mine["commitments"] == {"0": commitment}  # the committing seat sees its own
        after = _readable(client, table, (1, 2))
        for what, _, body in after:
            assert commitment not in json.dumps(body), what
        public = after[0][2]
        assert public["committed"] == [0] and public["commitments"] == {}
        (entry,) = [e for e in after[1][2]["entries"] if e["action"]["type"] == "commit"]
        assert entry["action"] == {"type": "commit", "seat": 0, "round": 1, "commitment": None, "game": 1}
        assert [etag for _, etag, _ in before] != [etag for _, etag, _ in after]  # something happened
        seen.append(_normalized(before, table) + _normalized(after, table))
        # the others commit: every bid is locked, so the commitments are published
        assert table.commit(1, 1, [1], new_salt())[0] == 200
        assert commitment not in json.dumps(table.seat_view(2))
        assert table.commit(2, 1, [1], new_salt())[0] == 200
        assert table.public()["commitments"]["0"] == commitment
        assert [e["action"]["commitment"] for e in table.transcript()["entries"]
                if e["action"]["type"] == "commit"][0] == commitment
    assert seen[0] == seen[1]


def test_brute_forcing_a_reused_salt_fails_before_committing(client, http):
    """The salt-reuse attack: seat 0 reuses in round 2 the salt it revealed in round 1; before committing,
    seat 1 hashes the 13 possible bids with that salt and looks for them in all it can read."""
    table = GopsGame.create(http, {"profile": "classic", "options": {"prize_order": "ascending"}})
    salt = new_salt()
    assert table.commit(0, 1, [7], salt)[0] == 200
    salt_1 = new_salt()
    assert table.commit(1, 1, [1], salt_1)[0] == 200
    assert table.reveal(0, 1, [7], salt)[0] == 200
    assert table.reveal(1, 1, [1], salt_1)[0] == 200
    assert salt in json.dumps(table.transcript())  # the round-1 salt is public now
    assert table.commit(0, 2, [9], salt)[0] == 200  # the same salt again: a client bug
    readable = json.dumps([body for _, _, body in _readable(client, table, (1,))])
    guesses = {card: commitments.bid_commitment(table.id, 2, 0, [card], salt) for card in range(1, 14)}
    assert [card for card, guess in guesses.items() if guess in readable] == []


def test_a_copied_commitment_is_no_oracle(client, http, redis_client):
    """Submitting a guess of another seat's commitment as one's own gets the same answer whether the
    guess is right or wrong (no duplicate_commitment refusal), and the copy can never be opened."""
    answers = []
    for right in (True, False):
        table = GopsGame.create(http, {"options": {"players": 3, "ranks": 5, "prize_order": "ascending"}})
        salt = "5a" * 32  # a guessable salt (a copied test vector, say)
        assert table.commit(0, 1, [4], salt)[0] == 200
        guess = commitments.bid_commitment(table.id, 1, 0, [4 if right else 3], salt)
        status, data = http.post(f"{table.base}/seats/1/commit", {"round": 1, "commitment": guess},
                                 table.seat_tokens[1])
        assert status == 200, data
        assert data["commitments"] == {"1": guess}
        answers.append(_normalized([("answer", None, {**data, "commitments": "<the guess>"})], table))
        if right:
            assert table.commit(2, 1, [1], new_salt())[0] == 200
            before = stored(redis_client, table.id)
            status, data = table.reveal(1, 1, [4], salt)  # seat 0's opening, but the message names seat 1
            assert status == 409 and data["code"] == "commitment_mismatch"
            assert stored(redis_client, table.id) == before
    assert answers[0] == answers[1]


def test_transcript_replays_to_the_same_result(http):
    table = GopsGame.create(http, {"options": {"players": 3, "resolution": "highest_unique", "unclaimed": "carryover"}})
    final = table.play_to_end(seat_biased)
    transcript = table.transcript()
    assert transcript["complete"] is True
    entries = transcript["entries"]
    assert entries[0]["action"]["type"] == "create"
    rules = gops.Rules.from_dict(transcript["rules"])
    match = gops.MatchRules.from_dict(transcript["match"])
    replayed = gops.replay(table.id, rules, match, [(e["action"], e["at"]) for e in entries[1:]], start=entries[0]["at"])
    assert replayed.result.to_dict() == final["result"]
    assert [str(s) for s in replayed.game.scores] == final["scores"]


# ---------------------------------------------------------------- refusals


def test_every_refusal_is_precise_and_changes_nothing(http, redis_client):
    table = GopsGame.create(http, {"profile": "classic"})
    salt = new_salt()
    before = stored(redis_client, table.id)

    def refused(status, data, expect_status, code):
        assert status == expect_status, data
        assert data["code"] == code, data
        assert data["status"] == expect_status and data["type"].endswith(code)
        assert stored(redis_client, table.id) == before

    # wrong phase: reveal before every seat committed
    refused(*table.reveal(0, 1, [5], salt), 409, "wrong_phase")
    # wrong round
    refused(*table.commit(0, 2, [5], salt), 409, "wrong_round")
    # another seat's token
    status, data = http.post(f"{table.base}/seats/1/commit", {"round": 1, "commitment": "a" * 64}, table.seat_tokens[0])
    refused(status, data, 403, "not_your_seat")
    # the host cannot bid
    status, data = http.post(f"{table.base}/seats/1/commit", {"round": 1, "commitment": "a" * 64}, table.host_token)
    refused(status, data, 403, "not_your_seat")
    # no token / a token of nothing
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "a" * 64})
    refused(status, data, 401, "missing_token")
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "a" * 64}, "x" * 43)
    refused(status, data, 401, "invalid_token")
    # malformed bodies
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "A" * 64}, table.seat_tokens[0])
    refused(status, data, 422, "invalid_request")
    assert "commitment" in data["errors"]
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "a" * 64, "card": 5}, table.seat_tokens[0])
    refused(status, data, 422, "invalid_request")
    assert data["errors"] == {"card": ["Unknown field."]}
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": "one", "commitment": "a" * 64}, table.seat_tokens[0])
    refused(status, data, 422, "invalid_request")
    # no such seat / game
    status, data = http.post(f"{table.base}/seats/5/commit", {"round": 1, "commitment": "a" * 64}, table.seat_tokens[0])
    refused(status, data, 404, "no_such_seat")
    status, data = http.get("/v1/gops/games/nope")
    assert status == 404 and data["code"] == "game_not_found"

    # commit both, then the reveal-side refusals
    salts = [new_salt(), new_salt()]
    assert table.commit(0, 1, [5], salts[0])[0] == 200
    refused_state = stored(redis_client, table.id)
    status, data = table.commit(0, 1, [6], salts[0])
    assert status == 409 and data["code"] == "already_committed"
    assert stored(redis_client, table.id) == refused_state
    assert table.commit(1, 1, [5], salts[1])[0] == 200
    before = stored(redis_client, table.id)
    refused(*table.reveal(0, 1, [6], salts[0]), 409, "commitment_mismatch")
    refused(*table.reveal(0, 1, [5], salts[1]), 409, "commitment_mismatch")
    refused(*table.reveal(0, 1, [5, 6], salts[0]), 422, "wrong_card_count")
    refused(*table.reveal(0, 1, [5], "0" * 63), 422, "invalid_request")


def test_card_not_in_hand(http):
    table = GopsGame.create(http, {"profile": "classic", "options": {"ranks": 3}})
    table.play_round({0: [3], 1: [1]})
    salt = new_salt()
    assert table.commit(0, 2, [2], salt)[0] == 200
    assert table.commit(1, 2, [2], new_salt())[0] == 200
    status, data = table.reveal(0, 2, [3], salt)  # spent, and not what was committed
    assert status == 409 and data["code"] == "card_not_in_hand"


def test_opened_illegal_bid_is_forfeited_to_the_lowest_card(http):
    """a commitment to a spent card used to stall the game forever (no deadline set)."""
    from service import verify

    table = GopsGame.create(http, {"profile": "classic", "options": {"ranks": 3, "prize_order": "ascending"}})
    table.play_round({0: [3], 1: [1]})
    salts = [new_salt(), new_salt()]
    assert table.commit(0, 2, [3], salts[0])[0] == 200  # a commitment hides the card: it is accepted
    assert table.commit(1, 2, [2], salts[1])[0] == 200
    status, data = table.reveal(0, 2, [3], salts[0])  # it opens the commitment: recorded, not refused
    assert status == 200 and data["my_reveal"] == {"cards": [3], "salt": salts[0]}
    status, data = table.reveal(1, 2, [2], salts[1])
    assert status == 200, data
    record = data["history"][1]
    assert record["illegal"] == {"0": "card_not_in_hand"}
    assert record["bids"] == {"0": [1], "1": [2]} and record["winners"] == [1]
    assert data["hands"] == [[2], [3]] and data["phase"] == "commit" and data["round"] == 3
    final = table.play_round({0: [2], 1: [3]})
    assert final["phase"] == "over" and final["scores"] == ["1", "5"]
    transcript = table.transcript()
    (opened,) = [e["action"] for e in transcript["entries"]
                 if e["action"]["type"] == "reveal" and e["round"] == 2 and e["action"]["seat"] == 0]
    assert opened["cards"] == [3] and opened["salt"] == salts[0]
    report = verify.verify(transcript)
    assert report.ok, report.problems


def test_stale_version_and_game_over(http):
    table = GopsGame.create(http, {"profile": "classic", "options": {"ranks": 1}})
    version = table.public()["version"]
    salt = new_salt()
    assert table.commit(0, 1, [1], salt, version=version)[0] == 200
    status, data = table.commit(1, 1, [1], new_salt(), version=version)
    assert status == 409 and data["code"] == "stale_version" and data["current_version"] == version + 1
    salt1 = new_salt()
    assert table.commit(1, 1, [1], salt1)[0] == 200
    assert table.reveal(0, 1, [1], salt)[0] == 200
    assert table.reveal(1, 1, [1], salt1)[0] == 200
    status, data = http.post(f"{table.base}/seats/0/resign", None, table.seat_tokens[0])
    assert status == 409 and data["code"] == "game_over"


def test_identical_repeat_is_idempotent(http, redis_client):
    table = GopsGame.create(http, {"profile": "classic"})
    salt = new_salt()
    first = table.commit(0, 1, [7], salt)
    before = stored(redis_client, table.id)
    second = table.commit(0, 1, [7], salt)
    assert first == second and stored(redis_client, table.id) == before


def test_http_level_refusals(client):
    status = client.post("/v1/gops/games", data="{", content_type="application/json")
    assert status.status_code == 400 and status.get_json()["code"] == "malformed_json"
    assert status.headers["Content-Type"] == "application/problem+json"
    r = client.post("/v1/gops/games", data="profile=classic", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415 and r.get_json()["code"] == "unsupported_media_type"
    r = client.post("/v1/gops/games", data=json.dumps({"profile": "x" * 100_000}), content_type="application/json")
    assert r.status_code == 413 and r.get_json()["code"] == "body_too_large"
    r = client.post("/v1/gops/games", json={"profile": "classic", "options": {"players": 3}})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid_options"
    r = client.post("/v1/gops/games", json={"profile": "nope"})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid_request"
    r = client.delete("/v1/gops/games")
    assert r.status_code == 405 and r.get_json()["code"] == "method_not_allowed"
    r = client.get("/v1/nothing")
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"


def test_conditional_get_for_polling(client, http):
    table = GopsGame.create(http, {"profile": "classic"})
    r = client.get(f"{table.base}")
    etag = r.headers["ETag"]
    assert client.get(f"{table.base}", headers={"If-None-Match": etag}).status_code == 304
    table.commit(0, 1, [1], new_salt())
    r = client.get(f"{table.base}", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["ETag"] != etag


def test_tokens_are_long_and_stored_only_as_hashes(http, redis_client):
    table = GopsGame.create(http, {"options": {"players": 3}})
    tokens = [table.host_token, *table.seat_tokens]
    assert len(set(tokens)) == 4 and all(len(t) >= 43 for t in tokens)
    raw = json.dumps(stored(redis_client, table.id), default=str)
    assert not any(t in raw for t in tokens)


def test_lowest_bids_play_through(http):
    final = GopsGame.create(http, {"options": {"players": 4}}).play_to_end(lowest)
    assert final["phase"] == "over"


def test_retrying_the_last_reveal_after_the_game_ended_is_harmless(http, redis_client):
    table = GopsGame.create(http, {"profile": "classic", "options": {"ranks": 1}})
    salts = [new_salt(), new_salt()]
    table.commit(0, 1, [1], salts[0])
    table.commit(1, 1, [1], salts[1])
    table.reveal(0, 1, [1], salts[0])
    status, final = table.reveal(1, 1, [1], salts[1])
    assert status == 200 and final["phase"] == "over"
    before = stored(redis_client, table.id)
    assert table.reveal(1, 1, [1], salts[1]) == (200, final)
    assert stored(redis_client, table.id) == before
    status, data = table.reveal(1, 1, [1], new_salt())
    assert status == 409 and data["code"] == "game_over"


def test_idempotency_key_makes_one_game(client, redis_client):
    body = {"profile": "classic"}
    headers = {"Idempotency-Key": "5d0c7f3e-retry-me"}
    first = client.post("/v1/gops/games", json=body, headers=headers)
    second = client.post("/v1/gops/games", json=body, headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.get_json() == second.get_json()
    assert first.headers["Idempotent-Replayed"] == "false" and second.headers["Idempotent-Replayed"] == "true"
    assert support_store.count_records(redis_client, "gops") == 1
    # Redis never holds the tokens in the clear, even for the replay.
    everything = json.dumps({k: redis_client.dump(k).hex() if redis_client.type(k) != "string" else redis_client.get(k)
                             for k in redis_client.keys("*")})
    for token in first.get_json()["seat_tokens"] + [first.get_json()["host_token"]]:
        assert token not in everything
    other = client.post("/v1/gops/games", json={"profile": "standard"}, headers=headers)
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"
    bad = client.post("/v1/gops/games", json=body, headers={"Idempotency-Key": "é"})
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_idempotency_key"
    # A refused create does not use up its key: the corrected retry creates the game.
    refused = client.post("/v1/gops/games", json={"profile": "classic", "options": {"players": 3}}, headers={"Idempotency-Key": "k2-4f0c9e1a7b3d5e"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_options"
    fixed = client.post("/v1/gops/games", json={"profile": "classic", "options": {"players": 3}}, headers={"Idempotency-Key": "k2-4f0c9e1a7b3d5e"})
    assert fixed.status_code == 422  # same body, same refusal


def test_moves_name_their_game_in_a_match(http, redis_client):
    table = GopsGame.create(http, {"options": {"ranks": 1}, "match": {"format": "cumulative", "games": 2}})
    first = table.public()["game_id"]
    assert first == f"{table.id}-1"
    salts = [new_salt(), new_salt()]
    for seat in (0, 1):
        assert table.commit(seat, 1, [1], salts[seat], game_id=first)[0] == 200
    table.reveal(0, 1, [1], salts[0], game_id=first)
    status, after = table.reveal(1, 1, [1], salts[1], game_id=first)
    assert status == 200 and after["game_id"] == f"{table.id}-2" and after["phase"] == "commit"
    before = stored(redis_client, table.id)
    # Late retries of game 1's moves change nothing; the game continues untouched.
    assert table.reveal(1, 1, [1], salts[1], game_id=first)[0] == 200
    c = commitments.bid_commitment(first, 1, 0, [1], salts[0])
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": c, "game_id": first}, table.seat_tokens[0])
    assert status == 200 and data["committed"] == []
    assert stored(redis_client, table.id) == before
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "b" * 64, "game_id": first}, table.seat_tokens[0])
    assert status == 409 and data["code"] == "wrong_game" and data["game_id"] == f"{table.id}-2"
    status, data = http.post(f"{table.base}/seats/0/commit", {"round": 1, "commitment": "b" * 64, "game_id": "other"}, table.seat_tokens[0])
    assert status == 409 and data["code"] == "wrong_game"
    assert stored(redis_client, table.id) == before


def test_idempotency_key_on_a_move(client, http, redis_client):
    table = GopsGame.create(http, {"profile": "classic"})
    c = commitments.bid_commitment(table.id, 1, 0, [3], new_salt())
    headers = {**bearer(table.seat_tokens[0]), "Idempotency-Key": "move-1-4f0c9e1a7b3d"}
    first = client.post(f"{table.base}/seats/0/commit", json={"round": 1, "commitment": c}, headers=headers)
    table.commit(1, 1, [4], new_salt())  # the game moves on
    again = client.post(f"{table.base}/seats/0/commit", json={"round": 1, "commitment": c}, headers=headers)
    assert first.status_code == again.status_code == 200 and first.get_json() == again.get_json()
    other = client.post(f"{table.base}/seats/0/commit", json={"round": 1, "commitment": "c" * 64}, headers=headers)
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"


def test_method_not_allowed_says_what_is(client):
    r = client.delete("/v1/gops/games")
    assert r.status_code == 405 and "POST" in r.headers["Allow"]
    assert r.headers["Content-Type"] == "application/problem+json"
