"""The shipped Gops values (service/games/gops/data/) against the reference solver.

``tools/gops_values/reference.py`` solves positions by recursion with scipy's linear programming;
it shares nothing with ``build.c`` (C, its own simplex) that tabulated the values.  Samples of every
size the table holds are checked, the largest ones fewest (a 6-card position takes the reference
about a second).
"""

from __future__ import annotations

import random

import pytest
from support.sweep_size import sized

from service.games.gops import values
from tools.gops_values import reference

#: The table stores round(f * 512): exact to 1/1024 of a point.
QUANTUM = 1 / 1024 + 1e-9


def _positions(seed: int, count: int, cards: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield (tuple(sorted(rng.sample(range(1, 14), cards))), tuple(sorted(rng.sample(range(1, 14), cards))),
               tuple(sorted(rng.sample(range(1, 14), cards))))


@pytest.mark.parametrize("cards, count", [(1, 40), (2, 40), (3, 40), (4, 20), (5, 6), (6, 1)])
def test_sampled_values_are_the_reference_solver_s(cards, count):
    table = values.table()
    for hand, rival, prizes in _positions(seed=cards, count=sized(count), cards=cards):
        expected = reference.future_value(hand, rival, prizes)
        assert table.value(hand, rival, prizes) == pytest.approx(expected, abs=QUANTUM)
        assert table.value(rival, hand, prizes) == pytest.approx(-expected, abs=QUANTUM)


def test_the_table_covers_six_cards_and_only_the_order_of_the_cards_counts():
    table = values.table()
    assert table.cards == 6
    hand, rival, prizes = (2, 5, 9, 11), (1, 5, 8, 13), (3, 4, 10, 12)
    renamed = {1: 1, 2: 3, 5: 4, 8: 6, 9: 7, 11: 9, 13: 12}
    same = table.value(tuple(renamed[c] for c in hand), tuple(renamed[c] for c in rival), prizes)
    assert table.value(hand, rival, prizes) == same
    assert table.value(hand, hand, prizes) == 0.0


def test_order_codes_mark_each_card_by_who_holds_it():
    # 1: the seat's alone (A=1), 2: both (C=3), 3: the rival's alone (B=2), lowest card first
    assert values.order_code((1, 2), (2, 3)) == 1 | 3 << 2 | 2 << 4


def test_the_kept_orders_are_one_of_each_pair_of_hands_seen_from_either_side():
    """``_orders(k)``, which indexes the estimates' weights: of every order two k-card hands can have,
    the one of each pair (an order and the rival's view of it, ``_swap``) with the smaller code."""
    from itertools import combinations

    for k in (1, 2, 3):
        seen = set()
        for hand in combinations(range(1, 2 * k + 1), k):
            for rival in combinations(range(1, 2 * k + 1), k):
                code = values.order_code(hand, rival)
                assert values._swap(code) == values.order_code(rival, hand)
                seen.add(min(code, values._swap(code)))
        seen.discard(values.order_code(tuple(range(1, k + 1)), tuple(range(1, k + 1))))  # equal hands: no weights
        assert values._orders(k) == sorted(seen), k
    assert len(values._orders(7)) == 24_319  # what estimates.bin holds weights for


def test_estimates_are_closer_to_the_exact_values_than_random_play():
    """The estimate of 7-card hands against values computed from the exact 6-card table."""
    from service.games.gops import matrix_game

    table, estimates = values.table(), values.estimates()
    err_estimate = err_random = 0.0
    for hand, rival, prizes in _positions(seed=77, count=12, cards=7):
        exact = 0.0
        for k, prize in enumerate(prizes):
            rest = prizes[:k] + prizes[k + 1:]
            payoff = [[((v > y) - (v < y)) * prize
                       + table.value(tuple(c for c in hand if c != v), tuple(c for c in rival if c != y), rest)
                       for y in rival] for v in hand]
            exact += matrix_game.solve(payoff)[0] / len(prizes)
        random_play = sum(prizes) * sum((v > y) - (v < y) for v in hand for y in rival) / 49
        err_estimate += (estimates.value(hand, rival, prizes) - exact) ** 2
        err_random += (random_play - exact) ** 2
    assert err_estimate < err_random / 10
