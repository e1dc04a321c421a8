"""Round records, game results and the match result are dataclasses inside the engine, read by
attribute, never changed once made (the results are frozen; a round record is replaced, never
assigned to); their stored form (``to_dict``) is what stored documents, views and transcripts hold,
and ``from_dict`` reads it back to equal records, key order and all."""

from __future__ import annotations

import dataclasses
import json
import random
from fractions import Fraction

import pytest

from service.games import gops as G
from service.games.gops.records import GameResult, MatchResult, PlayedGame, RoundRecord

VARIANTS = {
    "split": {"profile": "standard", "resolution": "split"},
    "carry-over": {"profile": "classic"},
    "open prizes, carry-over": {"profile": "classic", "open_prizes": 2},
    "highest unique, 3 seats": {"profile": "standard", "players": 3, "resolution": "highest_unique"},
}


def _played_match(options: dict, seed: int, seen: dict | None = None) -> G.Gops:
    """A cumulative match of two 6-card games of random bids (the winner of open prizes chooses);
    ``seen``: filled with every round record the state held after a move, by id, and its stored
    form when first seen."""
    rng = random.Random(seed)
    options = dict(options)
    rules = G.make_rules(options.pop("profile"), ranks=6, prize_order="descending", **options)
    state = G.Gops.new("rec", rules, G.make_match_rules("cumulative", games=2))
    while not state.over:
        g = state.game
        if state.phase == "choose":
            state.apply(G.ChoosePrize(g.chooser, rng.choice(g.row)))
        else:
            state.play_bids({s: (rng.choice(g.hands[s]),) for s in state.awaiting()})
        if seen is not None:
            for record in [*state.game.history, *(r for p in state.games for r in p.history)]:
                seen.setdefault(id(record), (record, record.to_dict()))
    return state


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_played_match_leaves_records_never_changed_that_read_back_equal(variant):
    seen: dict = {}
    state = _played_match(VARIANTS[variant], seed=len(variant), seen=seen)
    assert isinstance(state.result, MatchResult) and state.result.games_played == 2
    assert [type(p) for p in state.games] == [PlayedGame, PlayedGame]
    for played in state.games:
        assert isinstance(played.result, GameResult) and played.result.termination == "completed"
        assert all(isinstance(s, (int, Fraction)) for s in played.result.scores)  # numbers, not their text
        assert played.history and all(type(r) is RoundRecord for r in played.history)
        for record in played.history:
            assert all(type(seat) is int for seat in record.bids)
            assert RoundRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    assert sum(state.result.totals) == sum(sum(p.result.scores) for p in state.games)
    for frozen in (state.result, state.game.result, state.games[0]):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(frozen, dataclasses.fields(frozen)[0].name, None)
    # every round record is as it was made: a winner's pick made a new one (open prizes)
    assert len(seen) >= 12 and all(record.to_dict() == made for record, made in seen.values())
    assert any(r.chosen for r, _ in seen.values()) == ("open_prizes" in VARIANTS[variant])
    text = json.dumps(state.to_dict())
    assert json.dumps(G.Gops.from_dict(json.loads(text)).to_dict()) == text
