"""The ``seat`` URL converter: a seat number written one way only.

Werkzeug's ``int`` converter read ``/seats/00``, ``/seats/٠`` and ``/seats/０`` all as seat 0: one
resource, many URLs (caches, logs and rate limits keyed by path disagree about it). Any spelling
but the canonical ASCII decimal matches no route (404); the spec still says an integer.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import BaseConverter, ValidationError

NAME = "seat"


class SeatConverter(BaseConverter):
    regex = r"(?:0|[1-9][0-9]*)"  # [0-9], not \d: ASCII digits only
    part_isolating = True

    def to_python(self, value: str) -> int:
        try:
            return int(value)
        except ValueError:  # past Python's int-from-string digit limit: no such seat anyway
            raise ValidationError() from None

    def to_url(self, value: Any) -> str:
        return str(int(value))


def register(app, api) -> None:
    """Make ``<seat:...>`` available to the app's routes and document it in the spec."""
    app.url_map.converters[NAME] = SeatConverter
    api.register_converter(SeatConverter, lambda converter: {"type": "integer", "minimum": 0})
