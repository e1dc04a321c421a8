"""Gofo (Bengolea, Córdoba): a pure rules engine, in the parts every game has (:mod:`service.games.contract`).

* :mod:`service.games.gofo.rules` – :class:`TableOptions`, the modes and the vocabulary (``StrEnum``s).
* :mod:`service.games.gofo.actions` – every action, :class:`LegalAction`, the one ``CODEC``.
* :mod:`service.games.gofo.events` – every event ``apply`` returns (frozen dataclasses; ``to_dict()``).
* :mod:`service.games.gofo.state` – the state machine: :mod:`~service.games.gofo.table` (seats, ledger, the
  sequence of hands) and :mod:`~service.games.gofo.hand` (one hand), made of
  :mod:`~service.games.gofo.betting`, :mod:`~service.games.gofo.stock` and :mod:`~service.games.gofo.canto`.
* :mod:`service.games.gofo.observer` – everything a caller may see, during and after a hand.
* :mod:`service.games.gofo.chance` – the draw, the deck and the reshuffles, and their commitments.
* :mod:`service.games.gofo.clock` – the turn clock.
* :mod:`service.games.gofo.referee` – the stored record of a table and the moves on it (pure).
* :mod:`service.games.gofo.verifier` – the offline transcript checker, with its parts: each entry's
  shape, order and author (:mod:`~service.games.gofo.verify_entries`), the revealed decks
  (:mod:`~service.games.gofo.verify_decks`) and the closed cards of the replay
  (:mod:`~service.games.gofo.verify_unseen`).
* :mod:`service.games.gofo.cards`, :mod:`service.games.gofo.value` – the 28-card deck, the value of a hand.

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
