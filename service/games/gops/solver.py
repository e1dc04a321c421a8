"""The exact two-player Gops solver: equilibrium bids of the point-difference game.

Two seats, one card a bid, one prize in the middle.  Each seat plays to maximise its points minus
its rival's (a zero-sum game; Rhoads & Bartholdi, "Computer Solution to the Game of Pure Strategy",
*Games* 3, 2012).  At the start of a round whose prize is still to be turned up, the value of a
position to the seat holding ``hand`` against ``rival`` with the prizes ``prizes`` still to come and
``pot`` carried from tied rounds is::

    f(V, Y, P, c) = mean over p in P of  val(M_p)
    M_p[i][j]     = sgn(V_i - Y_j) * (p + c)  +  f(V - V_i, Y - Y_j, P - p, c')

where ``val`` is the value of the matrix game (row player maximising; a linear programme solved by
HiGHS through :func:`scipy.optimize.linprog`) and ``c'`` is the pot the round leaves: ``0`` when a seat
won it, ``p + c`` when the bids tied and the rules carry a tied pot (``unclaimed: carryover``),
``0`` when they set it aside (``discard``).  A tie in the last round sets its pot aside either way.

What it covers exactly (:func:`covers`; the table in ``docs/bots.md``): two seats bidding one card
for one prize in a shuffled or reported order, under any tie rule — with two seats
``highest_unique`` is ``none``, and ``split`` halves a tied pot, so the point difference is that of
``discard`` — and with the prize shown to both seats or hidden from both (``blind``: each round is
the matrix game of the mean payoff over the prizes it may be, ``val(mean_p M_p)``).  Elsewhere
:func:`hint` gives the level-8 bot's mix and an estimated value.

**Only the order of the bid cards matters.**  A bid is only ever compared with the rival's bid of
the same round (``sgn(V_i - Y_j)``); card values never enter a payoff.  So renaming the cards left
in both hands by any strictly increasing map (the same map for both seats, so a card both seats
hold stays tied) changes no comparison in any line of play, hence no payoff, hence no value or
equilibrium.  :func:`compress` renames them to ``0, 1, 2, ...`` in order; every position is solved
in that form, and a memo of compressed positions serves every position that compresses alike.
Swapping the seats negates the value (``f(V, Y) = -f(Y, V)``), and equal hands are worth ``0``.

**How far it is exact.**  A decision is exact with at most ``EXACT_CARDS + 1`` cards left (the last
5 rounds: why, in ``docs/bots.md``; ``python -m service.games.gops.solver`` prints the times by
cards left).  With more, :func:`solve` returns this round's matrix game with each later position
*estimated* (``exact`` false) as if both seats bid uniformly at random from then on:
``(sum(P) + c) · mean_{i,j} sgn(V_i - Y_j)``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from service.errors import IllegalAction
from service.games.gops import heuristics

#: The most cards a hand may hold for its whole game tree to be solved on the fly.
EXACT_CARDS = 4

#: Compressed positions remembered across decisions (every process keeps its own).
MEMO_SIZE = 1 << 16


@dataclass(frozen=True)
class Position:
    """What one seat knows when it bids: everything the solver uses.

    ``hand`` the seat's cards, ``rival`` its rival's (public in Gops: every spent bid is shown),
    ``prizes`` the prizes not yet turned up, ``prize`` the prize in the middle — ``None`` when it is
    hidden from both seats (then it is one of ``prizes``, each as likely) — ``pot`` the prizes carried
    from tied rounds, ``carryover`` whether a tie carries the pot to the next round, ``blind``
    whether every prize is bid for face down.
    """

    hand: tuple[int, ...]
    rival: tuple[int, ...]
    prizes: tuple[int, ...]
    prize: int | None = None
    pot: int = 0
    carryover: bool = False
    blind: bool = False

    def __post_init__(self) -> None:
        rounds = len(self.prizes) + (self.prize is not None)
        if not (len(self.hand) == len(self.rival) == rounds):
            raise ValueError(
                f"each hand must hold one card a round: {len(self.hand)} and {len(self.rival)} cards "
                f"for {rounds} rounds")
        if len(set(self.hand)) != len(self.hand) or len(set(self.rival)) != len(self.rival):
            raise ValueError("a hand holds each card once")
        if self.blind and self.prize is not None:
            raise ValueError("a blind round's prize is not known when the seats bid")
        if not self.hand:
            raise ValueError("no round is left to bid in")


@dataclass(frozen=True)
class Decision:
    """The seat's equilibrium in one position.

    ``value``: the points the seat can expect to win from this round on (the pot included) minus
    those its rival wins, both playing the equilibrium; ``mix``: the probability of each card of
    the hand (cards that are never bid at probability 0); ``exact``: both are the exact equilibrium
    (else the continuation was estimated: see the module's docstring).
    """

    value: float
    mix: dict[int, float]
    exact: bool


def covers(players: int, bid_cards: int, open_prizes: int, prize_order: str, visibility: str) -> bool:
    """Does the exact solver apply to a game with these rules (any ``resolution``, any ``unclaimed``)?"""
    return (players == 2 and bid_cards == 1 and open_prizes == 1
            and prize_order in ("shuffled", "reported") and visibility in ("open", "blind"))


def compress(hand: Iterable[int], rival: Iterable[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both hands with their cards renamed ``0, 1, 2, ...`` in order (a card in both hands gets one name)."""
    hand, rival = tuple(sorted(hand)), tuple(sorted(rival))
    rank = {card: r for r, card in enumerate(sorted(set(hand) | set(rival)))}
    return tuple(rank[c] for c in hand), tuple(rank[c] for c in rival)


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


def position_of(seat_view: dict) -> Position:
    """The solver's position for the seat whose view this is, in a two-seat game of one-card bids
    for one prize in the middle, whatever the prize order and visibility.

    Its hand and its rival's are in ``hands`` (spent bids are public); the prizes still to come are
    the ranks not yet seen turned up, each as likely next (so a fixed order is treated as shuffled);
    a prize in the middle hidden from the seat (``null`` in ``row``, or not yet reported) is one of
    those, each as likely, and so is every later one (``blind``: under ``dealer_sees_prize`` the
    dealer's rival bids as if neither seat saw the prizes, the dealer as if both did).  Where
    :func:`covers` says so this is exactly the seat's position; elsewhere an approximation."""
    rules = seat_view["rules"]
    seat = seat_view["seat"]
    row = seat_view["row"]
    seen = {rank for rank in seat_view["turned"] if rank is not None}
    unseen = tuple(r for r in range(1, rules["ranks"] + 1) if r not in seen)
    prize = row[0] if row and row[0] is not None else None
    return Position(
        hand=tuple(seat_view["hands"][seat]), rival=tuple(seat_view["hands"][1 - seat]), prizes=unseen,
        prize=prize, pot=sum(seat_view["carry"]),
        carryover=rules["unclaimed"] == "carryover" and rules["resolution"] != "split",
        blind=prize is None)


def _require_commit_phase(seat_view: dict) -> None:
    """A hint is for a seat with a bid to make: the commit phase, before the seat commits."""
    if seat_view["phase"] != "commit":
        raise IllegalAction(f"a hint is given in the commit phase, not in phase {seat_view['phase']!r}",
                            code="hint_unavailable")
    if not any(legal["type"] == "commit" for legal in seat_view.get("legal_actions", ())):
        raise IllegalAction("a hint is given to a seat with a bid to make: this seat has committed this round "
                            "or is out of the game", code="hint_unavailable")


def hint(seat_view: dict) -> dict:
    """What the seat would do well to bid, from its view alone, in the commit phase (else
    ``hint_unavailable``): ``{"exact": bool, "value": float, "actions": [{"cards": [...],
    "probability": p}, ...]}`` (the fields by variant: ``docs/bots.md``, Hints).

    Rules the solver covers (:func:`covers`): the seat's equilibrium, every card of the hand once,
    lowest first.  Any other rules: ``exact`` false, the level-8 bot's mix (its bids of positive
    probability) and an estimated value — this solver's on :func:`position_of` for two seats bidding
    one card for one prize, else :mod:`service.games.gops.heuristics`' (with three or more seats
    **the seat's own expected points**, not a difference)."""
    rules = seat_view["rules"]
    _require_commit_phase(seat_view)
    if covers(rules["players"], rules["bid_cards"], rules["open_prizes"], rules["prize_order"],
              rules["visibility"]):
        decision = solve(position_of(seat_view))
        return {
            "exact": decision.exact,
            "value": decision.value,
            "actions": [{"cards": [card], "probability": p if p > 1e-12 else 0.0}
                        for card, p in sorted(decision.mix.items())],
        }
    if rules["players"] == 2 and rules["bid_cards"] == 1 and rules["open_prizes"] == 1:
        decision = solve(position_of(seat_view))
        value, mix = decision.value, {(card,): p for card, p in decision.mix.items()}
    else:
        value, mix = heuristics.random_play_value(seat_view), heuristics.quantile_mix(seat_view)
    return {
        "exact": False,
        "value": value,
        "actions": [{"cards": list(cards), "probability": p} for cards, p in sorted(mix.items()) if p > 1e-12],
    }


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


if __name__ == "__main__":  # python -m service.games.gops.solver [EXACT_CARDS]: time per decision by cards left
    import random
    import statistics
    import sys
    import time

    horizon = int(sys.argv[1]) if len(sys.argv) > 1 else EXACT_CARDS
    rng = random.Random(2026)
    for n in range(1, 14):
        cold, warm = [], []
        for _ in range(5):
            hand, rival = sorted(rng.sample(range(1, 14), n)), sorted(rng.sample(range(1, 14), n))
            prizes = rng.sample(range(1, 14), n)
            position = Position(tuple(hand), tuple(rival), tuple(prizes[1:]), prizes[0])
            clear_memo()
            started = time.perf_counter()
            decision = solve(position, exact_cards=horizon)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            solve(position, exact_cards=horizon)
            warm.append(time.perf_counter() - started)
        print(f"{n:2d} cards left, exact {decision.exact!s:5}: cold median {statistics.median(cold) * 1e3:8.1f} ms, "
              f"max {max(cold) * 1e3:8.1f} ms; warm median {statistics.median(warm) * 1e3:6.1f} ms; "
              f"{_exact_future.cache_info().currsize} positions remembered", flush=True)
