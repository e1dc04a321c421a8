"""A hand's cards outside the players' hands: the deal, the completion, discards, the stock and
its reshuffles (dealt mode), and what a tabletop table reports of them.

:class:`Stock` is the part of :class:`service.games.gofo.hand.HandState` that decides them, in the same
``_check_*`` / ``_do_*`` pairs as :mod:`service.games.gofo.betting`.  :class:`PendingDraw` is the draw
a reshuffle interrupted; each discard and reshuffle is recorded as a
:class:`~service.games.gofo.records.DiscardRecord` and a :class:`~service.games.gofo.records.Restock`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.errors import IllegalAction, InvalidAction, WrongPhase

from service.games.gofo.actions import Discard, Reshuffle, Shuffle
from service.games.gofo.cards import DECK, is_card, parse_cards, sort_cards
from service.games.gofo.records import DiscardRecord, Restock
from service.games.gofo.rules import HAND_SIZE, Mode, Phase, Status


@dataclass
class PendingDraw:
    """The cards ``seat`` still has to draw once the pile is reshuffled into a new stock."""

    seat: int
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "count": self.count}


class Stock:
    """The deal, the completion, discards, draws and reshuffles of a hand."""

    if TYPE_CHECKING:
        mode: Mode
        n: int
        mano: int
        dealer: int
        status: list[Status]
        looked: list[bool]
        phase: Phase
        queue: list[int]
        round: int
        after_corte: bool
        final_discard: bool
        keep_right: bool
        stock: list[str]
        pile: list[str]
        hands: list[list[str]]
        kept: list[list[str]]
        kept_count: list[int]
        round_discards: list[list[str]]
        pending_draw: PendingDraw | None
        known_pile: list[str]
        discard_log: list[DiscardRecord]
        restocks: list[Restock]
        mucked_since_restock: bool
        bet: Any

        def order_from(self, start: int) -> list[int]: ...
        def live(self) -> list[int]: ...
        def _start_speaking(self, rnd: int) -> None: ...
        def _start_canto(self) -> None: ...

    # --- questions ---------------------------------------------------------------------------

    def max_discard(self, seat: int) -> int:
        """How many cards the seat may discard now (kept to the right: what stock and pile can serve)."""
        if self.mode is Mode.DEALT and self.keep_right:
            return min(HAND_SIZE, len(self.stock) + len(self.pile))
        return HAND_SIZE

    def _take(self, count: int) -> list[str]:
        assert len(self.stock) >= count, "stock exhausted"
        taken, self.stock = self.stock[:count], self.stock[count:]
        return taken

    # --- the shuffle, the deal and the completion -------------------------------------------

    def _check_shuffle(self, action: Shuffle) -> None:
        if self.phase is not Phase.SHUFFLE:
            raise WrongPhase("no shuffle is expected now", code="unexpected_chance")
        order = list(action.order)
        if sorted(order) != sorted(DECK) or not all(is_card(c) for c in order):
            raise InvalidAction("a deck order is a permutation of the 28 cards", code="bad_deck_order")

    def _do_shuffle(self, action: Shuffle) -> None:
        self.stock = list(action.order)
        for s in self.order_from(self.mano):
            if self.status[s] is Status.PENDING:
                self.hands[s] = self._take(2)
        self.phase = Phase.OPENING
        self.queue = [self.mano]

    def _complete(self) -> None:
        """Deal three more cards one at a time to each player still in (the abanico)."""
        self.bet = None
        players = self.live()
        if self.mode is Mode.DEALT:
            for _ in range(3):
                for s in players:
                    self.hands[s] += self._take(1)
        for s in players:
            self.looked[s] = True
        self._start_speaking(1)

    def _muck(self, seat: int) -> None:
        """A declined or folded hand goes back to the pile, unseen."""
        if self.mode is Mode.DEALT:
            self.mucked_since_restock = self.mucked_since_restock or bool(self.hands[seat])
            self.pile += self.hands[seat]
            self.hands[seat] = []

    # --- discards ----------------------------------------------------------------------------

    def _start_discard(self, *, final: bool) -> None:
        self.phase = Phase.DISCARD
        self.final_discard = final
        players = self.live()
        self.keep_right = self.after_corte and len(players) in (2, 3)
        self.round_discards = [[] for _ in range(self.n)]
        self.queue = players

    def _discard_count(self, seat: int, action: Discard) -> tuple[list[str], int]:
        """The cards and the count of a discard; raises if it is not one ``seat`` may make now."""
        cards = parse_cards(action.cards)
        if self.mode is Mode.DEALT:
            if action.count is not None and action.count != len(cards):
                raise InvalidAction("count does not match the cards", code="count_mismatch")
            missing = [c for c in cards if c not in self.hands[seat]]
            if missing:
                raise IllegalAction(f"not in your hand: {missing}", code="card_not_in_hand")
            count = len(cards)
        else:
            count = len(cards) if action.count is None else action.count
            if cards and count != len(cards):
                raise InvalidAction("count does not match the cards", code="count_mismatch")
            known = set(self.known_pile) | {c for k in self.kept for c in k}
            if known & set(cards):
                raise IllegalAction(f"already discarded: {sort_cards(known & set(cards))}",
                                    code="duplicate_card")
        if not 0 <= count <= self.max_discard(seat):
            raise IllegalAction(f"you may discard 0 to {self.max_discard(seat)} cards",
                                code="bad_discard_count")
        return cards, count

    def _check_discard(self, seat: int, action: Discard) -> None:
        self._discard_count(seat, action)

    def _do_discard(self, seat: int, action: Discard) -> None:
        cards, count = self._discard_count(seat, action)
        kept = self.keep_right
        if self.mode is Mode.DEALT:
            self.hands[seat] = [c for c in self.hands[seat] if c not in cards]
            if kept:
                self.kept[seat] += cards
            else:
                self.pile += cards
                self.round_discards[seat] = list(cards)
        elif kept:
            self.kept[seat] += cards
        else:
            self.known_pile += cards
        if kept:
            self.kept_count[seat] += count
        shown = tuple(cards) if (self.mode is Mode.DEALT or cards) else None
        self.discard_log.append(DiscardRecord(self.round, seat, count, shown, kept))
        if self.mode is Mode.DEALT:
            if len(self.stock) < count:
                self.pending_draw = PendingDraw(seat, count - len(self.stock))
                self._draw(seat, len(self.stock))
                self.phase = Phase.RESHUFFLE
                return None
            self._draw(seat, count)
        self._after_discard()

    def _draw(self, seat: int, count: int) -> None:
        """Dealt mode: ``seat`` draws ``count`` cards from the top of the stock (recorded as a
        drawer of the last reshuffle's stock, when there was one)."""
        if count and self.restocks:
            self.restocks[-1] = self.restocks[-1].drawn_by(seat)
        self.hands[seat] += self._take(count)

    def _after_discard(self) -> None:
        self.queue.pop(0)
        if self.queue:
            return
        if self.final_discard:
            self._start_canto()
        else:
            self._start_speaking(self.round + 1)

    # --- reshuffles --------------------------------------------------------------------------

    def _check_reshuffle(self, action: Reshuffle) -> None:
        """Dealt mode, chance: the order of exactly the pile's cards."""
        if self.phase is not Phase.RESHUFFLE or action.order is None:
            raise WrongPhase("no reshuffle is expected now", code="unexpected_chance")
        order = list(action.order)
        if sorted(order) != sorted(self.pile) or len(set(order)) != len(order):
            raise InvalidAction("a reshuffle orders exactly the cards of the pile", code="bad_deck_order")

    def restock_layers(self, order: list[str]) -> tuple[list[str], list[str], list[str]]:
        """The layers a reshuffle of the pile (in ``order``) makes under the remaining stock, top
        first: the older pile (earlier discards and folded hands), this round's discards by the other
        players, the drawing player's own just-thrown cards; each keeps the order given."""
        assert self.pending_draw is not None
        seat = self.pending_draw.seat
        own = set(self.round_discards[seat])
        this_round = {c for s in range(self.n) if s != seat for c in self.round_discards[s]}
        older = [c for c in order if c not in own and c not in this_round]
        newer = [c for c in order if c in this_round]
        mine = [c for c in order if c in own]
        return older, newer, mine

    def _do_reshuffle(self, action: Reshuffle) -> None:
        """The remaining stock stays on top; under it the older pile, then this round's discards
        by others, then the drawing player's own (the chance input orders each layer)."""
        assert self.pending_draw is not None and action.order is not None
        order = list(action.order)
        seat = self.pending_draw.seat
        older, newer, mine = self.restock_layers(order)
        self.stock = self.stock + older + newer + mine
        self.pile = []
        self.restocks.append(Restock(len(order), not self.mucked_since_restock))
        self.mucked_since_restock = False
        need = self.pending_draw.count
        self.pending_draw = None
        self.phase = Phase.DISCARD
        self._draw(seat, need)
        self._after_discard()

    def _check_reported_reshuffle(self, seat: int, action: Reshuffle) -> None:
        """Tabletop: the dealer reports, during a discard, that the real pile was reshuffled."""
        if self.mode is not Mode.TABLETOP or action.order is not None:
            raise IllegalAction("in dealt mode the referee reshuffles (a chance input)", code="chance_action")
        if self.phase is not Phase.DISCARD or seat != self.dealer:
            raise IllegalAction("only the dealer reports a reshuffle, during a discard",
                                code="cannot_reshuffle")

    def _do_reported_reshuffle(self, seat: int, action: Reshuffle) -> None:
        self.known_pile = []
