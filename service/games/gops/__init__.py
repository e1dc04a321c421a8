"""Gops (Goofspiel): the game's package, with the parts every game has (:mod:`service.games.contract`).

Beyond them: the state's moves are in ``bidding``, ``prizes`` and ``progress``, its data in
``records``; the bots in ``bot``, ``heuristics`` and ``solver``.  ``docs/where/gops.md`` says which
function decides each rule.
"""

from service.games.contract import Action, GameDefinition
from service.games.gops.actions import (
    ACTION_TYPES, CODEC, ChoosePrize, Commit, DealPrizes, EnforceDeadline, GopsAction, ReportPrize, Resign,
    Reveal, action_from_dict, action_to_dict,
)
from service.games.gops.observer import commitments_public, prize_hidden, transcript, transcript_entry, view, visible_commitments
from service.games.gops.records import Departure, Game, Opening, Phase, Termination
from service.games.gops.rules import (
    MATCH_FORMATS, MAX_PLAYERS, MAX_RANKS, MIN_PLAYERS, PRIZE_ORDERS, PROFILES, RANK_NAMES, RESOLUTIONS, TIEBREAKS,
    UNCLAIMED, VISIBILITIES, MatchFormat, MatchRules, PrizeOrder, Resolution, Rules, Tiebreak, Unclaimed,
    Visibility, make_match_rules, make_rules, rank_name,
)
from service.games.gops.state import Gops, replay

__all__ = [
    "ACTION_TYPES", "CODEC", "GAME", "MATCH_FORMATS", "MAX_PLAYERS", "MAX_RANKS", "MIN_PLAYERS", "PRIZE_ORDERS",
    "PROFILES", "RANK_NAMES", "RESOLUTIONS", "TIEBREAKS", "UNCLAIMED", "VISIBILITIES",
    "Action", "ChoosePrize", "Commit", "DealPrizes", "Departure", "EnforceDeadline", "Game", "GopsAction", "Gops",
    "MatchFormat", "MatchRules", "Opening", "Phase", "PrizeOrder", "ReportPrize", "Resign", "Resolution", "Reveal",
    "Rules", "Termination", "Tiebreak", "Unclaimed", "Visibility",
    "action_from_dict", "action_to_dict", "commitments_public", "make_match_rules", "make_rules", "prize_hidden",
    "rank_name", "replay", "transcript", "transcript_entry", "view", "visible_commitments",
]

GAME = GameDefinition(
    name="gops", title="Gops (Goofspiel)", package=__name__, blueprint="service.api.gops:blp", collection="games",
    commitment_option="--prize-commitment", commitment_unit="game", thing="game",
    commitment_help="the prize_commitment published when game GAME (default 1) started; repeat for each "
                    "game of a match",
)
