"""Players' names: a seat sets or changes its own (``POST …/seats/{seat}/name``), in any game
(docs/client-guide.md#names).

A name is the record's, not the game's: the rules never read it. A rename goes through the one write
path as a new version with a transcript entry ``{"type": "name", "seat", "name"}`` (the verifiers
check who made it and replay nothing for it). Once a game is over its names are final.
"""

from __future__ import annotations

from typing import Any

from service.api import common, moves
from service.errors import GameOver
from service.games.contract import Applied
from service.games.protocol import Referee
from service.storage.records import Record


class Rename(moves.Move):
    """Seat ``seat`` (its own token) names itself ``name`` in a game of ``referee``; it answers with the
    seat's view. A game's API module subclasses it with what only the game knows: whether it is over,
    and the transcript entry."""

    def __init__(self, referee: Referee[Any], seat: int, name: str) -> None:
        self.referee, self.seat, self.name = referee, seat, name

    def over(self, record: Record) -> bool:
        raise NotImplementedError

    def entry(self, record: Record, who: str, at: float) -> dict[str, Any]:
        """The transcript entry of this rename at the record's next version, in the game's form."""
        raise NotImplementedError

    def authorize(self, who: str, record: Record) -> None:
        common.require_seat(who, self.seat, self.referee, record)

    def apply(self, record: Record, who: str, at: float) -> Applied | None:
        if self.over(record):
            raise GameOver("the game is over: its names are final", code="game_over")
        names = list(record.doc.get("names") or [None] * self.referee.seat_count(record.doc))
        if names[self.seat] == self.name:
            return None  # the same name again: nothing changes
        names[self.seat] = self.name
        # The game's state is unchanged: a record that holds its own state object passes it on.
        return Applied(dict(record.doc, names=names, updated_at=at), [self.entry(record, who, at)], False,
                       None if record.shared else record.state)

    def answer(self, record: Record) -> dict[str, Any]:
        return common.view(self.referee, record, self.seat)

    @property
    def action(self) -> dict[str, Any]:
        return {"type": "name", "seat": self.seat, "name": self.name}
