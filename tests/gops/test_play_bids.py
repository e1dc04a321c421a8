"""``Gops.play_bids`` (simulated rounds for bots) gives exactly what commit + reveal of the same bids
gives: the same scores, hands, prizes, phases, deadlines and results, after every round; the round
records differ only by their ``sealed`` (the seals of the commitments the simulation has none of)
and, while an open prize is chosen, by the round's ``commitments`` and ``reveals``."""

from __future__ import annotations

import hashlib
import random

import pytest

from service.games import gops as G
from service.errors import IllegalAction, InvalidAction, RefereeError, WrongPhase


def _commitment(game_id, rnd, seat, cards, salt):
    msg = f"gops-bid-v1|{game_id}|{rnd}|{seat}|{','.join(map(str, cards))}|{salt}"
    return hashlib.sha256(msg.encode()).hexdigest()


def _without_secrets(doc):
    game = dict(doc["game"], commitments={}, reveals={})  # (kept until the next round: open prizes' choice)
    game["history"] = [{k: v for k, v in r.items() if k != "sealed"} for r in game["history"]]
    strip = lambda rec: {**rec, "history": [{k: v for k, v in r.items() if k != "sealed"}
                                            for r in rec.get("history", [])]}
    return {**doc, "game": game, "games": [strip(r) for r in doc["games"]]}


def _rules(rng):
    players = rng.randint(2, 5)
    ranks = rng.choice([3, 6, 13])
    opts = dict(players=players, ranks=ranks, resolution=rng.choice(G.RESOLUTIONS),
                unclaimed=rng.choice(G.UNCLAIMED), prize_order=rng.choice(["shuffled", "descending", "reported"]))
    if rng.random() < 0.3:
        opts["bid_cards"] = 2
    if rng.random() < 0.3:
        opts["open_prizes"] = 2
    match = rng.choice([G.make_match_rules(), G.make_match_rules("cumulative", games=2)])
    return G.make_rules("standard", **opts), match


@pytest.mark.parametrize("seed", range(60))
def test_play_bids_is_commit_and_reveal_without_the_protocol(seed):
    rng = random.Random(seed)
    rules, match = _rules(rng)
    proto, sim = G.Gops.new("pb", rules, match), G.Gops.new("pb", rules, match)
    both = lambda action: (proto.apply(action), sim.apply(action))
    steps = 0
    while not proto.over:
        steps += 1
        assert steps < 500
        g = proto.game
        if proto.needs_chance:
            order = list(range(1, rules.ranks + 1))
            rng.shuffle(order)
            both(G.DealPrizes(tuple(order), f"{rng.getrandbits(256):064x}"))
        elif proto.phase == "prize":
            both(G.ReportPrize(rng.choice([r for r in range(1, rules.ranks + 1) if r not in g.turned])))
        elif proto.phase == "choose":
            both(G.ChoosePrize(g.chooser, rng.choice(g.row)))
        elif proto.phase == "commit":
            seats = proto.awaiting()
            bids = {s: tuple(rng.sample(g.hands[s], rules.bid_cards)) for s in seats}
            salts = {s: f"{rng.getrandbits(256):064x}" for s in seats}
            if rules.blind_reported:
                with pytest.raises(IllegalAction):
                    sim.play_bids(bids)
                return
            for s in seats:
                proto.apply(G.Commit(s, g.round, _commitment(g.game_id, g.round, s, bids[s], salts[s])))
            for s in seats:
                proto.apply(G.Reveal(s, g.round, bids[s], salts[s]))
            sim.play_bids(bids)
        assert _without_secrets(proto.to_dict()) == _without_secrets(sim.to_dict())
    assert sim.over and sim.result == proto.result


def _classic():
    state = G.Gops.new("pb", G.make_rules("classic"))
    state.apply(G.DealPrizes(tuple(range(1, 14)), "00" * 32))
    return state


@pytest.mark.parametrize("bids, error, code", [
    ({0: (1,)}, InvalidAction, "invalid_action"),
    ({0: (1,), 1: (2,), 2: (3,)}, InvalidAction, "invalid_action"),
    ({0: (1,), 2: (3,)}, InvalidAction, "invalid_action"),
    ({0: (1, 2), 1: (2,)}, InvalidAction, "wrong_card_count"),
    ({0: (14,), 1: (2,)}, InvalidAction, "no_such_rank"),
])
def test_play_bids_refuses_and_changes_nothing(bids, error, code):
    state = _classic()
    before = state.to_dict()
    with pytest.raises(error) as exc:
        state.play_bids(bids)
    assert exc.value.code == code and state.to_dict() == before


def test_play_bids_needs_a_round_nobody_committed_to():
    state = _classic()
    state.play_bids({0: (5,), 1: (5,)})
    with pytest.raises(IllegalAction) as exc:
        state.play_bids({0: (5,), 1: (6,)})
    assert exc.value.code == "card_not_in_hand"
    state.apply(G.Commit(0, 2, "ab" * 32))
    with pytest.raises(IllegalAction) as exc:
        state.play_bids({0: (1,), 1: (2,)})
    assert exc.value.code == "already_committed"
    fresh = G.Gops.new("pb", G.make_rules("classic"))
    with pytest.raises(WrongPhase):
        fresh.play_bids({0: (1,), 1: (2,)})
    while not state.over:
        state.apply(G.Resign(1))
    with pytest.raises(RefereeError) as exc:
        state.play_bids({0: (1,)})
    assert exc.value.code == "game_over"
