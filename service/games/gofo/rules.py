"""The rules a Gofo table is created with (:class:`TableOptions`, validated), the vocabulary of a
hand as ``StrEnum``s (each is its own JSON string) and the constants of the rule book.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from service.errors import InvalidOptions


class Mode(StrEnum):
    """``dealt``: the referee deals (chance is its input); ``tabletop``: real cards, reported."""

    DEALT = "dealt"
    TABLETOP = "tabletop"


MODES = tuple(Mode)


class Phase(StrEnum):
    """Where a hand is (see :mod:`service.games.gofo.hand` for the order)."""

    SHUFFLE = "shuffle"      # dealt mode: waiting for the deck order (chance)
    OPENING = "opening"      # mano bets the apertura
    ENTERING = "entering"    # each player enters seen or blind, or declines
    RAISING = "raising"      # mano and the blind entrants may raise the opening
    BETTING = "betting"      # a raise or corte is answered (ver / no ver), then refiches
    SPEAKING = "speaking"    # voy / corta
    DISCARD = "discard"      # discards and draws
    RESHUFFLE = "reshuffle"  # dealt mode: waiting for the order of the pile (chance)
    CANTO = "canto"          # tabletop: cards entered or points declared
    OVER = "over"


class Status(StrEnum):
    """A seat within a hand."""

    OUT = "out"            # not dealt in (the sitting-out dealer with six at the table)
    PENDING = "pending"    # dealt in, has not entered or declined yet
    IN = "in"              # in the hand
    DECLINED = "declined"  # did not put in the opening
    FOLDED = "folded"      # entered, then folded to a raise or a bet (or mucked at the canto)


class BetContext(StrEnum):
    """What a bet in force raises: the opening (before the completion) or a corte (after it)."""

    OPENING = "opening"
    CORTE = "corte"


class BetStage(StrEnum):
    """``answer``: the others see it or fold; ``refiche``: the others may raise it or pass."""

    ANSWER = "answer"
    REFICHE = "refiche"


class CantoStage(StrEnum):
    """Tabletop canto: ``declare`` (cards or points, in turn), then ``show`` (winners on a declaration)."""

    DECLARE = "declare"
    SHOW = "show"


class Resolution(StrEnum):
    """How a hand ended: the canto judged it, or one claimant was left (nobody showed)."""

    CANTO = "canto"
    UNCONTESTED = "uncontested"


INAUGURATION_FIXED = "fixed"    # a new caja's first front is the table's inauguration_front
INAUGURATION_CHOSEN = "chosen"  # the seat chooses it (2× or 3× the refill) before the next hand
INAUGURATIONS = (INAUGURATION_FIXED, INAUGURATION_CHOSEN)

MAX_PLAYERS_IN_HAND = 5
SPEAKING_ROUNDS = 4
HAND_SIZE = 5


@dataclass(frozen=True)
class TableOptions:
    """Agreed before play. ``initial_front`` defaults to 3× the refill (the customary 2–3×);
    ``inauguration_front`` (the front of a new caja's first hand) defaults to ``initial_front``.
    ``first_dealer`` (tabletop only): the seat that won the first-dealer draw made by hand at the real
    table; the referee then draws nothing and the first hand begins at once (written out only when set,
    so the options of a table created without it read as before).
    ``inauguration``: ``fixed`` (default) — a new caja's first front is ``inauguration_front``; ``chosen``
    — each seat that took a new caja chooses it between hands, among :meth:`inauguration_fronts`
    (the ``inaugurate`` action), and the next hand begins once every such seat has chosen (written out
    only when ``chosen``, so the options of a table created without it read as before)."""

    seats: int = 5
    caja: int = 100
    refill: int = 10
    initial_front: int | None = None
    inauguration_front: int | None = None
    mode: Mode = Mode.DEALT
    first_dealer: int | None = None
    fronts: tuple[int, ...] | None = None
    behinds: tuple[int, ...] | None = None
    cajas: tuple[int, ...] | None = None
    inauguration: str = INAUGURATION_FIXED

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "TableOptions":
        data = dict(data or {})
        unknown = set(data) - _OPTION_NAMES
        if unknown:
            raise InvalidOptions(f"unknown options: {sorted(unknown)}", code="unknown_option")
        for name, value in data.items():
            if name in _LEDGER_NAMES:
                if value is not None and (not isinstance(value, (list, tuple))
                                          or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
                    raise InvalidOptions(f"{name} must be a list of integers, one per seat", code="bad_option")
            elif name == "mode":
                if value not in MODES:
                    raise InvalidOptions(f"mode is one of {[str(m) for m in MODES]}", code="bad_mode")
            elif name == "inauguration":
                if value not in INAUGURATIONS:
                    raise InvalidOptions(f"inauguration is one of {list(INAUGURATIONS)}", code="bad_option")
            elif value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise InvalidOptions(f"{name} must be an integer", code="bad_option")
        opts = cls(**data)
        refill = opts.refill
        front = opts.initial_front if opts.initial_front is not None else 3 * refill
        inaug = opts.inauguration_front if opts.inauguration_front is not None else front
        ledger = {name: tuple(data[name]) if data.get(name) is not None else None for name in _LEDGER_NAMES}
        opts = cls(opts.seats, opts.caja, refill, front, inaug, Mode(opts.mode), opts.first_dealer, **ledger,
                   inauguration=str(opts.inauguration))
        if not 2 <= opts.seats <= 6:
            raise InvalidOptions("Gofo is played by 2 to 6 players", code="bad_seat_count")
        if refill < 1 or front < 1 or inaug < 1:
            raise InvalidOptions("refill and fronts are at least 1 chip", code="bad_option")
        if max(front, inaug, refill) > opts.caja:
            raise InvalidOptions("fronts and refill must fit in a caja", code="bad_option")
        opts._check_resumed()
        if opts.first_dealer is not None:
            if opts.mode is not Mode.TABLETOP and opts.fronts is None:
                raise InvalidOptions("only a tabletop table reports its first dealer (at a dealt table the "
                                     "referee draws, unless it resumes a session: with fronts)",
                                     code="first_dealer_not_tabletop")
            if not 0 <= opts.first_dealer < opts.seats:
                raise InvalidOptions(f"first_dealer is a seat of this table, 0–{opts.seats - 1}",
                                     code="bad_first_dealer")
        return opts

    @property
    def chosen_inauguration(self) -> bool:
        """Whether a seat that takes a new caja chooses its first front (``inauguration: chosen``)."""
        return self.inauguration == INAUGURATION_CHOSEN

    def inauguration_fronts(self) -> list[int]:
        """The fronts a new caja may be inaugurated with: 2× and 3× the refill, each capped at the caja,
        without repeats, smallest first."""
        return sorted({min(2 * self.refill, self.caja), min(3 * self.refill, self.caja)})

    def default_inauguration_front(self) -> int:
        """The front a silent seat inaugurates its new caja with: ``inauguration_front`` if it is allowed,
        else the smallest allowed."""
        allowed = self.inauguration_fronts()
        return self.inauguration_front if self.inauguration_front in allowed else allowed[0]

    @property
    def resumed(self) -> bool:
        """The table resumes a session begun elsewhere (on paper): per-seat starting ledger."""
        return self.fronts is not None

    def _check_resumed(self) -> None:
        """A resumed session's ledger: all three lists, one entry per seat, every front at least 1 (an
        empty front is refilled between hands, so none starts a hand), nothing negative, at least one
        caja each, no behind a whole caja or more, and every chip accounted for: fronts + behinds = cajas taken × caja."""
        given = [name for name in _LEDGER_NAMES if getattr(self, name) is not None]
        if not given:
            return
        if len(given) != len(_LEDGER_NAMES):
            raise InvalidOptions("a resumed session gives fronts, behinds and cajas together",
                                 code="bad_resumed_ledger")
        fronts, behinds, cajas = self.fronts, self.behinds, self.cajas
        assert fronts is not None and behinds is not None and cajas is not None
        if not len(fronts) == len(behinds) == len(cajas) == self.seats:
            raise InvalidOptions(f"fronts, behinds and cajas have one entry per seat ({self.seats})",
                                 code="bad_resumed_ledger")
        if min(fronts) < 1 or min(behinds) < 0 or max(behinds) >= self.caja or min(cajas) < 1:
            raise InvalidOptions("every front is at least 1, every behind 0 up to below a caja (its first front "
                                 "came out of it), cajas at least 1", code="bad_resumed_ledger")
        if self.first_dealer is None:
            raise InvalidOptions("a resumed session names its next dealer (first_dealer)",
                                 code="bad_resumed_ledger")
        chips, owed = sum(fronts) + sum(behinds), sum(cajas) * self.caja
        if chips != owed:
            raise InvalidOptions(f"the ledger holds {chips} chips but {sum(cajas)} cajas of {self.caja} make {owed}"
                                 " (chips are not conserved)", code="chips_not_conserved")

    def to_dict(self) -> dict[str, Any]:
        return {"seats": self.seats, "caja": self.caja, "refill": self.refill,
                "initial_front": self.initial_front, "inauguration_front": self.inauguration_front,
                "mode": Mode(self.mode).value,
                **({"first_dealer": self.first_dealer} if self.first_dealer is not None else {}),
                **({"inauguration": self.inauguration} if self.chosen_inauguration else {}),
                **{name: list(getattr(self, name)) for name in _LEDGER_NAMES if getattr(self, name) is not None}}


_OPTION_NAMES = frozenset(f.name for f in fields(TableOptions))
_LEDGER_NAMES = ("fronts", "behinds", "cajas")
