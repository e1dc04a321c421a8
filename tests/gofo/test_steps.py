"""Each numbered step of gofo.md "One hand, in order", played out on stacked decks."""

from __future__ import annotations

import pytest

from service.errors import RefereeError

from service.games.gofo.actions import action_from_dict
from service.games.gofo.cards import DECK
from service.games.gofo.observer import hand_view
from service.games.gofo.records import DiscardRecord
from service.games.gofo.hand import (
    Corta, Decline, Discard, Enter, HandState, Look, NoVer, Open, Pass, Raise, Refiche,
    Shuffle, Ver, Voy,
)

from .helpers import dealt_hand, play, stacked_order

# four players, dealer 0: mano is 1, then 2, 3, and the dealer 0 (the pie) last
FIRSTS = [["3o", "4o"], ["3c", "4c"], ["3e", "4e"], ["3b", "4b"]]
THIRDS = [["5o", "6o", "7o"], ["5c", "6c", "7c"], ["5e", "6e", "11e"], ["5b", "6b", "12b"]]


def four() -> HandState:
    return dealt_hand([30, 30, 30, 30], dealer=0, order=stacked_order(FIRSTS, THIRDS))


def codes(apply, seat, action) -> str:
    with pytest.raises(RefereeError) as info:
        apply(action, seat=seat)
    return info.value.code


def all_voy(hand: HandState) -> HandState:
    while hand.phase == "speaking":
        hand = play(hand, (hand.to_act(), Voy()))
    return hand


def stand_pat(hand: HandState) -> HandState:
    while hand.phase == "discard":
        hand = play(hand, (hand.to_act(), Discard(())))
    return hand


def entered_all(hand: HandState, opening: int = 2) -> HandState:
    hand = play(hand, (1, Open(opening)))
    for s in (2, 3, 0):
        hand = play(hand, (s, Enter(blind=False)))
    return hand


# --- 1. shuffle and first deal ----------------------------------------------------------------

def test_1_deal_two_cards_counter_clockwise_from_mano() -> None:
    hand = HandState.new("dealt", 0, [30] * 4)
    assert hand.to_act() is None and hand.chance_request()["kind"] == "shuffle"
    hand.apply(Shuffle(stacked_order(FIRSTS, THIRDS)))
    assert hand.hands == [FIRSTS[3], FIRSTS[0], FIRSTS[1], FIRSTS[2]]  # dealt to seats 1, 2, 3, then 0
    assert len(hand.stock) == 28 - 8
    assert hand.to_act() == 1 and hand.phase == "opening"


def test_1_shuffle_must_be_a_permutation() -> None:
    hand = HandState.new("dealt", 0, [30] * 4)
    assert codes(hand.apply, None, Shuffle(tuple(DECK[:27]) + ("3o",))) == "bad_deck_order"
    assert codes(hand.apply, 1, Open(1)) == "waiting_for_chance"


# --- 2. opening -------------------------------------------------------------------------------

def test_2_opening_below_the_smallest_front() -> None:
    hand = dealt_hand([30, 30, 7, 30])
    assert hand.opening_range() == (1, 6)
    assert codes(hand.apply, 1, Open(7)) == "opening_too_large"
    assert codes(hand.apply, 1, Open(0)) == "opening_too_small"
    assert codes(hand.apply, 2, Open(1)) == "not_your_turn"
    assert codes(hand.apply, 1, Look()) == "cannot_look"  # mano opens before looking
    hand = play(hand, (1, Open(6)))
    assert hand.committed[1] == 6 and hand.blind[1] and hand.phase == "entering"


def test_2_opening_cap_counts_the_sitting_out_dealer() -> None:
    hand = dealt_hand([5, 30, 30, 30, 30, 30], dealer=0)
    assert hand.status[0] == "out"
    assert hand.opening_range() == (1, 4)


def test_2_smallest_front_one_means_opening_one_and_all_in() -> None:
    hand = dealt_hand([30, 1, 30, 30])
    assert hand.opening_range() == (1, 1)
    hand.apply(Open(1), seat=1)
    assert hand.all_in(1)
    # mano all-in: the opening cannot be raised by him; nobody entered blind → straight to 5 cards
    hand = play(hand, (2, Enter(False)), (3, Enter(False)), (0, Enter(False)))
    assert hand.phase == "speaking" and 1 not in hand.queue


# --- 3. entering ------------------------------------------------------------------------------

def test_3_enter_seen_blind_or_decline() -> None:
    hand = play(four(), (1, Open(2)))
    assert hand.to_act() == 2
    hand = play(hand, (2, Enter(blind=True)))
    assert hand.blind[2] and not hand.looked[2] and hand.committed[2] == 2
    hand = play(hand, (3, Look()))
    assert codes(hand.apply, 3, Enter(blind=True)) == "already_looked"
    hand = play(hand, (3, Decline()))
    assert hand.status[3] == "declined" and hand.committed[3] == 0 and hand.hands[3] == []
    assert set(hand.pile) == {"3e", "4e"}
    hand = play(hand, (0, Enter(blind=False)))
    assert hand.looked[0] and not hand.blind[0]
    assert hand.phase == "raising" and hand.queue == [1, 2]  # mano, then the blind entrant


def test_3_everyone_declines_mano_takes_back_his_opening() -> None:
    hand = play(four(), (1, Open(3)), (2, Decline()), (3, Decline()), (0, Decline()))
    assert hand.is_over() and hand.result.reason == "uncontested"
    assert hand.result.payouts == (0, 3, 0, 0)


def test_3_six_players_dealer_sits_out_unless_someone_declines() -> None:
    hand = dealt_hand([30] * 6, dealer=2, seed=3)
    assert hand.status[2] == "out" and hand.hands[2] == []
    assert hand.mano == 3
    hand = play(hand, (3, Open(2)), (4, Enter(False)), (5, Enter(True)), (0, Enter(False)),
                (1, Enter(False)))
    assert hand.status[2] == "out" and hand.phase == "raising"  # nobody declined

    hand = dealt_hand([30] * 6, dealer=2, seed=3)
    stock_top = hand.stock[:2]
    hand = play(hand, (3, Open(2)), (4, Enter(False)), (5, Decline()), (0, Enter(False)), (1, Enter(False)))
    assert hand.dealer_offered and hand.to_act() == 2 and hand.hands[2] == stock_top  # the dealer is dealt in
    assert hand.legal_actions(2)[0].type == "look"
    hand = play(hand, (2, Enter(blind=True)))
    assert hand.status[2] == "in" and hand.committed[2] == 2
    assert len(hand.live()) == 5  # at most five take part
    hand = play(hand, (3, Pass()), (2, Pass()))
    assert all(len(hand.hands[s]) == 5 for s in hand.live())


def test_3_six_players_dealer_may_stay_out() -> None:
    hand = dealt_hand([30] * 6, dealer=0, seed=4)
    hand = play(hand, (1, Open(2)), (2, Decline()), (3, Decline()), (4, Decline()),
                (5, Decline()))
    assert hand.to_act() == 0
    hand = play(hand, (0, Decline()))
    assert hand.is_over() and hand.result.payouts[1] == 2


# --- 4. raising the opening -------------------------------------------------------------------

def test_4_raise_rights_mano_then_blind_entrants_then_everyone() -> None:
    hand = play(four(), (1, Open(2)), (2, Enter(False)), (3, Enter(True)), (0, Enter(False)))
    assert hand.queue == [1, 3]
    assert codes(hand.apply, 2, Raise(5)) == "not_your_turn"  # seen entrant: no right yet
    assert [a.to_dict() for a in hand.legal_actions(1) if a.type != "look"] == [
        {"type": "raise", "min": 2, "max": 28}, {"type": "pass"}]
    hand = play(hand, (1, Pass()))
    assert codes(hand.apply, 3, Raise(1)) == "bet_below_minimum"  # at least the opening
    hand = play(hand, (3, Raise(4)))
    assert hand.phase == "betting" and hand.queue == [0, 1, 2]  # answer from the raiser's next
    assert codes(hand.apply, 0, Raise(4)) == "must_answer"
    hand = play(hand, (0, Ver()), (1, NoVer()), (2, Ver()))
    assert hand.status[1] == "folded" and hand.committed == [6, 2, 6, 6]
    # now every player still in may re-raise, blind or not; the raiser last, not first
    assert hand.queue == [0, 2]
    assert codes(hand.apply, 0, Raise(3)) == "bet_below_minimum"
    assert codes(hand.apply, 0, Refiche(4)) == "wrong_phase"
    hand = play(hand, (0, Raise(10)))
    assert hand.queue == [2, 3]
    hand = play(hand, (2, Ver()), (3, Ver()), (2, Pass()), (3, Pass()))
    assert hand.phase == "speaking" and hand.committed == [16, 2, 16, 16]


def test_4_all_in_raise_of_the_opening_closes_raising() -> None:
    hand = dealt_hand([30, 30, 12, 30], order=stacked_order(FIRSTS, THIRDS))
    hand = play(hand, (1, Open(2)), (2, Enter(True)), (3, Enter(False)), (0, Enter(False)),
                (1, Pass()))
    hand = play(hand, (2, Raise(10)))  # smaller than... no: all of seat 2's resto
    assert hand.all_in(2) and hand.bet.closed
    hand = play(hand, (3, Ver()), (0, Ver()), (1, Ver()))
    assert hand.phase == "speaking"  # no refiche turn after an all-in raise


# --- 5. completing the hands ------------------------------------------------------------------

def test_5_three_more_cards_one_at_a_time() -> None:
    hand = entered_all(four())
    hand = play(hand, (1, Pass()))
    assert hand.phase == "speaking"
    assert hand.hands[1] == ["3o", "4o", "5o", "6o", "7o"]
    assert hand.hands[0] == ["3b", "4b", "5b", "6b", "12b"]
    assert all(hand.looked[s] for s in range(4))


# --- 6. speaking rounds and discards ----------------------------------------------------------

def test_6_four_silent_rounds_then_canto() -> None:
    hand = play(entered_all(four()), (1, Pass()))
    for rnd in range(1, 5):
        assert hand.phase == "speaking" and hand.round == rnd and hand.queue == [1, 2, 3, 0]
        hand = all_voy(hand)
        assert hand.phase == "discard" and hand.final_discard == (rnd == 4)
        assert codes(hand.apply, 1, Discard(("3c",))) == "card_not_in_hand"
        hand = stand_pat(hand)
    assert hand.is_over() and hand.result.reason == "canto"
    # 3b 4b 5b 6b 12b: 24 beats 3e..11e: 4+5+6+8 = 23 and oros/copas 22
    assert hand.result.values == (24, 22, 22, 23)
    assert hand.result.payouts == (8, 0, 0, 0)
    assert hand.result.shown[0] == ("3b", "4b", "5b", "6b", "12b")


def test_6_discard_draws_as_many_and_shows_them() -> None:
    hand = all_voy(play(entered_all(four()), (1, Pass())))
    top = hand.stock[:2]
    hand = play(hand, (1, Discard(("3o", "4o"))))
    assert hand.hands[1] == ["5o", "6o", "7o"] + top
    assert hand.discard_log == [DiscardRecord(round=1, seat=1, count=2, cards=("3o", "4o"), kept=False)]
    assert codes(hand.apply, 2, Discard(("3c", "3c"))) == "duplicate_card"


def test_6_corte_then_one_discard_then_canto() -> None:
    hand = play(entered_all(four()), (1, Pass()), (1, Voy()), (2, Corta(3)))
    assert hand.phase == "betting" and hand.queue == [3, 0, 1]
    hand = play(hand, (3, Ver()), (0, Ver()), (1, Ver()), (3, Pass()), (0, Pass()), (1, Pass()))
    assert hand.phase == "discard" and hand.final_discard and hand.after_corte
    assert not hand.keep_right  # four still in: discards go back to the pile
    hand = stand_pat(hand)
    assert hand.is_over() and hand.result.payouts == (20, 0, 0, 0)


# --- 7. betting after a corte -----------------------------------------------------------------

def test_7_refiche_rules() -> None:
    hand = play(entered_all(four()), (1, Pass()), (1, Corta(4)))
    assert codes(hand.apply, 2, Refiche(4)) == "must_answer"
    hand = play(hand, (2, Ver()), (3, Ver()), (0, Ver()))
    # the bettor cannot raise his own unanswered bet: refiche turns from his next, without him
    assert hand.queue == [2, 3, 0]
    assert codes(hand.apply, 2, Refiche(3)) == "bet_below_minimum"
    assert codes(hand.apply, 2, Raise(4)) == "wrong_phase"
    assert codes(hand.apply, 2, Refiche(25)) == "bet_above_resto"
    hand = play(hand, (2, Pass()), (3, Refiche(5)))
    assert hand.queue == [0, 1, 2] and hand.bet.level == 11
    hand = play(hand, (0, Ver()), (1, Ver()), (2, Ver()))
    assert hand.queue == [0, 1, 2]
    hand = play(hand, (0, Pass()), (1, Pass()), (2, Pass()))
    assert hand.phase == "discard" and hand.committed == [11] * 4


def test_7_jugado_refiche_may_be_smaller_and_closes_raising() -> None:
    hand = dealt_hand([30, 30, 30, 9], order=stacked_order(FIRSTS, THIRDS))
    hand = play(entered_all(hand), (1, Pass()), (1, Corta(4)), (2, Ver()), (3, Ver()),
                (0, Ver()), (2, Pass()))
    assert hand.raise_range(3) == (3, 3)  # seat 3 has 3 left: jugado only
    hand = play(hand, (3, Refiche(3)))
    assert hand.all_in(3)
    hand = play(hand, (0, Ver()), (1, Ver()), (2, Ver()))
    assert hand.phase == "discard"  # nobody may raise again


def test_7_everyone_folds_to_a_refiche_maker_wins_without_showing() -> None:
    hand = play(entered_all(four()), (1, Pass()), (1, Corta(4)), (2, Ver()), (3, NoVer()),
                (0, Ver()), (2, Refiche(6)))
    hand = play(hand, (0, NoVer()), (1, NoVer()))
    assert hand.is_over() and hand.result.reason == "uncontested"
    assert hand.result.payouts == (0, 0, 2 + 4 + 6 + 2 + 2 + 4 + 2 + 4, 0)
    assert hand.result.shown == (None,) * 4  # no canto: nobody's hand is shown
    assert codes(hand.apply, 2, Voy()) == "hand_over"


def test_7_corte_answered_by_all_without_refiche_closes() -> None:
    hand = play(entered_all(four()), (1, Pass()), (1, Voy()), (2, Voy()), (3, Corta(1)))
    hand = play(hand, (0, Ver()), (1, Ver()), (2, Ver()), (0, Pass()), (1, Pass()), (2, Pass()))
    assert hand.phase == "discard"


# --- 8. all-in and side pots ------------------------------------------------------------------

def test_8_short_ver_goes_all_in_and_stays_in() -> None:
    hand = dealt_hand([30, 30, 30, 6], order=stacked_order(FIRSTS, THIRDS))
    hand = play(entered_all(hand), (1, Pass()), (1, Corta(10)))
    hand = play(hand, (2, Ver()))
    before = hand.committed[3]
    hand = play(hand, (3, Ver()))
    assert hand.committed[3] - before == 4 and hand.remaining(3) == 0  # its 4 left, not the 10
    assert hand.status[3] == "in" and hand.all_in(3)


# --- 9. cards to the right --------------------------------------------------------------------

def test_9_after_corte_with_three_left_discards_stay_to_the_right() -> None:
    hand = play(entered_all(four()), (1, Pass()), (1, Corta(2)), (2, Ver()), (3, NoVer()),
                (0, Ver()), (2, Pass()), (0, Pass()))
    assert hand.keep_right and hand.live() == [1, 2, 0]
    pile_before = list(hand.pile)
    hand = play(hand, (1, Discard(("3o", "4o"))))
    assert hand.kept[1] == ["3o", "4o"] and hand.pile == pile_before
    assert hand.discard_log[-1].kept is True
    hand = play(hand, (2, Discard(())), (0, Discard(())))
    assert hand.is_over()


def test_9_kept_cards_limit_the_last_discard() -> None:
    # three players, all still in after the corte, all discarding five: the third can only draw
    # what stock and pile still hold (28 − 15 in hands − 10 kept to the right)
    hand = dealt_hand([30, 30, 30], dealer=0, seed=9)
    hand = play(hand, (1, Open(2)), (2, Enter(False)), (0, Enter(False)), (1, Pass()),
                (1, Corta(2)), (2, Ver()), (0, Ver()), (2, Pass()), (0, Pass()))
    assert hand.keep_right
    hand = play(hand, (1, Discard(tuple(hand.hands[1]))), (2, Discard(tuple(hand.hands[2]))))
    assert hand.max_discard(0) == len(hand.stock) + len(hand.pile) == 3
    assert codes(hand.apply, 0, Discard(tuple(hand.hands[0]))) == "bad_discard_count"
    assert hand.legal_actions(0)[0].max == 3
    hand = play(hand, (0, Discard(tuple(hand.hands[0][:3]))))
    assert hand.is_over() and sum(len(k) for k in hand.kept) == 13


# --- 10. canto ------------------------------------------------------------------------------

TIE_FIRSTS = [["3o", "4o"], ["3c", "4c"], ["3e", "4e"], ["3b", "4b"]]
TIE_THIRDS = [["5o", "6o", "7o"], ["12c", "5c", "6c"], ["5e", "6e", "7e"], ["12b", "5b", "6b"]]


def test_10_tie_goes_to_the_player_closer_to_mano() -> None:
    # seats 2 and 0 both hold 24 (4 + 5 + 6 + rey); seat 2 is closer to mano (seat 1)
    hand = dealt_hand([30] * 4, order=stacked_order(TIE_FIRSTS, TIE_THIRDS))
    hand = play(entered_all(hand), (1, Pass()))
    for _ in range(4):
        hand = stand_pat(all_voy(hand))
    assert hand.result.values == (24, 22, 24, 22)
    assert hand.result.payouts == (0, 0, 8, 0)


def test_10_folded_mano_still_anchors_the_tie_break() -> None:
    hand = dealt_hand([30] * 4, order=stacked_order(TIE_FIRSTS, TIE_THIRDS))
    hand = play(entered_all(hand), (1, Pass()), (1, Voy()), (2, Voy()), (3, Corta(2)),
                (0, Ver()), (1, NoVer()), (2, Ver()), (0, Pass()), (2, Pass()))
    assert hand.status[1] == "folded"
    hand = stand_pat(hand)
    assert hand.result.values == (24, None, 24, 22)
    assert hand.result.payouts == (0, 0, 2 * 4 + 2 * 3, 0)


def test_10_tie_break_counts_from_mano_seat_across_the_wrap() -> None:
    # dealer 2, mano 3 folds; seats 0 and 1 tie: seat 0 (distance 1) beats seat 1 (distance 2)
    firsts = [["3o", "4o"], ["3b", "4b"], ["3c", "4c"], ["3e", "4e"]]  # seats 3, 0, 1, 2
    thirds = [["5o", "6o", "7o"], ["12b", "5b", "6b"], ["12c", "5c", "6c"], ["5e", "6e", "7e"]]
    hand = dealt_hand([30] * 4, dealer=2, order=stacked_order(firsts, thirds))
    hand = play(hand, (3, Open(2)), (0, Enter(False)), (1, Enter(False)), (2, Enter(False)),
                (3, Pass()), (3, Voy()), (0, Corta(1)), (1, Ver()), (2, NoVer()), (3, NoVer()),
                (1, Pass()))
    hand = stand_pat(hand)
    assert hand.result.values[0] == hand.result.values[1] == 24
    assert hand.result.payouts == (2 * 4 + 1 * 2, 0, 0, 0)


# --- what each player may see -----------------------------------------------------------------

def test_views_show_own_cards_only_when_allowed() -> None:
    hand = play(four(), (1, Open(2)), (2, Enter(blind=True)))
    assert hand_view(hand, 2)["my_cards"] == []          # blind: not looked
    assert hand_view(hand, 3)["my_cards"] == []          # not looked yet
    hand = play(hand, (3, Look()))
    assert hand_view(hand, 3)["my_cards"] == ["3e", "4e"]
    assert "my_cards" not in hand_view(hand, None)
    hand = play(hand, (3, Enter(False)), (0, Enter(False)), (1, Pass()), (2, Pass()))
    assert hand_view(hand, 2)["my_cards"] == ["3c", "4c", "5c", "6c", "7c"]
    assert hand_view(hand, 2)["my_value"] == 22


def test_declined_and_folded_hands_are_never_seen() -> None:
    hand = play(four(), (1, Open(2)), (2, Enter(True)), (3, Look()), (3, Decline()),
                (0, Enter(False)), (1, Pass()), (2, Pass()), (1, Corta(1)), (2, NoVer()))
    folded = {"3c", "4c"} | set(hand.pile) - {"3e", "4e"}
    assert hand_view(hand, 3)["my_cards"] == [] and hand_view(hand, 2)["my_cards"] == []
    for seat in (0, 1, 2, 3, None):
        flat = str(hand_view(hand, seat))
        assert not any(f"'{c}'" in flat for c in folded | {"3e", "4e"}), seat


def test_default_action_of_a_silent_player():
    """A table deadline moves a silent player the way silence moves him at a real table."""
    import random

    from service.games.gofo.chance import chance_action
    from service.games.gofo.table import Table

    rng = random.Random(11)
    table = Table.new({"seats": 5})
    while table.chance_request():
        table.apply(chance_action(table.chance_request(), rng))
    seen = set()
    for _ in range(400):
        while table.chance_request():
            table.apply(chance_action(table.chance_request(), rng))
        seat = table.to_act()
        default = table.default_action(seat)
        assert table.default_action((seat + 1) % 5) is None  # only the seat to act has one
        assert default is not None and table.hand.is_legal(default, seat=seat)
        seen.add((table.hand.phase, default.TYPE))
        before = table.to_dict()
        after = table.copy()
        after.apply(default, seat=seat)
        assert after.to_dict() != before
        if rng.random() < 0.5:  # the others play: a random legal move, so every phase is reached
            legal = [a for a in table.legal_actions(seat) if a.type != "look"]
            pick = rng.choice(legal)
            data = {"type": pick.type}
            if pick.min is not None and pick.type != "discard":
                data["amount"] = rng.randint(pick.min, min(pick.max, pick.min + 2))
            if pick.type == "enter":
                data["blind"] = bool(pick.blind)
            if pick.type == "discard":
                data["cards"] = list(pick.cards[: rng.randint(0, pick.max)])
            after = table.copy()
            after.apply(action_from_dict(data), seat=seat)
        table = after
        if table.hand_number > 6:
            break
    kinds = {kind for _, kind in seen}
    assert {"open", "decline", "voy", "discard"} <= kinds
    assert ("opening", "open") in seen
