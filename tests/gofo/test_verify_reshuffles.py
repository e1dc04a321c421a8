"""The offline verifier and closed reshuffles (piles that held a folded hand, which the referee never
opens): whole sessions of bots verify, made by bots or rewritten as people's moves, and a card that
comes back from a closed reshuffle to a seat that never drew from it is refused.

The sessions play levels 1–8 at five and six seats (``entropy.seeded(seed)``), among them every one
of a sample of 200 that the verifier once refused: a seat's earlier discard had taken the stand-in a
later card of its hand needed, so a card drawn from a closed reshuffle and later thrown face up or
shown at the canto could not be placed."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest
from support.sweep_size import sized

from service.games import entropy
from service.games.gofo import referee
from service.games.gofo.verifier import verify_gofo

AT = 1_000.0
HANDS = 6
TABLE = "t1"  # the table id goes into every hand id, so into the reshuffles: the seeds below are for this one

# (level, seats, seed): levels 1-8 at five and six seats, two seeds each (one in the edit loop:
# tests/support/sweep_size.py), and the sessions of seeds 0-199 (level 1 + seed % 8, 5 + seed // 8 % 2
# seats) the verifier refused
REFUSED = [(2, 6, 9), (2, 5, 17), (6, 5, 21), (2, 6, 41), (2, 6, 57), (2, 5, 65), (2, 6, 73), (2, 5, 81),
           (4, 6, 91), (3, 5, 98), (2, 6, 105), (2, 5, 177), (4, 5, 179), (5, 6, 188), (2, 5, 193), (5, 5, 196)]
SESSIONS = sorted(set(REFUSED) | {(1 + i % 8, 5 + (i // 8) % 2, i) for i in range(sized(32, least=16))},
                  key=lambda s: s[2])


@functools.cache
def _session(level: int, seats: int, seed: int) -> dict[str, Any]:
    """The transcript of ``HANDS`` hands of a table of bots of ``level`` (each request plays a hand)."""
    with entropy.seeded(seed):
        doc, entries = referee.create(TABLE, {"seats": seats, "bots": [{"seat": s, "level": level}
                                                                        for s in range(seats)]}, AT)
        version = 1
        for k in range(HANDS - 1):
            applied = referee.enforce(doc, version, "host", AT + k + 1)
            doc, entries, version = applied.doc, entries + applied.entries, version + 1
    return referee.transcript(doc, version, entries)


def _as_people(transcript: dict[str, Any]) -> dict[str, Any]:
    """The same moves made by the seats themselves, one request each."""
    entries, version = [], 0
    for entry in copy.deepcopy(transcript["entries"]):
        if entry["action"]["type"] == "create":
            entry["action"].pop("bots", None)
            version = 1
        elif entry["by"].startswith("bot:"):
            version += 1
            entry["by"] = f"seat:{entry['seat']}"
        entry["version"] = version
        entries.append(entry)
    return dict(copy.deepcopy(transcript), entries=entries, version=version)


def _closed_reshuffles(transcript: dict[str, Any]) -> int:
    return sum(1 for e in transcript["entries"] if e["action"]["type"] == "reshuffle" and e["action"]["order"] is None)


@pytest.mark.parametrize("level, seats, seed", SESSIONS)
def test_a_session_with_closed_reshuffles_verifies_made_by_bots_or_by_people(level, seats, seed):
    transcript = _session(level, seats, seed)
    assert transcript["hands_finished"] == HANDS
    if (level, seats, seed) in REFUSED:
        assert _closed_reshuffles(transcript) > 0
    assert verify_gofo(transcript).problems == []
    people = _as_people(transcript)
    assert not any(e["by"].startswith("bot:") for e in people["entries"])
    assert verify_gofo(people).problems == []


def _forgeable(transcript: dict[str, Any]) -> tuple[int, str, int] | None:
    """A card thrown into a closed reshuffle's pile, never thrown or shown again in that hand and never
    opened, and the first later discard by a seat that had not drawn from that reshuffle: (the hand,
    the card, the index of that discard entry)."""
    entries = transcript["entries"]
    for deal in transcript["deals"]:
        number = deal["hand"]
        result = transcript["results"][number - 1]
        opened = {o["card"] for o in deal["openings"]}
        hand = [i for i, e in enumerate(entries) if e["hand"] == number]
        after = hand[0]
        for r in [i for i in hand if entries[i]["action"]["type"] == "reshuffle"]:
            thrown = [c for i in hand if after < i < r and entries[i]["action"]["type"] == "discard"
                      for c in entries[i]["action"]["cards"]]
            later = {c for i in hand if i > r and entries[i]["action"]["type"] == "discard"
                     for c in entries[i]["action"]["cards"]} | {c for shown in result["shown"] if shown for c in shown}
            drew = {entries[r - 1]["seat"]}  # the seat whose draw needed it
            for i in (i for i in hand if i > r):
                if entries[i]["action"]["type"] == "reshuffle":
                    drew.add(entries[i - 1]["seat"])
                if entries[i]["action"]["type"] != "discard":
                    continue
                if entries[r]["action"]["order"] is None and entries[i]["action"]["cards"] \
                        and entries[i]["seat"] not in drew:
                    for card in thrown:
                        if card not in opened and card not in later:
                            return number, card, i
                drew.add(entries[i]["seat"])
            after = r
    return None


def test_a_card_back_from_a_closed_reshuffle_to_a_seat_that_never_drew_from_it_is_refused():
    """The forged discard names a card that lies in the closed reshuffle's new stock, not among the
    seat's own unseen cards; the hand's result and deal are rewritten to match (the replaced card's
    opening dropped), so only where the card came from gives the forgery away."""
    transcript = copy.deepcopy(_session(2, 5, 17))
    assert verify_gofo(transcript).problems == []
    number, card, index = _forgeable(transcript)
    entry = transcript["entries"][index]
    seat, replaced = entry["seat"], entry["action"]["cards"][0]
    entry["action"]["cards"][0] = card
    discards = [e for e in transcript["entries"] if e["hand"] == number and e["action"]["type"] == "discard"]
    result = transcript["results"][number - 1]
    logged = result["discards"][discards.index(entry)]
    assert logged["seat"] == seat and logged["cards"][0] == replaced
    logged["cards"][0] = card
    deal = transcript["deals"][number - 1]
    for opening in [o for o in deal["openings"] if o["card"] == replaced]:
        deal["openings"].remove(opening)
        shuffle = next(e for e in transcript["entries"] if e["hand"] == number and e["action"]["type"] == "shuffle")
        shuffle["action"]["order"][opening["position"]] = None
    where = f"entry #{index + 1} (version {entry['version']}, hand {number}, seat {seat} discard)"
    refused = f"{where}: seat {seat} cannot hold {card}: none of its unseen cards can be it"
    assert verify_gofo(transcript).problems == [refused]
