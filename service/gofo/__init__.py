"""Gofo (Bengolea, Córdoba): a pure rules engine.

Modules:

* :mod:`service.gofo.cards` – the 28-card Spanish deck, card codes, chance helpers.
* :mod:`service.gofo.value` – :func:`hand_value`, the value of a five-card hand.
* :mod:`service.gofo.hand`  – one hand: actions, the state machine, side pots, the observer.
* :mod:`service.gofo.table` – the table: seats, chip ledger, first-dealer draw, sequence of hands.

Nothing here does I/O or draws random numbers by itself: every shuffle and draw is an input
supplied by the caller (see :func:`service.gofo.table.chance_action`).
"""

from .cards import DECK, card_value, new_deck_order, parse_card
from .hand import (
    ACTION_TYPES,
    Corta,
    Declare,
    Decline,
    Discard,
    Enter,
    HandState,
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
    action_to_dict,
    side_pots,
)
from .table import (
    DealerDraw,
    Table,
    TableOptions,
    action_from_dict,
    chance_action,
    record,
    replay,
    view,
)
from .value import hand_value

__all__ = [
    "ACTION_TYPES", "DECK", "Corta", "DealerDraw", "Declare", "Decline", "Discard", "Enter",
    "HandState", "LegalAction", "Look", "Muck", "NoVer", "Open", "Pass", "Raise", "Refiche", "Reshuffle",
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
