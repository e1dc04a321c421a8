"""The Gops bot (service.games.gops.bot): legal, whole games at every level in every variant, decided
from its seat's view alone; level 8 is the solver's equilibrium where that is exact."""

from __future__ import annotations

import json
import random

import pytest

from service.games import commitments
from service.games import gops as G
from service.games.gops import bot

SALT = "ab" * 32

VARIANTS = {
    "standard": ("standard", {}),
    "classic (carry-over)": ("classic", {}),
    "split": ("standard", {"resolution": "split"}),
    "blind": ("standard", {"visibility": "blind"}),
    "blind reported": ("standard", {"visibility": "blind", "prize_order": "reported"}),
    "reported": ("standard", {"prize_order": "reported"}),
    "ascending": ("standard", {"prize_order": "ascending"}),
    "descending": ("classic", {"prize_order": "descending"}),
    "explicit": ("standard", {"prize_order": "explicit", "explicit_order": (4, 1, 6, 2, 7, 3, 5)}),
    "dealer sees prize": ("standard", {"visibility": "dealer_sees_prize", "dealer_seat": 1}),
    "3 seats, highest unique": ("standard", {"players": 3, "resolution": "highest_unique"}),
    "5 seats, highest unique, carry-over": ("standard", {"players": 5, "resolution": "highest_unique",
                                                         "unclaimed": "carryover"}),
    "7 seats, split": ("standard", {"players": 7, "resolution": "split"}),
    "3 seats, dealer sees prize": ("standard", {"players": 3, "visibility": "dealer_sees_prize", "dealer_seat": 0}),
    "open prizes": ("standard", {"open_prizes": 3}),
    "open prizes, carry-over, 3 seats": ("standard", {"open_prizes": 2, "unclaimed": "carryover", "players": 3}),
    "two-card bids": ("standard", {"bid_cards": 2}),
    "three-card bids, 3 seats": ("standard", {"bid_cards": 3, "players": 3, "resolution": "highest_unique"}),
}


def _rules(variant: str, ranks: int = 7) -> G.Rules:
    profile, options = VARIANTS[variant]
    return G.make_rules(profile, ranks=ranks, **options)


def play(rules: G.Rules, levels: list[int], seed: int, game_id: str = "b1") -> G.Gops:
    """A whole game between bots of ``levels`` (by seat), committed and revealed through the
    engine, every decision checked legal; reported prizes are turned up at random."""
    rng = random.Random(seed)
    state = G.Gops.new(game_id, rules)
    bids: dict[int, tuple[int, ...]] = {}
    for _ in range(10_000):
        if state.over:
            return state
        if state.needs_chance:
            order = list(range(1, rules.ranks + 1))
            rng.shuffle(order)
            state.apply(G.DealPrizes(tuple(order), SALT))
        elif state.phase == "prize":
            [legal] = [a for a in state.legal_actions(None) if a.type == "report_prize"]
            state.apply(G.ReportPrize(rng.choice(legal.to_dict()["ranks"])))
        elif state.phase == "commit":
            for seat in state.awaiting():
                seen = G.view(state, seat)
                cards = bot.bid(seen, levels[seat], rng)
                assert state.bid_problem(seat, cards) is None, (seat, cards, seen["hands"][seat])
                assert cards in dict(bot.policy(seen, levels[seat]))
                bids[seat] = cards
                commitment = commitments.bid_commitment(game_id, state.game.round, seat, cards, SALT)
                state.apply(G.Commit(seat, state.game.round, commitment), seat=seat)
        elif state.phase == "reveal":
            for seat in state.awaiting():
                state.apply(G.Reveal(seat, state.game.round, bids.pop(seat), SALT), seat=seat)
        elif state.phase == "choose":
            seat = state.game.chooser
            seen = G.view(state, seat)
            rank = bot.choose(seen, levels[seat], rng)
            assert rank in state.game.row
            state.apply(G.ChoosePrize(seat, rank), seat=seat)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_bots_of_every_level_play_every_variant_to_its_end(variant):
    rules = _rules(variant)
    for level in range(1, 9):
        levels = [level if s % 2 == 0 else 9 - level for s in range(rules.players)]
        state = play(rules, levels, seed=level)
        assert state.over and state.game.result.termination == "completed"
        assert not any(record.illegal for record in state.game.history)


def test_a_thirteen_card_game_at_level_8():
    state = play(G.make_rules("classic"), [8, 8], seed=13)
    assert state.over and len(state.game.history) == 13


def test_the_levels_table_has_eight_levels_and_level_8_is_the_solver_s_horizon():
    from service.games.gops import solver

    assert [spec.level for spec in bot.LEVELS] == list(range(1, 9))
    assert bot.LEVELS[-1].rule == "solver" and bot.LEVELS[-1].noise == 0
    assert bot.LEVELS[-1].exact_cards == solver.EXACT_CARDS
    assert bot.LEVELS[0].rule == "random"
    for level in (0, 9, "8"):
        with pytest.raises(ValueError):
            bot.level_of(level)


def _dealt(order, game_id="k1", **options) -> G.Gops:
    state = G.Gops.new(game_id, G.make_rules("standard", ranks=len(order), **options))
    state.apply(G.DealPrizes(tuple(order), SALT))
    return state


def _commit(state: G.Gops, seat: int, cards: tuple[int, ...]) -> None:
    commitment = commitments.bid_commitment(state.id, state.game.round, seat, cards, SALT)
    state.apply(G.Commit(seat, state.game.round, commitment), seat=seat)


def _same_decisions(first: G.Gops, second: G.Gops, seat: int) -> None:
    """Every level's mix and draw (the same seed) from the two states' views of ``seat`` agree."""
    for level in range(1, 9):
        one, other = G.view(first, seat), G.view(second, seat)
        assert bot.policy(one, level) == bot.policy(other, level), level
        assert bot.bid(one, level, random.Random(level)) == bot.bid(other, level, random.Random(level))


def test_what_the_seat_cannot_see_changes_no_decision():
    # the rival's committed bid (and the order of the prizes still face down)
    first, second = _dealt((3, 1, 4, 2, 5, 6)), _dealt((3, 6, 5, 2, 1, 4))
    _commit(first, 1, (6,))
    _commit(second, 1, (1,))
    _same_decisions(first, second, 0)
    # three seats: two rivals committed differently
    first = _dealt((5, 1, 4, 2, 3, 6), players=3, resolution="highest_unique")
    second = _dealt((5, 2, 1, 6, 4, 3), players=3, resolution="highest_unique")
    for state, bids in ((first, {1: (6,), 2: (1,)}), (second, {1: (2,), 2: (5,)})):
        for seat, cards in bids.items():
            _commit(state, seat, cards)
    _same_decisions(first, second, 0)
    # blind: the prize in the middle, after a round bid for unseen
    first, second = _dealt((3, 1, 4, 2), visibility="blind"), _dealt((3, 2, 4, 1), visibility="blind")
    for state in (first, second):
        state.play_bids({0: (4,), 1: (2,)})
    _same_decisions(first, second, 1)
    # dealer_sees_prize: what the dealer sees and its rival does not
    first = _dealt((5, 1, 4, 2, 3), visibility="dealer_sees_prize", dealer_seat=0)
    second = _dealt((2, 1, 4, 5, 3), visibility="dealer_sees_prize", dealer_seat=0)
    _same_decisions(first, second, 1)
    # the prize the seat sees does change its decision
    assert bot.policy(G.view(_dealt((5, 1, 4, 2, 3)), 0), 8) != bot.policy(G.view(_dealt((1, 5, 4, 2, 3)), 0), 8)


def test_the_bot_decides_from_the_view_as_a_client_receives_it():
    """A JSON copy of the view (all a client of the seat gets) gives the same decisions."""
    for variant in ("standard", "blind", "3 seats, highest unique", "open prizes", "two-card bids"):
        state = G.Gops.new("j1", _rules(variant))
        state.apply(G.DealPrizes(tuple(range(1, 8)), SALT))
        seen = G.view(state, 0)
        copied = json.loads(json.dumps(seen))
        for level in range(1, 9):
            assert bot.policy(copied, level) == bot.policy(seen, level)
            assert bot.bid(copied, level, random.Random(5)) == bot.bid(seen, level, random.Random(5))


def test_the_mix_is_a_distribution_over_legal_bids():
    for variant in ("standard", "5 seats, highest unique, carry-over", "three-card bids, 3 seats"):
        state = G.Gops.new("m1", _rules(variant))
        state.apply(G.DealPrizes(tuple(range(1, 8)), SALT))
        seen = G.view(state, 1)
        for level in range(1, 9):
            mix = bot.policy(seen, level)
            assert sum(p for _, p in mix) == pytest.approx(1.0)
            assert all(p > 0 and state.bid_problem(1, cards) is None for cards, p in mix)
    with pytest.raises(ValueError):
        state.apply(G.Commit(1, 1, commitments.bid_commitment("m1", 1, 1, (1, 2, 3), SALT)), seat=1)
        bot.policy(G.view(state, 1), 8)  # seat 1 has committed: no bid left to make


def test_level_8_plays_the_hint_s_mix_exact_where_the_solver_says():
    """Level 8 bids the hint's mix in every position of a 7-card game; the hint is exact in all of
    them under the rules the table was solved for, and where a carried pot or a blind prize allow
    (docs/bots.md, Which variants get which play)."""
    from service.games.gops import solver

    rng = random.Random(3)
    checked = exact = 0
    for profile, options in (("standard", {}), ("classic", {}), ("standard", {"visibility": "blind"}),
                             ("standard", {"resolution": "split"})):
        order = list(range(1, 8))
        rng.shuffle(order)
        state = G.Gops.new("e1", G.make_rules(profile, ranks=7, **options))
        state.apply(G.DealPrizes(tuple(order), SALT))
        while not state.over:
            seen = G.view(state, 0)
            hint = solver.hint(seen)
            expected = {tuple(a["cards"]): a["probability"] for a in hint["actions"] if a["probability"] > 0}
            assert dict(bot.policy(seen, 8)) == pytest.approx(expected, abs=1e-9)
            hand, rival = seen["hands"]
            if options or profile == "standard":
                should = options.get("visibility") != "blind" or len(hand) <= solver.RECURSION_CARDS + 1
            else:  # a tie carries the pot: exact once no tie can happen, or few cards are left
                should = not set(hand) & set(rival) or len(hand) <= solver.RECURSION_CARDS + 1
            assert hint["exact"] == should, (profile, options, hand, rival)
            checked += 1
            exact += should
            state.play_bids({seat: (rng.choice(state.game.hands[seat]),) for seat in (0, 1)})
    assert checked == 4 * 7 and exact >= 2 * 7 + 2 * 3


def test_the_quantile_rule_bids_high_for_a_high_stake_and_low_for_a_low_one():
    high, low = G.view(_dealt((6, 1, 2, 3, 4, 5), players=3), 0), G.view(_dealt((1, 6, 2, 3, 4, 5), players=3), 0)
    assert max(bot.policy(high, 8), key=lambda e: e[1])[0] == (6,)
    assert max(bot.policy(low, 8), key=lambda e: e[1])[0] == (1,)


def test_choosing_takes_the_highest_prize_from_level_2():
    state = _dealt((2, 5, 3, 1, 4, 6), open_prizes=3)
    state.play_bids({0: (6,), 1: (1,)})
    seen = G.view(state, 0)
    assert [bot.choose(seen, level, random.Random(0)) for level in range(2, 9)] == [5] * 7

