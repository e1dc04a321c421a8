"""How good a seat's Gofo hand is, from its seat's view alone: the Monte-Carlo estimates the bot
(:mod:`service.games.gofo.bot`) and the hint (:mod:`service.games.gofo.hint`) share.

Everything here reads a seat's view (:func:`service.games.gofo.observer.record_view`) and draws
from the ``rng`` it is given; nothing else.  The model: every rival still in holds five of the cards
the seat has not seen (:func:`unseen_cards`); every hand draws :func:`draws_left` more times, keeping
its best suit (:func:`greedy_keep`); the highest value wins, ties to the seat nearer to mano
(``docs/bots.md``, Gofo levels).
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Sequence

from service.games.gofo.cards import DECK, card_suit, card_value, sort_cards
from service.games.gofo.rules import SPEAKING_ROUNDS

#: Discards a model hand still makes are counted up to this many (a corte usually ends the drawing
#: early, and later draws matter less).
DRAW_HORIZON = 2

_SUIT = {card: "oceb".index(card_suit(card)) for card in DECK}
_VALUE = {card: card_value(card) for card in DECK}


def value(cards: Iterable[str]) -> int:
    """The value of a hand (the best suit, at most four of its cards counted); any number of cards."""
    sums = [[], [], [], []]
    for card in cards:
        sums[_SUIT[card]].append(_VALUE[card])
    best = 0
    for values in sums:
        if len(values) > 4:
            values = sorted(values, reverse=True)[:4]
        total = sum(values)
        if total > best:
            best = total
    return best


def greedy_keep(cards: Sequence[str]) -> list[str]:
    """The cards a model hand keeps before drawing: those of its best suit (the four highest at most)."""
    by_suit: list[list[str]] = [[], [], [], []]
    for card in cards:
        by_suit[_SUIT[card]].append(card)
    best: list[str] = []
    best_key = (-1, -1)
    for suited in by_suit:
        suited.sort(key=_VALUE.__getitem__, reverse=True)
        kept = suited[:4]
        key = (sum(_VALUE[c] for c in kept), len(kept))
        if key > best_key:
            best, best_key = kept, key
    return best


# ------------------------------------------------------------------ reading the view


def hand_of(view: dict[str, Any]) -> dict[str, Any]:
    hand = view.get("hand")
    if hand is None:
        raise ValueError("no hand in progress")
    return hand


def my_cards(view: dict[str, Any]) -> list[str]:
    return list(hand_of(view).get("my_cards") or [])


def unseen_cards(view: dict[str, Any]) -> list[str]:
    """The cards the seat cannot place: not its own visible ones, not thrown face up this hand, not
    kept to anyone's right (in deck order)."""
    hand = hand_of(view)
    seen = set(hand.get("my_cards") or [])
    for record in hand.get("discards") or []:
        seen.update(record.get("cards") or [])
    for kept in hand.get("kept") or []:
        seen.update(kept)
    return [c for c in DECK if c not in seen]


def rivals(view: dict[str, Any]) -> list[int]:
    """The other seats that can still win this hand: in, or still to decide whether to enter."""
    hand = hand_of(view)
    me = hand["seat"]
    return [s for s, status in enumerate(hand["status"]) if s != me and status in ("in", "pending")]


def draws_left(view: dict[str, Any], *, after_corte: bool | None = None) -> int:
    """How many more discards the seat's hand makes (at most :data:`DRAW_HORIZON`): one after a corte
    (``after_corte`` asks "what if there were a corte now"), else one per speaking round left."""
    hand = hand_of(view)
    phase = hand["phase"]
    if phase in ("canto", "over"):
        return 0
    corte = hand.get("after_corte") if after_corte is None else after_corte
    if corte or hand.get("final_discard"):
        return 1
    left = SPEAKING_ROUNDS - (hand.get("round") or 0) + (phase in ("discard", "speaking"))
    return max(1, min(DRAW_HORIZON, left))


def distance(view: dict[str, Any], seat: int) -> int:
    hand = hand_of(view)
    return (seat - hand["mano"]) % len(hand["status"])


# ------------------------------------------------------------------ the estimates


def _finish(kept: list[str], pool: list[str], at: int, draws: int) -> tuple[list[str], int]:
    """Fill ``kept`` up to five from ``pool[at:]`` and draw ``draws`` times keeping the best suit;
    the final hand and the next unused position of ``pool``."""
    cards = kept + pool[at:at + 5 - len(kept)]
    at += 5 - len(kept)
    for _ in range(draws):
        keep = greedy_keep(cards)
        need = 5 - len(keep)
        if at + need > len(pool):
            break
        cards = keep + pool[at:at + need]
        at += need
    return cards, at


def win_chance(view: dict[str, Any], samples: int, rng: random.Random, *, draws: int | None = None,
               opponents: Sequence[int] | None = None) -> float:
    """The chance that the seat's hand ends best among the seats still able to win (``opponents``:
    those seats; default :func:`rivals`), sampled ``samples`` times.  ``draws``: the discards every
    hand still makes (default :func:`draws_left`)."""
    hand = hand_of(view)
    me = hand["seat"]
    others = list(rivals(view) if opponents is None else opponents)
    if not others:
        return 1.0
    if draws is None:
        draws = draws_left(view)
    mine = my_cards(view)
    pool = unseen_cards(view)
    my_distance = distance(view, me)
    their_distance = [distance(view, s) for s in others]
    wins = 0
    for _ in range(samples):
        deck = pool[:]
        rng.shuffle(deck)
        at = 5 * len(others)
        my_hand, at = _finish(mine, deck, at, 0)
        hands = [my_hand] + [deck[5 * k:5 * k + 5] for k in range(len(others))]  # mine first
        for _ in range(draws):
            for k, cards in enumerate(hands):
                keep = greedy_keep(cards)
                need = 5 - len(keep)
                if at + need <= len(deck):
                    hands[k] = keep + deck[at:at + need]
                    at += need
        best = (value(hands[0]), -my_distance)  # equal values go to the seat nearer to mano
        wins += all((value(cards), -dist) < best for cards, dist in zip(hands[1:], their_distance))
    return wins / samples if samples else 0.0


def discard_outcomes(view: dict[str, Any], throws: Sequence[Sequence[str]], samples: int, rng: random.Random,
                     draws: int | None = None) -> list[tuple[float, float]]:
    """For each set of cards to throw now (``throws``): the expected value of the hand after this
    draw and the later ones (kept greedily, :func:`greedy_keep`), and the chance it ends above the
    value held now.  Every option is weighed on the same ``samples`` sampled orders of the unseen
    cards, so the options' differences are not sampling noise."""
    mine = my_cards(view)
    pool = unseen_cards(view)
    now = value(mine)
    later = max(0, (draws_left(view) if draws is None else draws) - 1)
    decks = []
    for _ in range(samples):
        deck = pool[:]
        rng.shuffle(deck)
        decks.append(deck)
    out = []
    for throw in throws:
        if not throw and not later:
            out.append((float(now), 0.0))
            continue
        kept = [c for c in mine if c not in throw]
        total = better = 0
        for deck in decks:
            cards, _at = _finish(kept + deck[:len(throw)], deck, len(throw), later)
            final = value(cards)
            total += final
            better += final > now
        out.append((total / samples, better / samples) if samples else (float(now), 0.0))
    return out


def candidate_discards(cards: Sequence[str]) -> list[tuple[str, ...]]:
    """The discards worth weighing: for each suit held, keep its k highest cards (k = 1 … 4) and
    throw the rest; stand pat; throw everything.  In deck order, no repeats."""
    options: list[tuple[str, ...]] = [()]
    by_suit: dict[int, list[str]] = {}
    for card in cards:
        by_suit.setdefault(_SUIT[card], []).append(card)
    for suited in by_suit.values():
        suited.sort(key=_VALUE.__getitem__, reverse=True)
        for k in range(1, min(4, len(suited)) + 1):
            keep = set(suited[:k])
            options.append(tuple(sort_cards(c for c in cards if c not in keep)))
    options.append(tuple(sort_cards(cards)))
    seen: set[tuple[str, ...]] = set()
    return [o for o in options if not (o in seen or seen.add(o))]


def pot(view: dict[str, Any]) -> int:
    """Chips in the middle now (everything committed this hand)."""
    return sum(hand_of(view)["committed"])


def to_call(view: dict[str, Any]) -> int:
    """What the seat must put in to match the bet in force (at most its resto)."""
    hand = hand_of(view)
    me = hand["seat"]
    bet = hand.get("bet")
    level = bet["level"] if bet else hand.get("opening") or 0
    return max(0, min(hand["resto"][me], level - hand["committed"][me]))
