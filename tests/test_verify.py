"""The offline transcript verifier (service/verify.py) on games played over HTTP.

Each kind of game is played once per module (Flask test client on a real
Valkey), its transcript exported; the untouched transcript must pass (as a
function and as ``python -m service.verify``), and every tampered copy must be
rejected with a message that names the problem.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.servers import REPO_ROOT
from support.client import FlaskHttp, GopsGame, lowest, match_prize, new_salt, seat_biased

from service import verify



# ------------------------------------------------------------------ playing


def mixed(state, seat):
    """Seat 0 bids the prize's value, the others their (s+1)-th highest card: wins, losses and ties."""
    return match_prize(state, seat) if seat == 0 else seat_biased(state, seat)


def tie_prone(state, seat):
    """Everyone bids their lowest card in the first four rounds (split three ways), then mixed."""
    return lowest(state, seat) if state["round"] <= 4 else mixed(state, seat)


def play(table: GopsGame, strategy) -> dict[int, str]:
    """Play to the end like a client; return the prize commitment seen before each game's first bid."""
    seen: dict[int, str] = {}
    for step in range(2000):
        state = table.public()
        if state["phase"] == "over":
            return seen
        if state["prize_commitment"] is not None:
            seen.setdefault(state["game_number"], state["prize_commitment"])
        if state["phase"] == "commit":
            table.play_round({seat: strategy(state, seat) for seat in state["awaiting"]})
        elif state["phase"] == "choose":
            seat = state["chooser"]
            status, data = table.move(seat, "choose", {"rank": max(state["row"])})
            assert status == 200, data
        elif state["phase"] == "prize":
            # The physical pile at the table: prizes turned up in a fixed, non-sorted order.
            rank = [r for r in (3, 1, 4, 2, 5, 6) if r not in state["turned"]][0]
            reporters = [table.host_token, *table.seat_tokens]  # the host or any seat may report
            token = reporters[len(state["turned"]) % len(reporters)]
            status, data = table.http.post(f"{table.base}/prize", {"rank": rank}, token)
            assert status == 200, data
        else:
            raise AssertionError(f"unexpected phase {state['phase']}")
    raise AssertionError("the game did not end")


def play_deadline(table: GopsGame, clock: list[float]) -> dict[int, str]:
    """Round 1: seats 0 and 1 commit, seat 2 never does; 33 s after creation seat 0 enforces the
    deadline (seat 2 forfeits) and seats 0 and 1 play the game out."""
    seen = {1: table.public()["prize_commitment"]} if table.public()["prize_commitment"] else {}
    salts = {0: new_salt(), 1: new_salt()}
    clock[0] += 2
    assert table.commit(0, 1, [13], salts[0])[0] == 200
    assert table.commit(1, 1, [12], salts[1])[0] == 200
    clock[0] += 31
    status, data = table.http.post(f"{table.base}/deadline", None, table.seat_tokens[0])
    assert status == 200 and data["forfeited"] == {"2": "deadline"} and data["phase"] == "reveal", data
    assert table.reveal(0, 1, [13], salts[0])[0] == 200
    assert table.reveal(1, 1, [12], salts[1])[0] == 200
    return {**seen, **play(table, mixed)}


GAMES = {
    "classic": ({"profile": "classic"}, mixed),
    "three_split": ({"profile": "standard", "options": {"players": 3, "resolution": "split"}}, tie_prone),
    "cumulative_match": ({"profile": "classic", "match": {"format": "cumulative", "games": 2}}, seat_biased),
    "open_prizes": ({"profile": "standard", "options": {"ranks": 6, "open_prizes": 3, "unclaimed": "carryover"}},
                    mixed),
    "reported": ({"profile": "standard", "options": {"ranks": 5, "prize_order": "reported"}}, mixed),
    "deadline_shuffled": ({"profile": "standard", "options": {"players": 3, "deadline_seconds": 30}}, None),
    "deadline_ascending": ({"profile": "standard", "options": {
        "players": 3, "deadline_seconds": 30, "prize_order": "ascending"}}, None),
}


@pytest.fixture(scope="module")
def played(redis_url):
    """name -> (transcript, prize commitments seen by the players, final public state)."""
    from service.api import common
    from service.web.app import create_app

    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    http = FlaskHttp(client)
    clock = [1_700_000_000.0]
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(common, "now", lambda: clock[0])
        for name, (body, strategy) in GAMES.items():
            table = GopsGame.create(http, body)
            seen = play_deadline(table, clock) if strategy is None else play(table, strategy)
            transcript = table.transcript()
            assert transcript["complete"] is True
            out[name] = (transcript, seen, table.public())
            clock[0] += 100
    return out


def get(played, name):
    transcript, seen, final = played[name]
    return copy.deepcopy(transcript), dict(seen), copy.deepcopy(final)


def entries_of(t, kind, **match):
    return [e for e in t["entries"] if e["action"]["type"] == kind
            and all(e["action"].get(k) == v for k, v in match.items())]


def run_cli(tmp_path: Path, transcript, seen: dict[int, str], name="t.json", extra=()):
    path = tmp_path / name
    path.write_text(json.dumps(transcript) if not isinstance(transcript, str) else transcript)
    args = [f"--prize-commitment={n}={c}" for n, c in sorted(seen.items())]
    return subprocess.run([sys.executable, "-m", "service.verify", str(path), *args, *extra],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)


# ------------------------------------------------------------- untouched games


@pytest.mark.parametrize("name", list(GAMES))
def test_untouched_transcript_passes(played, name, tmp_path):
    transcript, seen, final = get(played, name)
    report = verify.verify(transcript, seen)
    assert report.ok, report.problems
    assert report.summary.startswith(f"gops {transcript['id']}:")
    proc = run_cli(tmp_path, transcript, seen)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("OK: gops ") and proc.stderr == ""
    assert str(final["result"]["winners"]) in lines[0]


def test_the_games_cover_what_they_claim(played):
    """Guard the fixtures: each game really exercises the feature its tampering tests rely on."""
    t, seen, final = get(played, "cumulative_match")
    assert final["result"]["games_played"] == 2 and set(seen) == {1, 2}
    assert {e["game"] for e in entries_of(t, "deal_prizes")} == {1, 2}
    t, _, _ = get(played, "open_prizes")
    assert len(entries_of(t, "choose_prize")) >= 2
    t, seen, final = get(played, "reported")
    assert [e["action"]["rank"] for e in entries_of(t, "report_prize")] == [3, 1, 4, 2, 5]
    assert not entries_of(t, "deal_prizes") and seen == {}
    assert {e["by"] for e in entries_of(t, "report_prize")} > {"host"}
    _, _, final = get(played, "three_split")
    assert [len(r["shares"]) for r in final["history"][:4]] == [3, 3, 3, 3]  # pots really were split
    for name in ("deadline_shuffled", "deadline_ascending"):
        t, _, final = get(played, name)
        assert entries_of(t, "enforce_deadline") and final["game_result"]["termination"] == "completed"
        assert final["forfeited"] == {"2": "deadline"} and len(entries_of(t, "reveal", round=5)) == 2


def test_a_single_game_id_is_used_for_a_single_game_and_n_for_a_match(played):
    t, seen, _ = get(played, "classic")
    deal = entries_of(t, "deal_prizes")[0]["action"]
    from service.games import commitments
    assert commitments.prize_order_commitment(t["id"], deal["order"], deal["salt"]) == seen[1]
    t, seen, _ = get(played, "cumulative_match")
    for e in entries_of(t, "deal_prizes"):
        game_id = f"{t['id']}-{e['game']}"
        assert commitments.prize_order_commitment(game_id, e["action"]["order"], e["action"]["salt"]) == seen[e["game"]]


# -------------------------------------------------------------------- tampering


def flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def reveal_of_round(t, round_=2, seat=0, game=1):
    return [e for e in entries_of(t, "reveal", seat=seat, round=round_) if e["game"] == game][0]


def t_reveal_card(t, ranks):
    a = reveal_of_round(t)["action"]
    a["cards"] = [a["cards"][0] % ranks + 1]


def t_reveal_salt(t, ranks):
    a = reveal_of_round(t)["action"]
    a["salt"] = flip_hex(a["salt"])


def t_commitment(t, ranks):
    e = [e for e in entries_of(t, "commit", seat=1, round=2) if e["game"] == 1][0]
    e["action"]["commitment"] = flip_hex(e["action"]["commitment"])


def t_deal_order(t, ranks):
    order = entries_of(t, "deal_prizes")[-1]["action"]["order"]
    order[-1], order[-2] = order[-2], order[-1]


def t_deal_salt(t, ranks):
    a = entries_of(t, "deal_prizes")[-1]["action"]
    a["salt"] = flip_hex(a["salt"])


def t_entry_seat(t, ranks):
    entries_of(t, "commit", seat=0, round=1)[0]["action"]["seat"] = 1


def t_entry_by(t, ranks):
    entries_of(t, "commit", seat=0, round=1)[0]["by"] = "seat:1"


def t_result_winners(t, ranks):
    w = t["result"]["winners"]
    t["result"]["winners"] = [1] if w != [1] else [0]


def t_result_totals(t, ranks):
    t["result"]["totals"][0] = str(int(t["result"]["totals"][0].split("/")[0]) + 1)


def t_rules(t, ranks):
    t["rules"]["resolution"] = "highest_unique" if t["rules"]["resolution"] != "highest_unique" else "none"


def t_rules_everywhere(t, ranks):
    t["rules"]["ranks"] -= 1
    t["entries"][0]["action"]["rules"]["ranks"] -= 1


def t_drop_entry(t, ranks):
    t["entries"].remove(entries_of(t, "commit", seat=1, round=2)[0])


def t_drop_last(t, ranks):
    t["entries"].pop()


def t_drop_deal(t, ranks):
    t["entries"].remove(entries_of(t, "deal_prizes")[-1])


def t_reorder(t, ranks):
    i = t["entries"].index(reveal_of_round(t, 1, 0))
    t["entries"][i - 1], t["entries"][i] = t["entries"][i], t["entries"][i - 1]


def t_reorder_renumbered(t, ranks):
    """Swap round 1's last reveal and round 2's first commit, and renumber them so versions look right."""
    es = t["entries"]
    i = es.index(entries_of(t, "commit", round=2)[0])
    es[i - 1], es[i] = es[i], es[i - 1]
    es[i - 1]["version"], es[i]["version"] = es[i]["version"], es[i - 1]["version"]
    es[i - 1]["round"], es[i]["round"] = es[i]["round"], es[i - 1]["round"]


def t_duplicate(t, ranks):
    e = entries_of(t, "commit", seat=0, round=1)[0]
    t["entries"].insert(t["entries"].index(e) + 1, copy.deepcopy(e))


def t_at_backwards(t, ranks):
    e = reveal_of_round(t, 1, 0)
    e["at"] = t["entries"][0]["at"] - 60


def t_deadline_at(t, ranks):
    """Claim the deadline was enforced 5 s before it passed (still after every earlier entry)."""
    e = entries_of(t, "enforce_deadline")[0]
    e["at"] = t["entries"][0]["at"] + 25


def t_incomplete(t, ranks):
    t["complete"] = False


def t_entry_game(t, ranks):
    reveal_of_round(t)["round"] = 3


def t_choose(t, ranks):
    chosen = entries_of(t, "choose_prize")
    chosen[1]["action"]["rank"] = chosen[0]["action"]["rank"]


def t_report(t, ranks):
    reported = entries_of(t, "report_prize")
    reported[1]["action"]["rank"] = reported[0]["action"]["rank"]


def t_match_game2_reveal(t, ranks):
    a = reveal_of_round(t, 3, 1, game=2)["action"]
    a["cards"] = [a["cards"][0] % ranks + 1]


def t_match_game2_deal(t, ranks):
    a = [e for e in entries_of(t, "deal_prizes") if e["game"] == 2][0]["action"]
    a["salt"] = flip_hex(a["salt"])


COMMIT_MISMATCH = r"does not match the commitment \w+… seat \d made for game \S+ round \d"
PRIZE_MISMATCH = r"does not match the prize commitment \w+… published for game"
TAMPERS = {
    "reveal_card": (t_reveal_card, COMMIT_MISMATCH),
    "reveal_salt": (t_reveal_salt, COMMIT_MISMATCH),
    "commitment": (t_commitment, COMMIT_MISMATCH),
    "deal_order": (t_deal_order, PRIZE_MISMATCH),
    "deal_salt": (t_deal_salt, PRIZE_MISMATCH),
    "entry_seat": (t_entry_seat, r"made by 'seat:0', but a commit for seat 1 can only be made by 'seat:1'"),
    "entry_by": (t_entry_by, r"made by 'seat:1', but a commit for seat 0 can only be made by 'seat:0'"),
    "result_winners": (t_result_winners, r"result\.winners: the transcript says \[\d\], replaying the actions gives"),
    "result_totals": (t_result_totals, r"result\.totals: the transcript says"),
    "rules": (t_rules, r"rules: the transcript's rules differ from those of the create entry \(differing: resolution"),
    "rules_everywhere": (t_rules_everywhere, r"the rules engine refuses this action"),
    "drop_entry": (t_drop_entry, r"entries: version \d+ missing \(an entry was dropped\)$"),
    "drop_last": (t_drop_last, r"version: the transcript says \d+ but its last entry is version \d+"),
    "drop_deal": (t_drop_deal, r"needs the referee's deal, but the next entry is not that deal"),
    "reorder": (t_reorder, r"version \d+ comes after version \d+ \(entries are out of order\)"),
    "reorder_renumbered": (t_reorder_renumbered, r"the rules engine refuses this action: (this is round 1, not "
                                                 r"round 2 \(wrong_round\)|the game is in phase '\w+', not "
                                                 r"'commit' \(wrong_phase\))"),
    "duplicate": (t_duplicate, r"repeats version \d+"),
    "at_backwards": (t_at_backwards, r"time goes backwards"),
    "deadline_at": (t_deadline_at, r"the rules engine refuses this action: the deadline has not passed yet "
                                   r"\(5 s left\) \(deadline_not_passed\)"),
    "incomplete": (t_incomplete, r"complete: is False, not true"),
    "entry_round": (t_entry_game, r"recorded for game 1 round 3, but replaying the entries before it, "
                                  r"the game is at game 1 round 2"),
    "choose": (t_choose, r"refuses this action: .* is not in the open prizes row \(prize_not_in_row\)"),
    "report": (t_report, r"refuses this action: the prize \w+ has already been turned up \(prize_already_seen\)"),
    "game2_reveal": (t_match_game2_reveal, COMMIT_MISMATCH.replace(r"\S+", r"\S+-2")),
    "game2_deal": (t_match_game2_deal, PRIZE_MISMATCH + r" \S+-2 \(--prize-commitment 2\)"),
}

COMMON = ["reveal_card", "reveal_salt", "commitment", "entry_seat", "entry_by", "result_winners",
          "result_totals", "rules", "rules_everywhere", "drop_entry", "drop_last", "reorder",
          "reorder_renumbered", "duplicate", "at_backwards", "incomplete", "entry_round"]
DEALT = ["deal_order", "deal_salt", "drop_deal"]
APPLICABLE = {
    "classic": COMMON + DEALT,
    "three_split": COMMON + DEALT,
    "cumulative_match": COMMON + DEALT + ["game2_reveal", "game2_deal"],
    "open_prizes": COMMON + DEALT + ["choose"],
    "reported": COMMON + ["report"],
    "deadline_shuffled": COMMON + DEALT + ["deadline_at"],
    "deadline_ascending": COMMON + ["deadline_at"],
}
CASES = [(game, tamper) for game, tampers in APPLICABLE.items() for tamper in tampers]


@pytest.mark.parametrize("game,tamper", CASES, ids=[f"{g}-{t}" for g, t in CASES])
def test_tampered_transcript_is_rejected(played, game, tamper):
    transcript, seen, _ = get(played, game)
    original = copy.deepcopy(transcript)
    change, expected = TAMPERS[tamper]
    change(transcript, transcript["rules"]["ranks"])
    assert transcript != original, "the tampering changed nothing"
    report = verify.verify(transcript, seen)
    assert not report.ok, f"{tamper} was not detected"
    assert any(re.search(expected, p) for p in report.problems), report.problems


@pytest.mark.parametrize("tamper", APPLICABLE["cumulative_match"])
def test_tampered_transcript_fails_on_the_command_line(played, tamper, tmp_path):
    transcript, seen, _ = get(played, "cumulative_match")
    change, expected = TAMPERS[tamper]
    change(transcript, transcript["rules"]["ranks"])
    proc = run_cli(tmp_path, transcript, seen)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert all(line.startswith("FAIL: ") for line in lines) and "problem" in lines[-1]
    assert any(re.search(expected, line) for line in lines), lines


@pytest.mark.parametrize("game", ["deadline_shuffled", "deadline_ascending"])
def test_the_deadline_replays_from_the_creation_time_not_from_zero(played, game):
    """Enforcing the deadline 20 s after creation is refused (10 s were left): replays start the clock at
    the create entry's time, also with a fixed prize order (no deal entry to set it)."""
    from service.games import gops

    transcript, seen, _ = get(played, game)
    entries = transcript["entries"]
    entries_of(transcript, "enforce_deadline")[0]["at"] = entries[0]["at"] + 20
    report = verify.verify(transcript, seen)
    assert any(re.search(r"the deadline has not passed yet \(10 s left\) \(deadline_not_passed\)", p)
               for p in report.problems), report.problems
    rules = gops.Rules.from_dict(transcript["rules"])
    match = gops.MatchRules.from_dict(transcript["match"])
    pairs = [(e["action"], e["at"]) for e in entries[1:]]
    with pytest.raises(Exception, match="deadline has not passed"):
        gops.replay(transcript["id"], rules, match, pairs, start=entries[0]["at"])


# ------------------------------------------------------------ commitments given


def test_the_transcript_carries_each_games_published_commitment(played, tmp_path):
    transcript, seen, _ = get(played, "classic")
    assert transcript["result"]["games"][0]["prize_commitment"] == seen[1]
    report = verify.verify(transcript)
    assert report.ok, report.problems
    proc = run_cli(tmp_path, transcript, {})
    assert proc.returncode == 0, proc.stderr
    # The commitment the players saw before bidding can be given too, and must agree.
    proc = run_cli(tmp_path, transcript, {}, extra=["--prize-commitment", seen[1]])
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(tmp_path, transcript, {}, extra=["--prize-commitment", "0" * 64])
    assert proc.returncode == 1
    proc = run_cli(tmp_path, transcript, {}, extra=[seen[1]])
    assert proc.returncode == 2  # a second positional argument: usage error


def test_a_match_checks_every_games_commitment(played):
    transcript, seen, _ = get(played, "cumulative_match")
    assert verify.verify(transcript).ok
    assert verify.verify(transcript, {1: seen[1]}).ok
    report = verify.verify(transcript, {1: seen[2], 2: seen[1]})
    assert len(report.problems) == 2 and all(re.search(PRIZE_MISMATCH, p) for p in report.problems)


def test_a_commitment_for_a_game_without_a_deal_is_refused(played):
    transcript, _, _ = get(played, "reported")
    report = verify.verify(transcript, {1: "ab" * 32})
    assert report.problems == ["--prize-commitment 1=…: the transcript has no shuffled deal for game 1"]


def test_per_game_results_in_the_result_are_checked_when_present(played):
    """A transcript whose result carries the per-game results (the public state's ``games``) is checked
    against them, and their prize_commitment stands in for --prize-commitment."""
    transcript, seen, final = get(played, "cumulative_match")
    transcript["result"]["games"] = final["games"]
    assert verify.verify(transcript).ok
    tampered = copy.deepcopy(transcript)
    tampered["result"]["games"][1]["scores"][0] = "0"
    assert any(p.startswith("result.games[1].scores: the transcript says") for p in verify.verify(tampered).problems)
    tampered = copy.deepcopy(transcript)
    tampered["result"]["games"][0]["prize_commitment"] = flip_hex(seen[1])
    problems = verify.verify(tampered).problems
    assert any(re.search(PRIZE_MISMATCH + r" \S+-1 \(result.games \(game 1\)\)", p) for p in problems), problems


# ------------------------------------------------ withheld commitments, illegal bids, refills


def test_a_transcript_exported_before_every_seat_committed_withholds_the_commitment(client):
    table = GopsGame.create(FlaskHttp(client), {"profile": "classic", "options": {"prize_order": "ascending"}})
    table.play_round({0: [1], 1: [2]})
    table.commit(0, 2, [5], new_salt())
    transcript = table.transcript()
    (pending,) = [e for e in entries_of(transcript, "commit") if e["round"] == 2]
    assert pending["action"]["commitment"] is None
    report = verify.verify(transcript)
    assert any(re.search(r"round 2, commit\): commitment withheld \(null\)", p) for p in report.problems), \
        report.problems
    # once every seat has committed, the round's commitments are in the transcript (reveals can be checked)
    table.commit(1, 2, [6], new_salt())
    assert all(e["action"]["commitment"] for e in entries_of(table.transcript(), "commit"))


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
    (opened,) = [e for e in entries_of(tampered, "reveal", seat=0) if e["round"] == 2]
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


# ------------------------------------------------------------ unreadable input


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
    proc = run_cli(tmp_path, table.transcript(), seen)
    assert proc.returncode == 1 and "FAIL: complete: is False" in proc.stderr


def test_unreadable_input_exits_2(tmp_path, played):
    transcript, seen, _ = get(played, "classic")
    proc = subprocess.run([sys.executable, "-m", "service.verify", str(tmp_path / "missing.json")],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("ERROR: cannot read") and proc.stdout == ""
    proc = run_cli(tmp_path, "{not json", {})
    assert proc.returncode == 2 and "is not JSON" in proc.stderr
    proc = run_cli(tmp_path, "[1, 2]", {})
    assert proc.returncode == 2 and "a transcript is a JSON object, not list" in proc.stderr
    proc = run_cli(tmp_path, dict(transcript, kind="chess"), seen)
    assert proc.returncode == 2 and "unknown transcript kind 'chess'; this verifier checks: gops" in proc.stderr
    proc = run_cli(tmp_path, transcript, {}, extra=["--prize-commitment", "1=nothex"])
    assert proc.returncode == 2 and "64 lowercase hex" in proc.stderr




def test_garbage_inside_a_transcript_is_a_problem_not_a_crash(played):
    transcript, seen, _ = get(played, "classic")
    for mutate, expected in [
        (lambda t: t.update(entries=[]), "entries: missing or empty"),
        (lambda t: t["entries"][3].update(at="yesterday"), "missing or malformed at"),
        (lambda t: t["entries"][4]["action"].update(cards="K"), "malformed reveal"),
        (lambda t: t["entries"][0]["action"]["rules"].update(colour="red"), "not valid Gops rules"),
        (lambda t: t["entries"].insert(5, {"version": 3}), "not an entry object"),
        (lambda t: t["entries"][5]["action"].update(type="cheat"), "unknown action type 'cheat'"),
        (lambda t: t.update(id="../etc"), "is not a game id"),
    ]:
        tampered = copy.deepcopy(transcript)
        mutate(tampered)
        problems = verify.verify(tampered, seen).problems
        assert any(re.search(expected, p) for p in problems), (expected, problems)
