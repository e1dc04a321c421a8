"""The answer to a move: who acts next, whose legal actions are shown, the
result of the hand the move ended — decided by the referee and the observer."""

from __future__ import annotations

import random

from service.games.gofo import Decline, Open, referee


def _salt_maker(rng):
    return lambda: "%032x" % rng.getrandbits(128)


def _table(mode="dealt"):
    rng = random.Random(5)
    doc, _ = referee.create("t-answer", {"seats": 3, "mode": mode}, 1.0, rng, _salt_maker(rng))
    return doc, rng


def test_next_and_legal_actions_by_caller():
    doc, rng = _table()
    mano = doc["state"]["hand"]["mano"]
    nxt = (mano + 1) % 3
    applied = referee.play(doc, 2, f"seat:{mano}", 2.0, mano, Open(1), rng=rng, new_salt=_salt_maker(rng))
    doc, version = applied.doc, applied.entries[-1]["version"]
    own = referee.move_answer(doc, version, nxt, f"seat:{nxt}")["next"]
    assert own["seat"] == nxt and own["legal_actions"]
    assert referee.move_answer(doc, version, mano, f"seat:{mano}")["next"] == {"seat": nxt, "legal_actions": None}
    assert referee.move_answer(doc, version, None, "host")["next"]["legal_actions"] is None  # dealt: never the host


def test_tabletop_host_sees_the_next_seats_actions_and_the_ending_move_carries_the_result():
    doc, rng = _table("tabletop")
    mano = doc["state"]["hand"]["mano"]
    version = 2
    applied = referee.play(doc, version, "host", 2.0, mano, Open(1))
    doc, version = applied.doc, applied.entries[-1]["version"]
    answer = referee.move_answer(doc, version, mano, "host")
    assert answer["next"]["seat"] == (mano + 1) % 3 and answer["next"]["legal_actions"]
    assert answer["hand_result"] is None
    for _ in range(2):
        seat = doc["state"]["hand"]["queue"][0]
        applied = referee.play(doc, version, "host", 3.0, seat, Decline())
        doc, version = applied.doc, applied.entries[-1]["version"]
    answer = referee.move_answer(doc, version, None, "host")
    assert answer["hand_result"] == answer["table"]["last_result"] and answer["hand_result"]["hand"] == 1
    assert referee.move_answer(doc, version + 1, None, "host")["hand_result"] is None
