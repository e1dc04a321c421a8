"""The pure-Python matrix-game solver (service.games.gops.matrix_game) against scipy's linprog."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.optimize import linprog

from service.games.gops.matrix_game import solve


def _linprog_value(payoff: list[list[float]]) -> float:
    M = np.array(payoff)
    m, n = M.shape
    objective = np.zeros(m + 1)
    objective[-1] = -1.0
    result = linprog(objective, A_ub=np.hstack([-M.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                     A_eq=[[1.0] * m + [0.0]], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)], method="highs")
    assert result.status == 0
    return result.x[-1]


def _guaranteed(payoff, mix) -> float:
    """What the mix guarantees its player against every column."""
    return min(sum(x * payoff[i][j] for i, x in enumerate(mix)) for j in range(len(payoff[0])))


@pytest.mark.parametrize("seed", range(4))
def test_random_games_have_linprog_s_value_and_a_mix_that_guarantees_it(seed):
    rng = random.Random(seed)
    for case in range(400):
        m, n = rng.randint(1, 13), rng.randint(1, 13)
        if case % 2:  # few distinct payoffs: ties, dominance and degenerate pivots
            payoff = [[float(rng.choice((-3, -1, 0, 1, 2, 5))) for _ in range(n)] for _ in range(m)]
        else:
            payoff = [[rng.uniform(-20, 20) for _ in range(n)] for _ in range(m)]
        value, mix = solve(payoff)
        assert value == pytest.approx(_linprog_value(payoff), abs=1e-9)
        assert len(mix) == m and min(mix) >= 0 and sum(mix) == pytest.approx(1.0)
        assert _guaranteed(payoff, mix) == pytest.approx(value, abs=1e-9)


def test_known_games():
    value, mix = solve([[1, -1], [-1, 1]])  # matching pennies
    assert value == pytest.approx(0.0, abs=1e-12) and mix == pytest.approx([0.5, 0.5])
    value, mix = solve([[3, 1], [2, 2]])  # a saddle point: the second row guarantees 2
    assert value == 2 and mix == [0.0, 1.0]
    # rock, paper, scissors, scaled: worth 0, each a third
    value, mix = solve([[0, -2, 2], [2, 0, -2], [-2, 2, 0]])
    assert value == pytest.approx(0.0, abs=1e-12) and mix == pytest.approx([1 / 3] * 3)
