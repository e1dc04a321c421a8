"""The options a race is created with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.errors import InvalidOptions


@dataclass(frozen=True)
class Options:
    players: int = 2
    target: int = 10
    max_step: int = 3

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        unknown = set(data) - {"players", "target", "max_step"}
        if unknown:
            raise InvalidOptions(f"unknown options: {sorted(unknown)}")
        options = cls(**data)
        for name in ("players", "target", "max_step"):
            value = getattr(options, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 100:
                raise InvalidOptions(f"{name} must be an integer from 1 to 100")
        if options.players < 2:
            raise InvalidOptions("a race needs at least 2 players")
        return options
