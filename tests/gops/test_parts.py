"""The Gops package part by part (service/games/contract.py's contract), and the in-place state machine:
a refused action leaves ``to_dict()`` exactly as it was, over random playouts, with no copy."""

from __future__ import annotations

import importlib
import json
import random
from fractions import Fraction

import pytest

from support.gops_helpers import det_salt
from service.games import commitments, entropy
from service.games import gops as G
from service.errors import RefereeError
from service.games.contract import PARTS, Action
from service.games.gops import chance, clock, observer, referee
from service.games.gops.records import Phase


def test_every_part_is_a_module_and_the_old_engine_is_gone():
    for name in PARTS:
        assert G.GAME.part(name).__name__ == f"service.games.gops.{name}"
    with pytest.raises(ImportError):
        importlib.import_module("service.games.gops.engine")


def test_actions_are_game_actions_with_one_codec():
    examples = [G.DealPrizes((2, 1), "ab" * 32), G.Commit(1, 3, "cd" * 32), G.Reveal(0, 2, (3, 11), "ef" * 32, 2),
                G.ReportPrize(4), G.ChoosePrize(2, 7), G.Resign(1), G.EnforceDeadline()]
    assert set(G.CODEC.types) == {a.TYPE for a in examples}
    for a in examples:
        assert isinstance(a, Action) and a.type == a.TYPE
        data = G.action_to_dict(a)
        assert list(data)[0] == "type" and G.CODEC.to_dict(a) == data
        assert G.action_from_dict(json.loads(json.dumps(data))) == a
    assert G.DealPrizes.CHANCE and not G.Commit.CHANCE
    assert G.action_to_dict(G.Commit(0, 1, "ab" * 32)) == {
        "type": "commit", "seat": 0, "round": 1, "commitment": "ab" * 32, "game": None}


def test_named_choices_are_str_enums_and_serialize_as_before():
    rules = G.make_rules("classic", prize_order="ascending")
    assert rules.resolution is G.Resolution.NONE and rules.unclaimed == "carryover"
    assert all(type(v) in (int, str, list, type(None)) for v in rules.to_dict().values())
    state = G.Gops.new("g1", rules)
    assert state.phase is Phase.COMMIT and state.phase == "commit"
    text = json.dumps(G.view(state, 0))
    assert "Phase." not in text and '"phase": "commit"' in text
    assert G.RESOLUTIONS == ("none", "split", "highest_unique")


def test_chance_deals_from_service_entropy_and_commits_the_order():
    rules = G.make_rules("standard")
    with entropy.seeded(3):
        a = chance.deal(rules)
    with entropy.seeded(3):
        b = chance.deal(rules)
    assert a == b and sorted(a.order) == list(range(1, 14)) and commitments.SALT_PATTERN.match(a.salt)
    assert chance.commit_order("g1", list(a.order), a.salt) == commitments.prize_order_commitment(
        "g1", list(a.order), a.salt)
    assert chance.fixed_order(G.make_rules("standard", prize_order="descending", ranks=3)) == [3, 2, 1]
    assert chance.fixed_order(rules) is None
    state = G.Gops.new("g1", rules)
    assert state.needs_chance
    (number, deal), = referee.supply(state, 5.0)
    assert number == 1 and not state.needs_chance and state.game.prize_commitment == chance.commit_order(
        "g1", list(deal.order), deal.salt)


def test_clock_deadlines():
    rules = G.make_rules("standard", deadline_seconds=30, prize_order="ascending")
    assert clock.deadline(rules, Phase.COMMIT, 10.0) == 40.0
    assert clock.deadline(rules, Phase.PRIZE, 10.0) is None
    assert clock.deadline(G.make_rules("standard"), Phase.COMMIT, 10.0) is None
    state = G.Gops.new("g1", rules, now=10.0)
    assert not clock.passed(state.game, 39.9) and clock.passed(state.game, 40.0)
    assert not state.deadline_passed(39.9) and state.deadline_passed(40.0)
    assert state.late_seats(40.0) == [0, 1] and state.late_seats(39.0) == []
    with pytest.raises(RefereeError) as info:
        clock.check_enforceable(state.game, state.awaiting(), 20.0)
    assert info.value.code == "deadline_not_passed"


def _play_commit_reveal(doc, version, rules):
    """Both seats commit and reveal their highest card through the referee; returns doc, version."""
    state = referee.load(doc)
    game_id, rnd = state.game.game_id, state.game.round
    for seat in range(rules.players):
        card = max(state.game.hands[seat])
        c = commitments.bid_commitment(game_id, rnd, seat, [card], det_salt(game_id, rnd, seat))
        applied = referee.play(doc, version, f"seat:{seat}", 1.0, seat, G.Commit(seat, rnd, c))
        doc, version = applied.doc, applied.entries[0]["version"]
        assert referee.play(doc, version, f"seat:{seat}", 1.0, seat,
                            G.Commit(seat, rnd, c)) is None  # an exact repeat changes nothing
    for seat in range(rules.players):
        card = max(state.game.hands[seat])
        applied = referee.play(doc, version, f"seat:{seat}", 2.0, seat,
                               G.Reveal(seat, rnd, (card,), det_salt(game_id, rnd, seat)))
        doc, version = applied.doc, applied.entries[0]["version"]
    return doc, version, applied


def test_referee_record_create_apply_view_transcript():
    rules = G.make_rules("classic", ranks=3)
    doc, entries = referee.create("g1", {"profile": "classic", "options": {"ranks": 3}}, 0.0)
    assert [e["action"]["type"] for e in entries] == ["create", "deal_prizes"]
    assert doc["kind"] == "gops" and "auth" not in doc and doc["state"]["game"]["phase"] == "commit"
    assert referee.seat_count(doc) == 2
    log = list(entries)
    version = 1
    while True:
        doc, version, applied = _play_commit_reveal(doc, version, rules)
        log += applied.entries
        if applied.finished:
            break
    public = referee.view(doc, version, None, 3.0)
    assert public["version"] == version and public["phase"] == "over" and public["prize_salt"]
    assert not referee.seat_out(doc, 0)
    full = referee.transcript(doc, version, log)
    assert full["complete"] and full["id"] == "g1" and full["version"] == version
    # A finished game's record is stored once (in "game"), not again in "games"; loading restores it.
    assert doc["state"]["games"] == []
    state = referee.load(doc)
    assert len(state.games) == 1 and state.games[0].history == tuple(state.game.history)
    assert state.to_dict() == doc["state"]


def test_to_dict_and_from_dict_build_fresh_containers():
    d = G.Gops.new("g1", G.make_rules("standard", ranks=4, prize_order="ascending"))
    data = d.to_dict()
    data["game"]["hands"][0].clear()
    data["game"]["row"].append(99)
    data["resigned"].append(1)
    assert d.game.hands[0] == [1, 2, 3, 4] and d.game.row == [1] and d.resigned == []
    again = G.Gops.from_dict(json.loads(json.dumps(d.to_dict())))
    source = d.to_dict()
    copy = G.Gops.from_dict(source)
    source["game"]["hands"][1].clear()
    assert copy.game.hands[1] == [1, 2, 3, 4] and again.to_dict() == d.to_dict()


# ---------------------------------------------------------------- refusals never change anything


def _junk(state: G.Gops, rng: random.Random) -> Action:
    """A random action, usually illegal now."""
    g, rules = state.game, state.rules
    seat = rng.choice([*range(rules.players), -1, rules.players])
    rnd = rng.choice([g.round, g.round + 1, 0])
    salt = rng.choice([det_salt("junk", rng.random()), "zz"])
    cards = tuple(rng.sample(range(0, rules.ranks + 2), rules.bid_cards))
    return rng.choice([
        G.Commit(seat, rnd, rng.choice([commitments.bid_commitment(g.game_id, rnd, max(seat, 0), cards, salt),
                                        "nothex"])),
        G.Reveal(seat, rnd, cards, salt),
        G.ChoosePrize(seat, rng.randint(0, rules.ranks + 1)),
        G.ReportPrize(rng.randint(0, rules.ranks + 1)),
        G.DealPrizes(tuple(rng.sample(range(1, rules.ranks + 1), rules.ranks)), salt),
        G.EnforceDeadline(),
        G.Commit(seat, rnd, "ab" * 32, game=g.number + 1),
    ])


@pytest.mark.parametrize("seed", range(12))
def test_refused_actions_leave_the_state_exactly_as_it_was(seed):
    rng = random.Random(seed)
    players = rng.randint(2, 4)
    options = {"players": players, "ranks": rng.randint(3, 8), "deadline_seconds": 5,
               "resolution": rng.choice(G.RESOLUTIONS), "unclaimed": rng.choice(G.UNCLAIMED),
               "open_prizes": rng.choice([1, 1, 2]),
               "prize_order": rng.choice(["shuffled", "ascending", "reported"])}
    match = rng.choice([G.make_match_rules(), G.make_match_rules("cumulative", games=2)])
    state = G.Gops.new(f"r{seed}", G.make_rules("standard", **options), match)
    now, refused, bids = 0.0, 0, {}
    for _ in range(400):
        if state.over:
            break
        before = state.to_dict()
        junk = _junk(state, rng)
        try:
            state.apply(junk, now=now)
        except RefereeError:
            refused += 1
            assert state.to_dict() == before, junk
        else:
            continue
        g = state.game
        now += 1.0
        if state.needs_chance:
            state.apply(chance.deal(state.rules, rng), now=now)
        elif g.phase is Phase.PRIZE:
            state.apply(G.ReportPrize(rng.choice(state.prizes.reportable())), now=now)
        elif g.phase is Phase.COMMIT:
            seat = rng.choice(state.awaiting())
            cards = tuple(rng.sample(g.hands[seat], state.rules.bid_cards))
            salt = det_salt(g.game_id, g.round, seat)
            bids[seat] = (cards, salt)
            state.apply(G.Commit(seat, g.round, commitments.bid_commitment(g.game_id, g.round, seat, cards, salt)), now=now)
        elif g.phase is Phase.REVEAL:
            seat = rng.choice(state.awaiting())
            state.apply(G.Reveal(seat, g.round, *bids[seat]), now=now)
        elif g.phase is Phase.CHOOSE:
            state.apply(G.ChoosePrize(g.chooser, rng.choice(g.row)), now=now)
        if rng.random() < 0.02 and state.game.deadline_at is not None and state.awaiting():
            now = state.game.deadline_at
            state.apply(G.EnforceDeadline(), now=now)
    assert refused >= 3
    assert G.Gops.from_dict(json.loads(json.dumps(state.to_dict()))).to_dict() == state.to_dict()


def test_verify_and_is_legal_ask_without_changing():
    state = G.Gops.new("g1", G.make_rules("standard", ranks=3, prize_order="ascending"))
    before = state.to_dict()
    assert not state.is_legal(G.ChoosePrize(0, 1))
    assert state.is_legal(G.Resign(0))
    with pytest.raises(RefereeError) as info:
        state.verify(G.Reveal(0, 1, (1,), "ab" * 32))
    assert info.value.code == "wrong_phase"
    assert state.to_dict() == before


def test_scores_stay_exact_fractions():
    d = G.Gops.new("g1", G.make_rules("standard", resolution="split", ranks=3, prize_order="ascending"))
    g = d.game
    for seat in range(2):
        d.apply(G.Commit(seat, 1, commitments.bid_commitment("g1", 1, seat, [2], det_salt(seat))))
    for seat in range(2):
        d.apply(G.Reveal(seat, 1, (2,), det_salt(seat)))
    assert g.scores == [Fraction(1, 2), Fraction(1, 2)] and observer.view(d)["scores"] == ["1/2", "1/2"]
