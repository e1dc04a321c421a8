"""The names :mod:`service.gofo.deal` had, where they now live: the referee's chance and its
commitments in :mod:`service.gofo.chance`, what a finished hand opens in :mod:`service.gofo.observer`."""

from .chance import (  # noqa: F401
    MAX_RESHUFFLES, draw_checks_out, hand_id, new_deal, new_draw, reshuffle_order, supply_chance,
)
from .observer import (  # noqa: F401
    first_shown_by, opened_cards, public_cards, publish, redact_entry, revealed_reshuffles, tainted_seats,
)
