"""The ``seat`` URL converter: a seat number written one way only.

Werkzeug's ``int`` converter matches ``\\d+`` and converts with ``int()``, so ``/seats/00``,
``/seats/٠`` (Arabic-Indic) and ``/seats/０`` (fullwidth) all named seat 0: one resource,
many URLs (caches, logs and rate limits keyed by path disagree about it).  ``<seat:seat>``
accepts only the canonical ASCII decimal, ``0`` or a digit 1-9 followed by ASCII digits; any
other spelling matches no route: 404 problem+json.  The spec documents it as the integer path
parameter it was (``register`` below).
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


def _schema(converter: SeatConverter) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0}


def register(app, api) -> None:
    """Make ``<seat:...>`` available to the app's routes and document it in the spec."""
    app.url_map.converters[NAME] = SeatConverter
    api.register_converter(SeatConverter, _schema)
