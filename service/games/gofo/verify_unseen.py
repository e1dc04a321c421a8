"""The cards a finished dealt hand kept closed, as the verifier's replay stands them in
(:class:`Unseen`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

Slot = tuple[list[str], int]  # a list of cards (a hand, the stock, a reshuffle's order) and an index in it

ELSEWHERE = "it is already placed elsewhere in the replay (opened at another deck position, or shown)"


class Unseen:
    """Stand-ins for the cards a finished dealt hand kept closed, so the engine can replay it.

    A card a seat shows from its unseen cards is matched, with every other card it has shown so, to a
    distinct stand-in it held before, in the card's place: a bipartite matching, so an early choice
    never rules out a later card.  In full: ``docs/verify.md`` (Replaying the closed cards)."""

    DECK = "deck"

    def __init__(self) -> None:
        self.count = 0
        self.reshuffles = 0  # closed reshuffles so far
        self.pool: dict[str, frozenset[Any]] = {}  # stand-in -> the places of the cards it may be
        self.where: dict[str, Any] = {}  # unseen card -> its place (DECK, or (reshuffle, layer))
        self.now = 0  # advances with every showing: a stand-in can be a card only if it came before it
        self.came: dict[int, dict[str, int]] = {}  # seat -> stand-in -> when it came into the hand
        self.shown: dict[int, list[tuple[str, int, Any]]] = {}  # seat -> (card shown, when, its place)

    def is_stand_in(self, card: str) -> bool:
        return card in self.pool

    def _new(self, pool: frozenset[Any]) -> str:
        self.count += 1
        name = f"?{self.count}"
        self.pool[name] = pool
        return name

    def after_shuffle(self, hand: Any, opened: set[str]) -> None:
        """Every card the shuffle put in the stock or the hands but did not open becomes a stand-in."""
        closed = sorted(c for c in hand.stock + [c for h in hand.hands for c in h] if c not in opened)
        self.where.update((c, self.DECK) for c in closed)
        swap = {c: self._new(frozenset([self.DECK])) for c in closed}
        hand.stock = [swap.get(c, c) for c in hand.stock]
        hand.hands = [[swap.get(c, c) for c in h] for h in hand.hands]

    def _reach(self, stand_in: str) -> frozenset[Any]:
        """The places of the cards a stand-in that went to the pile unshown (a folded hand) may be:
        those of any of its seat's stand-ins, since which of them its shown cards were is left open."""
        for came in self.came.values():
            if stand_in in came:
                return frozenset().union(*(self.pool[c] for c in came))
        return self.pool[stand_in]

    def closed_reshuffle(self, hand: Any) -> list[str]:
        """A closed reshuffle: the pile becomes a new stock of stand-ins, layer by layer; the engine is
        to stack them exactly so (the order is already layered).  Returns the order."""
        self.reshuffles += 1
        order: list[str] = []
        for n, layer in enumerate(hand.restock_layers(list(hand.pile))):
            place = (self.reshuffles, n)
            self.where.update((c, place) for c in layer if not self.is_stand_in(c))
            pool = frozenset([place]).union(*(self._reach(c) for c in layer if self.is_stand_in(c)))
            order += [self._new(pool) for _ in layer]
        hand.round_discards = [[] for _ in hand.round_discards]  # layered here: the order is stacked as it is
        return order

    def _arrive(self, seat: int, cards: list[str]) -> None:
        came = self.came.setdefault(seat, {})
        for card in cards:
            if self.is_stand_in(card) and card not in came:
                came[card] = self.now

    def _show(self, seat: int, cards: list[str], slots: list[Slot], what: str = "") -> str | None:
        """``seat`` shows ``cards`` it does not hold openly: check they can be its stand-ins, then put
        them in place of stand-ins among ``slots`` for the engine.  Why not, or ``None``."""
        if not cards:
            return None
        for i, card in enumerate(cards):
            if card not in self.where or card in cards[:i]:
                return f"seat {seat} cannot hold {card}{what}: {ELSEWHERE}"
        shown = self.shown.get(seat, []) + [(card, self.now, self.where[card]) for card in cards]
        came = self.came.get(seat, {})
        names = list(came)
        fits = [[j for j, name in enumerate(names) if came[name] <= when and place in self.pool[name]]
                for _, when, place in shown]
        for (card, _, _), options in zip(shown, fits):
            if not options:
                return f"seat {seat} cannot hold {card}{what}: none of its unseen cards can be it"
        columns = [j for options in fits for j in options]
        starts = np.cumsum([0] + [len(options) for options in fits])
        graph = csr_matrix((np.ones(len(columns)), columns, starts), shape=(len(shown), len(names)))
        matched = maximum_bipartite_matching(graph, perm_type="column")
        unmatched = [shown[i][0] for i in range(len(shown)) if matched[i] < 0]
        if unmatched:
            return (f"seat {seat} cannot hold {unmatched[0]}{what}: its unseen cards cannot be all the cards it "
                    f"has shown from them ({[card for card, _, _ in shown]})")
        free = [(spot, i) for spot, i in slots if self.is_stand_in(spot[i])]
        if len(free) < len(cards):
            return f"seat {seat} cannot hold {cards[len(free)]}{what}: it has no unseen card left for it"
        for card, (spot, i) in zip(cards, free):
            spot[i] = card
            del self.where[card]
        self.shown[seat] = shown
        return None

    def hold(self, hand: Any, seat: int, cards: list[str]) -> str | None:
        """Make sure ``seat`` holds ``cards`` (it is about to throw them); why not, or ``None``."""
        mine = hand.hands[seat]
        self._arrive(seat, mine)
        why = self._show(seat, [c for c in cards if c not in mine], [(mine, i) for i in range(len(mine))])
        self.now += 1
        return why

    def final_draw(self, hand: Any, seat: int, discarded: list[str],
                   shown: list[str]) -> tuple[list[str] | None, str | None]:
        """Before ``seat``'s final discard, which is followed by the canto: if the stock covers its
        draw, make it hold the cards it shows there (``shown``) among the cards it keeps and those it
        draws, else return them, to be placed with the reshuffle (:meth:`canto`).  Returns (those
        cards or ``None``, why they cannot be held or ``None``)."""
        t = min(len(discarded), len(hand.stock))
        if t < len(discarded):
            return list(shown), None
        mine = hand.hands[seat]
        slots = [(mine, i) for i, c in enumerate(mine) if c not in discarded] + [(hand.stock, i) for i in range(t)]
        return None, self.canto(seat, slots, shown)

    def canto(self, seat: int, slots: list[Slot], shown: list[str]) -> str | None:
        """``seat`` will hold the cards at ``slots`` at the canto and show ``shown``: make it so; why
        not, or ``None``."""
        have = [spot[i] for spot, i in slots]
        self._arrive(seat, have)
        why = self._show(seat, [c for c in shown if c not in have], slots, " at the canto")
        self.now += 1
        return why
