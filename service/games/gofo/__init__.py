"""Gofo (Bengolea, Córdoba): a pure rules engine, in the parts every game has
(:mod:`service.games.contract`); which module decides what: ``docs/where/gofo.md``.

Nothing here does I/O or draws random numbers by itself: every shuffle and draw is an input
supplied by the caller (see :func:`service.games.gofo.chance.chance_action`).
"""

from service.games.gofo.actions import (
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
from service.games.gofo.betting import side_pots
from service.games.gofo.cards import DECK, card_value, new_deck_order, parse_card
from service.games.gofo.chance import chance_action
from service.games.gofo.hand import HandState
from service.games.gofo.observer import table_view as view
from service.games.gofo.rules import TableOptions
from service.games.gofo.table import Table, replay
from service.games.gofo.value import hand_value

__all__ = [
    "ACTION_TYPES", "DECK", "Corta", "DealerDraw", "Declare", "Decline", "Discard", "Enter",
    "HandState", "Inaugurate", "LegalAction", "Look", "Muck", "NoVer", "Open", "Pass", "Raise", "Refiche", "Reshuffle",
    "Show", "Shuffle", "Table", "TableOptions", "Ver", "Voy", "action_from_dict", "action_to_dict",
    "card_value", "chance_action", "hand_value", "new_deck_order", "parse_card", "record", "replay",
    "side_pots", "view",
]

from service.games.contract import GameDefinition  # noqa: E402

GAME = GameDefinition(
    name="gofo", title="Gofo", package=__name__, blueprint="service.api.gofo:blp", collection="tables",
    commitment_option="--deck-commitment", commitment_unit="hand", thing="table",
    commitment_help="the deck_commitment published before hand HAND (default 1) was dealt; repeat for each hand",
)
