"""The games this referee knows: name → :class:`service.games.contract.GameDefinition`.

The app registers each game's blueprint from here (and so the OpenAPI document lists them), and
``python -m service.verify`` picks a transcript's checker and its commitment option from here.
A new game is its own package plus one line below.
"""

from __future__ import annotations

from service.games.contract import GameDefinition
from service.games.gofo import GAME as GOFO
from service.games.gops import GAME as GOPS

GAMES: dict[str, GameDefinition] = {game.name: game for game in (GOPS, GOFO)}


def game(name: str) -> GameDefinition:
    """The definition of ``name``; ``KeyError`` naming the known games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; this referee knows: {', '.join(GAMES)}") from None
