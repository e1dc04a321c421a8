"""Gops (Goofspiel): the game's package (see :mod:`service.games.contract` for the shape every game has).

=================  ==================================================================================
``rules``          :class:`Rules`, :class:`MatchRules`, the profiles, the named choices (StrEnums)
``actions``        the actions and their :data:`~service.games.gops.actions.CODEC`
``events``         what ``apply`` returns (frozen dataclasses; ``to_dict()`` their JSON)
``state``          :class:`Gops`, the state machine (its moves in ``bidding``, ``prizes``,
                   ``progress``; its data in ``records``)
``observer``       :func:`view`, :func:`transcript`, what may be seen of commitments and prizes
``chance``         the prize orders and their commitment
``clock``          deadlines
``referee``        the stored record of one game and the moves on it (pure; the HTTP layer calls it)
``verifier``       the offline transcript checker
=================  ==================================================================================

``docs/where/gops.md`` says which function decides each rule.
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
