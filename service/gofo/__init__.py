"""Gofo (Bengolea, Córdoba): a pure rules engine, in the parts every game has (:mod:`service.game`).

* :mod:`service.gofo.rules` – :class:`TableOptions`, the modes and the vocabulary (``StrEnum``s).
* :mod:`service.gofo.actions` – every action, :class:`LegalAction`, the one ``CODEC``.
* :mod:`service.gofo.state` – the state machine: :mod:`~service.gofo.table` (seats, ledger, the
  sequence of hands) and :mod:`~service.gofo.hand` (one hand), made of
  :mod:`~service.gofo.betting`, :mod:`~service.gofo.stock` and :mod:`~service.gofo.canto`.
* :mod:`service.gofo.observer` – everything a caller may see, during and after a hand.
* :mod:`service.gofo.chance` – the draw, the deck and the reshuffles, and their commitments.
* :mod:`service.gofo.clock` – the turn clock.
* :mod:`service.gofo.referee` – the stored record of a table and the moves on it (pure).
* :mod:`service.gofo.verifier` – the offline transcript checker.
* :mod:`service.gofo.cards`, :mod:`service.gofo.value` – the 28-card deck, the value of a hand.

Nothing here does I/O or draws random numbers by itself: every shuffle and draw is an input
supplied by the caller (see :func:`service.gofo.chance.chance_action`).
"""

from .actions import (
    ACTION_TYPES,
    Corta,
    DealerDraw,
    Declare,
    Decline,
    Discard,
    Enter,
    Inaugurate,
    LegalAction,
    Look,
    Muck,
    NoVer,
    Open,
    Pass,
    Raise,
    Refiche,
    Reshuffle,
    Show,
    Shuffle,
    Ver,
    Voy,
    action_from_dict,
    action_to_dict,
    record,
)
from .betting import side_pots
from .cards import DECK, card_value, new_deck_order, parse_card
from .chance import chance_action
from .hand import HandState
from .observer import table_view as view
from .rules import TableOptions
from .table import Table, replay
from .value import hand_value

__all__ = [
    "ACTION_TYPES", "DECK", "Corta", "DealerDraw", "Declare", "Decline", "Discard", "Enter",
    "HandState", "Inaugurate", "LegalAction", "Look", "Muck", "NoVer", "Open", "Pass", "Raise", "Refiche", "Reshuffle",
    "Show", "Shuffle", "Table", "TableOptions", "Ver", "Voy", "action_from_dict", "action_to_dict",
    "card_value", "chance_action", "hand_value", "new_deck_order", "parse_card", "record", "replay",
    "side_pots", "view",
]

from ..game import GameDefinition  # noqa: E402

GAME = GameDefinition(
    name="gofo", title="Gofo", package=__name__, blueprint="service.api.gofo:blp",
    commitment_option="--deck-commitment", commitment_unit="hand", thing="table",
    commitment_help="the deck_commitment published before hand HAND (default 1) was dealt; repeat for each hand",
)
