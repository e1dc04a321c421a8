"""Side pots (table stakes) and the tabletop canto."""

from __future__ import annotations

import pytest

from service.errors import RefereeError

from service.games.gofo.hand import (
    Corta, Declare, Discard, Enter, HandState, Muck, Open, Pass, Refiche, Reshuffle, Show, Ver,
    Voy, side_pots,
)

from .helpers import play

H30 = ["6e", "7e", "11e", "12e", "4b"]   # 30
H25 = ["12c", "11c", "5c", "3c", "5b"]   # 25
H20 = ["7o", "6o", "4o", "3o", "5e"]     # 20
H15 = ["12b", "6b", "3e", "4e", "4c"]    # 15


def code_of(apply, seat, action) -> str:
    with pytest.raises(RefereeError) as info:
        apply(action, seat=seat)
    return info.value.code


def three_all_ins() -> HandState:
    """Fronts 100, 10, 25, 50; dealer 0. Seats 1, 2 and 3 end all-in at 10, 25 and 50."""
    hand = HandState.new("tabletop", 0, [100, 10, 25, 50])
    hand = play(hand, (1, Open(2)), (2, Enter(False)), (3, Enter(False)), (0, Enter(False)),
                (1, Pass()), (1, Voy()), (2, Corta(5)), (3, Ver()), (0, Ver()), (1, Ver()))
    assert hand.remaining(1) == 3
    hand = play(hand, (3, Refiche(43)))
    assert hand.all_in(3)
    hand = play(hand, (0, Ver()), (1, Ver()), (2, Ver()))
    assert hand.committed == [50, 10, 25, 50]
    assert [hand.all_in(s) for s in range(4)] == [False, True, True, True]
    assert hand.phase == "discard"
    return play(hand, (1, Discard(count=0)), (2, Discard(count=1)), (3, Discard(count=5)),
                (0, Discard(count=2)))


def test_three_all_ins_at_different_levels_make_three_pots() -> None:
    hand = three_all_ins()
    assert [p.to_dict() for p in hand.pots()] == [{"amount": 40, "eligible": [0, 1, 2, 3]},
                           {"amount": 45, "eligible": [0, 2, 3]},
                           {"amount": 50, "eligible": [0, 3]}]
    assert hand.phase == "canto" and hand.queue == [1, 2, 3, 0]
    hand = play(hand, (1, Show(tuple(H30))), (2, Show(tuple(H25))), (3, Show(tuple(H20))),
                (0, Show(tuple(H15))))
    assert hand.is_over()
    assert hand.result.payouts == (0, 40, 45, 50)
    assert [p.winner for p in hand.result.pots] == [1, 2, 3]


def test_best_hand_takes_every_pot_it_is_eligible_for() -> None:
    hand = three_all_ins()
    hand = play(hand, (1, Show(tuple(H15))), (2, Show(tuple(H20))), (3, Show(tuple(H25))),
                (0, Show(tuple(H30))))
    assert hand.result.payouts == (135, 0, 0, 0)


def test_folded_chips_stay_in_the_pots_they_fed() -> None:
    assert [p.to_dict() for p in side_pots([50, 10, 25, 7], [True, True, True, False])] == [
        {"amount": 37, "eligible": [0, 1, 2]}, {"amount": 30, "eligible": [0, 2]},
        {"amount": 25, "eligible": [0]}]


def test_declare_then_winner_must_show_matching_cards() -> None:
    hand = three_all_ins()
    hand = play(hand, (1, Show(tuple(H30))), (2, Show(tuple(H25))), (3, Declare(20)),
                (0, Declare(15)))
    # seat 3 wins the third pot on a declaration: he must show; seat 0 lost everything: no need
    assert hand.phase == "canto" and hand.canto.stage == "show" and hand.queue == [3]
    assert code_of(hand.apply, 3, Show(("7o", "6o", "4o", "3o", "4b"))) == "duplicate_card"
    assert code_of(hand.apply, 3, Show(("7o", "6o", "4o", "5o", "5e"))) == \
        "declared_value_mismatch"
    assert code_of(hand.apply, 3, Declare(21)) == "declaration_locked"  # cards are on the table now
    hand = play(hand, (3, Show(tuple(H20))))
    assert hand.is_over() and hand.result.payouts == (0, 40, 45, 50)
    assert hand.result.shown[0] is None and hand.result.values[0] == 15


def test_tabletop_cards_must_exist_and_be_distinct() -> None:
    hand = three_all_ins()
    assert code_of(hand.apply, 1, Show(("6e", "7e", "11e", "12e"))) == "bad_hand_size"
    assert code_of(hand.apply, 1, Show(("6e", "7e", "11e", "12e", "8b"))) == "bad_card"
    assert code_of(hand.apply, 1, Show(("6e", "7e", "11e", "12e", "12e"))) == "duplicate_card"
    assert code_of(hand.apply, 1, Declare(31)) == "bad_points"
    hand = play(hand, (1, Show(tuple(H30))))
    assert code_of(hand.apply, 2, Show(("6e", "11c", "5c", "3c", "5b"))) == "duplicate_card"


def test_tabletop_known_discards_cannot_reappear_until_reshuffle() -> None:
    hand = HandState.new("tabletop", 0, [30, 30, 30])
    hand = play(hand, (1, Open(1)), (2, Enter(False)), (0, Enter(False)), (1, Pass()),
                (1, Voy()), (2, Voy()), (0, Voy()), (1, Discard(("6e", "7e"))))
    assert code_of(hand.apply, 2, Discard(("6e",))) == "duplicate_card"
    assert code_of(hand.apply, 2, Reshuffle()) == "cannot_reshuffle"  # only the dealer
    hand = play(hand, (0, Reshuffle()))
    assert hand.known_pile == []
    hand = play(hand, (2, Discard(("6e",))))
    assert hand.known_pile == ["6e"]


def test_tabletop_cards_kept_to_the_right_are_out_of_play() -> None:
    hand = HandState.new("tabletop", 0, [30, 30, 30])
    hand = play(hand, (1, Open(1)), (2, Enter(False)), (0, Enter(False)), (1, Pass()),
                (1, Corta(3)), (2, Ver()), (0, Ver()), (2, Pass()), (0, Pass()))
    assert hand.keep_right
    hand = play(hand, (1, Discard(("6e", "7e"))), (2, Discard(count=3)), (0, Discard(count=0)))
    assert hand.kept == [[], ["6e", "7e"], []] and hand.kept_count == [0, 2, 3]
    assert code_of(hand.apply, 1, Show(("6e", "11e", "12e", "3o", "4o"))) == "duplicate_card"


# --- a wrong declaration: correct it before anyone shows, or concede (muck) --------------------


def test_a_wrong_declaration_is_corrected_before_anyone_shows() -> None:
    hand = three_all_ins()  # canto, queue [1, 2, 3, 0]; seat 1 holds H30 but says 25
    hand = play(hand, (1, Declare(25)))
    assert code_of(hand.apply, 1, Show(tuple(H30))) == "not_your_turn"
    assert {a.type for a in hand.legal_actions(1)} >= {"declare", "muck"} and hand.canto.declared[1] == 25
    hand = play(hand, (1, Declare(30)))  # out of turn: seat 2 is to declare
    assert hand.to_act() == 2 and hand.canto.declared[1] == 30
    hand = play(hand, (2, Declare(25)), (3, Declare(20)), (0, Declare(15)))
    assert hand.canto.stage == "show" and hand.queue == [1, 2, 3]
    hand = play(hand, (1, Show(tuple(H30))))
    assert code_of(hand.apply, 2, Declare(26)) == "declaration_locked"  # seat 1 has shown now
    hand = play(hand, (2, Show(tuple(H25))), (3, Show(tuple(H20))))
    assert hand.is_over() and [p.winner for p in hand.result.pots] == [1, 2, 3]


def test_a_correction_after_the_declarations_judges_who_must_show_again() -> None:
    hand = play(three_all_ins(), (1, Declare(20)), (2, Declare(25)), (3, Declare(20)), (0, Declare(15)))
    assert hand.canto.stage == "show" and hand.queue == [2, 3]  # seat 1's 20 wins nothing
    assert code_of(hand.apply, 1, Show(tuple(H30))) == "not_your_turn"
    hand = play(hand, (1, Declare(30)))
    assert hand.canto.stage == "show" and hand.queue == [1, 2, 3]
    hand = play(hand, (1, Show(tuple(H30))), (2, Show(tuple(H25))), (3, Show(tuple(H20))))
    assert [p.winner for p in hand.result.pots] == [1, 2, 3]


def test_a_player_may_concede_at_the_canto() -> None:
    hand = play(three_all_ins(), (1, Declare(30)))
    hand = play(hand, (3, Muck()))  # out of turn, cards never entered
    assert hand.status[3] == "folded" and hand.queue == [2, 0]
    assert all(3 not in p.eligible for p in hand.pots())
    assert code_of(hand.apply, 3, Muck()) == "not_in_hand"
    hand = play(hand, (2, Declare(25)), (0, Declare(15)), (1, Show(tuple(H30))))
    assert code_of(hand.apply, 1, Muck()) == "already_shown"
    hand = play(hand, (2, Show(tuple(H25))))
    assert hand.is_over()
    # seat 3's 50 stay in the pots it fed; the top pot (0 and 3) goes to seat 0, the only claimant left
    assert [(p.amount, p.winner) for p in hand.result.pots] == [(40, 1), (45, 2), (50, 0)]
    assert hand.result.shown[3] is None and hand.result.net[3] == -50


def test_the_last_claimant_takes_every_pot_without_showing() -> None:
    hand = play(three_all_ins(), (1, Muck()), (2, Muck()), (3, Declare(20)))
    hand = play(hand, (0, Muck()))
    assert hand.is_over() and hand.result.reason == "uncontested"
    assert hand.result.payouts == (0, 0, 0, 135)


def test_muck_is_only_for_the_tabletop_canto() -> None:
    hand = HandState.new("tabletop", 0, [30, 30, 30])
    hand = play(hand, (1, Open(2)))
    assert code_of(hand.apply, 2, Muck()) == "wrong_phase"
    assert "muck" not in {a.type for a in hand.legal_actions(2)}
