"""Helpers shared by the Gofo tests: stacked decks, scripted play, a random legal player."""

from __future__ import annotations

import random
from typing import Any, Iterable

from service.games.gofo import observer
from service.games.gofo.cards import DECK
from service.games.gofo.table import Table
from service.games.gofo.hand import (
    Action, Corta, Decline, Discard, Enter, HandState, LegalAction, Look, NoVer, Open, Pass,
    Raise, Refiche, Reshuffle, Shuffle, Ver, Voy,
)


def stacked_order(firsts: list[list[str]], thirds: list[list[str]] | None = None,
                  rest: Iterable[str] | None = None) -> tuple[str, ...]:
    """A deck order giving player i (in dealing order from mano) ``firsts[i]`` (2 cards) and,
    at the completion (one card at a time), ``thirds[i]`` (3 cards); then ``rest``."""
    order: list[str] = [c for two in firsts for c in two]
    if thirds:
        for k in range(3):
            order += [three[k] for three in thirds]
    used = set(order)
    tail = [c for c in (rest if rest is not None else DECK) if c not in used]
    tail += [c for c in DECK if c not in used and c not in tail]
    order += tail
    assert sorted(order) == sorted(DECK), "not a permutation"
    return tuple(order)


def dealt_hand(stacks: list[int], dealer: int = 0, order: tuple[str, ...] | None = None,
               seed: int = 0) -> HandState:
    """A dealt-mode hand after the shuffle."""
    hand = HandState.new("dealt", dealer, stacks)
    if order is None:
        order = tuple(random.Random(seed).sample(DECK, len(DECK)))
    hand.apply(Shuffle(order))
    return hand


def play(hand: Any, *moves: tuple[int | None, Action]) -> Any:
    """Apply moves in order, in place (works for HandState and Table); returns the same state."""
    for seat, action in moves:
        hand.apply(action, seat=seat)
    return hand


# keep most random hands going to the canto: folding and declining are rarer than going on
WEIGHTS = {"enter": 5, "decline": 1, "ver": 6, "no_ver": 1, "voy": 4, "corta": 1, "pass": 4,
           "raise": 1, "refiche": 1}


def random_action(legal: list[LegalAction], rng: random.Random, *, look: bool = True) -> Action:
    """A random concrete action among the legal ones (amounts favour the extremes)."""
    if any(a.type == "reshuffle" for a in legal) and rng.random() < 0.1:
        return Reshuffle()  # tabletop: the dealer reports the pile was shuffled back
    choices = [a for a in legal if a.type not in ("look", "reshuffle")]
    if look and any(a.type == "look" for a in legal) and (not choices or rng.random() < 0.2):
        return Look()
    a = rng.choices(choices, weights=[WEIGHTS.get(c.type, 1) for c in choices])[0]
    t = a.type
    if t == "open":
        return Open(rng.choice([a.min, a.max, rng.randint(a.min, a.max)]))
    if t == "enter":
        return Enter(bool(a.blind))
    if t == "decline":
        return Decline()
    if t in ("raise", "refiche", "corta"):
        assert a.min is not None and a.max is not None
        amount = rng.choice([a.min, a.max, rng.randint(a.min, a.max)])
        return {"raise": Raise, "refiche": Refiche, "corta": Corta}[t](amount)
    if t == "pass":
        return Pass()
    if t == "ver":
        return Ver()
    if t == "no_ver":
        return NoVer()
    if t == "voy":
        return Voy()
    if t == "discard":
        assert a.max is not None
        k = rng.choice([0, a.max, rng.randint(0, a.max)])
        if a.cards is not None:
            return Discard(tuple(rng.sample(list(a.cards), min(k, len(a.cards)))))
        return Discard(count=k)
    raise AssertionError(f"no random choice for {t}")


def hidden_twin(table: Table, seat: int, rng: random.Random) -> Table:
    """The same table with the cards ``seat`` cannot see (other seats' hands, the stock, the pile)
    dealt among those places differently."""
    data = table.to_dict()
    hand = data["hand"]
    visible = set(observer.visible_cards(table.hand, seat))
    places = [("hands", s) for s in range(table.n) if s != seat] + [("stock", None), ("pile", None)]
    hidden = [c for kind, s in places for c in (hand[kind][s] if s is not None else hand[kind]) if c not in visible]
    own_hidden = [c for c in hand["hands"][seat] if c not in visible]  # the seat's cards it has not looked at
    pool = hidden + own_hidden
    rng.shuffle(pool)
    it = iter(pool)
    for kind, s in places:
        if s is None:
            hand[kind] = [next(it) for _ in hand[kind]]
        else:
            hand[kind][s] = [next(it) for _ in hand[kind][s]]
    hand["hands"][seat] = [c if c in visible else next(it) for c in hand["hands"][seat]]
    return Table.from_dict(data)
