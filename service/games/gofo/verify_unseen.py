"""The cards a finished dealt hand kept closed, as the verifier's replay stands them in
(:class:`Unseen`)."""

from __future__ import annotations

from typing import Any


class Unseen:
    """Stand-ins for the cards a finished dealt hand kept closed, so the engine can replay it.

    A closed deck position, and every slot of a closed reshuffle, holds a stand-in (``?n``) from a
    pool of cards it may be: the deck's unopened cards, or a closed reshuffle's pile.  When a public
    action needs a card (a discard names it, the canto shows it), the acting seat's stand-in becomes
    that card — if the card is not placed elsewhere and is in the stand-in's pool.  The replay so
    checks every opened card where it was dealt and every public action against the commitment, and
    accepts any placing of the closed ones (what cannot be checked without telling a folded hand)."""

    def __init__(self) -> None:
        self.count = 0
        self.group: dict[str, int] = {}
        self.pools: list[set[str]] = []
        self.unplaced: set[str] = set()

    def _new(self, pool: int) -> str:
        self.count += 1
        name = f"?{self.count}"
        self.group[name] = pool
        return name

    def after_shuffle(self, hand: Any, opened: set[str]) -> None:
        """Every card the shuffle put in the stock or the hands but did not open becomes a stand-in."""
        self.pools.append(set(c for c in hand.stock + [c for h in hand.hands for c in h] if c not in opened))
        self.unplaced |= self.pools[-1]
        pool = len(self.pools) - 1
        swap = {c: self._new(pool) for c in self.pools[-1]}
        hand.stock = [swap.get(c, c) for c in hand.stock]
        hand.hands = [[swap.get(c, c) for c in h] for h in hand.hands]

    def closed_reshuffle(self, hand: Any) -> None:
        """A closed reshuffle: nothing is known of where its pile's cards went."""
        real = {c for c in hand.pile if c not in self.group}
        pool = set(real)
        for c in hand.pile:
            if c in self.group:
                pool |= self.pools[self.group[c]]
        self.pools.append(pool)
        self.unplaced |= real
        index = len(self.pools) - 1
        pile = []
        for c in hand.pile:
            if c in self.group:
                self.group[c] = index
                pile.append(c)
            else:
                pile.append(self._new(index))
        hand.pile = pile

    def place(self, spot: list[str], i: int, card: str) -> str | None:
        """Make the stand-in at ``spot[i]`` the card; why not, or ``None``."""
        stand_in = spot[i]
        if stand_in not in self.group:
            return f"where it would be, {stand_in} already is"
        if card not in self.unplaced:
            return "it is already placed elsewhere in the replay (opened at another deck position, or shown)"
        if card not in self.pools[self.group[stand_in]]:
            return "no unseen card that can be it is there"
        spot[i] = card
        del self.group[stand_in]
        self.unplaced.discard(card)
        return None

    def hold(self, hand: Any, seat: int, cards: list[str]) -> str | None:
        """Make sure ``seat`` holds ``cards`` (placing them in its stand-ins); why not, or ``None``."""
        mine = hand.hands[seat]
        for card in cards:
            if card in mine:
                continue
            slots = [i for i, c in enumerate(mine) if c in self.group and card in self.pools[self.group[c]]]
            if not slots:
                return (f"seat {seat} cannot hold {card}: "
                        + ("it is already placed elsewhere in the replay (opened at another deck position, or shown)"
                           if card not in self.unplaced else "none of its unseen cards can be it"))
            problem = self.place(mine, slots[0], card)
            if problem:
                return f"seat {seat} cannot hold {card}: {problem}"
        return None

    def final_draw(self, hand: Any, seat: int, discarded: list[str], shown: list[str]) -> list[str]:
        """Before ``seat``'s final discard: place the cards it must show at the canto in the cards it
        keeps and the stock cards it is about to draw.  Returns what must come from a reshuffle."""
        mine = hand.hands[seat]
        keep = [i for i, c in enumerate(mine) if c not in discarded]
        t = min(len(discarded), len(hand.stock))
        have = {mine[i] for i in keep if mine[i] not in self.group} | {c for c in hand.stock[:t] if c not in self.group}
        need = [c for c in shown if c not in have]
        spots = [(mine, i) for i in keep if mine[i] in self.group] + \
            [(hand.stock, i) for i in range(t) if hand.stock[i] in self.group]
        rest = []
        for card in need:
            for n, (spot, i) in enumerate(spots):
                if card in self.unplaced and card in self.pools[self.group[spot[i]]]:
                    self.place(spot, i, card)
                    spots.pop(n)
                    break
            else:
                rest.append(card)
        return rest
