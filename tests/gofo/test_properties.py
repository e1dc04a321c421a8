"""Random legal play (hypothesis): chips and cards conserved, never stuck, always ends,
secrecy of every seat's view, JSON round-trip and transcript replay."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.gofo import Table, chance_action, hand_value, replay, view
from service.games.gofo.cards import DECK, is_card
from service.games.gofo.hand import Action, Declare, LegalAction, Open, Show
from service.games.gofo.table import record

from support.sweep_size import sized

from .helpers import random_action

HISTORY = ("discards", "kept", "result", "canto")
SETTINGS = settings(max_examples=sized(300), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def cards_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj} if is_card(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()


def check_secrecy(table: Table) -> None:
    hand = table.hand
    assert hand is not None
    public = view(table, None)
    public_history = {k: public["hand"].get(k) for k in HISTORY}, public["table"]
    assert cards_in({k: v for k, v in public["hand"].items() if k not in HISTORY}) == set()
    for seat in range(table.n):
        v = json.loads(json.dumps(view(table, seat)))
        own = set(hand.hands[seat]) if hand.looked[seat] else set(hand.hands[seat][2:])
        if hand.status[seat] not in ("in", "pending"):
            own = set()
        current = {k: val for k, val in v["hand"].items() if k not in HISTORY}
        assert cards_in(current) <= own, (seat, cards_in(current) - own)
        # history (face-up discards, kept cards, canto, past results) is the same for everyone
        assert ({k: v["hand"].get(k) for k in HISTORY}, v["table"]) == public_history


def canto_action(table: Table, seat: int, plan: dict[int, list[str]], rng: random.Random
                 ) -> Action:
    """Tabletop canto: each live player holds a planned hand; show it or declare its value."""
    hand = table.hand
    assert hand is not None and hand.canto is not None
    if not plan:
        taken = set(hand.known_pile) | {c for k in hand.kept for c in k}
        free = [c for c in DECK if c not in taken]
        rng.shuffle(free)
        for i, s in enumerate(hand.live()):
            plan[s] = free[5 * i:5 * i + 5]
    if hand.canto.stage == "declare" and rng.random() < 0.5:
        return Declare(hand_value(plan[seat]))
    return Show(tuple(plan[seat]))


def play_table(seed: int, seats: int, mode: str, hands: int, *, secrecy: bool = False
               ) -> tuple[Table, list[dict[str, Any]], dict[str, Any]]:
    rng = random.Random(seed)
    refill = rng.choice([1, 2, 5])
    options = {"seats": seats, "refill": refill, "caja": rng.choice([6, 15, 40]) * refill,
               "initial_front": rng.choice([1, 2, 3]) * refill, "mode": mode}
    table = Table.new(options)
    caja = table.options.caja
    start_total = sum(table.fronts) + sum(table.behinds)
    transcript: list[dict[str, Any]] = []
    plan: dict[int, list[str]] = {}
    steps = 0
    while table.hand_number <= hands:
        steps += 1
        assert steps < 3000 * hands, "stuck"
        request = table.chance_request()
        if request is not None:
            assert table.to_act() is None
            action = chance_action(request, rng)
            seat = None
        else:
            seat = table.to_act()
            assert seat is not None, "nobody to act and no chance: stuck"
            legal = table.legal_actions(seat)
            kinds = {a.type for a in legal} - {"look", "reshuffle"}
            assert kinds, f"seat {seat} to act with nothing legal"
            if table.hand is not None and table.hand.phase == "canto":
                action = canto_action(table, seat, plan, rng)
            else:
                if rng.random() < 0.05:
                    check_ranges(table, seat, legal)
                if rng.random() < 0.05:
                    check_refusal_changes_nothing(table, rng)
                action = random_action(legal, rng)
            if any(a.type == "look" for a in legal) and rng.random() < 0.1:
                seat = next(s for s in range(table.n) if any(
                    a.type == "look" for a in table.legal_actions(s)))
                action = random_action([LegalAction("look")], rng)
        number = table.hand_number
        table.apply(action, seat=seat)
        transcript.append(record(seat, action))
        if table.hand_number != number and number > 0:
            plan = {}
            ended = table.last_result
            assert ended is not None
            assert sum(ended.result.payouts) == sum(p.amount for p in ended.result.pots)
        # chips: nothing created or lost; only new cajas add chips
        total = sum(table.fronts) + sum(table.behinds)
        assert total == start_total + (sum(table.cajas) - seats) * caja
        hand = table.hand
        if hand is not None:
            assert hand.stacks == table.fronts
            assert all(0 <= c <= s for c, s in zip(hand.committed, hand.stacks))
            if mode == "dealt" and hand.phase != "shuffle":
                everything = hand.stock + hand.pile + [c for h in hand.hands for c in h] \
                    + [c for k in hand.kept for c in k]
                assert sorted(everything) == sorted(DECK)
                for s in hand.live():
                    if hand.phase in ("speaking", "discard", "canto", "betting") \
                            and hand.round > 0 and not (hand.phase == "discard"):
                        assert len(hand.hands[s]) == 5
            if secrecy and mode == "dealt" and hand.phase != "shuffle":
                check_secrecy(table)
    return table, transcript, options


def check_refusal_changes_nothing(table: Table, rng: random.Random) -> None:
    """A refused move (any kind, any seat) raises and leaves the table exactly as it was."""
    from service.errors import RefereeError
    from service.games.gofo.actions import CODEC

    kind = rng.choice(sorted(CODEC.types))
    cls = CODEC.types[kind]
    samples = {"amount": rng.choice([0, 1, 3, 500]), "points": rng.choice([5, 20, 31]),
               "blind": rng.random() < 0.5, "count": rng.choice([None, 0, 6]),
               "cards": tuple(rng.sample(DECK, rng.choice([0, 2, 5]))), "order": None,
               "front": 30}  # inaugurate: nothing is pending at these tables (the draw above is unchanged)
    action = cls(**{f.name: samples[f.name] for f in dataclasses.fields(cls)})
    seat = rng.choice([None, *range(table.n)])
    before = table.to_dict()
    try:
        table.verify(action, seat=seat)
    except RefereeError as refused:
        try:
            table.apply(action, seat=seat)
        except RefereeError as again:
            assert again.code == refused.code
        else:
            raise AssertionError(f"verify refused {action} ({refused.code}) but apply took it")
        assert table.to_dict() == before


def check_ranges(table: Table, seat: int, legal: list[LegalAction]) -> None:
    """The advertised bet ranges are exact: both ends legal, one beyond refused."""
    from service.games.gofo.hand import Corta, Raise, Refiche
    kinds = {"open": Open, "raise": Raise, "refiche": Refiche, "corta": Corta}
    for a in legal:
        if a.type in kinds:
            cls = kinds[a.type]
            assert a.min is not None and a.max is not None and 1 <= a.min <= a.max
            assert table.hand.is_legal(cls(a.min), seat=seat) and table.hand.is_legal(cls(a.max), seat=seat)
            assert not table.hand.is_legal(cls(a.max + 1), seat=seat)
            if a.min > 1 and a.min - 1 != a.max:
                assert not table.hand.is_legal(cls(a.min - 1), seat=seat)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 6),
       mode=st.sampled_from(["dealt", "tabletop"]))
def test_random_play_conserves_chips_and_always_ends(seed: int, seats: int, mode: str) -> None:
    play_table(seed, seats, mode, hands=6)


@settings(max_examples=sized(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 6))
def test_secrecy_of_every_view(seed: int, seats: int) -> None:
    play_table(seed, seats, "dealt", hands=3, secrecy=True)


@settings(max_examples=sized(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 6),
       mode=st.sampled_from(["dealt", "tabletop"]))
def test_round_trip_and_replay(seed: int, seats: int, mode: str) -> None:
    table, transcript, options = play_table(seed, seats, mode, hands=3)
    data = json.loads(json.dumps(table.to_dict()))
    assert data == table.to_dict()
    assert Table.from_dict(data).to_dict() == data
    transcript = json.loads(json.dumps(transcript))
    assert replay(options, transcript).to_dict() == data
