"""Gops (Goofspiel): the game's package, with the parts every game has (:mod:`service.games.contract`).

Beyond them: the state's parts are ``progress``, ``bidding``, ``prizes`` and ``departures`` (objects
the state holds; none imports it), its data in ``records``; the bots in ``bot``, ``heuristics`` and ``solver``.  ``docs/where/gops.md`` says which
function decides each rule.
"""

from service.games.contract import Action, GameDefinition
from service.games.gops.actions import (
    CODEC, ChoosePrize, Commit, DealPrizes, EnforceDeadline, ReportPrize, Resign, Reveal, action_from_dict,
    action_to_dict,
)
from service.games.gops.observer import transcript, view
from service.games.gops.records import Game, Phase
from service.games.gops.rules import (
    MAX_RANKS, PRIZE_ORDERS, PROFILES, RESOLUTIONS, TIEBREAKS, UNCLAIMED, VISIBILITIES, MatchFormat,
    MatchRules, PrizeOrder, Resolution, Rules, Tiebreak, Unclaimed, Visibility, make_match_rules, make_rules,
)
from service.games.gops.state import Gops, replay

__all__ = [
    "CODEC", "GAME", "MAX_RANKS", "PRIZE_ORDERS", "PROFILES", "RESOLUTIONS", "TIEBREAKS", "UNCLAIMED",
    "VISIBILITIES", "Action", "ChoosePrize", "Commit", "DealPrizes", "EnforceDeadline", "Game", "Gops",
    "MatchFormat", "MatchRules", "Phase", "PrizeOrder", "ReportPrize", "Resign", "Resolution", "Reveal",
    "Rules", "Tiebreak", "Unclaimed", "Visibility", "action_from_dict", "action_to_dict", "make_match_rules",
    "make_rules", "replay", "transcript", "view",
]

GAME = GameDefinition(
    name="gops", title="Gops (Goofspiel)", package=__name__, blueprint="service.api.gops:blp",
    commitment_option="--prize-commitment", commitment_unit="game",
    commitment_help="the prize_commitment published when game GAME (default 1) started; repeat for each "
                    "game of a match",
)
