"""The Gofo hint: from the seat's view alone, the hand's value, the prospects of the discards level 8
weighs (checked against an exact count over the unseen cards), the pot odds and the chance to win
level 8 weighed its move on."""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from service.errors import IllegalAction
from service.games import entropy
from service.games.gofo import bot, observer, referee, strength
from service.games.gofo.actions import action_to_dict
from service.games.gofo.hint import DISCARD_SAMPLES, WIN_SAMPLES, hint, view_seed
from service.games.gofo.value import hand_value
from tests.gofo.helpers import hidden_twin

AT = 1_000.0


def _table_at(phase: str, seed: int, final: bool = False):
    """A 3-seat table played by level-5 bots for seats 1 and 2 and a scripted seat 0 until seat 0
    is to act in ``phase`` (``final``: the last discard, after a corte)."""
    with entropy.seeded(seed):
        doc, _ = referee.create("hint", {"seats": 3}, AT)
    table = referee.load(doc)
    rng = random.Random(seed)
    for _ in range(200):
        seat = table.to_act()
        if seat is None:
            return None
        view = observer.record_view(doc, 1, seat, table)
        hand = view["hand"]
        if seat == 0 and hand["phase"] == phase and (not final or hand["final_discard"]):
            return doc, table, view
        legal = {a["type"] for a in hand["legal_actions"]}
        if seat == 0 and "corta" in legal and final:
            move = bot.Corta(1)
        elif seat == 0 and "decline" in legal:
            move = bot.Enter(blind=False)
        elif "no_ver" in legal:
            move = bot.Ver()
        else:
            move = bot.act(view, 5, rng)
        if table.hand_number > 1:
            return None
        table.apply(move, seat=seat)
    return None


def _find(phase: str, final: bool = False):
    for seed in range(50):
        found = _table_at(phase, seed, final)
        if found is not None:
            return found
    raise AssertionError(f"no table reached {phase}")


def test_every_discard_of_the_last_draw_matches_an_exact_count():
    """At the last discard, throwing k cards and drawing k of the unseen cards: the expected value
    and the chance to improve, counted exactly over every draw, within sampling error (twice the
    stated margin, and at least 1 point / 0.12).  The throws listed are level 8's candidates, the
    suggestion the first of them."""
    _, _, view = _find("discard", final=True)
    answer = hint(view, random.Random(1))
    mine = view["hand"]["my_cards"]
    assert answer["value"] == hand_value(mine)
    legal = next(a for a in view["hand"]["legal_actions"] if a["type"] == "discard")
    candidates = [t for t in strength.candidate_discards(legal["cards"]) if len(t) <= legal["max"]]
    assert sorted(tuple(d["cards"]) for d in answer["discards"]) == sorted(candidates)
    assert (answer["suggestion"]["type"], answer["suggestion"]["cards"]) == ("discard", answer["discards"][0]["cards"])
    values = [d["expected_value"] for d in answer["discards"]]
    assert values == sorted(values, reverse=True)
    unseen = [c for c in strength.unseen_cards(view)]
    assert not set(unseen) & set(mine)
    for option in answer["discards"]:
        throw = option["cards"]
        kept = [c for c in mine if c not in throw]
        draws = list(itertools.combinations(unseen, len(throw)))
        finals = [hand_value(kept + list(d)) for d in draws]
        exact = sum(finals) / len(finals)
        improve = sum(f > answer["value"] for f in finals) / len(finals)
        assert abs(option["expected_value"] - exact) < max(1.0, 2 * option["expected_value_margin"]), (throw, option, exact)
        assert abs(option["improve"] - improve) < max(0.12, 2 * option["improve_margin"]), (throw, option, improve)
    stand = next(d for d in answer["discards"] if d["cards"] == [])
    assert stand == {"cards": [], "expected_value": float(answer["value"]), "expected_value_margin": 0.0,
                     "improve": 0.0, "improve_margin": 0.0}


def test_a_bet_hint_gives_the_pot_odds():
    _, _, view = _find("betting")
    answer = hint(view, random.Random(2))
    bet = answer["bet"]
    hand = view["hand"]
    me = hand["seat"]
    assert bet["to_call"] == min(hand["resto"][me], hand["bet"]["level"] - hand["committed"][me]) > 0
    assert bet["pot"] == sum(hand["committed"])
    assert bet["pot_odds"] == pytest.approx(bet["to_call"] / (bet["pot"] + bet["to_call"]), abs=1e-4)
    assert 0.0 <= bet["win_chance"] <= 1.0 and bet["rivals"] >= 1
    assert answer["suggestion"]["type"] in ("ver", "no_ver")


def test_no_hint_for_a_seat_not_to_act():
    doc, table, view = _find("speaking")
    other = observer.record_view(doc, 1, 1, table)
    with pytest.raises(IllegalAction) as caught:
        hint(other, random.Random(0))
    assert caught.value.code == "hint_unavailable"
    assert hint(view, random.Random(0))["bet"]["to_call"] == 0


@pytest.mark.parametrize("phase", ["entering", "speaking", "betting", "discard"])
def test_the_same_position_gets_the_same_hint_whatever_the_seat_cannot_see(phase):
    """The samples come from a seed derived from the seat's view, never from entropy: asked again,
    under another entropy, from a JSON copy of the view, or at a twin table whose hidden cards lie
    elsewhere, the seat gets the same answer."""
    doc, table, view = _find(phase)
    with entropy.seeded(1):
        answer = hint(view)
    with entropy.seeded(2):
        assert hint(view) == answer
    assert hint(json.loads(json.dumps(view))) == answer
    for k in range(3):
        twin = hidden_twin(table, 0, random.Random(k))
        assert twin.to_dict()["hand"]["hands"] != table.to_dict()["hand"]["hands"]
        twin_view = observer.record_view(doc, 1, 0, twin)
        assert hint(twin_view) == answer
    elsewhere = copy.deepcopy(view)
    elsewhere["hand"]["committed"][1] += 1  # another position (as the seat sees it): another seed
    assert view_seed(elsewhere).random() != view_seed(view).random()


def test_every_estimate_says_its_margin():
    """win_chance, expected_value and improve are sampled: each comes with the half-width of its
    95 % interval, and at the last discard the exact values mostly fall inside those intervals."""
    _, _, view = _find("betting")
    bet = hint(view)["bet"]
    p = bet["win_chance"]
    most = bot.LEVELS[max(bot.LEVELS)].samples  # sampled at most this many times: the margin is no narrower
    assert bet["win_chance_margin"] >= 1.96 * (max(p * (1 - p), 1 / most) / most) ** 0.5 - 1e-4
    assert 0 < bet["win_chance_margin"] < 0.35
    _, _, view = _find("discard", final=True)
    answer = hint(view)
    mine = view["hand"]["my_cards"]
    unseen = strength.unseen_cards(view)
    inside = 0
    for option in answer["discards"]:
        assert option["expected_value_margin"] >= 0 and option["improve_margin"] >= 0
        if not option["cards"]:
            assert option["expected_value_margin"] == option["improve_margin"] == 0.0  # nothing left to chance
            inside += 1
            continue
        assert option["expected_value_margin"] > 0
        kept = [c for c in mine if c not in option["cards"]]
        finals = [hand_value(kept + list(d)) for d in itertools.combinations(unseen, len(option["cards"]))]
        exact = sum(finals) / len(finals)
        inside += abs(option["expected_value"] - exact) <= option["expected_value_margin"]
    assert inside >= 0.8 * len(answer["discards"])


@pytest.mark.parametrize("phase", ["entering", "speaking", "betting"])
def test_a_bet_hint_is_the_chance_level_eight_weighed_its_move_on(phase):
    """The win_chance and the suggestion come from one level-8 decision on the hint's seeded samples:
    they cannot disagree, and the margin is that of the samples the decision is worth.  Where level 8
    weighed nothing (it looks at its cards first), WIN_SAMPLES plain samples after it."""
    _, _, view = _find(phase)
    answer = hint(view)
    rng = view_seed(view)
    decision = bot.decide(view, max(bot.LEVELS), rng)
    assert answer["suggestion"] == action_to_dict(decision.action)
    chance = decision.chance
    if chance is None:
        assert decision.action == bot.Look()
        chance = strength.win_chance(view, WIN_SAMPLES, rng)
        assert chance.samples == WIN_SAMPLES
    assert 0 < chance.samples <= max(WIN_SAMPLES, bot.LEVELS[max(bot.LEVELS)].samples)
    assert answer["bet"]["win_chance"] == round(chance.share, 4)
    p, n = chance
    assert answer["bet"]["win_chance_margin"] == pytest.approx(1.96 * (max(p * (1 - p), 1 / n) / n) ** 0.5, abs=1e-4)


def test_a_discard_hint_weighs_each_throw_on_its_stated_samples():
    _, _, view = _find("discard")
    answer = hint(view)
    sampled = [d for d in answer["discards"] if d["expected_value_margin"]]
    assert sampled, answer
    for option in sampled:
        assert option["improve_margin"] >= 1.96 * (1 / DISCARD_SAMPLES) - 1e-4
