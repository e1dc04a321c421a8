"""Gops games played over HTTP for the offline verifier's tests (tests/test_verify.py), and the ways
their transcripts are tampered with.

``play_all`` plays every game of ``GAMES`` once (Flask test client on a real Valkey, a fixed clock) and
keeps its transcript, the prize commitments the players saw and the final public state.  ``TAMPERS``
names each tampering with the problem the verifier must report; ``APPLICABLE`` says which games each
applies to; ``CLI_GAME`` and ``CLI_TAMPERS`` are the ones also run through ``python -m service.verify``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from support.client import (
    FlaskHttp,
    GopsGame,
    lowest,
    match_prize,
    new_salt,
    seat_biased,
)

FLAG = "--prize-commitment"  # the command line's option for a commitment the players saw


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


def play_all(redis_url: str) -> dict[str, tuple[dict[str, Any], dict[int, str], dict[str, Any]]]:
    """Every game of ``GAMES`` played to the end (its own app, a fixed clock): name -> (transcript,
    prize commitments seen by the players, final public state)."""
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


def flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def reveal_of_round(t, round_=2, seat=0, game=1):
    return [e for e in entries_of(t, "reveal", seat=seat, round=round_) if e["game"] == game][0]


def t_reveal_card(t):
    a = reveal_of_round(t)["action"]
    a["cards"] = [a["cards"][0] % t["rules"]["ranks"] + 1]


def t_reveal_salt(t):
    a = reveal_of_round(t)["action"]
    a["salt"] = flip_hex(a["salt"])


def t_commitment(t):
    e = [e for e in entries_of(t, "commit", seat=1, round=2) if e["game"] == 1][0]
    e["action"]["commitment"] = flip_hex(e["action"]["commitment"])


def t_deal_order(t):
    order = entries_of(t, "deal_prizes")[-1]["action"]["order"]
    order[-1], order[-2] = order[-2], order[-1]


def t_deal_salt(t):
    a = entries_of(t, "deal_prizes")[-1]["action"]
    a["salt"] = flip_hex(a["salt"])


def t_entry_seat(t):
    entries_of(t, "commit", seat=0, round=1)[0]["action"]["seat"] = 1


def t_entry_by(t):
    entries_of(t, "commit", seat=0, round=1)[0]["by"] = "seat:1"


def t_result_winners(t):
    w = t["result"]["winners"]
    t["result"]["winners"] = [1] if w != [1] else [0]


def t_result_totals(t):
    t["result"]["totals"][0] = str(int(t["result"]["totals"][0].split("/")[0]) + 1)


def t_rules(t):
    t["rules"]["resolution"] = "highest_unique" if t["rules"]["resolution"] != "highest_unique" else "none"


def t_rules_everywhere(t):
    t["rules"]["ranks"] -= 1
    t["entries"][0]["action"]["rules"]["ranks"] -= 1


def t_drop_entry(t):
    t["entries"].remove(entries_of(t, "commit", seat=1, round=2)[0])


def t_drop_last(t):
    t["entries"].pop()


def t_drop_deal(t):
    t["entries"].remove(entries_of(t, "deal_prizes")[-1])


def t_reorder(t):
    i = t["entries"].index(reveal_of_round(t, 1, 0))
    t["entries"][i - 1], t["entries"][i] = t["entries"][i], t["entries"][i - 1]


def t_reorder_renumbered(t):
    """Swap round 1's last reveal and round 2's first commit, and renumber them so versions look right."""
    es = t["entries"]
    i = es.index(entries_of(t, "commit", round=2)[0])
    es[i - 1], es[i] = es[i], es[i - 1]
    es[i - 1]["version"], es[i]["version"] = es[i]["version"], es[i - 1]["version"]
    es[i - 1]["round"], es[i]["round"] = es[i]["round"], es[i - 1]["round"]


def t_duplicate(t):
    e = entries_of(t, "commit", seat=0, round=1)[0]
    t["entries"].insert(t["entries"].index(e) + 1, copy.deepcopy(e))


def t_at_backwards(t):
    e = reveal_of_round(t, 1, 0)
    e["at"] = t["entries"][0]["at"] - 60


def t_deadline_at(t):
    """Claim the deadline was enforced 5 s before it passed (still after every earlier entry)."""
    e = entries_of(t, "enforce_deadline")[0]
    e["at"] = t["entries"][0]["at"] + 25


def t_incomplete(t):
    t["complete"] = False


def t_entry_game(t):
    reveal_of_round(t)["round"] = 3


def t_choose(t):
    chosen = entries_of(t, "choose_prize")
    chosen[1]["action"]["rank"] = chosen[0]["action"]["rank"]


def t_report(t):
    reported = entries_of(t, "report_prize")
    reported[1]["action"]["rank"] = reported[0]["action"]["rank"]


def t_match_game2_reveal(t):
    a = reveal_of_round(t, 3, 1, game=2)["action"]
    a["cards"] = [a["cards"][0] % t["rules"]["ranks"] + 1]


def t_match_game2_deal(t):
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


UNTOUCHED = list(GAMES)  # every game's untouched transcript passes
CLI_GAME = "cumulative_match"
CLI_TAMPERS = APPLICABLE[CLI_GAME]


def given(transcript: dict[str, Any], seen: dict[int, str]) -> dict[int, str]:
    """The commitments a player gives the verifier: every prize commitment seen."""
    return dict(seen)


def ok_line_mentions(played: dict[str, Any], name: str) -> str:
    """What the command line's OK line tells of an untouched game: its winners."""
    return str(played[name][2]["result"]["winners"])


GARBAGE_GAME = "classic"
# Garbage inside a transcript, and the problem the verifier must report (never a crash).
GARBAGE = [
    (lambda t: t.update(entries=[]), "entries: missing or empty"),
    (lambda t: t["entries"][3].update(at="yesterday"), r"^entries\[3\]\.at: Not a valid number\.$"),
    (lambda t: t["entries"][3].update(version=3.0), r"^entries\[3\]\.version: Not a valid integer\.$"),
    (lambda t: t.update(complete="true"), r"^complete: Not a valid boolean\.$"),
    (lambda t: t["result"]["games"][0].update(scores=[1, 2]), r"^result\.games\[0\]\.scores\[0\]: Not a valid string\.$"),
    (lambda t: t.update(extra=1), r"^extra: Unknown field\.$"),
    (lambda t: t["entries"][-1].update(version=10**30), r"versions \d+\.\.999999999999999999999999999999 missing"),
    (lambda t: t.update(entries={"0": {}}), r"^entries: Not a valid list\.$"),
    (lambda t: t["entries"][4]["action"].update(cards="K"), "malformed reveal"),
    (lambda t: t["entries"][0]["action"]["rules"].update(colour="red"), "not valid Gops rules"),
    (lambda t: t["entries"].insert(5, {"version": 3}), r"^entries\[5\]\.action: Missing data for required field\.$"),
    (lambda t: t["entries"][5].update(action={"seat": 0}), "not an entry object with an action and its type"),
    (lambda t: t["entries"][5]["action"].update(type="cheat"), "unknown action type 'cheat'"),
    (lambda t: t.update(id="../etc"), "is not a game id"),
    (lambda t: t["entries"][3]["action"].update(seat=[0]), r"for seat \[0\] can only be made by"),
    (lambda t: t["entries"][0]["action"]["rules"].update(ranks=4.5), "ranks must be a whole number"),
    (lambda t: t["entries"][0]["action"]["rules"].update(open_prizes=True), "open_prizes must be a whole number"),
    (lambda t: t["entries"][0]["action"]["match"].update(format="cumulative", games=3.0),
     "games must be a whole number"),
]
