"""A move's answer is made from the state the move left (``Applied.state``), not by parsing the
new document again: it must be the very view a later read of the stored document gives."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from service.games import commitments
from service.games import gops as G
from service.games.gops import referee

SETUPS = [
    ("classic", {}, {}),
    ("standard", {"players": 3, "bid_cards": 2}, {}),
    ("standard", {"open_prizes": 3}, {}),
    ("classic", {"ranks": 5}, {"format": "best_of", "games": 3}),
]


def _stored(doc):
    """The document as a later request reads it (through JSON)."""
    return json.loads(json.dumps(doc))


@pytest.mark.parametrize("profile,options,match", SETUPS)
def test_the_answer_of_every_move_is_the_view_of_the_stored_document(profile, options, match):
    rng = random.Random(f"{profile}{options}{match}")
    rules, match_rules = G.make_rules(profile, **options), G.make_match_rules(**match)
    doc, _ = referee.create("gv1", {"profile": profile, "options": options, "match": match}, 0.0)
    version, at, played, bids = 1, 1.0, Counter(), {}
    while not (state := referee.load(doc)).over:
        legal = [(seat, a) for seat in range(rules.players) for a in state.legal_actions(seat, at)
                 if a["type"] != "resign"]
        assert legal, "a game in progress offers somebody a move"
        seat, action = rng.choice(legal)
        game_id, rnd, kind = state.game.game_id, state.game.round, action["type"]
        if kind == "commit":
            cards = sorted(rng.sample(sorted(state.game.hands[seat]), rules.bid_cards))
            salt = f"{rng.getrandbits(256):064x}"
            bids[game_id, rnd, seat] = cards, salt
            move = G.Commit(seat, rnd, commitments.bid_commitment(game_id, rnd, seat, cards, salt))
        elif kind == "reveal":
            cards, salt = bids[game_id, rnd, seat]
            move = G.Reveal(seat, rnd, tuple(cards), salt)
        else:
            assert kind == "choose_prize", action
            move = G.ChoosePrize(seat, rng.choice(action["ranks"]))
        applied = referee.play(doc, version, f"seat:{seat}", at, seat, move)
        assert applied is not None
        version += 1
        played[kind] += 1
        for viewer in (None, *range(rules.players)):
            answer = referee.view(applied.doc, version, viewer, at + 0.5, applied.state)
            assert answer == referee.view(_stored(applied.doc), version, viewer, at + 0.5)
        doc, at = applied.doc, at + 1.0
    assert played["commit"] == played["reveal"] >= rules.rounds * rules.players
    assert ("choose_prize" in played) == (rules.open_prizes > 1)
