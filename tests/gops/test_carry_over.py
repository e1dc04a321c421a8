"""Carry-over is decided in one place (``PrizeRow._unclaimed``): a round nobody wins carries to the
next winner, except after the last round, when there is no next winner (rule book: a pot still
unclaimed after the last round is set aside)."""

from __future__ import annotations

from service.games import gops as G


def _tied_game(**options):
    """A 3-rank two-player classic game (ties carry over) whose every round is a tie."""
    state = G.Gops.new("co1", G.make_rules("classic", ranks=3, prize_order="ascending", **options))
    records = []
    for card in (1, 2, 3):
        state.play_bids({0: (card,), 1: (card,)})
        records.append(state.game.history[-1].to_dict(public=True))  # the round's record, as views show it
    return state, records


def test_a_tie_carries_over_except_in_the_last_round():
    state, records = _tied_game(open_prizes=2)  # open prizes: a tie owes the next winner a pick
    assert [r["carried"] for r in records] == [True, True, False]
    assert [r.carried for r in state.game.history] == [True, True, False]
    assert state.game.carried_rounds == 2  # nothing was added for the last round: no next winner
    assert state.over
    state, records = _tied_game()  # one prize in the middle: the pot carries, then is set aside
    assert [r.get("carried") for r in records] == [True, True, None]
    assert records[-1]["set_aside"] is True and records[-1]["pot"] == [1, 2, 3]
    assert state.game.set_aside == [1, 2, 3]
