"""What a two-seat Gops position is worth, looked up: the values solved offline, shipped as data.

``values.bin`` (built by ``python -m tools.gops_values``, which compiles and runs
``tools/gops_values/build.c``) holds f(V, Y, P) — the points the seat holding ``V`` can expect to win
from here on minus those of its rival holding ``Y``, both playing the equilibrium, with the prizes
``P`` still to come and none carried — for every hand of at most :data:`CARDS` cards and every set of
prizes of ranks 1..13 (Rhoads & Bartholdi, *Games* 3, 2012; ``docs/bots.md`` says how it was solved
and checked).  A tied round's prize is set aside (``unclaimed: discard``; with two seats ``split``
and ``highest_unique`` give the same point difference).

**The key.**  Only the relative order of the cards in both hands matters (a bid is only compared
with the rival's bid).  An *order* lists the hands' cards from the lowest up, each marked ``A`` (the
seat's alone), ``B`` (the rival's alone) or ``C`` (both hold it), packed 2 bits a card, lowest card
first (A=1, B=2, C=3).  Swapping the seats swaps A and B and negates the value, so the file keeps,
of each pair, the order with the smaller code; equal hands (all C) are worth 0 and not kept.

**The file.**  ``GOPSVAL1``, then int32 ``CARDS`` and ``SCALE``; then for k = 1..CARDS: int32 ``k``
and the number of kept orders, and int16 ``round(f * SCALE)`` for every set of k prizes (in colex
order: the set {c_1 < ... < c_k} of ranks has rank Σ C(c_i - 1, i)) and, within it, every kept order
(in increasing code).  Values are exact to ``0.5 / SCALE`` points.  The file is mapped, not read:
every worker on the machine shares one copy in the page cache.
"""

from __future__ import annotations

import mmap
import struct
import sys
from array import array
from bisect import bisect_left, bisect_right
from functools import cache
from math import comb
from pathlib import Path

FILE = Path(__file__).with_name("data") / "values.bin"
RANKS = 13


def order_code(hand: tuple[int, ...], rival: tuple[int, ...]) -> int:
    """The packed order of two hands (each sorted, increasing)."""
    code, shift, i, j = 0, 0, 0, 0
    while i < len(hand) or j < len(rival):
        if j == len(rival) or (i < len(hand) and hand[i] < rival[j]):
            code |= 1 << shift
            i += 1
        elif i == len(hand) or rival[j] < hand[i]:
            code |= 2 << shift
            j += 1
        else:
            code |= 3 << shift
            i += 1
            j += 1
        shift += 2
    return code


_LOW_BITS = int("01" * 32, 2)  # the low bit of each of 32 marks: hands of up to 16 cards each


def _swap(code: int) -> int:
    """The order seen from the rival's side: each mark 1 (a card of the hand) becomes 2 (the rival's)
    and 2 becomes 1; 0 and 3 (a card of both) stay. A mark is 1 or 2 where its two bits differ, and
    flipping both bits swaps them: every mark at once, not one by one (with :func:`_orders`' shared
    tails, a worker's start indexes the estimates in 0.04 s, not 0.26)."""
    differ = (code ^ (code >> 1)) & _LOW_BITS
    return code ^ (differ | differ << 1)


def _orders(k: int) -> list[int]:
    """The kept orders of k-card hands, by increasing code (as the builder writes them). Built from the
    end of the order to its start, each tail's codes once (0.02 s, not 0.14 s card by card: a worker's
    start pays it; tests/gops/test_values.py checks it against every pair of small hands)."""

    @cache
    def codes(a: int, b: int, c: int) -> list[int]:
        """The code of every order of a cards of the hand alone, b of the rival alone and c of both
        (the first card's mark lowest)."""
        if not (a or b or c):
            return [0]
        out = []
        for mark, rest in ((1, (a - 1, b, c)), (2, (a, b - 1, c)), (3, (a, b, c - 1))):
            if min(rest) >= 0:
                out += [mark | code << 2 for code in codes(*rest)]
        return out

    every = (code for both in range(k + 1) for code in codes(k - both, k - both, both))
    return sorted(code for code in every if code < _swap(code))


def prize_rank(prizes: tuple[int, ...]) -> int:
    """The colex rank of a set of prizes (sorted ranks 1..13) among the sets of its size."""
    return sum(comb(p - 1, i + 1) for i, p in enumerate(prizes))


class Values:
    """The table: ``value(hand, rival, prizes)`` for hands of at most :attr:`cards` cards."""

    def __init__(self, path: Path = FILE) -> None:
        with open(path, "rb") as file:
            self._map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        magic, self.cards, self.scale = struct.unpack_from("<8sii", self._map, 0)
        if magic != b"GOPSVAL1":
            raise ValueError(f"{path} is not a Gops values file")
        self._blocks: list[tuple[memoryview, dict[int, int], int]] = [(memoryview(b""), {}, 0)]
        at = 16
        for k in range(1, self.cards + 1):
            size, count = struct.unpack_from("<ii", self._map, at)
            kept = _orders(k)
            if size != k or count != len(kept):
                raise ValueError(f"{path}: block {k} holds {count} orders, expected {len(kept)}")
            index = {code: i + 1 for i, code in enumerate(kept)}
            index.update({_swap(code): -(i + 1) for i, code in enumerate(kept)})
            at += 8
            length = comb(RANKS, k) * count * 2
            self._blocks.append((memoryview(self._map)[at:at + length].cast("h"), index, count))
            at += length

    def value(self, hand: tuple[int, ...], rival: tuple[int, ...], prizes: tuple[int, ...]) -> float:
        """f(hand, rival, prizes): each argument sorted increasing, ``len(hand) == len(rival) ==
        len(prizes) <= cards``."""
        k = len(hand)
        if k == 0:
            return 0.0
        table, index, count = self._blocks[k]
        signed = index.get(order_code(hand, rival), 0)
        if not signed:
            return 0.0  # equal hands
        raw = table[prize_rank(prizes) * count + abs(signed) - 1]
        return (raw if signed > 0 else -raw) / self.scale


ESTIMATES = Path(__file__).with_name("data") / "estimates.bin"


class Estimates:
    """Fitted values of hands too large for the table (``estimates.bin``, built with it).

    * ``CARDS + 1`` cards (7): per kept order, a weight per prize, sorted: f ≈ Σ_c w[order][c] · P_c.
    * more cards, up to 12: one weight per (seat's card a, rival's card b, prize c), all sorted:
      f ≈ Σ w[a][b][c] · sgn(V_a - Y_b) · P_c — as if the cards met the prizes in a fixed pattern.

    Fitted by least squares (``tools/gops_values``) on values computed one round deeper: the 7-card
    weights on every exact 7-card value, each larger model on positions drawn at random and valued
    by a round of matrix games over the model of one card fewer (``docs/bots.md`` gives the errors).
    """

    def __init__(self, path: Path = ESTIMATES) -> None:
        data = path.read_bytes()
        magic, self.first, self.last = struct.unpack_from("<8sii", data, 0)
        if magic != b"GOPSEST1":
            raise ValueError(f"{path} is not a Gops estimates file")
        at = 16
        (count,) = struct.unpack_from("<i", data, at)
        kept = _orders(self.first)
        if count != len(kept):
            raise ValueError(f"{path}: {count} orders of {self.first} cards, expected {len(kept)}")
        at += 4
        # one flat array and an index of signed positions, not a tuple per order: 8 MB a worker, not 17
        self._weights = array("f", data[at:at + 4 * count * self.first])
        if sys.byteorder == "big":
            self._weights.byteswap()  # the file is little-endian
        at += 4 * count * self.first
        self._per_order = {code: i + 1 for i, code in enumerate(kept)}
        self._per_order.update({_swap(code): -(i + 1) for i, code in enumerate(kept)})
        self._models: dict[int, tuple[float, ...]] = {}
        for k in range(self.first + 1, self.last + 1):
            self._models[k] = struct.unpack_from(f"<{k ** 3}f", data, at)
            at += 4 * k ** 3

    def value(self, hand: tuple[int, ...], rival: tuple[int, ...], prizes: tuple[int, ...]) -> float:
        """The estimate of f for ``first`` to ``last`` cards (arguments sorted increasing)."""
        if len(hand) == self.first:
            signed = self._per_order.get(order_code(hand, rival), 0)
            if not signed:
                return 0.0  # equal hands
            at = (abs(signed) - 1) * self.first
            f = sum(w * p for w, p in zip(self._weights[at:at + self.first], prizes))
            return f if signed > 0 else -f
        return self.model(prizes)(hand, rival)

    def model(self, prizes: tuple[int, ...]):
        """f's estimate for every pair of hands of ``len(prizes)`` cards with these prizes (sorted):
        the weights summed over the prizes once (``u[a][b]``), then a sum over the pairs of cards."""
        k = len(prizes)
        if k == self.first:
            return lambda hand, rival: self.value(hand, rival, prizes)
        w = self._models[k]
        # Row a of u, summed from the left (prefix[a][b] = Σ_{b' < b} u[a][b']): against sorted rival
        # cards, a card beats a prefix of them and loses to a suffix, so a pair of hands is k bisections
        # instead of k² comparisons (a 13-card decision: about a third less CPU, 3.7 → 2.5 ms).
        prefix = []
        for a in range(k):
            row, total = [0.0], 0.0
            for b in range(k):
                total += sum(w[(a * k + b) * k + c] * prizes[c] for c in range(k))
                row.append(total)
            prefix.append(row)

        def value(hand: tuple[int, ...], rival: tuple[int, ...]) -> float:
            total = 0.0
            for card, row in zip(hand, prefix):
                below, not_above = bisect_left(rival, card), bisect_right(rival, card)
                total += row[below] - (row[-1] - row[not_above])
            return total

        return value


@cache
def table() -> Values:
    """The shipped table, mapped once per process."""
    return Values()


@cache
def estimates() -> Estimates:
    """The shipped estimates, read once per process."""
    return Estimates()
