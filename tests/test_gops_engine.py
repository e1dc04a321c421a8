"""The Gops rules engine (service/games/gops/) against shared/rules/gops.md and the seeds.

Every rule is checked by a test that fails if the rule were implemented wrong;
every rejection is checked for its typed error ``code`` and for leaving the
state exactly as it was (``state.to_dict()`` before == after).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from support.gops_helpers import (
    Driver,
    det_salt,
    expect_error,
    mirror_rounds,
    new_game,
    play_game,
    spec_commitment,
)
from service.games import commitments as C
from service.games import gops as G
from service.errors import (
    CommitmentMismatch,
    GameOver,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    NotYourTurn,
    WrongPhase,
)

ASC = {"prize_order": "ascending"}


def asc(**opts):
    """A driver on an ascending-order game (prize r in round r)."""
    gid = opts.pop("id", "g1")
    match = opts.pop("match", None)
    profile = opts.pop("profile", "standard")
    opts.setdefault("prize_order", "ascending")
    return Driver(new_game(gid, profile=profile, match=match, **opts))


def total(scores):
    return sum((Fraction(s) for s in scores), Fraction(0))


# =========================================================================== options


@pytest.mark.parametrize("players", range(2, 8))
def test_two_to_seven_players_identical_hands(players):
    d = asc(players=players, ranks=13)
    assert d.state.rules.players == players
    assert d.g.hands == [list(range(1, 14))] * players
    assert d.state.awaiting() == list(range(players))
    # everyone bids; the highest (the last seat) wins the first prize
    d.bid_round(list(range(1, players + 1)))
    assert d.g.scores[players - 1] == 1
    assert d.g.hands[0] == list(range(2, 14))


@pytest.mark.parametrize("players", [0, 1, 8, 9, -2])
def test_players_out_of_range_refused(players):
    with pytest.raises(InvalidOptions) as info:
        G.make_rules("standard", players=players)
    assert info.value.code == "invalid_options"
    with pytest.raises(InvalidOptions):
        G.Gops.new("g1", G.Rules(players=players))


@pytest.mark.parametrize("ranks", range(1, 14))
def test_ranks_a_to_n(ranks):
    d = asc(ranks=ranks)
    assert d.state.rules.rounds == ranks
    assert d.state.rules.total_points == ranks * (ranks + 1) // 2
    assert d.g.hands[0] == list(range(1, ranks + 1))
    play_game(d, [[r, r - 1 if r > 1 else ranks] for r in range(1, ranks + 1)] if ranks > 1 else [[1, 1]])
    assert d.state.over
    assert len(d.g.history) == ranks
    assert d.g.hands == [[], []]


@pytest.mark.parametrize("ranks", [0, 14, -1, 52])
def test_ranks_out_of_range_refused(ranks):
    with pytest.raises(InvalidOptions):
        G.make_rules("standard", ranks=ranks)


def test_default_game_is_13_ranks_shuffled_open():
    r = G.make_rules()
    assert (r.ranks, r.players, r.prize_order, r.visibility, r.bid_cards, r.open_prizes) == (
        13, 2, "shuffled", "open", 1, 1)
    assert r.total_points == 91


def test_profile_classic():
    r = G.make_rules("classic")
    assert (r.players, r.resolution, r.unclaimed) == (2, "none", "carryover")


def test_profile_standard():
    r = G.make_rules("standard")
    assert (r.resolution, r.unclaimed) == ("none", "discard")
    assert G.make_rules("standard", players=5).players == 5


@pytest.mark.parametrize("players", [3, 4, 7])
def test_classic_refuses_more_than_two_players(players):
    with pytest.raises(InvalidOptions):
        G.make_rules("classic", players=players)


def test_unknown_profile_refused():
    with pytest.raises(InvalidOptions) as info:
        G.make_rules("tournament")
    assert info.value.code == "unknown_profile"


@pytest.mark.parametrize("opts", [
    {"resolution": "random"},
    {"unclaimed": "keep"},
    {"prize_order": "random"},
    {"visibility": "hidden"},
    {"bid_cards": 0},
    {"bid_cards": 14},
    {"open_prizes": 0},
    {"open_prizes": 2, "visibility": "blind"},
    {"visibility": "dealer_sees_prize"},
    {"visibility": "dealer_sees_prize", "dealer_seat": 2},
    {"dealer_seat": 0},
    {"deadline_seconds": 0},
    {"deadline_seconds": 7 * 86400 + 1},
    {"colour": "red"},
])
def test_bad_options_refused(opts):
    with pytest.raises(InvalidOptions):
        G.make_rules("standard", **opts)


def test_profile_options_override():
    r = G.make_rules("classic", unclaimed="discard", ranks=5)
    assert (r.players, r.unclaimed, r.ranks) == (2, "discard", 5)


def test_bad_game_id_refused():
    for gid in ("", "a b", "a|b", "é", "x" * 65):
        with pytest.raises(InvalidOptions):
            G.Gops.new(gid, G.make_rules(**ASC))


# ====================================================================== resolution


def test_highest_bid_wins_and_bids_never_score():
    d = asc(ranks=5)
    d.bid_round([5, 1])  # prize 1
    assert d.g.scores == [1, 0]
    assert d.g.won == [[1], []]
    assert d.g.hands == [[1, 2, 3, 4], [2, 3, 4, 5]]


def test_none_tie_nobody_wins_discard_sets_aside():
    d = asc(ranks=5, resolution="none", unclaimed="discard")
    d.bid_round([3, 3])
    assert d.g.scores == [0, 0]
    assert d.g.set_aside == [1]
    assert d.g.carry == []
    d.bid_round([4, 1])  # prize 2: the winner takes only the new prize
    assert d.g.scores == [2, 0]
    assert d.g.hands == [[1, 2, 5], [2, 4, 5]]  # both tied bids were spent


def test_none_three_players_top_tie_lower_third_gets_nothing():
    d = asc(players=3, ranks=5, resolution="none", unclaimed="discard")
    d.bid_round([5, 5, 2])
    assert d.g.history[0].to_dict()["winners"] == []
    assert d.g.scores == [0, 0, 0]
    assert d.g.set_aside == [1]


def test_carryover_tie_accumulates_and_next_winner_takes_all():
    d = asc(ranks=5, resolution="none", unclaimed="carryover")
    d.bid_round([1, 1])
    assert d.g.carry == [1] and d.g.set_aside == []
    d.bid_round([2, 2])
    assert sorted(d.g.carry) == [1, 2]
    assert G.view(d.state)["pot_value"] == 1 + 2 + 3
    d.bid_round([3, 4])
    assert d.g.scores == [0, 6]
    assert sorted(d.g.won[1]) == [1, 2, 3]
    assert d.g.carry == []


def test_carryover_tie_on_last_round_is_set_aside():
    d = asc(ranks=3, resolution="none", unclaimed="carryover")
    play_game(d, [[1, 1], [2, 2], [3, 3]])
    assert d.state.over
    assert d.g.scores == [0, 0]
    assert sorted(d.g.set_aside) == [1, 2, 3]
    assert d.g.result.to_dict()["unclaimed"] == 6
    assert d.g.result.to_dict()["winners"] == [0, 1]  # 0-0 draw


def test_carryover_last_round_tie_only_last_pot_set_aside():
    d = asc(ranks=3, resolution="none", unclaimed="carryover")
    play_game(d, [[3, 1], [1, 3], [2, 2]])
    assert d.g.scores == [1, 2]
    assert d.g.result.to_dict()["unclaimed"] == 3
    assert d.g.result.to_dict()["winners"] == [1]


def test_scores_are_whole_numbers_until_a_prize_is_split():
    """Exact scores without fraction arithmetic where whole numbers do: an int per seat, a
    Fraction only once a split share made one; the stored form is the same text either way."""
    d = asc(ranks=5, resolution="split")
    d.bid_round([2, 1])  # prize 1 to seat 0
    d.bid_round([1, 3])  # prize 2 to seat 1
    assert d.g.scores == [1, 2] and [type(s) for s in d.g.scores] == [int, int]
    assert type(G.Gops.from_dict(d.state.to_dict()).game.scores[0]) is int
    d.bid_round([4, 4])  # prize 3 split: 3/2 each
    assert d.g.scores == [Fraction(5, 2), Fraction(7, 2)]
    assert d.state.to_dict()["game"]["scores"] == ["5/2", "7/2"]


def test_split_two_players_exact_half():
    d = asc(ranks=5, resolution="split")
    d.bid_round([1, 1])
    d.bid_round([2, 2])
    d.bid_round([4, 4])
    assert d.g.scores == [Fraction(3), Fraction(3)]
    d.bid_round([3, 3])  # prize 4
    d.bid_round([5, 5])  # prize 5
    assert d.g.scores == [Fraction(15, 2), Fraction(15, 2)]
    assert d.state.to_dict()["game"]["scores"] == ["15/2", "15/2"]
    assert d.g.result.to_dict()["unclaimed"] == 0


def test_split_three_players_13_thirds_no_float():
    d = Driver(new_game("g1", players=3, ranks=13, resolution="split", prize_order="descending"))
    d.bid_round([13, 13, 13])  # prize K
    third = Fraction(13, 3)
    assert d.g.scores == [third, third, third]
    assert all(isinstance(s, Fraction) for s in d.g.scores)
    assert d.state.to_dict()["game"]["scores"] == ["13/3"] * 3
    assert d.g.history[0].to_dict()["shares"] == {"0": "13/3", "1": "13/3", "2": "13/3"}
    play_game(d, [[r, r, r] for r in range(12, 0, -1)])
    assert d.g.scores == [Fraction(91, 3)] * 3
    assert total(d.g.scores) == 91  # exact, no float drift
    assert d.g.result.to_dict()["scores"] == ["91/3"] * 3
    assert d.g.result.to_dict()["unclaimed"] == 0
    assert d.g.result.to_dict()["winners"] == [0, 1, 2]


def test_split_only_top_shares_and_others_get_nothing():
    d = asc(players=4, ranks=7, resolution="split")
    d.bid_round([6, 6, 5, 6])  # prize 1 split three ways
    assert d.g.scores == [Fraction(1, 3), Fraction(1, 3), 0, Fraction(1, 3)]


@pytest.mark.parametrize("unclaimed", ["carryover", "discard"])
def test_split_never_leaves_a_pot_unclaimed(unclaimed):
    d = asc(ranks=4, resolution="split", unclaimed=unclaimed)
    play_game(d, mirror_rounds(4))
    assert d.g.carry == [] and d.g.set_aside == []
    assert d.g.scores == [5, 5]
    assert d.g.result.to_dict()["unclaimed"] == 0


def test_highest_unique_three_players_two_tie_third_wins_lower():
    d = asc(players=3, ranks=5, resolution="highest_unique")
    d.bid_round([5, 5, 2])
    assert d.g.history[0].to_dict()["winners"] == [2]
    assert d.g.scores == [0, 0, 1]


def test_highest_unique_all_three_same_unclaimed():
    d = asc(players=3, ranks=5, resolution="highest_unique", unclaimed="discard")
    d.bid_round([4, 4, 4])
    assert d.g.history[0].to_dict()["winners"] == []
    assert d.g.set_aside == [1]


def test_highest_unique_every_value_duplicated_unclaimed_carryover():
    d = asc(players=4, ranks=5, resolution="highest_unique", unclaimed="carryover")
    d.bid_round([5, 5, 3, 3])
    assert d.g.history[0].to_dict()["winners"] == []
    assert d.g.carry == [1]
    d.bid_round([4, 4, 4, 1])  # prize 2: 4 cancelled, the 1 is the highest unique
    assert d.g.scores == [0, 0, 0, 3]


def test_highest_unique_four_players_highest_remaining_wins():
    d = asc(players=4, ranks=7, resolution="highest_unique")
    d.bid_round([7, 7, 3, 1])
    assert d.g.history[0].to_dict()["winners"] == [2]
    d.bid_round([6, 5, 6, 2])  # prize 2: 6 cancelled, 5 wins
    assert d.g.scores == [0, 2, 1, 0]


def test_highest_unique_two_players():
    d = asc(ranks=3, resolution="highest_unique", unclaimed="discard")
    d.bid_round([2, 2])
    assert d.g.set_aside == [1]
    d.bid_round([1, 3])
    assert d.g.scores == [0, 2]


def test_none_differs_from_highest_unique_for_three():
    d = asc(players=3, ranks=5, resolution="none", unclaimed="carryover")
    d.bid_round([5, 5, 2])
    assert d.g.carry == [1]
    assert d.g.scores == [0, 0, 0]


# ================================================================ seed 000 examples


def test_seed_000_worked_example_tie_then_jack_takes_13():
    """000 §06: 8♦ tie on two nines stays in the middle; 5♦ won by J♠ for 13 points."""
    order = [8, 5, 1, 2, 3, 4, 6, 7, 9, 10, 11, 12, 13]
    d = Driver(new_game("ex", profile="classic", prize_order="explicit", explicit_order=order))
    assert d.g.row == [8]
    assert G.view(d.state)["prize_order"] == order  # a known order
    d.bid_round([9, 9])
    assert d.g.scores == [0, 0]
    assert d.g.carry == [8]  # 8 stays in the middle
    assert 9 not in d.g.hands[0] and 9 not in d.g.hands[1]  # both nines spent
    assert d.g.row == [5]
    assert G.view(d.state)["pot_value"] == 13
    d.bid_round([7, 11])  # A 7♣, B J♠
    assert d.g.scores == [0, 13]  # 8 + 5, the jack's 11 does not count
    assert sorted(d.g.won[1]) == [5, 8]
    assert d.g.hands[0] == [1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13]
    assert d.g.hands[1] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13]
    assert d.g.carry == []
    assert d.g.history[1].to_dict()["pot"] == [8, 5] or sorted(d.g.history[1].to_dict()["pot"]) == [5, 8]


def test_seed_000_draw_43_43_with_5_unclaimed():
    """000 §05: with 5 points unclaimed, 43–43 is a draw."""
    bids = [(1, 6), (2, 7), (3, 8), (4, 9), (5, 5), (6, 10), (10, 1),
            (7, 11), (8, 12), (9, 13), (11, 2), (12, 3), (13, 4)]
    d = asc(ranks=13)
    play_game(d, bids)
    assert d.state.over
    assert d.g.result.to_dict()["scores"] == ["43", "43"]
    assert d.g.result.to_dict()["unclaimed"] == 5
    assert d.g.result.to_dict()["winners"] == [0, 1]
    assert d.state.result.to_dict()["winners"] == [0, 1]


def test_game_lasts_n_rounds_hands_and_pile_exhausted_together():
    d = Driver(new_game("g1", profile="classic", prize_order="descending"))
    play_game(d, [[r, 14 - r] for r in range(1, 14)])
    assert d.state.over and d.state.phase == "over"
    assert len(d.g.history) == 13
    assert d.g.hands == [[], []]
    assert len(d.g.turned) == 13
    assert total(d.g.scores) + d.g.result.to_dict()["unclaimed"] == 91


# ===================================================================== prize order


def test_ascending_and_descending_orders():
    d = asc(ranks=4)
    play_game(d, mirror_rounds(4))
    assert d.g.turned == [1, 2, 3, 4]
    d = Driver(new_game("g1", ranks=4, prize_order="descending"))
    assert d.g.row == [4]
    play_game(d, mirror_rounds(4))
    assert d.g.turned == [4, 3, 2, 1]


def test_explicit_order_followed():
    d = Driver(new_game("g1", ranks=5, prize_order="explicit", explicit_order=[3, 1, 5, 2, 4]))
    play_game(d, mirror_rounds(5))
    assert d.g.turned == [3, 1, 5, 2, 4]


@pytest.mark.parametrize("order", [
    [1, 2, 3, 4], [1, 2, 3, 4, 4], [1, 2, 3, 4, 6], [0, 1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [],
])
def test_bad_explicit_order_refused(order):
    with pytest.raises(InvalidOptions):
        G.make_rules("standard", ranks=5, prize_order="explicit", explicit_order=order)


def test_explicit_order_only_with_explicit():
    with pytest.raises(InvalidOptions):
        G.make_rules("standard", ranks=3, prize_order="ascending", explicit_order=[1, 2, 3])


def test_shuffled_needs_deal_and_commitment_matches():
    d = Driver(new_game("sh", ranks=5, prize_order="shuffled"))
    assert d.state.phase == "deal" and d.state.needs_chance
    assert d.state.legal_actions(0) == [{"type": "resign"}]
    expect_error(d.state, G.Commit(0, 1, "0" * 64), "wrong_phase", exc=WrongPhase)
    expect_error(d.state, G.DealPrizes(order=(1, 2, 3, 4), salt="00" * 32), "invalid_prize_order")
    expect_error(d.state, G.DealPrizes(order=(1, 2, 3, 4, 4), salt="00" * 32), "invalid_prize_order")
    expect_error(d.state, G.DealPrizes(order=(5, 4, 3, 2, 1), salt="XY" * 32), "invalid_salt")
    order, salt = [4, 2, 5, 1, 3], "5a" * 32
    assert d.deal(order, salt) is True
    expected = C.prize_order_commitment("sh", order, salt)
    assert expected == __import__("hashlib").sha256(
        f"gops-prizes-v1|sh|4,2,5,1,3|{salt}".encode()).hexdigest()
    assert d.g.prize_commitment == expected
    assert d.g.row == [4]
    assert not d.state.needs_chance
    expect_error(d.state, G.DealPrizes(order=tuple(order), salt=salt), "wrong_phase")
    for seat in (None, 0, 1):
        v = G.view(d.state, seat)
        assert v["prize_commitment"] == expected
        assert v["prize_order"] is None and v["prize_salt"] is None
        assert salt not in json.dumps(v)
    play_game(d, mirror_rounds(4) + [[5, 5]])
    assert d.g.turned == order
    v = G.view(d.state)
    assert v["prize_order"] == order and v["prize_salt"] == salt
    assert C.prize_order_commitment(v["game_id"], v["prize_order"], v["prize_salt"]) == v["prize_commitment"]
    assert d.g.result.to_dict()["prize_order"] == order and d.g.result.to_dict()["prize_salt"] == salt
    assert d.g.result.to_dict()["prize_commitment"] == expected


def test_shuffled_unturned_prizes_not_in_view():
    d = Driver(new_game("sh", ranks=6, prize_order="shuffled"))
    d.deal([6, 1, 5, 2, 4, 3])
    d.bid_round([1, 2])
    v = G.view(d.state, 0)
    assert v["turned"] == [6, 1]
    assert v["prizes_left"] == 4
    assert "pile" not in v and v["prize_order"] is None


def test_shuffled_match_each_game_dealt_with_its_own_commitment():
    match = G.make_match_rules("cumulative", games=2)
    d = Driver(new_game("m", ranks=2, prize_order="shuffled", match=match))
    d.deal([2, 1], "01" * 32)
    c1 = d.g.prize_commitment
    assert c1 == C.prize_order_commitment(d.g.game_id, [2, 1], "01" * 32)
    play_game(d, [[1, 2], [2, 1]])
    assert d.state.game.number == 2 and d.state.needs_chance
    assert G.view(d.state)["prize_order"] is None
    assert d.state.games[0].to_dict()["prize_order"] == [2, 1]  # game 1's order revealed at its end
    d.deal([2, 1], "01" * 32)
    assert d.g.prize_commitment != c1  # bound to the game id


def test_reported_prize_order():
    d = Driver(new_game("rp", ranks=4, prize_order="reported"))
    assert d.state.phase == "prize"
    la = d.state.legal_actions(0)
    assert {"type": "report_prize", "ranks": [1, 2, 3, 4]} in la
    assert not any(a["type"] == "commit" for a in la)
    assert d.state.legal_actions(None) == [{"type": "report_prize", "ranks": [1, 2, 3, 4]}]
    expect_error(d.state, G.Commit(0, 1, "0" * 64), "wrong_phase")
    for bad in (0, 5, -1, "3", None, 2.0):
        expect_error(d.state, G.ReportPrize(rank=bad), "no_such_rank")
    d.report(3)
    assert d.state.phase == "commit" and d.g.row == [3]
    expect_error(d.state, G.ReportPrize(rank=1), "wrong_phase")
    d.bid_round([4, 1])
    assert d.g.scores == [3, 0]
    assert d.state.phase == "prize"
    assert {"type": "report_prize", "ranks": [1, 2, 4]} in d.state.legal_actions(1)
    expect_error(d.state, G.ReportPrize(rank=3), "prize_already_seen")
    d.report(1)
    d.bid_round([1, 2])
    d.report(4)
    d.bid_round([3, 4])
    d.report(2)
    d.bid_round([2, 3])
    assert d.state.over
    assert d.g.turned == [3, 1, 4, 2]
    assert d.g.scores == [3, 7]


def test_reported_blind_reports_after_the_reveals():
    d = Driver(new_game("rb", ranks=3, prize_order="reported", visibility="blind"))
    assert d.state.phase == "commit"  # bid on a face-down prize
    assert d.g.row == []
    d.commit(0, 3)
    d.commit(1, 1)
    expect_error(d.state, G.ReportPrize(rank=2), "wrong_phase")
    d.reveal(0, 3)
    d.reveal(1, 1)
    assert d.state.phase == "prize"
    assert d.g.history == []  # not resolved before the prize is known
    assert {"type": "report_prize", "ranks": [1, 2, 3]} in d.state.legal_actions(0)
    d.report(2)
    assert d.g.scores == [2, 0]
    assert d.state.phase == "commit" and d.g.round == 2
    d.commit(0, 1)
    d.commit(1, 2)
    d.reveal(0, 1)
    d.reveal(1, 2)
    expect_error(d.state, G.ReportPrize(rank=2), "prize_already_seen")
    d.report(3)
    assert d.g.scores == [2, 3]


def test_reported_with_open_prizes_two_reports_before_bidding():
    d = Driver(new_game("ro", ranks=4, prize_order="reported", open_prizes=2))
    d.report(4)
    assert d.state.phase == "prize"
    d.report(1)
    assert d.state.phase == "commit" and d.g.row == [4, 1]


# ======================================================================= visibility


def test_blind_hides_the_prize_until_resolution():
    d = asc(ranks=3, visibility="blind")
    for seat in (None, 0, 1):
        v = G.view(d.state, seat)
        assert v["row"] == [None] and v["pot_value"] is None and v["turned"] == [None]
    assert d.state.game.row == [1]
    d.bid_round([3, 1])
    for seat in (None, 0, 1):  # the round's prize shown in its record, the next one turned up hidden
        v = G.view(d.state, seat)
        assert v["turned"] == [1, None] and v["row"] == [None]
        assert v["history"][0]["pot"] == [1]
    play_game(d, [[1, 2], [2, 3]])
    v = G.view(d.state)
    assert v["turned"] == [1, 2, 3]


def test_dealer_sees_prize_only_dealer():
    d = asc(players=3, ranks=3, visibility="dealer_sees_prize", dealer_seat=1)
    assert G.view(d.state, 1)["row"] == [1]
    assert G.view(d.state, 1)["pot_value"] == 1
    for seat in (None, 0, 2):
        v = G.view(d.state, seat)
        assert v["row"] == [None] and v["pot_value"] is None and v["turned"] == [None]
    d.bid_round([1, 2, 3])
    for seat in (None, 0, 2):
        v = G.view(d.state, seat)
        assert v["history"][0]["pot"] == [1]
        assert v["turned"] == [1, None]
    assert G.view(d.state, 1)["turned"] == [1, 2]


def test_open_visibility_shows_prize_to_all():
    d = asc(ranks=3)
    for seat in (None, 0, 1):
        assert G.view(d.state, seat)["row"] == [1]


# ===================================================================== multi-card


@pytest.mark.parametrize("ranks,rounds", [(13, 6), (5, 2), (4, 2), (2, 1)])
def test_multicard_rounds_floor_n_over_k(ranks, rounds):
    d = asc(ranks=ranks, bid_cards=2)
    assert d.state.rules.rounds == rounds
    play_game(d, [[(2 * r - 1, 2 * r)] * 2 for r in range(1, rounds + 1)])
    assert d.state.over
    assert len(d.g.history) == rounds
    assert len(d.g.turned) == rounds  # the unused prizes are never turned up
    assert d.g.hands == [list(range(2 * rounds + 1, ranks + 1))] * 2  # leftovers unused
    assert G.view(d.state)["prizes_left"] == ranks - rounds


def test_multicard_strength_is_the_sum():
    d = asc(ranks=13, bid_cards=2)
    d.bid_round([(1, 13), (6, 7)])  # 14 vs 13: the highest single card does not decide
    assert d.g.scores == [1, 0]
    d.bid_round([(2, 3), (4, 1)])  # 5 vs 5: tie
    assert d.g.scores == [1, 0] and d.g.set_aside == [2]
    assert d.g.hands[0] == [4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert d.g.history[0].to_dict()["bids"] == {"0": [1, 13], "1": [6, 7]}


def test_multicard_illegal_reveal_that_does_not_open_is_refused():
    d = asc(ranks=6, bid_cards=2)
    d.commit(0, (4, 5))
    d.commit(1, (1, 2))
    other = "77" * 32  # not the salt committed to: these reveals open nothing
    expect_error(d.state, G.Reveal(0, 1, (4,), other), "wrong_card_count")
    expect_error(d.state, G.Reveal(1, 1, (1, 2, 3), other), "wrong_card_count")
    expect_error(d.state, G.Reveal(0, 1, (4, 4), other), "duplicate_card")


def test_multicard_opened_illegal_bids_forfeit_to_the_lowest_cards():
    """A wrong count or the same card twice, committed and opened: the lowest two cards are played."""
    d = asc(ranks=6, bid_cards=2)
    salt = "77" * 32
    d.do(G.Commit(0, 1, spec_commitment("g1", 1, 0, (4,), salt)))        # one card, not two
    d.do(G.Commit(1, 1, spec_commitment("g1", 1, 1, (6, 6), salt)))      # the same card twice
    d.do(G.Reveal(0, 1, (4,), salt))
    d.do(G.Reveal(1, 1, (6, 6), salt))
    rec = d.g.history[0].to_dict()
    assert rec["illegal"] == {"0": "wrong_card_count", "1": "duplicate_card"}
    assert rec["bids"] == {"0": [1, 2], "1": [1, 2]} and rec["winners"] == []  # 3 vs 3: a tie
    assert set(rec["sealed"]) == {"0", "1"}  # sealed, as any other record (the opening is in the log)
    assert d.log[-1][0] == G.action_to_dict(G.Reveal(1, 1, (6, 6), salt))
    assert d.g.hands == [[3, 4, 5, 6], [3, 4, 5, 6]]
    assert d.state.phase == "commit" and d.g.round == 2


# =================================================================== illegal bids


def test_card_already_spent_refused_state_unchanged():
    d = asc(ranks=5)
    d.bid_round([5, 1])
    d.commit(0, 4)
    d.commit(1, 2)
    err = expect_error(d.state, G.Reveal(0, 2, (5,), "31" * 32), "card_not_in_hand")  # opens nothing
    assert isinstance(err, IllegalAction)


@pytest.mark.parametrize("committed,code", [
    ((5,), "card_not_in_hand"),   # spent in round 1
    ((3, 3), "wrong_card_count"),
    ((2, 3), "wrong_card_count"),
    ((7,), "no_such_rank"),       # a rank this 5-rank game does not have
])
def test_opened_illegal_bid_is_forfeited_to_the_lowest_card(committed, code):
    """a seat that committed to an illegal bid can still open it; it plays its lowest card,
    the round resolves and the game goes on (it used to stall forever)."""
    d = asc(ranks=5)
    d.bid_round([5, 1])  # seat 0 spends 5, seat 1 spends the A
    salt = "31" * 32
    d.do(G.Commit(0, 2, spec_commitment("g1", 2, 0, committed, salt)))
    d.commit(1, 3)
    d.reveal(1, 3)
    assert d.do(G.Reveal(0, 2, committed, salt)) is True  # accepted: the round resolves
    rec = d.g.history[1].to_dict()
    assert rec["illegal"] == {"0": code}
    assert rec["bids"] == {"0": [1], "1": [3]} and rec["winners"] == [1]
    assert rec["sealed"]["0"] == spec_commitment("g1", 2, 0, committed, salt)[:16]
    assert "reveals" not in rec and "commitments" not in rec  # the opening itself is in the log
    assert d.g.hands[0] == [2, 3, 4] and d.g.scores == [1, 2]
    assert d.state.phase == "commit" and d.g.round == 3
    # the public round record says why, without the salts
    assert G.view(d.state)["history"][1]["illegal"] == {"0": code}
    # and the whole game replays from its log, the forfeited bid included
    play_game(d, [[2, 2], [3, 4], [4, 5]])
    again = G.replay("g1", d.state.rules, d.state.match, d.log)
    assert again.to_dict() == d.state.to_dict()


def test_illegal_bid_cannot_be_chosen_after_seeing_anything():
    """The forfeit is fixed by the commitment: the seat cannot open it as a legal bid instead."""
    d = asc(ranks=5)
    d.bid_round([5, 1])
    salt = "31" * 32
    d.do(G.Commit(0, 2, spec_commitment("g1", 2, 0, (5,), salt)))
    d.commit(1, 3)
    for cards in ((4,), (2,), (1,)):
        expect_error(d.state, G.Reveal(0, 2, cards, salt), "commitment_mismatch")


@pytest.mark.parametrize("cards,code", [
    ((), "wrong_card_count"),
    ((1, 2), "wrong_card_count"),
    ((0,), "no_such_rank"),
    ((6,), "no_such_rank"),
    ((14,), "no_such_rank"),
    (("3",), "no_such_rank"),
    ((True,), "no_such_rank"),
])
def test_malformed_bid_refused(cards, code):
    d = asc(ranks=5)
    salt = "31" * 32
    d.do(G.Commit(0, 1, "ab" * 32))
    d.commit(1, 2)
    err = expect_error(d.state, G.Reveal(0, 1, cards, salt), code)
    assert isinstance(err, InvalidAction)


def test_wrong_round_and_wrong_phase():
    d = asc(ranks=5)
    expect_error(d.state, G.Commit(0, 2, "ab" * 32), "wrong_round")
    expect_error(d.state, G.Reveal(0, 1, (1,), "ab" * 32), "wrong_phase", exc=WrongPhase)
    expect_error(d.state, G.ChoosePrize(0, 1), "wrong_phase")
    expect_error(d.state, G.ReportPrize(1), "wrong_phase")
    expect_error(d.state, G.DealPrizes((1, 2, 3, 4, 5), "ab" * 32), "wrong_phase")
    d.commit(0, 1)
    d.commit(1, 2)
    assert d.state.phase == "reveal"
    expect_error(d.state, G.Commit(0, 1, "cd" * 32), "wrong_phase")
    expect_error(d.state, G.Reveal(0, 2, (1,), det_salt("g1", 1, 0)), "wrong_round")
    d.reveal(0, 1)
    expect_error(d.state, G.Reveal(0, 1, (2,), det_salt("g1", 1, 0)), "already_revealed")


@pytest.mark.parametrize("seat", [-1, 2, 7, "0", None])
def test_no_such_seat(seat):
    d = asc(ranks=3)
    expect_error(d.state, G.Commit(seat, 1, "ab" * 32), "no_such_seat")
    expect_error(d.state, G.Resign(seat), "no_such_seat")


def test_mismatch_is_typed():
    d = asc(ranks=3)
    d.commit(0, 1)
    d.commit(1, 2)
    err = expect_error(d.state, G.Reveal(0, 1, (2,), det_salt("g1", 1, 0)), "commitment_mismatch")
    assert isinstance(err, CommitmentMismatch) and isinstance(err, IllegalAction)


def test_actions_after_game_over_refused():
    d = asc(ranks=1)
    d.bid_round([1, 1])
    assert d.state.over
    for action in (G.Commit(0, 2, "ab" * 32), G.Resign(0), G.EnforceDeadline(), G.ReportPrize(1)):
        err = expect_error(d.state, action, "game_over")
        assert isinstance(err, GameOver)
    assert d.state.legal_actions(0) == [] and d.state.legal_actions(None) == []


def test_unknown_and_malformed_action_dicts():
    with pytest.raises(InvalidAction) as info:
        G.action_from_dict({"type": "cheat"})
    assert info.value.code == "unknown_action"
    with pytest.raises(InvalidAction) as info:
        G.action_from_dict({"type": "commit", "seat": 0})
    assert info.value.code == "invalid_action"
    d = asc(ranks=3)
    expect_error(d.state, object(), "unknown_action")


def test_action_dict_round_trip():
    actions = [G.DealPrizes((2, 1), "ab" * 32), G.Commit(1, 3, "cd" * 32), G.Reveal(0, 2, (3, 11), "ef" * 32),
               G.ReportPrize(4), G.ChoosePrize(2, 7), G.Resign(1), G.EnforceDeadline()]
    for a in actions:
        data = G.action_to_dict(a)
        assert json.loads(json.dumps(data)) == data
        assert G.action_from_dict(data) == a


# ==================================================================== open prizes


def test_open_prizes_winner_chooses_and_row_refills():
    d = asc(ranks=6, open_prizes=3)
    assert d.g.row == [1, 2, 3]
    d.bid_round([6, 1])
    assert d.state.phase == "choose" and d.g.chooser == 0
    assert d.state.awaiting() == [0]
    assert d.state.legal_actions(0) == [
        {"type": "choose_prize", "ranks": [1, 2, 3], "picks": 1}, {"type": "resign"}]
    assert d.state.legal_actions(1) == [{"type": "resign"}]
    err = expect_error(d.state, G.ChoosePrize(1, 3), "not_your_turn")
    assert isinstance(err, NotYourTurn)
    expect_error(d.state, G.ChoosePrize(0, 5), "prize_not_in_row")
    expect_error(d.state, G.Commit(0, 2, "ab" * 32), "wrong_round")
    d.choose(0, 2)
    assert d.g.scores == [2, 0] and d.g.won[0] == [2]
    assert sorted(d.g.row) == [1, 3, 4]  # refilled from the pile
    assert d.state.phase == "commit" and d.g.round == 2


def test_open_prizes_carryover_extra_pick_per_carried_round():
    d = asc(ranks=6, open_prizes=3, unclaimed="carryover")
    d.bid_round([1, 1])  # tie: nobody picks, the row stays
    assert d.state.phase == "commit" and d.g.row == [1, 2, 3]
    assert d.g.carried_rounds == 1
    d.bid_round([2, 2])
    assert d.g.carried_rounds == 2
    d.bid_round([3, 4])
    assert d.g.chooser == 1 and d.g.picks_owed == 3
    d.choose(1, 3)
    assert d.state.phase == "choose" and d.g.picks_owed == 2
    d.choose(1, 2)
    d.choose(1, 1)
    assert d.g.scores == [0, 6]
    assert d.g.row == [4, 5, 6]
    assert d.g.carried_rounds == 0 and d.state.phase == "commit"


def test_open_prizes_discard_tie_nobody_picks_no_extra():
    d = asc(ranks=6, open_prizes=3, unclaimed="discard")
    d.bid_round([1, 1])
    assert d.g.row == [1, 2, 3] and d.g.carried_rounds == 0
    d.bid_round([3, 2])
    assert d.g.picks_owed == 1
    d.choose(0, 3)
    assert d.state.phase == "commit"


def test_open_prizes_split_tie_nobody_picks():
    d = asc(ranks=6, open_prizes=2, resolution="split", unclaimed="discard")
    d.bid_round([4, 4])
    assert d.state.phase == "commit" and d.g.scores == [0, 0] and d.g.chooser is None


def test_open_prizes_winner_owed_more_picks_than_the_row_takes_them_all():
    """the row is refilled between picks, so carried picks are never lost."""
    d = Driver(new_game("g1", players=2, ranks=4, prize_order="explicit", explicit_order=(1, 2, 3, 4),
                        open_prizes=2, resolution="none", unclaimed="carryover"))
    d.bid_round([1, 1])
    d.bid_round([2, 2])
    d.bid_round([4, 3])
    assert d.g.chooser == 0 and d.g.picks_owed == 3 and d.g.row == [1, 2]
    assert d.g.history[-1].to_dict()["picks"] == 3
    d.choose(0, 1)
    assert d.g.row == [2, 3] and d.state.phase == "choose"  # refilled before the next pick
    assert d.g.turned == [1, 2, 3] and d.g.round == 3
    d.choose(0, 2)
    assert d.g.row == [3, 4]
    d.choose(0, 4)
    assert d.g.row == [3] and d.state.phase == "commit" and d.g.round == 4
    d.bid_round([3, 4])
    d.choose(1, 3)
    assert d.state.over and d.g.scores == [7, 3] and d.g.result.to_dict()["winners"] == [0]
    assert d.g.history[2].to_dict()["chosen"] == [1, 2, 4] and d.g.result.to_dict()["unclaimed"] == 0


def test_open_prizes_reported_order_refills_between_picks_by_report():
    d = Driver(new_game("g1", ranks=4, prize_order="reported", open_prizes=2, unclaimed="carryover"))
    d.report(1)
    d.report(2)
    d.bid_round([1, 1])  # tie: carried
    d.bid_round([3, 2])
    assert d.g.chooser == 0 and d.g.picks_owed == 2
    d.choose(0, 2)
    assert d.state.phase == "prize" and d.g.chooser == 0 and d.g.picks_owed == 1
    assert d.state.legal_actions(None) == [{"type": "report_prize", "ranks": [3, 4]}]
    expect_error(d.state, G.ChoosePrize(0, 1), "wrong_phase")
    d.report(4)
    assert d.state.phase == "choose" and d.g.row == [1, 4]
    d.choose(0, 4)
    assert d.g.scores == [6, 0] and d.g.round == 3 and d.state.phase == "prize"  # the next round's report
    d.report(3)
    assert d.state.phase == "commit" and d.g.row == [1, 3]


def test_open_prizes_chooser_resigning_while_the_row_is_refilled():
    d = Driver(new_game("g1", players=3, ranks=4, prize_order="reported", open_prizes=2, unclaimed="carryover"))
    d.report(1)
    d.report(2)
    d.bid_round([1, 1, 1])
    d.bid_round([3, 2, 2])
    d.choose(0, 2)
    assert d.state.phase == "prize" and d.g.chooser == 0
    d.do(G.Resign(0))
    assert d.g.chooser is None and d.g.picks_owed == 0
    assert d.g.round == 3 and d.state.phase == "prize"
    d.report(3)
    assert d.state.phase == "commit" and d.g.row == [1, 3] and d.state.awaiting() == [1, 2]


def test_open_prizes_tie_records_no_winners():
    """a round where nobody took anything says winners [], also under split."""
    d = asc(players=3, ranks=6, open_prizes=2, resolution="split", unclaimed="discard")
    d.bid_round([4, 4, 1])
    rec = d.g.history[0].to_dict()
    assert rec["winners"] == [] and "picks" not in rec and d.g.scores == [0, 0, 0]
    assert G.view(d.state)["history"][0]["winners"] == []
    c = asc(ranks=6, open_prizes=2, unclaimed="carryover")
    c.bid_round([2, 2])
    assert c.g.history[0].to_dict()["winners"] == [] and c.g.history[0].to_dict()["carried"] is True


def test_open_prizes_leftovers_worth_nothing_and_n_rounds():
    d = asc(ranks=5, open_prizes=3, unclaimed="discard")
    play_game(d, [[1, 1], [2, 2], [3, 4], [4, 3], [5, 5]])  # two winners, three ties
    assert d.state.over and len(d.g.history) == 5
    assert d.g.turned == [1, 2, 3, 4, 5]
    assert d.g.scores == [4, 3]
    assert sorted(d.g.row) == [1, 2, 5]  # two picks from five prizes
    assert d.g.result.to_dict()["unclaimed"] == 8
    assert total(d.g.scores) + d.g.result.to_dict()["unclaimed"] == 15
    assert d.g.hands == [[], []]


# ======================================================================= deadlines


def test_no_deadline_cannot_be_enforced():
    d = asc(ranks=3)
    assert d.g.deadline_at is None
    expect_error(d.state, G.EnforceDeadline(), "no_deadline", now=10**9)


def test_deadline_not_passed_refused():
    d = Driver(new_game("g1", ranks=3, prize_order="ascending", deadline_seconds=60, now=100.0), now=100.0)
    assert d.g.deadline_at == 160.0
    d.commit(0, 1)
    err = expect_error(d.state, G.EnforceDeadline(), "deadline_not_passed", now=159.9)
    assert isinstance(err, IllegalAction)
    assert d.state.legal_actions(0, now=159.9) == [{"type": "resign"}]
    assert {"type": "enforce_deadline"} in d.state.legal_actions(0, now=160.0)
    assert {"type": "enforce_deadline"} in d.state.legal_actions(None, now=160.0)


def test_deadline_two_players_late_seat_forfeits_other_wins():
    d = Driver(new_game("g1", ranks=5, prize_order="ascending", deadline_seconds=30))
    d.bid_round([1, 5])  # seat 1 leads 1-0
    d.commit(0, 2)
    d.do(G.EnforceDeadline(), now=30.0)
    assert d.g.forfeited == {1: "deadline"}
    assert d.state.over
    assert d.g.result.to_dict()["termination"] == "forfeit"
    assert d.g.result.to_dict()["winners"] == [0]
    assert d.state.result.to_dict()["winners"] == [0]


def test_deadline_in_reveal_phase():
    d = Driver(new_game("g1", ranks=5, prize_order="ascending", deadline_seconds=30))
    d.commit(0, 2)
    d.commit(1, 3)
    d.reveal(1, 3)
    assert d.state.awaiting() == [0]
    d.do(G.EnforceDeadline(), now=31.0)
    assert d.state.over and d.g.result.to_dict()["winners"] == [1]


def test_deadline_three_players_others_play_on():
    d = Driver(new_game("g1", players=3, ranks=4, prize_order="descending", deadline_seconds=10))
    d.bid_round([4, 1, 3])  # seat 0 wins the 4
    d.commit(1, 2)
    d.commit(2, 4)
    assert d.state.phase == "commit" and d.state.awaiting() == [0]
    d.do(G.EnforceDeadline(), now=10.0)
    assert d.g.forfeited == {0: "deadline"}
    assert d.state.phase == "reveal" and not d.state.over
    assert d.state.legal_actions(0, now=10.0) == []
    expect_error(d.state, G.Commit(0, 2, "ab" * 32), "seat_out")
    d.now = 10.0
    d.reveal(1, 2)
    d.reveal(2, 4)
    assert d.g.scores == [4, 0, 3]
    assert d.state.awaiting() == [1, 2]
    play_game(d, [{1: 4, 2: 1}, {1: 3, 2: 2}])
    assert d.state.over
    assert d.g.scores == [4, 3, 3]  # the forfeited seat won nothing more
    assert 0 not in d.g.result.to_dict()["winners"]  # and cannot win, even with the top score
    assert d.g.result.to_dict()["winners"] == [1, 2]
    assert d.g.hands[0] == [1, 2, 3]


def test_deadline_restarts_each_phase():
    d = Driver(new_game("g1", ranks=3, prize_order="ascending", deadline_seconds=30))
    assert d.g.deadline_at == 30.0
    d.commit(0, 1)
    d.do(G.Commit(1, 1, C.bid_commitment("g1", 1, 1, [2], det_salt("g1", 1, 1))), now=20.0)
    assert d.state.phase == "reveal" and d.g.deadline_at == 50.0
    expect_error(d.state, G.EnforceDeadline(), "deadline_not_passed", now=40.0)


# ========================================================================= resign


def test_resign_two_players_other_wins():
    d = asc(ranks=5)
    d.bid_round([5, 1])
    d.do(G.Resign(0))
    assert d.state.over
    assert d.g.forfeited == {0: "resigned"}
    assert d.g.result.to_dict()["winners"] == [1] and d.state.result.to_dict()["winners"] == [1]


def test_resign_three_players_play_on_and_unblocks_phase():
    d = asc(players=3, ranks=3)
    d.commit(0, 3)
    d.commit(1, 2)
    d.do(G.Resign(2))
    assert d.state.phase == "reveal"
    expect_error(d.state, G.Resign(2), "seat_out")
    d.reveal(0, 3)
    d.reveal(1, 2)
    assert d.g.scores == [1, 0, 0]
    assert d.state.awaiting() == [0, 1]


def test_resign_in_match_ends_match_for_two():
    match = G.make_match_rules("cumulative", games=3)
    d = asc(ranks=2, match=match)
    play_game(d, [[2, 1], [1, 2]])
    assert d.state.game.number == 2
    d.do(G.Resign(1))
    assert d.state.over and d.state.result.to_dict()["winners"] == [0]


def test_resigned_seat_stays_out_of_later_games():
    match = G.make_match_rules("cumulative", games=2)
    d = asc(players=3, ranks=1, match=match)
    d.do(G.Resign(2))
    d.bid_round({0: 1, 1: 1})
    assert d.state.game.number == 2
    assert d.state.awaiting() == [0, 1]
    assert d.g.forfeited == {2: "resigned"}


# ======================================================================== matches

A_WINS = [[1, 2], [2, 1]]  # ranks 2, ascending: seat 0 takes the 2 (2-1)
B_WINS = [[2, 1], [1, 2]]  # seat 1 takes the 2
DRAW = [[1, 1], [2, 2]]


def play_games(d, games):
    for game in games:
        assert not d.state.over
        play_game(d, game)


def test_cumulative_three_games_highest_total():
    d = asc(ranks=2, match=G.make_match_rules("cumulative", games=3))
    play_games(d, [B_WINS, A_WINS, A_WINS])
    assert d.state.over
    assert d.state.result.to_dict()["games_played"] == 3
    assert d.state.result.to_dict()["totals"] == ["5", "4"]
    assert d.state.result.to_dict()["winners"] == [0]


def test_cumulative_equal_totals_share():
    d = asc(ranks=2, match=G.make_match_rules("cumulative", games=2))
    play_games(d, [B_WINS, A_WINS])
    assert d.state.over and d.state.result.to_dict()["winners"] == [0, 1]


def test_cumulative_not_over_before_k_games():
    d = asc(ranks=2, match=G.make_match_rules("cumulative", games=3))
    play_games(d, [A_WINS, A_WINS])
    assert not d.state.over and d.state.game.number == 3


def test_best_of_3_early_decision():
    d = asc(ranks=2, match=G.make_match_rules("best_of", games=3))
    play_games(d, [A_WINS])
    assert not d.state.over
    play_games(d, [A_WINS])
    assert d.state.over
    assert d.state.result.to_dict()["games_played"] == 2
    assert d.state.result.to_dict()["winners"] == [0]
    assert d.state.result.to_dict()["wins"] == [2, 0]


def test_best_of_5_early_decision():
    d = asc(ranks=2, match=G.make_match_rules("best_of", games=5))
    play_games(d, [B_WINS, B_WINS])
    assert not d.state.over
    play_games(d, [B_WINS])
    assert d.state.over and d.state.result.to_dict()["games_played"] == 3
    assert d.state.result.to_dict()["winners"] == [1]


def test_best_of_5_goes_the_distance():
    d = asc(ranks=2, match=G.make_match_rules("best_of", games=5))
    play_games(d, [A_WINS, B_WINS, A_WINS, B_WINS])
    assert not d.state.over
    play_games(d, [B_WINS])
    assert d.state.over and d.state.result.to_dict()["winners"] == [1] and d.state.result.to_dict()["wins"] == [2, 3]


def test_best_of_draw_counts_for_nobody_then_extra_game():
    d = asc(ranks=2, match=G.make_match_rules("best_of", games=3, tiebreak="extra_game"))
    play_games(d, [A_WINS, DRAW, B_WINS])
    assert not d.state.over and d.state.game.number == 4
    assert d.state.games[1].to_dict()["winners"] == [0, 1]
    play_games(d, [DRAW])  # the extra game is drawn too: still level
    assert not d.state.over
    play_games(d, [A_WINS])
    assert d.state.over
    assert d.state.result.to_dict()["games_played"] == 5
    assert d.state.result.to_dict()["wins"] == [2, 1]
    assert d.state.result.to_dict()["winners"] == [0]


def test_best_of_draw_plus_win_decides_after_three():
    d = asc(ranks=2, match=G.make_match_rules("best_of", games=3))
    play_games(d, [A_WINS, DRAW])
    assert not d.state.over  # B could still level
    play_games(d, [DRAW])
    assert d.state.over and d.state.result.to_dict()["winners"] == [0]


def test_best_of_total_points_tiebreak():
    d = asc(ranks=3, match=G.make_match_rules("best_of", games=3, tiebreak="total_points"))
    play_games(d, [
        [[2, 1], [3, 2], [1, 3]],  # seat 0: 1+2=3 vs 3 → draw
        [[2, 1], [1, 2], [3, 3]],  # seat 0: 1, seat 1: 2 → seat 1 wins (3 set aside)
        [[1, 3], [2, 1], [3, 2]],  # seat 0: 2+3=5 vs 1 → seat 0 wins
    ])
    assert d.state.over
    assert d.state.result.to_dict()["games_played"] == 3
    assert d.state.result.to_dict()["wins"] == [1, 1]
    assert d.state.result.to_dict()["totals"] == ["9", "6"]
    assert d.state.result.to_dict()["winners"] == [0]


@pytest.mark.parametrize("games", [1, 2, 4, 7, None])
def test_best_of_only_3_or_5(games):
    if games is None:
        assert G.make_match_rules("best_of").games == 3
        return
    with pytest.raises(InvalidOptions):
        G.make_match_rules("best_of", games=games)


def test_bad_match_options_refused():
    for kwargs in ({"format": "league"}, {"format": "cumulative"}, {"format": "cumulative", "games": 0},
                   {"format": "single", "games": 3}, {"format": "target", "target": 0},
                   {"format": "best_of", "tiebreak": "coin"}, {"format": "single", "target": 10}):
        with pytest.raises(InvalidOptions):
            G.make_match_rules(**kwargs)


def test_target_default_92():
    assert G.make_match_rules("target").target == 92


def test_target_92_single_passer():
    d = Driver(new_game("t", profile="classic", prize_order="ascending",
                        match=G.make_match_rules("target")))
    seat0_all = [[r + 1, r] for r in range(1, 13)] + [[1, 13]]  # seat 0 wins 1..12 = 78, seat 1 13
    play_games(d, [seat0_all])
    assert not d.state.over and d.state.game.number == 2
    play_games(d, [seat0_all])
    assert d.state.over
    assert d.state.result.to_dict()["totals"] == ["156", "26"]
    assert d.state.result.to_dict()["winners"] == [0]


def test_target_92_several_pass_higher_total_wins_equal_play_on():
    match = G.make_match_rules("target")
    d = Driver(new_game("t", ranks=13, resolution="split", prize_order="ascending", match=match))
    ties = [[r, r] for r in range(1, 14)]
    play_games(d, [ties, ties])  # 45.5 each per game: 91–91, nobody at 92
    assert not d.state.over
    play_games(d, [ties])  # 136.5–136.5: both pass, equal → another game
    assert not d.state.over and d.state.game.number == 4
    assert d.state.games[-1].to_dict()["scores"] == ["91/2", "91/2"]
    seat0_ahead = [[r, r] for r in range(1, 12)] + [[12, 13], [13, 12]]  # 33+13 vs 33+12
    play_games(d, [seat0_ahead])
    assert d.state.games[-1].to_dict()["scores"] == ["46", "45"]
    assert d.state.over
    assert d.state.result.to_dict()["winners"] == [0]
    assert Fraction(d.state.result.to_dict()["totals"][0]) > Fraction(d.state.result.to_dict()["totals"][1]) >= 92


def test_single_game_result():
    d = asc(ranks=2)
    play_game(d, A_WINS)
    assert d.state.result.to_dict()["format"] == "single"
    assert d.state.result.to_dict()["winners"] == [0]
    assert d.g.result.to_dict()["scores"] == ["2", "1"]


# ================================================================ legal_actions


def test_legal_actions_commit_and_reveal_phases():
    d = asc(players=3, ranks=4)
    assert d.state.legal_actions(None) == []
    for s in range(3):
        assert d.state.legal_actions(s) == [
            {"type": "commit", "round": 1, "cards": 1, "hand": [1, 2, 3, 4]}, {"type": "resign"}]
    d.commit(0, 2)
    assert d.state.legal_actions(0) == [{"type": "resign"}]
    d.commit(1, 3)
    d.commit(2, 4)
    assert d.state.phase == "reveal"
    for s in range(3):
        assert d.state.legal_actions(s) == [{"type": "reveal", "round": 1}, {"type": "resign"}]
    d.reveal(1, 3)
    assert d.state.legal_actions(1) == [{"type": "resign"}]
    assert d.state.legal_actions(0) == [{"type": "reveal", "round": 1}, {"type": "resign"}]
    d.reveal(0, 2)
    d.reveal(2, 4)
    assert d.state.legal_actions(0)[0] == {"type": "commit", "round": 2, "cards": 1, "hand": [1, 3, 4]}


def test_legal_actions_multicard_and_forfeited_seat():
    d = asc(players=3, ranks=4, bid_cards=2)
    assert d.state.legal_actions(0)[0]["cards"] == 2
    d.do(G.Resign(1))
    assert d.state.legal_actions(1) == []
    assert d.state.awaiting() == [0, 2]


def test_view_for_seat_includes_legal_actions():
    d = asc(ranks=3)
    v = G.view(d.state, 0)
    assert v["legal_actions"] == d.state.legal_actions(0)
    assert v["awaiting"] == [0, 1] and "legal_actions" not in G.view(d.state)


# ======================================================= unchanged state & serialisation


def test_from_dict_round_trip_mid_game_and_json():
    d = asc(players=3, ranks=6, resolution="split", open_prizes=2, unclaimed="carryover")
    d.bid_round([6, 6, 1])
    d.commit(0, 5)
    data = d.state.to_dict()
    assert json.loads(json.dumps(data)) == data
    copy = G.Gops.from_dict(data)
    assert copy.to_dict() == data
    assert copy.game.scores == d.g.scores


def test_replay_reproduces_state():
    d = Driver(new_game("rp", ranks=4, prize_order="shuffled", deadline_seconds=5,
                        resolution="highest_unique", players=3))
    d.deal([3, 1, 4, 2])
    d.bid_round([4, 4, 1])
    d.commit(0, 1)
    d.do(G.EnforceDeadline(), now=7.0)
    rebuilt = G.replay("rp", d.state.rules, d.state.match, d.log)
    assert rebuilt.to_dict() == d.state.to_dict()


def test_failed_apply_does_not_leak_partial_changes():
    """A reveal that fails after passing several checks leaves nothing behind."""
    d = Driver(new_game("g1", players=3, ranks=4, prize_order="ascending"))
    d.commit(0, 4)
    d.commit(1, 3)
    d.commit(2, 2)
    d.reveal(0, 4)
    d.reveal(1, 3)
    expect_error(d.state, G.Reveal(2, 1, (1,), det_salt("g1", 1, 2)), "commitment_mismatch")
    assert d.g.reveals.keys() == {0, 1}
    d.reveal(2, 2)
    assert d.g.scores == [1, 0, 0]


# ========================================================================== extras


def test_target_reached_exactly_ends_match():
    d = asc(ranks=2, match=G.make_match_rules("target", target=4))
    play_games(d, [A_WINS])
    assert not d.state.over
    play_games(d, [A_WINS])
    assert d.state.over and d.state.result.to_dict()["totals"] == ["4", "2"] and d.state.result.to_dict()["winners"] == [0]


def test_deadline_in_choose_phase_three_players_picks_lost():
    d = Driver(new_game("g1", players=3, ranks=4, open_prizes=2, prize_order="ascending", deadline_seconds=5))
    d.bid_round([4, 1, 2])
    assert d.state.phase == "choose" and d.state.awaiting() == [0]
    expect_error(d.state, G.EnforceDeadline(), "deadline_not_passed", now=4.0)
    d.do(G.EnforceDeadline(), now=5.0)
    assert d.g.forfeited == {0: "deadline"}
    assert d.g.scores == [0, 0, 0]
    assert d.state.phase == "commit" and d.g.round == 2
    assert d.g.row == [1, 2]  # nobody took a prize, the row stays
    assert d.state.awaiting() == [1, 2]


def test_deadline_in_choose_phase_two_players_other_wins():
    d = Driver(new_game("g1", ranks=4, open_prizes=2, prize_order="ascending", deadline_seconds=5))
    d.bid_round([4, 1])
    d.do(G.EnforceDeadline(), now=5.0)
    assert d.state.over and d.g.result.to_dict()["winners"] == [1] and d.g.result.to_dict()["termination"] == "forfeit"


def test_highest_unique_with_multicard_sums():
    d = asc(players=3, ranks=6, bid_cards=2, resolution="highest_unique")
    d.bid_round([(1, 6), (3, 4), (2, 3)])  # 7, 7, 5: the two sevens cancel, 5 wins
    assert d.g.history[0].to_dict()["winners"] == [2]
    assert d.g.scores == [0, 0, 1]


def test_carryover_with_three_players_and_split_of_new_pot():
    """Carried prizes join the pot; a later split shares the whole pot exactly."""
    d = asc(players=3, ranks=4, resolution="split", unclaimed="carryover")
    d.bid_round([4, 4, 1])  # prize 1 split between seats 0 and 1
    assert d.g.scores == [Fraction(1, 2), Fraction(1, 2), 0]
    assert d.g.carry == []


def test_deadline_two_players_in_match_continues_to_next_game():
    """A deadline forfeits the game, not the match (resigning leaves the match)."""
    match = G.make_match_rules("cumulative", games=2)
    d = Driver(new_game("m", ranks=2, prize_order="ascending", deadline_seconds=5, match=match))
    d.commit(0, 1)
    d.do(G.EnforceDeadline(), now=5.0)
    assert not d.state.over and d.state.game.number == 2
    assert d.state.games[0].to_dict()["winners"] == [0]
    assert d.g.forfeited == {}


# ================================================================ retried requests


def test_retried_final_reveal_after_single_game_over_is_a_noop():
    d = asc(ranks=2)
    play_game(d, A_WINS)
    assert d.state.over
    before = d.state.to_dict()
    assert d.state.apply(G.Reveal(1, 2, (1,), det_salt("g1", 2, 1))) is False
    assert d.state.apply(G.Commit(0, 2, C.bid_commitment("g1", 2, 0, [2], det_salt("g1", 2, 0)))) is False
    assert d.state.to_dict() == before
    # but a different reveal after the end is still refused
    expect_error(d.state, G.Reveal(1, 2, (2,), det_salt("g1", 2, 1)), "game_over")


def test_retried_final_reveal_of_a_match_game_is_a_noop():
    d = asc(ranks=2, match=G.make_match_rules("cumulative", games=2))
    gid = d.g.game_id
    play_game(d, A_WINS)
    assert d.state.game.number == 2
    before = d.state.to_dict()
    # Naming the game makes a late retry harmless ...
    assert d.state.apply(G.Reveal(1, 2, (1,), det_salt(gid, 2, 1), game=1)) is False
    assert d.state.to_dict() == before
    # ... and a different reveal for a finished game is refused as such.
    expect_error(d.state, G.Reveal(1, 2, (2,), det_salt(gid, 2, 1), game=1), "wrong_game")


def test_retried_commit_from_previous_match_game_changes_nothing():
    d = asc(ranks=1, match=G.make_match_rules("cumulative", games=2))
    gid = d.g.game_id
    c0, _ = d.commit(0, 1)
    d.commit(1, 1)
    d.reveal(0, 1)
    d.reveal(1, 1)
    assert d.state.game.number == 2 and d.state.phase == "commit"
    before = d.state.to_dict()
    assert d.state.apply(G.Commit(0, 1, c0, game=1)) is False
    assert d.state.to_dict() == before
    assert gid != d.g.game_id
    expect_error(d.state, G.Commit(0, 1, "ab" * 32, game=1), "wrong_game")
    expect_error(d.state, G.Commit(0, 1, "ab" * 32, game=3), "wrong_game")


# ================================================================== error families

ERROR_FAMILIES = {
    # malformed for this game, whatever the state (HTTP 422)
    InvalidAction: ["wrong_card_count", "no_such_rank", "duplicate_card", "invalid_salt",
                    "invalid_commitment", "no_such_seat", "invalid_prize_order", "unknown_action"],
    # well-formed but not legal now (HTTP 409)
    IllegalAction: ["card_not_in_hand", "wrong_round", "wrong_phase", "already_committed",
                    "commitment_mismatch", "already_revealed",
                    "prize_already_seen", "prize_not_in_row", "not_your_turn", "seat_out",
                    "game_over", "deadline_not_passed", "no_deadline"],
}


def _provoke(code):
    """Build a state and an action that must fail with ``code``."""
    salt = "31" * 32
    d = asc(players=3, ranks=4, open_prizes=2, deadline_seconds=10)
    if code in ("wrong_card_count", "no_such_rank", "duplicate_card", "card_not_in_hand", "invalid_salt",
                "commitment_mismatch", "already_revealed"):
        d2 = asc(ranks=4, bid_cards=2)
        d2.bid_round([(1, 2), (3, 4)])
        d2.do(G.Commit(0, 2, spec_commitment("g1", 2, 0, (1, 3), salt)))
        d2.commit(1, (1, 2))
        if code == "already_revealed":
            d2.reveal(1, (1, 2))
            return d2.state, G.Reveal(1, 2, (1, 2), salt)
        # none of these opens the commitment to (1, 3) (which, opened, would be forfeited to the lowest cards)
        cards = {"wrong_card_count": (3,), "no_such_rank": (3, 5), "duplicate_card": (3, 3),
                 "card_not_in_hand": (1, 4), "commitment_mismatch": (3, 4)}.get(code, (3, 4))
        return d2.state, G.Reveal(0, 2, cards, "XX" if code == "invalid_salt" else salt)
    if code == "invalid_commitment":
        return d.state, G.Commit(0, 1, "xyz")
    if code == "no_such_seat":
        return d.state, G.Commit(3, 1, "ab" * 32)
    if code == "invalid_prize_order":
        return Driver(new_game("s", ranks=3)).state, G.DealPrizes((1, 1, 2), salt)
    if code == "unknown_action":
        return d.state, "commit"
    if code == "wrong_round":
        return d.state, G.Commit(0, 3, "ab" * 32)
    if code == "wrong_phase":
        return d.state, G.ChoosePrize(0, 1)
    if code == "already_committed":
        d.commit(0, 1)
        return d.state, G.Commit(0, 1, "cd" * 32)
    if code == "prize_already_seen":
        r = Driver(new_game("r", ranks=3, prize_order="reported"))
        r.report(2)
        r.bid_round([1, 2])
        return r.state, G.ReportPrize(2)
    if code in ("prize_not_in_row", "not_your_turn"):
        d.bid_round([4, 1, 2])
        return d.state, G.ChoosePrize(0, 4) if code == "prize_not_in_row" else G.ChoosePrize(1, 1)
    if code == "seat_out":
        d.do(G.Resign(2))
        return d.state, G.Commit(2, 1, "ab" * 32)
    if code == "game_over":
        o = asc(ranks=1)
        o.bid_round([1, 1])
        return o.state, G.Resign(0)
    if code == "deadline_not_passed":
        return d.state, G.EnforceDeadline()
    if code == "no_deadline":
        return asc(ranks=2).state, G.EnforceDeadline()
    raise AssertionError(code)


@pytest.mark.parametrize("family,code", [(f, c) for f, codes in ERROR_FAMILIES.items() for c in codes])
def test_error_codes_and_families_leave_state_unchanged(family, code):
    state, action = _provoke(code)
    err = expect_error(state, action, code)
    assert isinstance(err, family)
    if family is InvalidAction:
        assert not isinstance(err, IllegalAction)
    assert err.detail and str(err) == err.detail
