"""Every Gofo action — a hand's and the table's ``dealer_draw`` and ``inaugurate`` — and their one
:data:`CODEC`.

Each is a frozen :class:`service.games.contract.Action`: ``TYPE`` is its JSON ``"type"``, ``CHANCE`` marks what
the referee supplies (the first-dealer draw, a deck order, the order of a reshuffled pile).
:class:`LegalAction` describes a kind of move a seat may make now, with its range.

>>> action_to_dict(Corta(5))
{'type': 'corta', 'amount': 5}
>>> action_from_dict({"type": "discard", "count": 2})
Discard(cards=(), count=2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from service.games.contract import Action, ActionCodec, LegalAction  # noqa: F401 - the one legal-action type, named here for Gofo's callers


@dataclass(frozen=True)
class DealerDraw(Action):
    """Chance: the cards drawn for the first dealer, one per seat in the request's ``seats``."""

    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "dealer_draw"
    CHANCE: ClassVar[bool] = True


@dataclass(frozen=True)
class Shuffle(Action):
    """Chance (dealt mode): the order of the whole deck for this hand, top card first."""

    order: tuple[str, ...]
    TYPE: ClassVar[str] = "shuffle"
    CHANCE: ClassVar[bool] = True


@dataclass(frozen=True)
class Reshuffle(Action):
    """Dealt mode, chance: an order of the pile's cards (see :meth:`HandState.chance_request`).

    Tabletop mode: the dealer reports that the real pile was shuffled into a new stock
    (``order`` is ``None``); the referee then forgets which thrown discards are in the pile.
    """

    order: tuple[str, ...] | None = None
    TYPE: ClassVar[str] = "reshuffle"
    CHANCE: ClassVar[bool] = True


@dataclass(frozen=True)
class Open(Action):
    """Mano bets the opening (apertura, ante, dentre, alumbre)."""

    amount: int
    TYPE: ClassVar[str] = "open"


@dataclass(frozen=True)
class Look(Action):
    """Look at one's first two cards (entering blind is a promise not to have looked)."""

    TYPE: ClassVar[str] = "look"


@dataclass(frozen=True)
class Enter(Action):
    """Put in the opening, seen (``blind=False``, implies looking) or blind (de ciego)."""

    blind: bool
    TYPE: ClassVar[str] = "enter"


@dataclass(frozen=True)
class Decline(Action):
    """Do not put in the opening: out of the hand, losing nothing."""

    TYPE: ClassVar[str] = "decline"


@dataclass(frozen=True)
class Raise(Action):
    """Raise the opening by ``amount`` chips (before the completion of the hands)."""

    amount: int
    TYPE: ClassVar[str] = "raise"


@dataclass(frozen=True)
class Refiche(Action):
    """Raise a corte or a refiche by ``amount`` chips (after the completion)."""

    amount: int
    TYPE: ClassVar[str] = "refiche"


@dataclass(frozen=True)
class Pass(Action):
    """Decline to raise (opening raises or refiche turn)."""

    TYPE: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Ver(Action):
    """Match the bet in force (all-in, jugado, if one's resto is short)."""

    TYPE: ClassVar[str] = "ver"


@dataclass(frozen=True)
class NoVer(Action):
    """Fold to the bet in force, losing what one has put in."""

    TYPE: ClassVar[str] = "no_ver"


@dataclass(frozen=True)
class Voy(Action):
    """Speaking round: pass without betting."""

    TYPE: ClassVar[str] = "voy"


@dataclass(frozen=True)
class Corta(Action):
    """Speaking round: bet ``amount`` chips (the corte)."""

    amount: int
    TYPE: ClassVar[str] = "corta"


@dataclass(frozen=True)
class Discard(Action):
    """Discard cards and receive as many new ones.

    Dealt mode: ``cards`` names the discarded cards (``count`` may be omitted).
    Tabletop mode: ``count`` alone, or the face-up ``cards`` when they are reported.
    """

    cards: tuple[str, ...] = ()
    count: int | None = None
    TYPE: ClassVar[str] = "discard"


@dataclass(frozen=True)
class Show(Action):
    """Tabletop canto: enter one's five cards."""

    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "show"


@dataclass(frozen=True)
class Declare(Action):
    """Tabletop canto: declare one's points; if this wins a pot, the cards must be shown after.

    A seat that has declared may declare again to correct it, out of turn, as long as nobody has
    entered cards at the canto yet."""

    points: int
    TYPE: ClassVar[str] = "declare"


@dataclass(frozen=True)
class Muck(Action):
    """Tabletop canto: concede — give up one's claim to every pot, cards unseen (out of turn too)."""

    TYPE: ClassVar[str] = "muck"


@dataclass(frozen=True)
class Inaugurate(Action):
    """Between hands, at a table with ``inauguration: chosen``: a seat that took a new caja puts
    ``front`` chips of it in front for the new caja's first hand (inauguración de caja: 2× or 3×
    the refill, each capped at the caja; ``LegalAction.fronts`` lists them)."""

    front: int
    TYPE: ClassVar[str] = "inaugurate"


HAND_ACTIONS: tuple[type[Action], ...] = (
    Shuffle, Reshuffle, Open, Look, Enter, Decline, Raise, Refiche, Pass, Ver, NoVer, Voy, Corta,
    Discard, Show, Declare, Muck,
)
#: A hand's action types by their ``type`` (the table adds ``dealer_draw`` and ``inaugurate``: :data:`CODEC`).
ACTION_TYPES: dict[str, type[Action]] = {cls.TYPE: cls for cls in HAND_ACTIONS}

#: Every Gofo action to and from JSON (``service.games.contract.ActionCodec``).
CODEC = ActionCodec([*HAND_ACTIONS, DealerDraw, Inaugurate])


def action_to_dict(action: Action) -> dict[str, Any]:
    """``Corta(5)`` → ``{"type": "corta", "amount": 5}``; card tuples become lists."""
    return CODEC.to_dict(action)


def action_from_dict(data: Any) -> Action:
    """Parse any Gofo action dict (``dealer_draw`` included); refuse unknown types
    (``unknown_action``), missing or unexpected fields and wrong types (``malformed_action``)."""
    return CODEC.from_dict(data)


def record(seat: int | None, action: Action) -> dict[str, Any]:
    """One transcript record of :func:`service.games.gofo.table.replay`."""
    return {"seat": seat, "action": action_to_dict(action)}
