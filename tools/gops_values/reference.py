"""The reference two-player Gops solver: the whole game tree solved by recursion, numpy and scipy.

It solves what ``build.c`` tabulates another way (backward induction over compressed positions, every
round's matrix game a linear programme solved by HiGHS through :func:`scipy.optimize.linprog`), so
``tests/gops/test_values.py`` checks samples of the shipped values against it.  It is far too slow
for a request (a position with 5 cards left takes ~80 ms, 6 cards a second): the service never
imports it.

At the start of a round whose prize is still to be turned up, the value of a position to the seat
holding ``hand`` against ``rival`` with the prizes ``prizes`` still to come and ``pot`` carried from
tied rounds is::

    f(V, Y, P, c) = mean over p in P of  val(M_p)
    M_p[i][j]     = sgn(V_i - Y_j) * (p + c)  +  f(V - V_i, Y - Y_j, P - p, c')

where ``c'`` is the pot the round leaves: ``0`` when a seat won it, ``p + c`` when the bids tied and
the rules carry a tied pot, ``0`` when they set it aside.  With ``blind`` each round is the matrix
game of the mean payoff over the prizes it may be.  Positions are exact with at most
``exact_cards + 1`` cards left; beyond, later positions are valued as if both seats bid at random.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from service.games.gops.solver import Decision, Position, compress  # the shapes only: the method is its own


#: The most cards a hand may hold for its whole game tree to be solved on the fly.
EXACT_CARDS = 4

#: Compressed positions remembered across decisions (every process keeps its own).
MEMO_SIZE = 1 << 16


def solve(position: Position, exact_cards: int = EXACT_CARDS) -> Decision:
    """The seat's equilibrium mix and value in ``position`` (exact with at most ``exact_cards + 1`` cards left)."""
    hand = tuple(sorted(position.hand))
    rival = tuple(sorted(position.rival))
    exact = len(hand) <= exact_cards + 1
    continuation = _exact_future if exact else functools.partial(_estimated_future, exact_cards=exact_cards)
    V, Y = compress(hand, rival)
    carry = position.carryover
    if position.blind:
        payoff = _blind_matrix(V, Y, _sorted(position.prizes), position.pot, carry, continuation)
    else:
        payoff = _round_matrix(V, Y, position.prize, _sorted(position.prizes), position.pot, carry, False,
                               continuation)
    value, mix = _matrix_solution(payoff)
    return Decision(value=value, mix={card: p for card, p in zip(hand, mix)}, exact=exact)


def future_value(hand: Sequence[int], rival: Sequence[int], prizes: Sequence[int], pot: int = 0,
                 carryover: bool = False, blind: bool = False) -> float:
    """The exact value before the next prize is turned up (it is any of ``prizes``, each as likely)."""
    V, Y = compress(hand, rival)
    return _exact_future(V, Y, _sorted(prizes), pot, carryover, blind)


def clear_memo() -> None:
    """Forget every solved position (the memo is bounded by :data:`MEMO_SIZE`)."""
    _exact_future.cache_clear()


# ---------------------------------------------------------------- the recursion


def _sorted(prizes: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(prizes))


def _without(cards: tuple[int, ...], i: int) -> tuple[int, ...]:
    return cards[:i] + cards[i + 1:]


def _sign(a: int, b: int) -> int:
    return (a > b) - (a < b)


def _round_matrix(V, Y, prize, rest, pot, carryover, blind, continuation) -> np.ndarray:
    """``M[i][j]``: the seat's payoff from this round on when it bids ``V[i]`` and the rival ``Y[j]``
    for ``prize`` (with ``pot`` carried), the continuation valued by ``continuation``."""
    stake = prize + pot
    last = not rest
    payoff = np.empty((len(V), len(Y)))
    for i, v in enumerate(V):
        V2 = _without(V, i)
        for j, y in enumerate(Y):
            s = _sign(v, y)
            if last:
                payoff[i, j] = s * stake
                continue
            next_pot = stake if (s == 0 and carryover) else 0
            Vc, Yc = compress(V2, _without(Y, j))
            payoff[i, j] = s * stake + continuation(Vc, Yc, rest, next_pot, carryover, blind)
    return payoff


def _blind_matrix(V, Y, prizes, pot, carryover, continuation) -> np.ndarray:
    """A round bid for face down: the mean over the prize it may be of the round's payoffs."""
    return sum(_round_matrix(V, Y, p, _without(prizes, k), pot, carryover, True, continuation)
               for k, p in enumerate(prizes)) / len(prizes)


@functools.lru_cache(maxsize=MEMO_SIZE)
def _exact_future(V, Y, prizes, pot, carryover, blind) -> float:
    """f(V, Y, P, c) for compressed hands, exactly (memoised)."""
    if V == Y:
        return 0.0  # the seats are interchangeable: a symmetric zero-sum game is worth nothing
    if V > Y:
        return -_exact_future(Y, V, prizes, pot, carryover, blind)  # one entry for both seatings
    if blind:
        return _matrix_solution(_blind_matrix(V, Y, prizes, pot, carryover, _exact_future))[0]
    games = [_round_matrix(V, Y, p, _without(prizes, k), pot, carryover, False, _exact_future)
             for k, p in enumerate(prizes)]
    return _values_sum(games) / len(prizes)


def _estimated_future(V, Y, prizes, pot, carryover, blind, exact_cards: int) -> float:
    """f exactly when the hands are small enough, else as if both seats bid at random from now on."""
    if len(V) <= exact_cards:
        return _exact_future(V, Y, prizes, pot, carryover, blind)
    edge = sum(_sign(v, y) for v in V for y in Y) / (len(V) * len(Y))
    return (sum(prizes) + pot) * edge


# ---------------------------------------------------------------- matrix games


def _reduced(payoff: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The game left after removing dominated bids, one at a time, and the rows it kept.

    A row no better than another row against every column, or a column no better for its player
    than another column against every row, goes; an equilibrium of what is left is an equilibrium
    of the whole game, of the same value."""
    rows = list(range(payoff.shape[0]))
    while True:
        m, n = payoff.shape
        if m > 1:
            beats = (payoff[:, None, :] >= payoff[None, :, :]).all(axis=2)  # beats[k, i]: row k ≥ row i
            np.fill_diagonal(beats, False)
            dominated = np.flatnonzero(beats.any(axis=0))
            if dominated.size:
                drop = int(dominated[-1])
                payoff = np.delete(payoff, drop, axis=0)
                del rows[drop]
                continue
        if n > 1:
            beats = (payoff.T[:, None, :] <= payoff.T[None, :, :]).all(axis=2)  # beats[l, j]: column l ≤ column j
            np.fill_diagonal(beats, False)
            dominated = np.flatnonzero(beats.any(axis=0))
            if dominated.size:
                payoff = np.delete(payoff, int(dominated[-1]), axis=1)
                continue
        return payoff, rows


def _values_sum(games: Iterable[np.ndarray]) -> float:
    """The sum of the values of several matrix games (the games left for linear programming are
    solved together, as one programme of independent blocks)."""
    total, hard = 0.0, []
    for payoff in games:
        reduced, rows = _reduced(payoff)
        closed = _closed_form(reduced, rows, payoff.shape[0])
        if closed is None:
            hard.append(reduced)
        else:
            total += closed[0]
    if hard:
        total += sum(value for value, _ in _linear_programmes(hard))
    return total


def _matrix_solution(payoff: np.ndarray) -> tuple[float, list[float]]:
    """The value and an optimal mix of the row player."""
    reduced, rows = _reduced(payoff)
    closed = _closed_form(reduced, rows, payoff.shape[0])
    if closed is not None:
        return closed
    [(value, reduced_mix)] = _linear_programmes([reduced])
    mix = [0.0] * payoff.shape[0]
    for r, p in zip(rows, reduced_mix):
        mix[r] = p
    return value, mix


def _closed_form(reduced: np.ndarray, rows: list[int], size: int) -> tuple[float, list[float]] | None:
    """The value and an optimal mix (over ``size`` rows) of a game left with one row, one column or
    2×2 after :func:`_reduced`; ``None`` for a larger game."""
    m, n = reduced.shape
    mix = [0.0] * size
    if m == 1 or n == 1:  # a pure equilibrium: the best row against the column that is left, or the one row
        best = int(reduced[:, 0].argmax()) if n == 1 else 0
        mix[rows[best]] = 1.0
        return float(reduced[0].min() if m == 1 else reduced[best, 0]), mix
    if m == 2 and n == 2:  # no dominance left in a 2×2 game: both seats mix, making the other indifferent
        (a, b), (c, d) = reduced
        x = (d - c) / (a - b - c + d)
        mix[rows[0]], mix[rows[1]] = float(x), float(1 - x)
        return float((a * d - b * c) / (a - b - c + d)), mix
    return None


def _linear_programmes(games: list[np.ndarray]) -> list[tuple[float, list[float]]]:
    """Each game's value and an optimal mix of its row player, from one linear programme.

    Game ``g`` has the variables ``x_g`` (its row player's mix) and ``v_g``, and the constraints
    ``x_g·M_g[:, j] ≥ v_g`` for every column ``j``, ``Σ x_g = 1``, ``x_g ≥ 0``; maximising ``Σ v_g``
    maximises each ``v_g``, as the games share nothing."""
    upper_blocks, equal_blocks, bounds = [], [], []
    for payoff in games:
        rows, cols = payoff.shape
        upper_blocks.append(np.hstack([-payoff.T, np.ones((cols, 1))]))
        equal_blocks.append(np.append(np.ones(rows), 0.0)[None, :])
        bounds += [(0, None)] * rows + [(None, None)]
    objective = np.concatenate([np.append(np.zeros(p.shape[0]), -1.0) for p in games])
    upper = sparse.block_diag(upper_blocks, format="csr")
    equal = sparse.block_diag(equal_blocks, format="csr")
    result = linprog(objective, A_ub=upper, b_ub=np.zeros(upper.shape[0]), A_eq=equal,
                     b_eq=np.ones(len(games)), bounds=bounds, method="highs")
    if result.status != 0:  # a finite matrix game always has a solution
        raise ArithmeticError(f"the matrix games' linear programme failed: {result.message}")
    solutions, at = [], 0
    for payoff in games:
        rows = payoff.shape[0]
        mix = np.clip(result.x[at:at + rows], 0.0, None)
        solutions.append((float(result.x[at + rows]), [float(x) for x in mix / mix.sum()]))
        at += rows + 1
    return solutions
