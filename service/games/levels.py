"""The levels the referee's bots play at: 1 (weakest) to :data:`TOP_BOT_LEVEL`, read from the games'
own level tables (Gops' ``bot.LEVELS``, Gofo's), which must list the same levels, 1 up to the
strongest: the create schema, the offline verifier and ``/play`` offer exactly these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.games.gofo import bot as gofo_bot
from service.games.gops import bot as gops_bot


def same_levels(tables: Mapping[str, Sequence[int]]) -> range:
    """The levels every game's table lists, 1 to the strongest; ``ValueError`` unless each lists
    exactly those, in order."""
    levels = range(1, max(len(listed) for listed in tables.values()) + 1)
    differing = {game: list(listed) for game, listed in tables.items() if list(listed) != list(levels)}
    if differing:
        raise ValueError(f"every game's bots play at the levels 1 to {levels[-1]}; these list others: {differing}")
    return levels


#: Each game's levels, as its level table lists them.
TABLES: dict[str, tuple[int, ...]] = {
    "gops": tuple(level.level for level in gops_bot.LEVELS),
    "gofo": tuple(gofo_bot.LEVELS),
}
BOT_LEVELS = same_levels(TABLES)
TOP_BOT_LEVEL = BOT_LEVELS[-1]
