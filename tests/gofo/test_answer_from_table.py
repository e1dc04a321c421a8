"""A Gofo move's answer is made from the table the move left (``Applied.table``), not by parsing
the new document again (and again for ``next``): it must be the very answer a later read of the
stored document gives, for every caller, and making it must not change what is stored."""

from __future__ import annotations

import json
import random

import pytest

from bench.http import gofo_choice
from service.games.gofo import referee
from service.games.gofo import table as T
from service.errors import InvalidAction
from service.games.gofo.actions import action_from_dict


def _stored(doc):
    return json.loads(json.dumps(doc))


@pytest.mark.parametrize("mode", ["dealt", "tabletop"])
def test_every_moves_answer_is_the_answer_of_the_stored_document(mode):
    rng = random.Random(f"answer-{mode}")

    def salt():
        return "%032x" % rng.getrandbits(128)

    seats = 5
    doc, entries = referee.create(f"t-{mode}", {"seats": seats, "mode": mode}, 1.0, rng, salt)
    version, at, moves, hands = entries[-1]["version"], 2.0, 0, set()
    callers = ["host", None, *(f"seat:{s}" for s in range(seats))]
    while moves < 150:
        table = T.Table.from_dict(doc["state"])
        seat = table.to_act()
        if seat is None:
            break
        kind, body = gofo_choice([a.to_dict() if hasattr(a, "to_dict") else a for a in table.legal_actions(seat)], rng)
        try:
            action = action_from_dict({"type": kind, **body})
        except InvalidAction:  # a tabletop showdown needs the cards the table reports: far enough
            assert mode == "tabletop"
            break
        who = "host" if mode == "tabletop" else f"seat:{seat}"
        applied = referee.play(doc, version, who, at, seat, action, rng=rng, new_salt=salt)
        version = applied.entries[-1]["version"]
        stored = json.dumps(applied.doc, sort_keys=True)
        for viewer in (None, seat, (seat + 1) % seats):
            for caller in callers:
                answer = referee.move_answer(applied.doc, version, viewer, caller, applied.state)
                assert answer == referee.move_answer(_stored(applied.doc), version, viewer, caller)
        assert json.dumps(applied.doc, sort_keys=True) == stored  # answering changed nothing stored
        hands.add(applied.state.hand_number)
        doc, at, moves = applied.doc, at + 1.0, moves + 1
    assert moves >= 10
    if mode == "dealt":
        assert len(hands) >= 2  # at least one hand ended and the next began
