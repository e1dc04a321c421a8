"""Zero-sum matrix games in pure Python: the value and an optimal mix of the row player.

One simultaneous round of two-seat Gops is a matrix game (``docs/bots.md``).  The games a request
solves are small (at most 13 × 13, most 7 × 7 or less), so a plain simplex method on the textbook
programme answers in well under a millisecond, and a worker never loads numpy or scipy for it:

    shift the payoffs to ``A = M - min(M) + 1`` (all positive, so the programme is bounded);
    the column player's programme: maximise Σ w  s.t.  A w ≤ 1, w ≥ 0;  val(A) = 1 / Σ w*;
    the row player's optimal mix is its dual: the slacks' reduced costs at the optimum, / Σ w*.

The entering column is the most negative reduced cost (Dantzig), falling back to the lowest index
(Bland) after a degenerate pivot, so the method cannot cycle.  ``tests/gops/test_matrix_game.py``
checks it against ``scipy.optimize.linprog`` on random and degenerate games.
"""

from __future__ import annotations

from collections.abc import Sequence

EPS = 1e-11


def solve(payoff: Sequence[Sequence[float]]) -> tuple[float, list[float]]:
    """``(value, mix)``: the value of the game to the row player (who maximises) and one optimal mix
    of its rows."""
    m, n = len(payoff), len(payoff[0])
    row_floor = [min(row) for row in payoff]
    maxmin = max(row_floor)
    minmax = min(max(payoff[i][j] for i in range(m)) for j in range(n))
    if maxmin >= minmax - EPS:  # a saddle point: a pure equilibrium, no programme needed
        best = row_floor.index(maxmin)
        return maxmin, [1.0 if i == best else 0.0 for i in range(m)]
    low = min(row_floor)
    width = n + m + 1  # the columns' w, the rows' slacks, the right-hand side
    tableau = [[payoff[i][j] - low + 1.0 for j in range(n)] + [1.0 if k == i else 0.0 for k in range(m)] + [1.0]
               for i in range(m)]
    objective = [-1.0] * n + [0.0] * (m + 1)
    basis = [n + i for i in range(m)]
    bland = False
    for _ in range(50 * (m + n)):
        if bland:
            enter = next((j for j in range(width - 1) if objective[j] < -EPS), -1)
        else:
            low_cost = min(objective[:-1])
            enter = objective.index(low_cost) if low_cost < -EPS else -1
        if enter < 0:
            break
        leave, ratio = -1, 0.0
        for i in range(m):
            a = tableau[i][enter]
            if a > EPS:
                r = tableau[i][-1] / a
                if leave < 0 or r < ratio - EPS or (r < ratio + EPS and basis[i] < basis[leave]):
                    leave, ratio = i, r
        bland = ratio < EPS  # a degenerate pivot: no progress, so the next one follows Bland's rule
        pivot_row = tableau[leave]
        pivot = pivot_row[enter]
        pivot_row[:] = [x / pivot for x in pivot_row]
        for row in (*tableau[:leave], *tableau[leave + 1:], objective):
            factor = row[enter]
            if factor:
                row[:] = [x - factor * y for x, y in zip(row, pivot_row)]
        basis[leave] = enter
    else:  # pragma: no cover - Bland's rule terminates
        raise ArithmeticError("the matrix game's programme did not converge")
    total = objective[-1]
    duals = [max(objective[n + i], 0.0) for i in range(m)]
    mass = sum(duals)
    return 1.0 / total + low - 1.0, [d / mass for d in duals]
