"""The two-seat Gops equilibrium, from values solved offline: what a bot bids and a hint says.

Two seats, one card a bid, one prize in the middle.  Each seat plays to maximise its points minus
its rival's (a zero-sum game; Rhoads & Bartholdi, "Computer Solution to the Game of Pure Strategy",
*Games* 3, 2012).  A round is a matrix game: the seat bids ``V_i``, the rival ``Y_j``, and

    M[i][j] = sgn(V_i - Y_j) * stake  +  f(V - V_i, Y - Y_j, P - p)

where ``stake`` is the prize and any carried pot and ``f`` the value of what is left.  A decision
solves that one game (:mod:`service.games.gops.matrix_game`, pure Python) and **looks ``f`` up**:
nothing is searched in a request.

* **Exact** (``Decision.exact``): with at most ``EXACT_CARDS + 1`` cards left (the last 7 rounds), ``f``
  comes from the table solved offline (:mod:`service.games.gops.values`, exact to 1/1024 of a point)
  — under the rules it was solved for: a tied round's prize set aside and the prize shown.  Under
  ``carryover`` (a tie carries the pot) the table is exact only where no tie can happen any more
  (the hands share no card); under ``blind`` it is not.  Those positions are solved exactly on the
  fly with at most :data:`RECURSION_CARDS` cards left (a few hundred small games at most), and
  estimated beyond.
* **Estimated**: with more cards, ``f`` is the fitted estimate shipped with the table
  (:class:`~service.games.gops.values.Estimates`); a carried pot adds ``pot × e`` where ``e`` is the
  chance the seat wins the next round minus its rival's if both bid at random.

**Only the order of the bid cards matters.**  A bid is only ever compared with the rival's bid of
the same round; card values never enter a payoff.  So renaming the cards left in both hands by any
strictly increasing map (the same for both seats, so a card both hold stays tied) changes no value
or equilibrium: :func:`compress` renames them to ``0, 1, 2, ...``.  Swapping the seats negates the
value, and equal hands are worth ``0``.

What it covers (:func:`covers`), the variants it approximates and the measured strength: ``docs/bots.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from service.errors import IllegalAction
from service.games.gops import heuristics, matrix_game, values

#: The most cards a hand may hold for its value to be looked up exactly: the table's size.
EXACT_CARDS = 6

#: The most cards left after this round for a position the table does not cover (a tie carries
#: the pot, or the prizes are bid for face down) to be solved exactly on the fly: at most a few
#: dozen 2 × 2 and 3 × 3 games (≤ 2 ms), where 3 cards would take 5–15 ms cold.
RECURSION_CARDS = 2

#: Positions so solved, remembered per process.
MEMO_SIZE = 1 << 14

Future = Callable[[tuple[int, ...], tuple[int, ...]], float]


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
    (else the later rounds were estimated).
    """

    value: float
    mix: dict[int, float]
    exact: bool


def covers(players: int, bid_cards: int, open_prizes: int, prize_order: str, visibility: str) -> bool:
    """Does the solver apply to a game with these rules (any ``resolution``, any ``unclaimed``)?"""
    return (players == 2 and bid_cards == 1 and open_prizes == 1
            and prize_order in ("shuffled", "reported") and visibility in ("open", "blind"))


def compress(hand: Iterable[int], rival: Iterable[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both hands with their cards renamed ``0, 1, 2, ...`` in order (a card in both hands gets one name)."""
    hand, rival = tuple(sorted(hand)), tuple(sorted(rival))
    rank = {card: r for r, card in enumerate(sorted(set(hand) | set(rival)))}
    return tuple(rank[c] for c in hand), tuple(rank[c] for c in rival)


def solve(position: Position, exact_cards: int = EXACT_CARDS, fitted: bool = True) -> Decision:
    """The seat's equilibrium mix and value in ``position``.  A weaker level looks up fewer
    values: the table for hands of at most ``exact_cards`` cards, and beyond them the fitted
    estimate (``fitted``) or the random-play one."""
    hand, rival = tuple(sorted(position.hand)), tuple(sorted(position.rival))
    prizes = tuple(sorted(position.prizes))
    if not position.blind:
        games = [(position.prize, prizes)]
    elif len(hand) - 1 > max(min(exact_cards, EXACT_CARDS), RECURSION_CARDS):
        # Face down, valued by an estimate linear in the sorted prizes: the mean over the prize it
        # may be of each round's game is one game, for the mean prize with the mean prizes left.
        rests = [_without(prizes, k) for k in range(len(prizes))]
        games = [(sum(prizes) / len(prizes), tuple(sum(column) / len(rests) for column in zip(*rests)))]
    else:
        games = [(p, _without(prizes, k)) for k, p in enumerate(prizes)]
    payoff = [[0.0] * len(rival) for _ in hand]
    exact = True
    for prize, rest in games:
        stake = prize + position.pot
        future, future_exact = _future(hand, rival, rest, stake, position, exact_cards, fitted)
        exact = exact and future_exact
        for i, v in enumerate(hand):
            for j, y in enumerate(rival):
                payoff[i][j] += ((v > y) - (v < y)) * stake + future(i, j)
    if len(games) > 1:
        payoff = [[x / len(games) for x in row] for row in payoff]
    value, mix = matrix_game.solve(payoff)
    return Decision(value=value, mix=dict(zip(hand, mix)), exact=exact)


def future_value(hand: Sequence[int], rival: Sequence[int], prizes: Sequence[int], pot: int = 0,
                 carryover: bool = False, blind: bool = False) -> float:
    """The value before the next prize is turned up (it is any of ``prizes``, each as likely);
    exact where :func:`solve` is."""
    V, Y = compress(hand, rival)
    prizes = tuple(sorted(prizes))
    if blind:
        return solve(Position(tuple(hand), tuple(rival), prizes, None, pot, carryover, True)).value
    return sum(solve(Position(tuple(hand), tuple(rival), _without(prizes, k), p, pot, carryover)).value
               for k, p in enumerate(prizes)) / len(prizes)


def clear_memo() -> None:
    """Forget the positions solved on the fly (the memo is bounded by :data:`MEMO_SIZE`)."""
    _recursive_future.cache_clear()


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

    Rules the solver covers (:func:`covers`): level 8's equilibrium, every card of the hand once,
    lowest first, ``exact`` where level 8 is exact.  Any other rules: ``exact`` false, the level-8
    bot's mix (its bids of positive probability) and an estimated value — this solver's on
    :func:`position_of` for two seats bidding one card for one prize, else
    :mod:`service.games.gops.heuristics`' (with three or more seats **the seat's own expected
    points**, not a difference)."""
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


# ---------------------------------------------------------------- what is left after a round


def _without(cards: tuple[int, ...], i: int) -> tuple[int, ...]:
    return cards[:i] + cards[i + 1:]


def _future(hand: tuple[int, ...], rival: tuple[int, ...], rest: tuple[int, ...], stake: int,
            position: Position, exact_cards: int, fitted: bool) -> tuple[Callable[[int, int], float], bool]:
    """``(future, exact)``: ``future(i, j)`` values what is left after the seat bids ``hand[i]`` and
    the rival ``rival[j]`` for ``stake`` with the prizes ``rest`` to come; ``exact`` whether every
    such value is exact."""
    left = len(hand) - 1
    if not left:
        return (lambda i, j: 0.0), True
    carryover, blind = position.carryover, position.blind

    def carried(i: int, j: int) -> int:
        return stake if carryover and hand[i] == rival[j] else 0

    tie_free = not set(hand) & set(rival)  # once the hands share no card, no round can tie again
    if not blind and (not carryover or tie_free) and left <= min(exact_cards, EXACT_CARDS):
        table = values.table()
        return (lambda i, j: table.value(_without(hand, i), _without(rival, j), rest)), True
    if (blind or carryover) and left <= RECURSION_CARDS:
        def exact_future(i: int, j: int) -> float:
            V, Y = compress(_without(hand, i), _without(rival, j))
            return _recursive_future(V, Y, rest, carried(i, j), carryover, blind)
        return exact_future, True
    estimate = _estimate(rest, exact_cards, fitted)

    def estimated(i: int, j: int) -> float:
        V, Y = _without(hand, i), _without(rival, j)
        pot = carried(i, j)
        return estimate(V, Y) + (pot * _random_edge(V, Y) if pot else 0.0)

    return estimated, False


def _estimate(rest: tuple[int, ...], exact_cards: int, fitted: bool) -> Future:
    """f for hands of ``len(rest)`` cards with the prizes ``rest``: the table where it reaches and
    the level trusts it, else the fitted estimate or the random-play one."""
    k = len(rest)
    if k <= min(exact_cards, EXACT_CARDS):
        table = values.table()
        return lambda V, Y: table.value(V, Y, rest)
    if fitted:
        return values.estimates().model(rest)
    total = sum(rest)
    return lambda V, Y: total * _random_edge(V, Y)


def _random_edge(V: Sequence[int], Y: Sequence[int]) -> float:
    """The seat's chance to win a round minus its rival's when both bid a random card."""
    return sum((v > y) - (v < y) for v in V for y in Y) / (len(V) * len(Y))


@functools.lru_cache(maxsize=MEMO_SIZE)
def _recursive_future(V: tuple[int, ...], Y: tuple[int, ...], prizes: tuple[int, ...], pot: int,
                      carryover: bool, blind: bool) -> float:
    """f(V, Y, P, pot) for small compressed hands, exactly, by solving every later round."""
    if not V:
        return 0.0
    if V == Y:
        return 0.0  # the seats are interchangeable: a symmetric zero-sum game is worth nothing
    position_games = [(p, _without(prizes, k)) for k, p in enumerate(prizes)]
    last = len(V) == 1

    def round_payoff(prize: int, rest: tuple[int, ...]) -> list[list[float]]:
        stake = prize + pot
        rows = []
        for i, v in enumerate(V):
            row = []
            for j, y in enumerate(Y):
                s = (v > y) - (v < y)
                if last:
                    row.append(s * stake)
                    continue
                Vc, Yc = compress(_without(V, i), _without(Y, j))
                next_pot = stake if (s == 0 and carryover) else 0
                row.append(s * stake + _recursive_future(Vc, Yc, rest, next_pot, carryover, blind))
            rows.append(row)
        return rows

    if blind:
        games = [round_payoff(p, rest) for p, rest in position_games]
        mean = [[sum(g[i][j] for g in games) / len(games) for j in range(len(Y))] for i in range(len(V))]
        return matrix_game.solve(mean)[0]
    return sum(matrix_game.solve(round_payoff(p, rest))[0] for p, rest in position_games) / len(prizes)
