"""Gops (Goofspiel): the game's package (see :mod:`service.game` for the shape every game has)."""

from .engine import *  # noqa: F401,F403
from .engine import (  # noqa: F401  (module constants and helpers callers use by name)
    MATCH_FORMATS, MAX_RANKS, PRIZE_ORDERS, PROFILES, RESOLUTIONS, TIEBREAKS, UNCLAIMED, VISIBILITIES,
)

from ..game import GameDefinition

GAME = GameDefinition(
    name="gops", title="Gops (Goofspiel)", package=__name__, blueprint="service.api.gops:blp",
    commitment_option="--prize-commitment", commitment_unit="game", thing="game",
    commitment_help="the prize_commitment published when game GAME (default 1) started; repeat for each "
                    "game of a match",
)
