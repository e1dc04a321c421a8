"""The offline transcript verifier (service/verify.py) on Gops games and Gofo tables played over HTTP.

Each game's games or tables are played once per module (Flask test client on a real Valkey; seeded, so
the same play on every run: tests/support/verify_gops.py, tests/support/verify_gofo.py) and their
transcripts exported.  For both games the untouched transcripts must pass (as a function and as
``python -m service.verify``), and every tampered copy must be rejected with a message that names the
problem.  Then each game's own checks: Gops prize commitments, withheld commitments, illegal bids and
refilled rows; Gofo deck commitments, reshuffle keys, folded hands that stay secret and the hand in
progress.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support import verify_gofo, verify_gops
from support.client import FlaskHttp, GofoTable, GopsGame, new_salt
from support.servers import REPO_ROOT
from support.sweep_size import sized_seeds

from service import verify
from service.games import commitments
from service.games.gofo import deal as deal_rules
from service.games.gofo.records import HandRecord
from service.games.gofo.cards import DECK

GAMES: dict[str, ModuleType] = {"gops": verify_gops, "gofo": verify_gofo}


@pytest.fixture(scope="module")
def played_gops(redis_url):
    """name -> (transcript, prize commitments seen by the players, final public state)."""
    return verify_gops.play_all(redis_url)


@pytest.fixture(scope="module")
def played_gofo(redis_url):
    """name -> (transcript, deck commitments seen by the players); ``dealt_secret``: the referee's
    records of the dealt table's decks."""
    return verify_gofo.play_all(redis_url)


@pytest.fixture
def played(request, game):
    """The played games or tables of the test's ``game``."""
    return request.getfixturevalue(f"played_{game}")


def run_cli(tmp_path: Path, game: ModuleType, transcript, seen: dict[int, str], name="t.json", extra=(),
            in_process=False):
    """``python -m service.verify`` on ``transcript``, given the commitments ``seen`` with ``game``'s option;
    ``in_process``: its ``main`` called here instead (what the command line runs, without a Python start)."""
    path = tmp_path / name
    path.write_text(json.dumps(transcript) if not isinstance(transcript, str) else transcript)
    args = [str(path), *(f"{game.FLAG}={n}={c}" for n, c in sorted(seen.items())), *extra]
    if in_process:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = verify.main(args)
        return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())
    return subprocess.run([sys.executable, "-m", "service.verify", *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)


def case(played, game: str, name: str) -> tuple[dict[str, Any], dict[int, str]]:
    """A fresh copy of one played transcript, and the commitments a player gives the verifier for it."""
    transcript, seen = GAMES[game].get(played, name)[:2]
    return transcript, GAMES[game].given(transcript, seen)


# ------------------------------------------------------------ both games: untouched and tampered


UNTOUCHED = [(game, name) for game, module in GAMES.items() for name in module.UNTOUCHED]
TAMPERED = [(game, name, tamper) for game, module in GAMES.items()
            for name, tampers in module.APPLICABLE.items() for tamper in tampers]
ON_THE_COMMAND_LINE = [(game, tamper) for game, module in GAMES.items() for tamper in module.CLI_TAMPERS]
#: The cases run as a process of their own (a Python start each): all of them at full size, a share
#: in the edit loop (tests/support/sweep_size.py), the others through ``service.verify.main`` here.
IN_A_PROCESS = {*sized_seeds(UNTOUCHED), *sized_seeds(ON_THE_COMMAND_LINE)}


@pytest.mark.parametrize("game,name", UNTOUCHED, ids=[f"{g}-{n}" for g, n in UNTOUCHED])
def test_untouched_transcript_passes(played, game, name, tmp_path):
    transcript, seen = case(played, game, name)
    report = verify.verify(transcript, seen)
    assert report.ok, report.problems
    assert report.summary.startswith(f"{game} {transcript['id']}:")
    proc = run_cli(tmp_path, GAMES[game], transcript, seen, in_process=(game, name) not in IN_A_PROCESS)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"OK: {game} ") and proc.stderr == ""
    assert GAMES[game].ok_line_mentions(played, name) in lines[0]


@pytest.mark.parametrize("game,name,tamper", TAMPERED, ids=[f"{g}-{n}-{t}" for g, n, t in TAMPERED])
def test_tampered_transcript_is_rejected(played, game, name, tamper):
    transcript, seen = case(played, game, name)
    original = copy.deepcopy(transcript)
    change, expected = GAMES[game].TAMPERS[tamper]
    change(transcript)
    assert transcript != original, "the tampering changed nothing"
    report = verify.verify(transcript, seen)
    assert not report.ok, f"{tamper} was not detected"
    assert any(re.search(expected, p) for p in report.problems), report.problems


@pytest.mark.parametrize("game,tamper", ON_THE_COMMAND_LINE, ids=[f"{g}-{t}" for g, t in ON_THE_COMMAND_LINE])
def test_tampered_transcript_fails_on_the_command_line(played, game, tamper, tmp_path):
    transcript, seen = case(played, game, GAMES[game].CLI_GAME)
    change, expected = GAMES[game].TAMPERS[tamper]
    change(transcript)
    proc = run_cli(tmp_path, GAMES[game], transcript, seen, in_process=(game, tamper) not in IN_A_PROCESS)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert all(line.startswith("FAIL: ") for line in lines) and "problem" in lines[-1]
    assert any(re.search(expected, line) for line in lines), lines


@pytest.mark.parametrize("game", list(GAMES))
def test_garbage_inside_a_transcript_is_a_problem_not_a_crash(played, game):
    transcript, seen = case(played, game, GAMES[game].GARBAGE_GAME)
    for mutate, expected in GAMES[game].GARBAGE:
        tampered = copy.deepcopy(transcript)
        mutate(tampered)
        problems = verify.verify(tampered, seen).problems
        assert any(re.search(expected, p) for p in problems), (expected, problems)


# ------------------------------------------------------------ Gops only


def test_the_games_cover_what_they_claim(played_gops):
    """Guard the fixtures: each game really exercises the feature its tampering tests rely on."""
    t, seen, final = verify_gops.get(played_gops, "cumulative_match")
    assert final["result"]["games_played"] == 2 and set(seen) == {1, 2}
    assert {e["game"] for e in verify_gops.entries_of(t, "deal_prizes")} == {1, 2}
    t, _, _ = verify_gops.get(played_gops, "open_prizes")
    assert len(verify_gops.entries_of(t, "choose_prize")) >= 2
    t, seen, final = verify_gops.get(played_gops, "reported")
    assert [e["action"]["rank"] for e in verify_gops.entries_of(t, "report_prize")] == [3, 1, 4, 2, 5]
    assert not verify_gops.entries_of(t, "deal_prizes") and seen == {}
    assert {e["by"] for e in verify_gops.entries_of(t, "report_prize")} > {"host"}
    _, _, final = verify_gops.get(played_gops, "three_split")
    assert [len(r["shares"]) for r in final["history"][:4]] == [3, 3, 3, 3]  # pots really were split
    for name in ("deadline_shuffled", "deadline_ascending"):
        t, _, final = verify_gops.get(played_gops, name)
        assert verify_gops.entries_of(t, "enforce_deadline") and final["game_result"]["termination"] == "completed"
        assert final["forfeited"] == {"2": "deadline"} and len(verify_gops.entries_of(t, "reveal", round=5)) == 2


def test_a_single_game_id_is_used_for_a_single_game_and_n_for_a_match(played_gops):
    t, seen, _ = verify_gops.get(played_gops, "classic")
    deal = verify_gops.entries_of(t, "deal_prizes")[0]["action"]
    from service.games import commitments
    assert commitments.prize_order_commitment(t["id"], deal["order"], deal["salt"]) == seen[1]
    t, seen, _ = verify_gops.get(played_gops, "cumulative_match")
    for e in verify_gops.entries_of(t, "deal_prizes"):
        game_id = f"{t['id']}-{e['game']}"
        assert commitments.prize_order_commitment(game_id, e["action"]["order"], e["action"]["salt"]) == seen[e["game"]]


@pytest.mark.parametrize("game", ["deadline_shuffled", "deadline_ascending"])
def test_the_deadline_replays_from_the_creation_time_not_from_zero(played_gops, game):
    """Enforcing the deadline 20 s after creation is refused (10 s were left): replays start the clock at
    the create entry's time, also with a fixed prize order (no deal entry to set it)."""
    from service.games import gops

    transcript, seen, _ = verify_gops.get(played_gops, game)
    entries = transcript["entries"]
    verify_gops.entries_of(transcript, "enforce_deadline")[0]["at"] = entries[0]["at"] + 20
    report = verify.verify(transcript, seen)
    assert any(re.search(r"the deadline has not passed yet \(10 s left\) \(deadline_not_passed\)", p)
               for p in report.problems), report.problems
    rules = gops.Rules.from_dict(transcript["rules"])
    match = gops.MatchRules.from_dict(transcript["match"])
    pairs = [(e["action"], e["at"]) for e in entries[1:]]
    with pytest.raises(Exception, match="deadline has not passed"):
        gops.replay(transcript["id"], rules, match, pairs, start=entries[0]["at"])


def test_the_transcript_carries_each_games_published_commitment(played_gops, tmp_path):
    transcript, seen, _ = verify_gops.get(played_gops, "classic")
    assert transcript["result"]["games"][0]["prize_commitment"] == seen[1]
    report = verify.verify(transcript)
    assert report.ok, report.problems
    proc = run_cli(tmp_path, verify_gops, transcript, {})
    assert proc.returncode == 0, proc.stderr
    # The commitment the players saw before bidding can be given too, and must agree.
    proc = run_cli(tmp_path, verify_gops, transcript, {}, extra=["--prize-commitment", seen[1]])
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(tmp_path, verify_gops, transcript, {}, extra=["--prize-commitment", "0" * 64])
    assert proc.returncode == 1
    proc = run_cli(tmp_path, verify_gops, transcript, {}, extra=[seen[1]])
    assert proc.returncode == 2  # a second positional argument: usage error


def test_a_match_checks_every_games_commitment(played_gops):
    transcript, seen, _ = verify_gops.get(played_gops, "cumulative_match")
    assert verify.verify(transcript).ok
    assert verify.verify(transcript, {1: seen[1]}).ok
    report = verify.verify(transcript, {1: seen[2], 2: seen[1]})
    assert len(report.problems) == 2 and all(re.search(verify_gops.PRIZE_MISMATCH, p) for p in report.problems)


def test_a_commitment_for_a_game_without_a_deal_is_refused(played_gops):
    transcript, _, _ = verify_gops.get(played_gops, "reported")
    report = verify.verify(transcript, {1: "ab" * 32})
    assert report.problems == ["--prize-commitment 1=…: the transcript has no shuffled deal for game 1"]


def test_per_game_results_in_the_result_are_checked_when_present(played_gops):
    """A transcript whose result carries the per-game results (the public state's ``games``) is checked
    against them, and their prize_commitment stands in for --prize-commitment."""
    transcript, seen, final = verify_gops.get(played_gops, "cumulative_match")
    transcript["result"]["games"] = final["games"]
    assert verify.verify(transcript).ok
    tampered = copy.deepcopy(transcript)
    tampered["result"]["games"][1]["scores"][0] = "0"
    assert any(p.startswith("result.games[1].scores: the transcript says") for p in verify.verify(tampered).problems)
    tampered = copy.deepcopy(transcript)
    tampered["result"]["games"][0]["prize_commitment"] = verify_gops.flip_hex(seen[1])
    problems = verify.verify(tampered).problems
    assert any(re.search(verify_gops.PRIZE_MISMATCH + r" \S+-1 \(result.games \(game 1\)\)", p) for p in problems), problems


def test_a_transcript_exported_before_every_seat_committed_withholds_the_commitment(client):
    table = GopsGame.create(FlaskHttp(client), {"profile": "classic", "options": {"prize_order": "ascending"}})
    table.play_round({0: [1], 1: [2]})
    table.commit(0, 2, [5], new_salt())
    transcript = table.transcript()
    (pending,) = [e for e in verify_gops.entries_of(transcript, "commit") if e["round"] == 2]
    assert pending["action"]["commitment"] is None
    report = verify.verify(transcript)
    assert any(re.search(r"round 2, commit\): commitment withheld \(null\)", p) for p in report.problems), \
        report.problems
    # once every seat has committed, the round's commitments are in the transcript (reveals can be checked)
    table.commit(1, 2, [6], new_salt())
    assert all(e["action"]["commitment"] for e in verify_gops.entries_of(table.transcript(), "commit"))


def _illegal_bid_game(client) -> dict:
    """Seat 0 commits to a spent card in round 2 and opens it: it plays its lowest card instead."""
    table = GopsGame.create(FlaskHttp(client), {"profile": "classic", "options": {"ranks": 4, "prize_order": "ascending"}})
    table.play_round({0: [4], 1: [1]})
    salts = [new_salt(), new_salt()]
    assert table.commit(0, 2, [4], salts[0])[0] == 200
    assert table.commit(1, 2, [3], salts[1])[0] == 200
    assert table.reveal(0, 2, [4], salts[0])[0] == 200
    status, data = table.reveal(1, 2, [3], salts[1])
    assert status == 200 and data["history"][1]["illegal"] == {"0": "card_not_in_hand"}
    table.play_round({0: [2], 1: [2]})
    table.play_round({0: [3], 1: [4]})
    return table.transcript()


def test_a_forfeited_illegal_bid_verifies_and_cannot_be_rewritten(client):
    transcript = _illegal_bid_game(client)
    report = verify.verify(transcript)
    assert report.ok, report.problems
    assert "8 reveals match their commitments" in report.summary, report.summary
    # claiming the seat opened its lowest card (a legal bid) does not open its commitment
    tampered = copy.deepcopy(transcript)
    (opened,) = [e for e in verify_gops.entries_of(tampered, "reveal", seat=0) if e["round"] == 2]
    opened["action"]["cards"] = [1]
    assert any("does not match the commitment" in p for p in verify.verify(tampered).problems)
    # and the round record must say what the rules say: the spent card did not play
    tampered = copy.deepcopy(transcript)
    record = tampered["result"]["games"][0]["history"][1]
    assert record["illegal"] == {"0": "card_not_in_hand"} and record["bids"]["0"] == [1]
    record["bids"]["0"] = [4]
    assert any("history[1]" in p and "bids" in p for p in verify.verify(tampered).problems), \
        verify.verify(tampered).problems


def test_picks_from_the_refilled_row_verify(client):
    http = FlaskHttp(client)
    table = GopsGame.create(http, {"options": {
        "players": 2, "ranks": 4, "prize_order": "explicit", "explicit_order": [1, 2, 3, 4],
        "open_prizes": 2, "resolution": "none", "unclaimed": "carryover"}})
    table.play_round({0: [1], 1: [1]})
    table.play_round({0: [2], 1: [2]})
    table.play_round({0: [4], 1: [3]})
    for rank in (1, 2, 4):  # 4 was turned up only after the second pick
        assert http.post(f"{table.base}/seats/0/choose", {"rank": rank}, table.seat_tokens[0])[0] == 200
    table.play_round({0: [3], 1: [4]})
    assert http.post(f"{table.base}/seats/1/choose", {"rank": 3}, table.seat_tokens[1])[0] == 200
    transcript = table.transcript()
    report = verify.verify(transcript)
    assert report.ok, report.problems
    assert transcript["result"]["totals"] == ["7", "3"]
    # the old behaviour (the third pick lost) does not replay to this result
    tampered = copy.deepcopy(transcript)
    tampered["result"]["totals"] = ["3", "3"]
    assert any("result" in p and "totals" in p for p in verify.verify(tampered).problems)


def test_a_transcript_exported_mid_game_is_refused(client, tmp_path):
    """Before the game is over the endpoint withholds the deal and the unresolved reveals."""
    table = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    seen = {1: table.public()["prize_commitment"]}
    table.play_round({0: [1], 1: [2]})
    salt = new_salt()
    table.commit(0, 2, [5], salt)
    table.commit(1, 2, [6], new_salt())
    table.reveal(0, 2, [5], salt)
    report = verify.verify(table.transcript(), seen)
    assert report.problems[0].startswith("complete: is False, not true")
    assert any(re.search(r"entry #2 \(version 1, game 1, round 1, deal_prizes\): order, salt withheld \(null\)", p)
               for p in report.problems), report.problems
    assert any("the prize order and salt are withheld (null)" in p for p in report.problems), report.problems
    proc = run_cli(tmp_path, verify_gops, table.transcript(), seen)
    assert proc.returncode == 1 and "FAIL: complete: is False" in proc.stderr


def test_unreadable_input_exits_2(tmp_path, played_gops):
    transcript, seen, _ = verify_gops.get(played_gops, "classic")
    proc = subprocess.run([sys.executable, "-m", "service.verify", str(tmp_path / "missing.json")],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("ERROR: cannot read") and proc.stdout == ""
    proc = run_cli(tmp_path, verify_gops, "{not json", {})
    assert proc.returncode == 2 and "is not JSON" in proc.stderr
    proc = run_cli(tmp_path, verify_gops, "[1, 2]", {})
    assert proc.returncode == 2 and "a transcript is a JSON object, not list" in proc.stderr
    proc = run_cli(tmp_path, verify_gops, dict(transcript, kind="chess"), seen)
    assert proc.returncode == 2 and "unknown transcript kind 'chess'; this verifier checks: gops" in proc.stderr
    proc = run_cli(tmp_path, verify_gops, transcript, {}, extra=["--prize-commitment", "1=nothex"])
    assert proc.returncode == 2 and "64 lowercase hex" in proc.stderr


# ------------------------------------------------------------ Gofo only


def test_the_tables_cover_what_they_claim(played_gofo):
    """Guard the fixtures: each table really exercises what its tampering tests rely on."""
    t, seen = verify_gofo.get(played_gofo, "dealt")
    assert t["hands_finished"] == 5 and len(t["deals"]) == 5 and len(t["results"]) == 5
    assert set(range(1, 7)) <= set(seen)  # a commitment was shown before every deal, the 6th's included
    assert [d["commitment"] for d in t["deals"]] == [seen[n] for n in range(1, 6)]
    reshuffles = verify_gofo.finished_entries(t, "reshuffle")
    assert len(reshuffles) >= 2 and {e["hand"] for e in reshuffles} >= {3}
    # Everyone threw five cards to the end of hand 3: the referee's last reshuffle is what ended it
    # (canto and payout inside the chance step), and its result is recorded all the same.
    assert [e for e in t["entries"] if e["hand"] == 3][-1]["action"]["type"] == "reshuffle"
    assert t["results"][2]["hand"] == 3 and t["results"][2]["reason"] == "canto"
    assert sum(len(r["reshuffles"]) for r in t["results"]) == len(reshuffles)
    # some reshuffles are revealed (derived from their key), some kept closed (a folded hand went through)
    assert any(e["action"]["order"] for e in reshuffles) and any(e["action"]["order"] is None for e in reshuffles)
    assert any(d["reshuffle_keys"] for d in t["deals"])
    in_progress = [e for e in t["entries"] if e["hand"] == 6]
    assert in_progress[0]["action"] == {"type": "shuffle", "order": None} and len(in_progress) == 5
    assert any(r["reason"] == "canto" and len(r["pots"]) >= 1 for r in t["results"])
    kinds = {e["action"]["type"] for e in verify_gofo.finished_entries(t)}
    assert {"open", "enter", "decline", "voy", "discard", "shuffle", "reshuffle"} <= kinds
    assert {e["action"]["blind"] for e in verify_gofo.entries_of(t, "enter")} == {True, False}

    t, _ = verify_gofo.get(played_gofo, "tabletop")
    assert t["hands_finished"] >= 3 and t["deals"] == []
    kinds = {e["action"]["type"] for e in verify_gofo.finished_entries(t)}
    assert {"declare", "show", "discard", "reshuffle"} <= kinds
    assert {e["by"] for e in verify_gofo.finished_entries(t)} >= {"host", "seat:1", "seat:3"}
    assert any(e["action"]["cards"] for e in verify_gofo.finished_entries(t, "discard"))  # face up
    assert any(e["action"].get("count") is not None for e in verify_gofo.finished_entries(t, "discard"))
    assert any(r["reason"] == "canto" for r in t["results"])

    t, _ = verify_gofo.get(played_gofo, "fresh")
    assert t["hands_finished"] == 0 and t["deals"] == [] and t["results"] == []

    t, _ = verify_gofo.get(played_gofo, "deadlines")
    timeouts = [e for e in verify_gofo.finished_entries(t) if e.get("timeout")]
    assert t["hands_finished"] == 3 and len({e["action"]["type"] for e in timeouts}) >= 3
    assert {e["by"] for e in timeouts} == {"referee"}


def test_the_reshuffles_are_derived_from_the_committed_key(played_gofo):
    """Independently of the verifier: each reshuffle is derived_shuffle of the pile it reorders, from its
    own committed key; a revealed one shows its whole order, a closed one shows null."""
    t, _ = verify_gofo.get(played_gofo, "dealt")
    secret = played_gofo["dealt_secret"]
    closed = 0
    for deal, result in zip(t["deals"], t["results"], strict=True):
        mine = secret[str(deal["hand"])]
        keys = {r["number"]: r["key"] for r in deal["reshuffle_keys"]}
        assert set(keys) == set(deal_rules.revealed_reshuffles(HandRecord.from_dict(result)))
        orders = [e["action"]["order"] for e in verify_gofo.entries_of(t, "reshuffle", hand=deal["hand"])]
        for k, (order, full) in enumerate(zip(orders, mine["reshuffles"], strict=True), 1):
            seed = commitments.reshuffle_seed(deal["hand_id"], k, mine["reshuffle_keys"][k - 1])
            assert commitments.derived_shuffle(seed, sorted(full, key=DECK.index)) == full
            if k in keys:
                assert keys[k] == mine["reshuffle_keys"][k - 1] and order == full
            else:
                assert order is None
                closed += 1
    assert closed >= 1


def test_the_deals_open_exactly_what_the_rules_allow(played_gofo):
    """Independently of the verifier: the published deals against the referee's secret records."""
    t, _ = verify_gofo.get(played_gofo, "dealt")
    secret = played_gofo["dealt_secret"]
    for deal, result in zip(t["deals"], t["results"], strict=True):
        mine = secret[str(deal["hand"])]
        hid = deal["hand_id"]
        assert deal["leaves"] == [commitments.card_leaf(hid, i, c, mine["salts"][i]) for i, c in enumerate(mine["order"])]
        assert deal["commitment"] == commitments.deck_commitment(hid, deal["leaves"], deal["reshuffle_key_hash"])
        assert deal["reshuffle_key_hash"] == commitments.reshuffle_key_hash(hid, deal["reshuffle_key_leaves"])
        public, opened = verify_gofo.public_cards(result), deal_rules.opened_cards(HandRecord.from_dict(result))
        assert opened <= public
        if all(r["clean"] for r in result["reshuffles"]):  # no folded hand came back: every public card opens
            assert opened == public
        assert {(o["position"], o["card"]) for o in deal["openings"]} == {
            (i, c) for i, c in enumerate(mine["order"]) if c in opened}
        assert "order" not in deal and "salt" not in deal and "salts" not in deal and "reshuffles" not in deal
        shuffle = verify_gofo.entries_of(t, "shuffle", hand=deal["hand"])[0]["action"]["order"]
        assert shuffle == ([c if c in opened else None for c in mine["order"]] if opened else None)
    assert [len(d["openings"]) for d in t["deals"]][0] == 0  # hand 1: won uncontested, nothing shown
    assert any(0 < len(d["openings"]) < 28 for d in t["deals"])
    # the long hand: cards came back from folded hands, so fewer cards open than were shown
    assert any(len(d["openings"]) < len(verify_gofo.public_cards(r)) for d, r in zip(t["deals"], t["results"]))


def test_a_rewritten_deal_is_caught_only_by_the_commitment_the_players_saw(played_gofo, tmp_path):
    transcript, seen = verify_gofo.get(played_gofo, "dealt")
    verify_gofo.t_deal_everything(transcript)
    report = verify.verify(transcript)
    # Self-consistent: the shuffle, the revealed order and its commitment agree; the replay goes on
    # with another deck, so only the results may give it away — the commitment seen always does.
    assert not any("deck commitment" in p for p in report.problems), report.problems
    assert not any("does not open" in p for p in report.problems), report.problems
    report = verify.verify(transcript, {2: seen[2]})
    assert any(re.search(r"deals\[1\]: the leaves and reshuffle key hash of hand 2 hash to \w+…, which does not "
                         r"match the deck commitment \w+… published for hand \S+-2 \(--deck-commitment 2\)", p)
               for p in report.problems), report.problems
    proc = run_cli(tmp_path, verify_gofo, transcript, {2: seen[2]})
    assert proc.returncode == 1 and "(--deck-commitment 2)" in proc.stderr
    # Likewise a rewritten reshuffle key: only the commitment the players saw catches its hash.
    transcript, seen = verify_gofo.get(played_gofo, "dealt")
    verify_gofo.t_reshuffle_key_everything(transcript)
    assert not any("deck commitment" in p for p in verify.verify(transcript).problems)
    n = verify_gofo.long_hand(transcript)
    assert any(f"(--deck-commitment {n})" in p for p in verify.verify(transcript, {n: seen[n]}).problems)


def test_deck_commitments_on_the_command_line(played_gofo, tmp_path):
    transcript, seen = verify_gofo.get(played_gofo, "dealt")
    finished = verify_gofo.finished_seen(transcript, seen)
    proc = run_cli(tmp_path, verify_gofo, transcript, {}, extra=["--deck-commitment", seen[1]])  # HEX alone: hand 1
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(tmp_path, verify_gofo, transcript, {**finished, 2: seen[3]})
    assert proc.returncode == 1 and "(--deck-commitment 2)" in proc.stderr
    # The hand in progress: its deck is not revealed, so its commitment cannot be checked yet.
    report = verify.verify(transcript, {6: seen[6]})
    assert report.problems == ["--deck-commitment 6=…: hand 6 is not a finished hand of this transcript "
                               "(5 finished); only a finished hand's deck is revealed"]
    proc = run_cli(tmp_path, verify_gofo, transcript, {}, extra=["--prize-commitment", seen[1]])
    assert proc.returncode == 2 and "--prize-commitment does not apply to a gofo transcript; use " \
                                    "--deck-commitment" in proc.stderr
    proc = run_cli(tmp_path, verify_gofo, {"kind": "gops", "id": "g"}, {1: seen[1]})
    assert proc.returncode == 2 and "--deck-commitment does not apply to a gops transcript; use " \
                                    "--prize-commitment" in proc.stderr
    proc = run_cli(tmp_path, verify_gofo, transcript, {}, extra=["--deck-commitment", "1=nothex"])
    assert proc.returncode == 2 and "64 lowercase hex" in proc.stderr
    proc = run_cli(tmp_path, verify_gofo, transcript, {}, extra=["--deck-commitment", f"x={seen[1]}"])
    assert proc.returncode == 2 and "expected HAND=HEX, HAND a hand number" in proc.stderr
    tabletop, _ = verify_gofo.get(played_gofo, "tabletop")
    report = verify.verify(tabletop, {1: seen[1]})
    assert report.problems == ["--deck-commitment 1=…: a tabletop table has no dealt deck to check"]


def test_a_referee_that_opens_a_folded_hand_is_caught(played_gofo):
    """A real leak: the referee opens a closed position with its true card and salt (read from its
    secret record).  The leaf opens, so only the rule "open exactly the public cards" catches it."""
    transcript, _ = verify_gofo.get(played_gofo, "dealt")
    n, deal = verify_gofo.partly_closed(transcript)
    mine = played_gofo["dealt_secret"][str(n)]
    position = verify_gofo.closed_positions(deal)[0]
    card = mine["order"][position]
    assert card not in verify_gofo.public_cards(transcript["results"][n - 1])
    deal["openings"].append({"position": position, "card": card, "salt": mine["salts"][position]})
    order = verify_gofo.entries_of(transcript, "shuffle", hand=n)[0]["action"]["order"]
    order[position] = card  # the shuffle entry shows it too, consistently
    problems = verify.verify(transcript).problems
    assert not any("does not open" in p for p in problems), problems
    assert any(re.match(rf"deals\[{n - 1}\]: opens \['{card}'\], which hand {n} must keep closed", p)
               for p in problems), problems


def test_the_summary_counts_what_was_checked(played_gofo):
    transcript, _ = verify_gofo.get(played_gofo, "dealt")
    summary = verify.verify(transcript).summary
    opened = sum(len(d["openings"]) for d in transcript["deals"])
    assert f"5 decks match their commitments, {opened} public cards opened and {5 * 28 - opened} positions kept " \
           "closed" in summary, summary
    closed = sum(e["action"]["order"] is None for e in verify_gofo.finished_entries(transcript, "reshuffle"))
    derived = len(verify_gofo.finished_entries(transcript, "reshuffle")) - closed
    assert f"{derived} reshuffle{'s' if derived != 1 else ''} derived from the revealed keys, {closed} reshuffle" in summary
    assert "kept closed (a folded or unshown hand went through it)" in summary


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def test_a_folded_hand_never_appears_in_public(redis_url):
    """A player looks at his cards and folds (declines, or no ver after a corta): once the hand is over,
    none of his cards appears in the public view, the ledger or the transcript — unless that card
    became public another way (reshuffled from the pile, then thrown or shown by someone else)."""
    from service.games import entropy
    from service.web.app import create_app

    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_PER_MINUTE": 0,
                         "CREATE_LIMIT_PER_HOUR": 0}).test_client()
    http = FlaskHttp(client)
    checked = {"decline": 0, "no_ver": 0}
    with entropy.seeded(99):
        t = GofoTable.create(http, {"seats": 4, "caja": 100, "initial_front": 40})
        player = verify_gofo.RandomPlayer(random.Random(5))
        for _ in range(12):
            view = t.public()
            number = view["table"]["hand_number"]
            way = "decline" if number % 2 else "no_ver"
            folder, cards = None, []
            while view["table"]["hand_number"] == number:
                seat = view["hand"]["to_act"]
                mine = t.seat_view(seat)
                legal = {a["type"] for a in mine["hand"]["legal_actions"]}
                if folder is None and "enter" in legal and "open" not in legal:
                    folder = seat
                    if way == "decline":
                        status, view = t.move(seat, "look")
                        assert status == 200, view
                        cards = t.seat_view(seat)["hand"]["my_cards"]
                        status, view = t.move(seat, "decline")
                    else:
                        status, view = t.move(seat, "enter", {"blind": False})
                    assert status == 200, view
                    continue
                if seat == folder and way == "no_ver" and "ver" in legal and not cards:
                    cards = mine["hand"]["my_cards"]
                    status, view = t.move(seat, "no_ver")
                    assert status == 200, view
                    continue
                if seat != folder and folder is not None and way == "no_ver" and not cards and "corta" in legal:
                    kind, body = "corta", {"amount": 1}  # make the folder answer a bet
                elif seat == folder and "discard" in legal:
                    kind, body = "discard", {"cards": []}  # keep the cards he will fold
                else:
                    kind, body = player.choose(mine)
                status, view = t.move(seat, kind, body)
                assert status == 200, (seat, kind, body, view)
            if not cards:
                continue  # he never had to answer a bet: try again next hand
            assert len(cards) == (2 if way == "decline" else 5)
            transcript = http.get(f"{t.base}/transcript")[1]
            ledger = http.get(f"{t.base}/ledger")[1]
            result = transcript["results"][number - 1]
            hidden = set(cards) - verify_gofo.public_cards(result)
            assert hidden, "every card he folded became public another way"
            public = t.public()
            public["table"].pop("draws")  # the first-dealer draw (hand 0) shows cards of its own
            this_hand = [e for e in transcript["entries"] if e["hand"] >= number]
            seen = strings([public, ledger["results"][number - 1], this_hand, transcript["deals"][number - 1],
                            result])
            assert not hidden & seen, (hidden & seen, number)
            deal = transcript["deals"][number - 1]
            # nor where any of his cards lay in the deck, even one that came back and was shown
            assert not set(cards) & {o["card"] for o in deal["openings"]}
            assert len(deal["leaves"]) == 28 and "order" not in deal
            assert verify.verify(transcript).ok
            checked[way] += 1
            if min(checked.values()) >= 1:
                break
    assert min(checked.values()) >= 1, checked


def test_the_hand_in_progress_is_ignored_but_must_be_that_hand(played_gofo):
    transcript, _ = verify_gofo.get(played_gofo, "dealt")
    in_progress = [e for e in transcript["entries"] if e["hand"] == 6]
    # Whatever its withheld deck, the hand in progress is not replayed...
    in_progress[1]["action"]["amount"] = 10 ** 6
    assert verify.verify(transcript).ok
    # ...but its entries must belong to it, and be made by the right party.
    in_progress[-1]["hand"] = 7
    in_progress[-2]["by"] = "referee"
    problems = verify.verify(transcript).problems
    assert any(re.search(r"recorded for hand 7, but after the 5 finished hands only hand 6 is in progress", p)
               for p in problems), problems
    assert any(re.search(r"made by 'referee', but a \w+ for seat \d can only be made by 'seat:\d' \(the referee "
                         r"moves a seat only when its time ran out, marked timeout\)$", p) for p in problems), problems


def test_a_tabletop_hand_in_progress_is_replayed_as_far_as_it_goes(played_gofo):
    """Nothing is withheld at a tabletop table: the moves of the hand in progress must be legal too."""
    transcript, _ = verify_gofo.get(played_gofo, "tabletop")
    report = verify.verify(transcript)
    in_progress = transcript["hands_finished"] + 1
    assert report.ok and report.summary.endswith(f"hand {in_progress} in progress, replayed so far")
    in_progress = [e for e in transcript["entries"] if e["hand"] == in_progress]
    assert in_progress[0]["action"]["type"] == "open"
    in_progress[0]["action"]["amount"] = 10 ** 6
    problems = verify.verify(transcript).problems
    assert any(re.search(r"open\): the rules engine refuses this action: the opening must be below every front", p)
               for p in problems), problems


def test_gofo_is_registered(played_gofo, tmp_path):
    from service.games.registry import GAMES

    assert list(GAMES) == ["gops", "gofo"]
    transcript, _ = verify_gofo.get(played_gofo, "fresh")
    proc = run_cli(tmp_path, verify_gofo, dict(transcript, kind="chess"), {})
    assert proc.returncode == 2 and "unknown transcript kind 'chess'; this verifier checks: gops, gofo" in proc.stderr
