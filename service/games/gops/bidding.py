"""Gops bidding: what a bid may be, commit and reveal, and whether a commit or reveal is a retry.

:class:`Bidding` is one part of the state (:class:`service.games.gops.state.Gops`), reading the current
game from the match's :class:`~service.games.gops.progress.MatchProgress`.  Each move has a ``check_*``
that raises the precise refusal and changes nothing, and a method that applies a checked move in
place.  What follows a completed reveal (resolving the round) is the prize row's.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Any

from service.games import commitments
from service.errors import CommitmentMismatch, IllegalAction, InvalidAction, RefereeError, WrongPhase
from service.games.gops import clock
from service.games.gops.actions import Commit, Reveal
from service.games.gops.progress import MatchProgress
from service.games.gops.records import Departure, Opening, Phase, RoundRecord, seal
from service.games.gops.rules import Rules, rank_name


class Bidding:
    """Commit and reveal, and the checks every seat's move shares."""

    __slots__ = ("rules", "progress")

    def __init__(self, rules: Rules, progress: MatchProgress) -> None:
        self.rules = rules
        self.progress = progress

    # ------------------------------------------------------------ checks shared by every move

    def check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.rules.players:
            raise InvalidAction(f"seat must be between 0 and {self.rules.players - 1}", code="no_such_seat")
        forfeited = self.progress.game.forfeited
        if seat in forfeited:
            out = "resigned" if forfeited[seat] is Departure.RESIGNED else "forfeited"
            raise IllegalAction(f"seat {seat} has {out} this game", code="seat_out")

    def require_phase(self, *phases: Phase) -> None:
        phase = self.progress.game.phase
        if phase not in phases:
            raise WrongPhase(
                f"the game is in phase {str(phase)!r}, not {' or '.join(repr(str(p)) for p in phases)}",
                phase=str(phase),
            )

    def _check_round(self, round_number: int) -> None:
        g = self.progress.game
        if round_number != g.round:
            raise IllegalAction(f"this is round {g.round}, not round {round_number}", code="wrong_round",
                                round=g.round)

    def _check_game(self, action: Commit | Reveal) -> None:
        g = self.progress.game
        if action.game is not None and action.game != g.number:
            raise IllegalAction(f"this is game {g.number} ({g.game_id}), not game {action.game}",
                                code="wrong_game", game_id=g.game_id)

    def _check_ranks_typed(self, cards: Iterable[int]) -> tuple[int, ...]:
        """Every card of a reveal is an integer (anything else cannot be a hashed rank)."""
        cards = tuple(cards)
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool):
                raise InvalidAction(f"{c!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        return cards

    # ------------------------------------------------------------ what a bid may be

    def bid_problem(self, seat: int, cards: Iterable[int]) -> RefereeError | None:
        """Why ``cards`` is not a legal bid for ``seat`` now, or ``None`` when it is.

        Illegal (002 "Giocata illegale"): the wrong number of cards, a rank this
        game does not have, the same card twice, a card not in hand (spent).
        """
        cards = tuple(cards)
        k = self.rules.bid_cards
        if len(cards) != k:
            return InvalidAction(f"a bid is exactly {k} card{'s' if k > 1 else ''}", code="wrong_card_count")
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 1 <= c <= self.rules.ranks:
                return InvalidAction(f"{c!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        if len(set(cards)) != len(cards):
            return InvalidAction("a bid cannot use the same card twice", code="duplicate_card")
        hand = self.progress.game.hands[seat]
        for c in cards:
            if c not in hand:
                return IllegalAction(f"{rank_name(c)} is not in seat {seat}'s hand (already spent)",
                                     code="card_not_in_hand")
        return None

    def forfeited_bid(self, seat: int) -> list[int]:
        """The bid played for a seat whose opened commitment was illegal: its lowest card(s)."""
        return sorted(self.progress.game.hands[seat])[: self.rules.bid_cards]

    def is_repeat(self, action: Commit | Reveal) -> bool:
        """Is this an exact repeat of a commit or reveal already applied (a retried request)?

        Without ``game`` only the current game is searched: in a match, a
        client that may retry late should name the game it means.
        """
        g = self.progress.game
        if action.round == g.round and action.game in (None, g.number):
            # the current round (the usual case): only this round's move can be repeated
            if isinstance(action, Commit):
                return g.commitments.get(action.seat) == action.commitment
            opening = g.reveals.get(action.seat)
            return opening == Opening(tuple(action.cards), action.salt)
        number = g.number if action.game is None else action.game
        if number == g.number:  # (an earlier round: the current one was answered above)
            history, game_id = g.history, g.game_id
        elif 1 <= number < g.number:
            past = self.progress.games[number - 1]
            history, game_id = past.history or (), past.result.game_id
        else:
            return False
        if 1 <= action.round <= len(history) and (number != g.number or action.round < g.round):
            return _repeats(history[action.round - 1], action, game_id)
        return False

    # ------------------------------------------------------------ commit

    def check_commit(self, action: Commit, now: float) -> None:
        self.check_seat(action.seat)
        commitments.check_commitment_format(action.commitment)
        self._check_game(action)
        self._check_round(action.round)
        self.require_phase(Phase.COMMIT)
        g = self.progress.game
        if action.seat in g.commitments:
            raise IllegalAction(
                f"seat {action.seat} has already committed in round {g.round}; a commitment cannot change",
                code="already_committed",
            )

    def commit(self, action: Commit, now: float) -> None:
        # A commitment equal to another seat's is accepted like any other: refusing it would tell a
        # rival who guessed that seat's hash that the guess was right (an oracle), and the copy can
        # never be opened by the copier (the message names the seat), so it only wedges the copier,
        # whom the deadline (if any) removes.
        g = self.progress.game
        g.commitments[action.seat] = action.commitment
        if not self.progress.awaiting():
            clock.enter_phase(self.rules, g, Phase.REVEAL, now)

    # ------------------------------------------------------------ reveal

    def check_reveal(self, action: Reveal, now: float) -> None:
        """A reveal must open the seat's commitment.

        One that does not is refused: with the bid's own legality error when
        the cards are not a legal bid anyway (a typo), else
        ``commitment_mismatch``.  One that *does* open it is accepted even when
        the committed bid is illegal (a spent card, ``[3, 3]``, the wrong
        count): the commitment can never be opened any other way, so refusing
        it would wedge the game.  Such a bid is forfeited to the seat's lowest
        card(s) when the round resolves (:meth:`forfeited_bid`) and the round
        record says why (``illegal``).  That is decided when the seat commits,
        so it gains nothing: it could have bid its lowest card anyway.
        """
        g = self.progress.game
        self.check_seat(action.seat)
        commitments.check_salt(action.salt)
        self._check_game(action)
        self._check_round(action.round)
        self.require_phase(Phase.REVEAL)
        if action.seat in g.reveals:
            raise IllegalAction(f"seat {action.seat} has already revealed in round {g.round}", code="already_revealed")
        cards = self._check_ranks_typed(action.cards)
        expected = commitments.bid_commitment(g.game_id, g.round, action.seat, cards, action.salt)
        # Both are lowercase hex (the stored one was checked when committed): compared as text.
        if not hmac.compare_digest(expected, g.commitments[action.seat]):
            problem = self.bid_problem(action.seat, cards)
            if problem is not None:
                raise problem
            raise CommitmentMismatch(
                "these cards and salt do not hash to the seat's commitment for this game, round and seat"
            )

    def reveal(self, action: Reveal) -> None:
        """Keep the seat's opening (what follows when it is the last: the prize row's ``after_bids``)."""
        g = self.progress.game
        g.reveals[action.seat] = Opening(tuple(action.cards), action.salt)


def _repeats(record: RoundRecord, action: Commit | Reveal, game_id: Any) -> bool:
    """Is ``action`` the commit or reveal this round record's seat made (a retry of a past round)?

    A record of the old form has the commitments and reveals themselves: equal to them.  A record
    has ``sealed`` instead (:mod:`service.games.gops.records`): a commit is its seat's if its commitment
    begins with the seal, a reveal if what it opens (``bid_commitment`` of ``game_id``, the round,
    the seat, the cards and the salt) does.  (Another commitment or opening with the same 64-bit
    seal would take a 2**64 search: it is as good as refused.)
    """
    seat = action.seat
    if isinstance(action, Commit):
        if record.commitments is not None:
            return record.commitments.get(seat) == action.commitment
        fingerprint = (record.sealed or {}).get(seat)
        commitment = action.commitment
        if fingerprint is None:  # no seal for the seat: as before, only a missing commitment "repeats" none
            return commitment is None
        return (isinstance(commitment, str) and commitments.COMMITMENT_PATTERN.match(commitment) is not None
                and seal(commitment) == fingerprint)
    if record.reveals is not None:
        opening = record.reveals.get(seat)
        return opening is not None and opening.cards == tuple(action.cards) and opening.salt == action.salt
    fingerprint = (record.sealed or {}).get(seat)
    if fingerprint is None or not isinstance(game_id, str) or not isinstance(action.salt, str):
        return False
    try:
        cards = [int(c) for c in action.cards]
        if cards != list(action.cards):  # (only what equals whole numbers could ever have been opened)
            return False
        opened = commitments.bid_commitment(game_id, action.round, action.seat, cards, action.salt)
    except (TypeError, ValueError, OverflowError):
        return False
    return seal(opened) == fingerprint
