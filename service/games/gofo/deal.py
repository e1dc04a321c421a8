"""The names :mod:`service.games.gofo.deal` had, where they now live: the referee's chance and its
commitments in :mod:`service.games.gofo.chance`, what a finished hand opens in :mod:`service.games.gofo.observer`."""

from service.games.gofo.chance import (  # noqa: F401
    MAX_RESHUFFLES, draw_checks_out, hand_id, new_deal, new_draw, reshuffle_order, supply_chance,
)
from service.games.gofo.observer import (  # noqa: F401
    first_shown_by, opened_cards, public_cards, publish, redact_entry, revealed_reshuffles, tainted_seats,
)
