"""How good a seat's Gofo hand is, from its seat's view alone: the Monte-Carlo estimates the bot
(:mod:`service.games.gofo.bot`) and the hint (:mod:`service.games.gofo.hint`) share.

Everything here reads a seat's view (:func:`service.games.gofo.observer.record_view`) and draws
from the ``rng`` it is given; nothing else.  The model: every rival still in holds five of the cards
the seat cannot place (not its own, not kept to the right, not in the pile as far as it can tell:
:func:`in_pile`), the stock holds ``stock_count`` of them and the rest lie in the pile with the
discards still there; every hand draws :func:`draws_left` more times, keeping its best suit
(:func:`greedy_keep`), from the stock and then from the pile shuffled back; the highest value wins,
ties to the seat nearer to mano (``docs/bots.md``, Gofo levels).
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from service.games.gofo.cards import DECK, card_suit, card_value, sort_cards
from service.games.gofo.rules import SPEAKING_ROUNDS

#: Discards a model hand still makes are counted up to this many (a corte usually ends the drawing
#: early, and later draws matter less).
DRAW_HORIZON = 2

_SUIT = {card: "oceb".index(card_suit(card)) for card in DECK}
_VALUE = {card: card_value(card) for card in DECK}

# The samples work on hands as bit masks: card i of DECK (suit by suit, each from its 3 up to its rey)
# is bit i, so a suit is 7 consecutive bits and its cards' values rise with the bits.
_BIT = {card: 1 << i for i, card in enumerate(DECK)}
_SUIT_VALUES = tuple(_VALUE[card] for card in DECK[:7])


def _suit_table() -> tuple[list[int], list[int]]:
    """For each set of one suit's cards (7 bits): the four highest, and (value, cards kept) as one key."""
    keep, key = [0] * 128, [0] * 128
    for sub in range(128):
        top = [i for i in range(6, -1, -1) if sub >> i & 1][:4]
        keep[sub] = sum(1 << i for i in top)
        key[sub] = 8 * sum(_SUIT_VALUES[i] for i in top) + len(top)
    return keep, key


_KEEP, _KEY = _suit_table()


def _value_of(mask: int) -> int:
    """:func:`value` of the hand in ``mask``."""
    return max(_KEY[mask & 127], _KEY[mask >> 7 & 127], _KEY[mask >> 14 & 127], _KEY[mask >> 21 & 127]) >> 3


def _keep_of(mask: int) -> int:
    """:func:`greedy_keep` of the hand in ``mask``: its best suit (the first of equals), four cards at most."""
    best, keep = -1, 0
    for shift in (0, 7, 14, 21):
        sub = mask >> shift & 127
        if _KEY[sub] > best:
            best, keep = _KEY[sub], _KEEP[sub] << shift
    return keep


def _bits(mask: int) -> list[int]:
    """The cards of ``mask``, one bit each."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _shuffled(cards: list[int], rng: random.Random) -> list[int]:
    """The cards in a random order from ``rng`` (sorted on random keys: cheaper than a shuffle)."""
    return sorted(cards, key=lambda _card: rng.random())


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


def in_pile(view: dict[str, Any]) -> list[str]:
    """The face-up discards lying in the pile now, as the seat can tell: the latest discards not kept
    to the right, as many as the pile holds (``pile_count``).  Older ones were shuffled back into
    the stock: they can be drawn again.  (A folded hand in the pile counts against the latest
    discards, so right after a fold a discard may be placed in the pile a little too early.)"""
    hand = hand_of(view)
    room = hand.get("pile_count")
    mine = set(hand.get("my_cards") or [])
    records = [r for r in hand.get("discards") or [] if not r.get("kept") and r.get("cards")]
    if room is None:  # no count shown: every discard is taken to be in the pile
        return [c for r in records for c in r["cards"] if c not in mine]
    cards: list[str] = []
    for record in reversed(records):
        if len(cards) + len(record["cards"]) > room:
            break
        cards += record["cards"]
    return [c for c in cards if c not in mine]


class _World:
    """What the seat cannot see, to be sampled: the ``pool`` of cards that may be in a rival's hand or
    the stock (not its own, not in the pile as far as it knows, not kept to the right), the known
    ``pile``, and how many of the pool's cards the stock holds beyond the cards still to be dealt.
    Cards as bits (:data:`_BIT`)."""

    __slots__ = ("pool", "pile", "stock_left", "mine", "need")

    def __init__(self, view: dict[str, Any], others: Sequence[int]) -> None:
        hand = hand_of(view)
        mine = hand.get("my_cards") or []
        pile = in_pile(view)
        gone = set(mine) | set(pile) | {c for kept in hand.get("kept") or [] for c in kept}
        for record in hand.get("discards") or []:
            if record.get("kept"):
                gone.update(record.get("cards") or [])
        self.pool = [_BIT[c] for c in DECK if c not in gone]
        self.pile = [_BIT[c] for c in pile]
        self.mine = sum(_BIT[c] for c in mine)
        self.need = 5 - len(mine)
        counts = hand.get("card_counts")
        stock = hand.get("stock_count")
        if counts is None or stock is None:
            self.stock_left = len(self.pool)
        else:
            owed = self.need + sum(max(0, 5 - counts[s]) for s in others)
            self.stock_left = max(0, stock - owed)

    def deal(self, rng: random.Random, rivals: int) -> tuple[list[int], list[int], list[int]]:
        """One sampled state: the hands as masks (the seat's first, completed to five), the stock, the pile."""
        deck = _shuffled(self.pool, rng)
        need = self.need
        hands = [self.mine + sum(deck[:need])] + [sum(deck[need + 5 * k:need + 5 * k + 5]) for k in range(rivals)]
        at = need + 5 * rivals
        stock = deck[at:at + self.stock_left]
        pile = deck[at + self.stock_left:] + self.pile
        return hands, stock, pile


Shuffle = Callable[[list[int]], list[int]]


def _draw(stock: list[int], pile: list[int], thrown: list[int], shuffle: Shuffle) -> int:
    """Draw ``len(thrown)`` cards: from the stock, then from the pile shuffled back under it (the
    drawer's own thrown cards last); the thrown cards go to the pile.  ``stock`` and ``pile`` change."""
    need = len(thrown)
    if len(stock) < need:
        stock += shuffle(pile)
        pile.clear()
        stock += thrown
        thrown = []
    drawn = sum(stock[:need])
    del stock[:need]
    pile += thrown
    return drawn


def _greedy_draw(hand: int, stock: list[int], pile: list[int], shuffle: Shuffle) -> int:
    """The hand after one discard keeping its best suit (:func:`greedy_keep`)."""
    keep = _keep_of(hand)
    if keep == hand:
        return hand
    return keep | _draw(stock, pile, _bits(hand & ~keep), shuffle)


#: With a ``threshold``, :func:`win_chance` looks after every this many samples whether the estimate is
#: already :data:`CLEAR` standard errors away from it, and stops there.
CHECK_EVERY = 40
CLEAR = 3.0


class Chance(NamedTuple):
    """A chance to win estimated by sampling: the ``share`` of the (weighted) samples the seat won,
    and how many samples it is worth (``samples``: the effective count, fewer than drawn when
    weights tilt them; 0 when nothing was sampled)."""

    share: float
    samples: float


def win_chance(view: dict[str, Any], samples: int, rng: random.Random, *, draws: int | None = None,
               opponents: Sequence[int] | None = None, threshold: float | None = None,
               tilt: dict[int, float] | None = None) -> Chance:
    """The chance that the seat's hand ends best among the seats still able to win (``opponents``:
    those seats; default :func:`rivals`), sampled ``samples`` times.  ``draws``: the discards every
    hand still makes (default :func:`draws_left`), from mano on, each keeping its best suit.
    ``threshold``: the chance a decision compares this one with; sampling stops early once the
    estimate is clearly on one side of it (the decision would not change; it costs less).
    ``tilt``: rivals read as holding more than a random hand (a bet in force was theirs), by seat: a
    sample counts ``exp(tilt × (the rival's final value − 20))`` times, so their strong hands weigh
    more (:data:`TILT_CENTRE`).  With no rival left the seat has won: ``Chance(1.0, 0.0)``."""
    hand = hand_of(view)
    me = hand["seat"]
    others = list(rivals(view) if opponents is None else opponents)
    if not others:
        return Chance(1.0, 0.0)
    if draws is None:
        draws = draws_left(view)
    world = _World(view, others)
    my_distance = distance(view, me)
    their_distance = [distance(view, s) for s in others]
    order = sorted(range(len(others) + 1), key=lambda k: my_distance if k == 0 else their_distance[k - 1])
    tilted = [(k + 1, tilt[s]) for k, s in enumerate(others) if tilt and tilt.get(s)]
    # a rival wins with a higher value, or an equal one nearer to mano: compare value * 8 - distance
    wins = weight = squares = 0.0
    shuffle = lambda cards: _shuffled(cards, rng)  # noqa: E731
    for n in range(1, samples + 1):
        hands, stock, pile = world.deal(rng, len(others))
        for _ in range(draws):
            for k in order:
                hands[k] = _greedy_draw(hands[k], stock, pile, shuffle)
        best = 8 * _value_of(hands[0]) - my_distance
        w = 1.0
        for k, beta in tilted:
            w *= math.exp(beta * (_value_of(hands[k]) - TILT_CENTRE))
        weight += w
        squares += w * w
        wins += w * all(8 * _value_of(cards) - dist < best for cards, dist in zip(hands[1:], their_distance))
        if threshold is not None and n % CHECK_EVERY == 0 and n < samples:
            share = wins / weight
            effective = weight * weight / squares
            if abs(share - threshold) > CLEAR * max(share * (1 - share), 1 / effective) ** 0.5 / effective ** 0.5:
                return Chance(share, effective)
    return Chance(wins / weight, weight * weight / squares) if samples else Chance(0.0, 0.0)


#: The value a tilted rival's weight is 1 at (about the mean final hand).
TILT_CENTRE = 20


class Outcome(NamedTuple):
    """A discard's prospects over the samples: the hand's mean final value, the share of samples
    that end above the value held now, the final values' standard deviation, and the samples
    weighed (0: nothing was left to chance, the figures are exact)."""

    expected: float
    improve: float
    spread: float
    samples: int


def discard_outcomes(view: dict[str, Any], throws: Sequence[Sequence[str]], samples: int, rng: random.Random,
                     draws: int | None = None) -> list[Outcome]:
    """For each set of cards to throw now (``throws``): the expected value of the hand after this
    draw and the later ones (kept greedily, :func:`greedy_keep`), the chance it ends above the
    value held now, and the spread of the final value.  The cards come from the stock, then from the pile shuffled back (the discards
    the seat saw go there); every option is weighed on the same ``samples`` sampled states of the
    cards it cannot see, so the options' differences are not sampling noise."""
    mine = my_cards(view)
    others = rivals(view)
    world = _World(view, others)
    now = value(mine)
    later = max(0, (draws_left(view) if draws is None else draws) - 1)
    states = []
    for _ in range(samples):
        _hands, stock, pile = world.deal(rng, len(others))
        keys = dict(zip(_BIT.values(), (rng.random() for _ in _BIT)))  # this state's reshuffles, the same for every option
        states.append((stock, pile, lambda cards, keys=keys: sorted(cards, key=keys.__getitem__)))
    out = []
    for throw in throws:
        if not throw and not later:
            out.append(Outcome(float(now), 0.0, 0.0, 0))
            continue
        kept = world.mine & ~sum(_BIT[c] for c in throw)
        thrown = [_BIT[c] for c in throw]
        total = better = squares = 0
        for stock, pile, shuffle in states:
            stock, pile = stock[:], pile[:]
            cards = kept | _draw(stock, pile, thrown, shuffle)
            for _ in range(later):
                cards = _greedy_draw(cards, stock, pile, shuffle)
            final = _value_of(cards)
            total += final
            squares += final * final
            better += final > now
        if not samples:
            out.append(Outcome(float(now), 0.0, 0.0, 0))
            continue
        mean = total / samples
        spread = max(0.0, squares / samples - mean * mean) * samples / max(1, samples - 1)
        out.append(Outcome(mean, better / samples, spread ** 0.5, samples))
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


def showdown_pot(view: dict[str, Any]) -> int:
    """The pot if the seat and every rival still in match the bet in force (each up to its resto):
    what the seat plays for when its chance is weighed against all of them."""
    hand = hand_of(view)
    bet = hand.get("bet")
    level = bet["level"] if bet else hand.get("opening") or 0
    more = sum(max(0, min(hand["resto"][s], level - hand["committed"][s]))
               for s in [hand["seat"], *rivals(view)])
    return pot(view) + more
