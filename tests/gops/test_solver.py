"""The Gops solver (service.games.gops.solver) against independent computations.

The reference here shares no code with the solver: it writes out the whole extensive game of a
small position (every prize order, every bid of both seats, the seats' information as the referee
shows it), solves it as one sequence-form linear programme (Koller, Megiddo & von Stengel 1996) over
the cards as they are — no backward induction, no renaming of cards, no memo, no dominance — and
scores its leaves with a scorer that is itself checked against the referee's engine.  The solver's
mixes are then attacked with exact best responses in every public state of the game.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog
from support.client import GopsGame, new_salt

from service.games import commitments
from service.games import gops as G
from service.games.gops import solver
from service.games.gops.solver import Position

#: The shipped values are exact to 1/1024 of a point (service/games/gops/values.py); a value or a mix
#: solved over them, to a few thousandths.
TOLERANCE = 2e-3


# ---------------------------------------------------------------- the independent reference


def _sign(a: int, b: int) -> int:
    return (a > b) - (a < b)


def _round(bid: int, rival_bid: int, prize: int, pot: int, last: bool, carryover: bool) -> tuple[int, int]:
    """(seat 0's points minus seat 1's from one round, the pot it leaves) under two-seat rules."""
    stake = prize + pot
    s = _sign(bid, rival_bid)
    if s:
        return s * stake, 0
    return 0, (stake if carryover and not last else 0)


def _score(prize_order, bids, rival_bids, carryover: bool, pot: int = 0) -> int:
    """Seat 0's points minus seat 1's over whole rounds."""
    total = 0
    for r, (p, a, b) in enumerate(zip(prize_order, bids, rival_bids)):
        points, pot = _round(a, b, p, pot, r == len(prize_order) - 1, carryover)
        total += points
    return total


def sequence_form_value(hand, rival, prizes, prize=None, pot=0, carryover=False, blind=False) -> float:
    """The value to seat 0 (holding ``hand``) of the whole game from here, by the sequence-form LP.

    Both seats see the same public history (every prize turned up, every resolved bid), so an
    information set of either seat is that history; a blind round's prize joins it after the bids.
    A round with one card left in each hand has no choice and is scored directly."""
    sequences = ({(): 0}, {(): 0})  # per seat: sequence -> index
    infosets = ({}, {})  # per seat: information set -> (parent sequence index, [child sequence indices])
    payoff: dict[tuple[int, int], float] = defaultdict(float)

    def sequence(seat: int, parent: tuple, info: tuple, card: int) -> tuple:
        child = parent + ((info, card),)
        if child not in sequences[seat]:
            sequences[seat][child] = len(sequences[seat])
            infosets[seat].setdefault(info, (sequences[seat][parent], []))[1].append(sequences[seat][child])
        return child

    def walk(h0, h1, left, current, pot, history, s0, s1, chance, score):
        if not h0:
            payoff[sequences[0][s0], sequences[1][s1]] += chance * score
            return
        if current is None and not blind:  # the prize is turned up, face up
            for p in left:
                walk(h0, h1, tuple(x for x in left if x != p), p, pot, history + (("prize", p),),
                     s0, s1, chance / len(left), score)
            return
        prize_options = [current] if not blind else list(left)
        forced = len(h0) == 1
        for a in h0:
            c0 = s0 if forced else sequence(0, s0, history, a)
            for b in h1:
                c1 = s1 if forced else sequence(1, s1, history, b)
                for p in prize_options:
                    rest = left if not blind else tuple(x for x in left if x != p)
                    last = len(h0) == 1
                    points, next_pot = _round(a, b, p, pot, last, carryover)
                    walk(tuple(x for x in h0 if x != a), tuple(x for x in h1 if x != b), rest, None, next_pot,
                         history + (("bids", p, a, b),), c0, c1, chance / len(prize_options), score + points)

    walk(tuple(hand), tuple(rival), tuple(prizes), prize, pot, (), (), (), 1.0, 0)

    n0 = len(sequences[0])
    sets1 = list(infosets[1])
    q_index = {info: n0 + 1 + k for k, info in enumerate(sets1)}
    n = n0 + 1 + len(sets1)  # x (seat 0's realization plan), q_root, q per information set of seat 1
    # seat 0's realization plan: x[()] = 1; the children of an information set sum to its parent
    eq_rows, eq_cols, eq_vals, eq_rhs = [0], [0], [1.0], [1.0]
    for k, (parent, children) in enumerate(infosets[0].values(), start=1):
        eq_rows += [k] * (len(children) + 1)
        eq_cols += [parent, *children]
        eq_vals += [-1.0] + [1.0] * len(children)
        eq_rhs.append(0.0)
    # one constraint per sequence of seat 1: its q terms minus the payoff x earns against it <= 0
    n1 = len(sequences[1])
    ub: dict[tuple[int, int], float] = defaultdict(float)
    ub[0, n0] += 1.0  # q_root on the empty sequence
    for info in sets1:
        parent, children = infosets[1][info]
        ub[parent, q_index[info]] -= 1.0
        for child in children:
            ub[child, q_index[info]] += 1.0
    for (i0, i1), v in payoff.items():
        ub[i1, i0] -= v
    keys = list(ub)
    upper = sparse.csr_matrix(([ub[k] for k in keys], ([k[0] for k in keys], [k[1] for k in keys])), shape=(n1, n))
    equal = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(len(eq_rhs), n))
    objective = np.zeros(n)
    objective[n0] = -1.0
    result = linprog(objective, A_ub=upper, b_ub=np.zeros(n1), A_eq=equal, b_eq=eq_rhs,
                     bounds=[(0, None)] * n0 + [(None, None)] * (n - n0), method="highs")
    assert result.status == 0, result.message
    return -result.fun


def best_response_value(hand, rival, prizes, prize=None, pot=0, carryover=False, blind=False) -> float:
    """What seat 0 gets when it bids the solver's mix in every position and seat 1 answers each
    with its best (lowest) bid, knowing the mix — by direct recursion over the public states."""

    def worst(h0, h1, left, current, pot):
        if not h0:
            return 0.0
        if current is None and not blind:
            return sum(worst(h0, h1, tuple(x for x in left if x != p), p, pot) for p in left) / len(left)
        mix = solver.solve(Position(h0, h1, left, current, pot, carryover, blind)).mix
        assert set(mix) == set(h0) and abs(sum(mix.values()) - 1) < 1e-9
        assert all(p >= 0 for p in mix.values())
        options = [current] if not blind else list(left)
        answers = []
        for b in h1:
            outcome = 0.0
            for a, weight in mix.items():
                if weight == 0:
                    continue
                for p in options:
                    rest = left if not blind else tuple(x for x in left if x != p)
                    points, next_pot = _round(a, b, p, pot, len(h0) == 1, carryover)
                    outcome += weight * (points + worst(tuple(x for x in h0 if x != a),
                                                        tuple(x for x in h1 if x != b), rest, None, next_pot))
            answers.append(outcome / len(options))
        return min(answers)

    return worst(tuple(sorted(hand)), tuple(sorted(rival)), tuple(sorted(prizes)), prize, pot)


# ---------------------------------------------------------------- the reference's own footing


@pytest.mark.parametrize("profile", ["classic", "standard"])
def test_the_reference_scorer_agrees_with_the_referee_engine(profile):
    """Every line of play of a 3-card game, scored by the test's scorer and by the engine."""
    carryover = profile == "classic"
    for order in itertools.permutations((1, 2, 3)):
        for bids in itertools.permutations((1, 2, 3)):
            for rival_bids in itertools.permutations((1, 2, 3)):
                state = G.Gops.new("s1", G.make_rules(profile, players=2, ranks=3, prize_order="explicit",
                                                      explicit_order=order))
                for a, b in zip(bids, rival_bids):
                    state.play_bids({0: (a,), 1: (b,)})
                assert state.over
                difference = Fraction(state.game.scores[0]) - Fraction(state.game.scores[1])
                assert difference == _score(order, bids, rival_bids, carryover)


def test_the_reference_knows_a_game_solved_by_hand():
    """Hand {1, 3} against {2, 3}, the prize 5 now and 4 next.  Bidding (1 then 3) or (3 then 1)
    against (2 then 3) or (3 then 2) gives seat 0  -5, -1 / +1, -4: no saddle point, so seat 0 bids
    1 with probability 5/9 and the game is worth -21/9 to it."""
    assert sequence_form_value((1, 3), (2, 3), (4,), prize=5) == pytest.approx(-21 / 9, abs=TOLERANCE)
    decision = solver.solve(Position((1, 3), (2, 3), (4,), 5))
    assert decision.value == pytest.approx(-21 / 9, abs=TOLERANCE)
    assert decision.mix == pytest.approx({1: 5 / 9, 3: 4 / 9})


# ---------------------------------------------------------------- values


def _positions(seed: int, count: int, cards: int, top: int = 13):
    """Random positions: two hands of ``cards`` cards from 1..top and ``cards`` prizes."""
    rng = random.Random(seed)
    for _ in range(count):
        yield (tuple(sorted(rng.sample(range(1, top + 1), cards))), tuple(sorted(rng.sample(range(1, top + 1), cards))),
               tuple(rng.sample(range(1, top + 1), cards)))


def test_every_three_card_game_has_the_sequence_form_value():
    """The whole 3-card game, and every opening prize of it, in both variants."""
    for carryover in (False, True):
        hand = (1, 2, 3)
        assert solver.future_value(hand, hand, (1, 2, 3), carryover=carryover) == 0.0
        for rival in itertools.combinations(range(1, 6), 3):
            expected = sequence_form_value(hand, rival, (1, 2, 3), carryover=carryover)
            assert solver.future_value(hand, rival, (1, 2, 3), carryover=carryover) == pytest.approx(
                expected, abs=TOLERANCE)
            for prize in (1, 2, 3):
                rest = tuple(p for p in (1, 2, 3) if p != prize)
                expected = sequence_form_value(hand, rival, rest, prize=prize, carryover=carryover)
                decision = solver.solve(Position(hand, rival, rest, prize, carryover=carryover))
                assert decision.exact
                assert decision.value == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize("carryover, cards", [(False, 4), (True, 3)])
def test_positions_have_the_sequence_form_value(carryover, cards):
    """Four cards under the table's rules; three (solved on the fly) when a tie carries the pot."""
    for hand, rival, prizes in _positions(seed=4, count=3, cards=cards):
        for pot in (0, 7) if carryover else (0,):
            expected = sequence_form_value(hand, rival, prizes[1:], prize=prizes[0], pot=pot, carryover=carryover)
            decision = solver.solve(Position(hand, rival, prizes[1:], prizes[0], pot, carryover))
            assert decision.value == pytest.approx(expected, abs=TOLERANCE)


def test_blind_positions_have_the_sequence_form_value():
    for hand, rival, prizes in _positions(seed=5, count=3, cards=3):
        for carryover in (False, True):
            expected = sequence_form_value(hand, rival, prizes, carryover=carryover, blind=True)
            decision = solver.solve(Position(hand, rival, prizes, None, carryover=carryover, blind=True))
            assert decision.value == pytest.approx(expected, abs=TOLERANCE)


# ---------------------------------------------------------------- the mixes are equilibria


@pytest.mark.parametrize("carryover, cards", [(False, 4), (True, 3)])
def test_the_mixes_cannot_be_exploited_in_a_whole_game(carryover, cards):
    """Both seats bid the solver's mixes everywhere; a best response gains nothing against either
    (four cards under the table's rules, three when a tie carries the pot: where it is exact)."""
    hand = rival = prizes = tuple(range(1, cards + 1))
    assert best_response_value(hand, rival, prizes, carryover=carryover) >= -TOLERANCE
    hand, rival = ((1, 3, 5, 7), (2, 3, 4, 8)) if cards == 4 else ((1, 3, 5), (2, 3, 4))
    value = sequence_form_value(hand, rival, prizes, carryover=carryover)
    assert solver.future_value(hand, rival, prizes, carryover=carryover) == pytest.approx(value, abs=TOLERANCE)
    assert best_response_value(hand, rival, prizes, carryover=carryover) >= value - TOLERANCE
    assert -best_response_value(rival, hand, prizes, carryover=carryover) <= value + TOLERANCE


def test_the_mixes_cannot_be_exploited_in_five_card_positions():
    for hand, rival, prizes in _positions(seed=7, count=1, cards=5):
        value = solver.solve(Position(hand, rival, prizes[1:], prizes[0])).value
        assert best_response_value(hand, rival, prizes[1:], prizes[0]) >= value - TOLERANCE
        assert -best_response_value(rival, hand, prizes[1:], prizes[0]) <= value + TOLERANCE


def test_the_blind_mixes_cannot_be_exploited():
    for hand, rival, prizes in _positions(seed=8, count=2, cards=3):
        value = sequence_form_value(hand, rival, prizes, blind=True)
        assert best_response_value(hand, rival, prizes, blind=True) >= value - TOLERANCE
        assert -best_response_value(rival, hand, prizes, blind=True) <= value + TOLERANCE


# ---------------------------------------------------------------- only the order of the bid cards matters


def test_renaming_the_cards_in_order_changes_no_value():
    """The reference (which never renames) gives a position and its renamings the same value."""
    rng = random.Random(11)
    for hand, rival, prizes in _positions(seed=12, count=3, cards=3, top=6):
        values = set(hand) | set(rival)
        renamed = dict(zip(sorted(values), sorted(rng.sample(range(1, 40), len(values)))))
        hand2 = tuple(renamed[c] for c in hand)
        rival2 = tuple(renamed[c] for c in rival)
        expected = sequence_form_value(hand, rival, prizes[1:], prize=prizes[0])
        assert sequence_form_value(hand2, rival2, prizes[1:], prize=prizes[0]) == pytest.approx(expected, abs=TOLERANCE)
        assert solver.compress(hand, rival) == solver.compress(hand2, rival2)
        first = solver.solve(Position(hand, rival, prizes[1:], prizes[0]))
        second = solver.solve(Position(hand2, rival2, prizes[1:], prizes[0]))
        assert first.value == pytest.approx(expected, abs=TOLERANCE) and second.value == pytest.approx(first.value)
        assert [first.mix[c] for c in hand] == pytest.approx([second.mix[renamed[c]] for c in hand])


def test_a_card_both_seats_hold_stays_one_card_when_renamed():
    assert solver.compress((2, 7, 9), (7, 8, 13)) == ((0, 1, 3), (1, 2, 4))
    # renaming each hand on its own would lose the tie of the 7s: the values differ
    tied = sequence_form_value((2, 7), (7, 8), (3,), prize=5)
    untied = sequence_form_value((2, 7), (6, 8), (3,), prize=5)
    assert tied != pytest.approx(untied, abs=TOLERANCE)
    assert solver.solve(Position((2, 7), (7, 8), (3,), 5)).value == pytest.approx(tied, abs=TOLERANCE)


# ---------------------------------------------------------------- beyond the exact horizon


def test_a_long_position_gets_a_legal_mix_marked_inexact():
    hand = tuple(range(1, 14))
    rival = tuple(range(1, 14))
    decision = solver.solve(Position(hand, rival, tuple(range(1, 13)), 13))
    assert not decision.exact
    assert set(decision.mix) == set(hand)
    assert sum(decision.mix.values()) == pytest.approx(1.0) and min(decision.mix.values()) >= 0
    assert decision.value == pytest.approx(0.0, abs=TOLERANCE)  # the same hands: symmetric, worth nothing
    # one more card than the exact horizon: the continuation is exact, and so is the decision
    cards = solver.EXACT_CARDS + 1
    decision = solver.solve(Position(tuple(range(1, cards + 1)), tuple(range(2, cards + 2)),
                                     tuple(range(2, cards + 1)), 1))
    assert decision.exact


def test_a_position_must_be_one_a_seat_can_be_in():
    with pytest.raises(ValueError):
        Position((1, 2), (1, 2, 3), (1, 2))
    with pytest.raises(ValueError):
        Position((1, 1), (1, 2), (3,), 2)
    with pytest.raises(ValueError):
        Position((1,), (2,), (), 4, blind=True)


def test_covers_says_which_rules_the_exact_solver_applies_to():
    assert solver.covers(2, 1, 1, "shuffled", "open")
    assert solver.covers(2, 1, 1, "reported", "blind")
    assert not solver.covers(3, 1, 1, "shuffled", "open")
    assert not solver.covers(2, 2, 1, "shuffled", "open")
    assert not solver.covers(2, 1, 3, "shuffled", "open")
    assert not solver.covers(2, 1, 1, "ascending", "open")
    assert not solver.covers(2, 1, 1, "shuffled", "dealer_sees_prize")


# ---------------------------------------------------------------- the hint: GET /v1/gops/games/{id}/seats/{seat}/hint


def _hint(http, table, seat: int, token: str | None = None) -> tuple[int, dict]:
    return http.get(f"{table.base}/seats/{seat}/hint", token or table.seat_tokens[seat])


def _unseen(view) -> tuple[int, ...]:
    seen = {r for r in view["turned"] if r is not None}
    return tuple(r for r in range(1, view["rules"]["ranks"] + 1) if r not in seen)


def _assert_equilibrium_hint(hint, hand, rival, prizes, prize, pot, carryover):
    """The hint's value is the reference's, and its mix earns that value against every rival bid
    (the continuations valued by the reference)."""
    assert hint["exact"] is True
    assert [a["cards"] for a in hint["actions"]] == [[c] for c in sorted(hand)]
    assert sum(a["probability"] for a in hint["actions"]) == pytest.approx(1.0)
    expected = sequence_form_value(hand, rival, prizes, prize=prize, pot=pot, carryover=carryover)
    assert hint["value"] == pytest.approx(expected, abs=TOLERANCE)
    mix = {a["cards"][0]: a["probability"] for a in hint["actions"]}
    for b in rival:
        earned = 0.0
        for a, weight in mix.items():
            points, next_pot = _round(a, b, prize, pot, not prizes, carryover)
            rest_hand = tuple(x for x in hand if x != a)
            rest_rival = tuple(x for x in rival if x != b)
            later = sequence_form_value(rest_hand, rest_rival, prizes, pot=next_pot, carryover=carryover) if prizes else 0
            earned += weight * (points + later)
        assert earned >= expected - TOLERANCE


@pytest.mark.parametrize("profile, ranks", [("standard", 4), ("classic", 3)])
def test_the_hint_is_the_equilibrium_of_the_seats_view(http, profile, ranks):
    carryover = profile == "classic"
    table = GopsGame.create(http, {"profile": profile, "options": {"ranks": ranks}})
    for _ in range(2):  # round 1, then round 2 after a tied round (its pot carried under classic)
        view = table.seat_view(0)
        assert view["phase"] == "commit"
        hints = []
        for seat in (0, 1):
            status, hint = _hint(http, table, seat)
            assert status == 200, hint
            hints.append(hint)
            _assert_equilibrium_hint(hint, tuple(view["hands"][seat]), tuple(view["hands"][1 - seat]),
                                     _unseen(view), view["row"][0], sum(view["carry"]), carryover)
        assert hints[0]["value"] == pytest.approx(-hints[1]["value"], abs=TOLERANCE)
        card = min(set(view["hands"][0]) & set(view["hands"][1]))
        table.play_round({0: [card], 1: [card]})  # a tie
    assert sorted(table.seat_view(0)["carry"]) == (sorted([view["row"][0], *view["carry"]]) if carryover else [])


def test_a_blind_hint_is_the_equilibrium_of_bidding_unseen(http):
    table = GopsGame.create(http, {"profile": "standard", "options": {"ranks": 3, "visibility": "blind"}})
    view = table.seat_view(0)
    assert view["row"] == [None]
    status, hint = _hint(http, table, 0)
    assert status == 200 and hint["exact"]
    assert hint["value"] == pytest.approx(0.0, abs=TOLERANCE)  # the same hands
    table.play_round({0: [3], 1: [1]})
    view = table.seat_view(1)
    status, hint = _hint(http, table, 1)
    assert status == 200, hint
    expected = sequence_form_value(tuple(view["hands"][1]), tuple(view["hands"][0]), _unseen(view), blind=True)
    assert hint["value"] == pytest.approx(expected, abs=TOLERANCE)
    mix = {a["cards"][0]: a["probability"] for a in hint["actions"]}
    # the mix is unexploitable: a best response of seat 0 against it (seat 1's view swapped back)
    hand, rival = tuple(view["hands"][1]), tuple(view["hands"][0])
    assert mix == pytest.approx(solver.solve(Position(hand, rival, _unseen(view), blind=True)).mix)
    assert best_response_value(hand, rival, _unseen(view), blind=True) >= expected - TOLERANCE


def test_a_hint_is_refused_outside_the_commit_phase_and_to_other_seats(http):
    table = GopsGame.create(http, {"profile": "standard", "options": {"ranks": 4}})
    status, problem = _hint(http, table, 1, token=table.seat_tokens[0])
    assert status == 403 and problem["code"] == "not_your_seat"
    status, problem = http.get(f"{table.base}/seats/0/hint")
    assert status == 401
    for seat in (0, 1):
        assert table.commit(seat, 1, [2], new_salt())[0] == 200
    status, problem = _hint(http, table, 0)
    assert status == 409 and problem["code"] == "hint_unavailable" and "commit phase" in problem["detail"]


def test_rules_the_solver_does_not_cover_get_the_level_8_bot_s_hint(http):
    from service.games.gops import bot, heuristics

    for options in ({"players": 3}, {"bid_cards": 2}, {"open_prizes": 3}, {"prize_order": "ascending"},
                    {"players": 3, "visibility": "dealer_sees_prize", "dealer_seat": 2}):
        table = GopsGame.create(http, {"profile": "standard", "options": {"ranks": 6, **options}})
        status, hint = _hint(http, table, 0)
        assert status == 200, (options, hint)
        view = table.seat_view(0)
        assert hint["exact"] is False
        rules = view["rules"]
        if rules["players"] == 2 and rules["bid_cards"] == 1 and rules["open_prizes"] == 1:
            assert hint["value"] == pytest.approx(solver.solve(solver.position_of(view)).value)
        else:
            assert hint["value"] == pytest.approx(heuristics.random_play_value(view))
        assert hint["actions"] == [{"cards": list(cards), "probability": pytest.approx(p)}
                                   for cards, p in bot.policy(view, 8)]
        assert sum(a["probability"] for a in hint["actions"]) == pytest.approx(1.0)
        k = view["rules"]["bid_cards"]
        assert all(len(set(a["cards"])) == k and set(a["cards"]) <= set(view["hands"][0]) for a in hint["actions"])


def test_with_three_seats_the_hint_s_value_is_the_seat_s_expected_points():
    """Three seats holding the same cards at the start, a tied pot carried: by symmetry each can
    expect a third of every point in the game."""
    state = G.Gops.new("t3", G.make_rules("standard", players=3, resolution="highest_unique", unclaimed="carryover"))
    state.apply(G.DealPrizes(tuple(range(13, 0, -1)), "ab" * 32))
    for seat in range(3):
        hint = solver.hint(G.view(state, seat))
        assert hint["exact"] is False
        assert hint["value"] == pytest.approx(91 / 3)
    state.play_bids({0: (13,), 1: (12,), 2: (1,)})  # seat 0 spent its king, seat 1 its queen, seat 2 its ace
    values = [solver.hint(G.view(state, seat))["value"] for seat in range(3)]
    assert values[0] < values[1] < 78 / 3 < values[2] and sum(values) == pytest.approx(78)


def test_a_fixed_prize_order_gets_the_solver_s_estimate_marked_inexact():
    state = G.Gops.new("f1", G.make_rules("standard", ranks=5, prize_order="ascending"))
    state.play_bids({0: (5,), 1: (1,)})
    view = G.view(state, 1)
    hint = solver.hint(view)
    assert hint["exact"] is False  # the later prizes are known in order: the solver's shuffled order is a model
    assert hint["value"] == pytest.approx(solver.solve(Position((2, 3, 4, 5), (1, 2, 3, 4), (3, 4, 5), 2)).value)


def _dealt(order, visibility="open"):
    state = G.Gops.new("h1", G.make_rules("standard", ranks=len(order), visibility=visibility))
    state.apply(G.DealPrizes(tuple(order), "ab" * 32))
    return state


def test_what_the_seat_cannot_see_changes_no_hint():
    """Two states that differ only in the order of the prizes still face down, in the rival's
    committed bid, or (blind) in the prize in the middle give the seat the same hint; a prize it can
    see does change it."""
    first, second = _dealt((3, 1, 4, 2)), _dealt((3, 2, 1, 4))
    for seat, state, bid in ((1, first, (4,)), (1, second, (1,))):  # the rival (seat 1) commits differently
        state.apply(G.Commit(seat, 1, commitments.bid_commitment("h1", 1, seat, bid, "cd" * 32)), seat=seat)
    assert solver.hint(G.view(first, 0)) == solver.hint(G.view(second, 0))
    assert solver.hint(G.view(first, 0))["exact"]
    blind_first, blind_second = _dealt((3, 1, 4, 2), "blind"), _dealt((1, 3, 4, 2), "blind")
    assert solver.hint(G.view(blind_first, 0)) == solver.hint(G.view(blind_second, 0))
    blind_third = _dealt((3, 2, 4, 1), "blind")  # the same first prize, another hidden one next
    for state in (blind_first, blind_third):
        state.play_bids({0: (4,), 1: (2,)})
    assert solver.hint(G.view(blind_first, 1)) == solver.hint(G.view(blind_third, 1))
    # what the seat sees matters: the prize up, and (blind) which prize the last round was for
    assert solver.hint(G.view(_dealt((3, 1, 4, 2)), 0)) != solver.hint(G.view(_dealt((4, 1, 3, 2)), 0))
    other = _dealt((2, 1, 4, 3), "blind")
    other.play_bids({0: (4,), 1: (2,)})
    assert solver.hint(G.view(other, 1)) != solver.hint(G.view(blind_first, 1))


def test_the_hint_schema_states_the_solver_s_horizon():
    """The spec says when a hint is exact; the schema spells the number (it does not import the
    solver, whose numpy and scipy load with the first hint only): it must be the solver's."""
    from service.api.gops_schemas import GopsHintSchema

    description = GopsHintSchema().fields["exact"].metadata["description"]
    assert f"at most {solver.EXACT_CARDS + 1} cards are left" in description


def test_serving_does_not_load_the_solver_until_a_hint_is_asked():
    import subprocess
    import sys

    code = ("import sys; from service.web.app import create_app; "
            "create_app({'REDIS_URL': 'redis://127.0.0.1:1/0'}); print('scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
