"""The game contract (:mod:`service.games.contract`) as types the type checker holds every game to:
:class:`GameState`, what a game's state object answers, and :class:`Referee`, the functions its
``referee`` module provides (what the HTTP layer calls).

A referee module *is* a ``Referee``: mypy accepts a module where a protocol is expected, so
``conforms(service.games.gops.referee)`` type-checks only if every function is there with parameters
a caller may pass and answers it may use, and its ``load`` gives a ``GameState``
(tests/test_game_protocol.py runs mypy so on every registered game's, and on the third game's).
The referee's parameters are positional-only here: callers pass them in this order, whatever a game
names them (``game_id``, ``table_id``).
"""

from __future__ import annotations

from typing import Any, Protocol, Self, TypeVar

from service.games.contract import Action, Applied, LegalAction

#: A stored document, a transcript entry, a view: JSON-ready dicts.
Doc = dict[str, Any]


class GameState(Protocol):
    """A game's state (Gops' ``Gops``, Gofo's ``Table``), for a ``seat`` (``None``: the host, the table
    or chance). ``apply`` checks the whole move, then changes the state in place and says whether it
    changed it (``False``: an exact repeat of a move already applied, a retried request); ``verify`` raises what ``apply`` would, ``is_legal`` says whether."""

    def apply(self, action: Action, *, seat: int | None = ..., now: float = ...) -> bool: ...

    def verify(self, action: Action, *, seat: int | None = ..., now: float = ...) -> None: ...

    def is_legal(self, action: Action, *, seat: int | None = ..., now: float = ...) -> bool: ...

    def legal_actions(self, seat: int, /) -> list[LegalAction]: ...

    def to_dict(self) -> dict[str, Any]: ...

    @classmethod
    def from_dict(cls, data: dict[str, Any], /) -> Self: ...


S = TypeVar("S", bound=GameState)


class Referee(Protocol[S]):
    """A game's ``referee`` module, whose state is ``S``: ``doc`` is the stored document, ``version``
    its version, ``who`` who asked (``host``, ``seat:N``), ``at`` the moment; ``state``, where given,
    is the document's own state object to change in place (else it is loaded from ``doc``)."""

    def create(self, id: str, options: Doc, at: float, /) -> tuple[Doc, list[Doc]]:
        """A new record (without ``auth``, which the caller adds) and its first transcript entries;
        ``options``: the create request's body."""
        ...

    def load(self, doc: Doc, /) -> S: ...

    def seat_count(self, doc: Doc, /) -> int: ...

    def play(self, doc: Doc, version: int, who: str, at: float, seat: int | None, action: Action,
             state: S | None = None, /) -> Applied | None:
        """One move (and the chance it calls for); ``None`` when it changed nothing (an exact repeat)."""
        ...

    def enforce(self, doc: Doc, version: int, who: str, at: float, state: S | None = None, /) -> Applied | None:
        """A passed deadline enforced."""
        ...

    def view(self, doc: Doc, version: int, seat: int | None, now: float, state: S | None = None, /) -> Doc:
        """What ``seat`` (``None``: the public) sees."""
        ...

    def etag_tag(self, seat_view: Doc, /) -> str:
        """What a seat's ETag adds to the version."""
        ...

    def transcript(self, doc: Doc, version: int, entries: list[Doc], /) -> Doc:
        """The public transcript."""
        ...


def conforms(referee: Referee[S]) -> Referee[S]:
    """``referee``, which the type checker has checked is a :class:`Referee` (of its own state)."""
    return referee
