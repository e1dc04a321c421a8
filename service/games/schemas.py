"""What the games' published schemas share: plain marshmallow, no HTTP.

A transcript is published through its game's schemas (``service/games/<game>/schemas.py``): the API
dumps it through them and documents them in the spec, and the offline verifier loads a transcript
through the same ones before it checks anything about the game (``docs/verify.md``).  Their fields
load only what the referee writes: :class:`Whole` numbers are ``int`` (never ``true`` or ``3.0``), a
:class:`Number` is a finite ``int`` or ``float`` (never a string), a :class:`Flag` is ``true`` or
``false`` (never ``"true"`` or ``1``).  Dumping is marshmallow's, unchanged.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields


def doc(text: str, **extra) -> dict:
    """A field's description (and any other spec keywords) for the spec."""
    return {"metadata": {"description": text, **extra}}


class Whole(fields.Integer):
    """An integer, strictly: a float or a boolean is refused."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)


class Number(fields.Float):
    """A finite number, strictly: a string or a boolean is refused."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class Flag(fields.Boolean):
    """``true`` or ``false``, strictly: ``1`` or ``"true"`` is refused."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def shape_problems(schema: ma.Schema, data: Any, where: str) -> list[str]:
    """Every place ``data`` is not what ``schema`` publishes, one readable line each
    (``entries[3].at: Not a valid number.``, under ``where``); none when it loads."""
    errors = schema.validate(data) if isinstance(data, dict) else {"_schema": ["Not an object."]}
    lines: list[str] = []
    _flatten(where, errors, lines)
    return lines


def _flatten(path: str, errors: Any, lines: list[str]) -> None:
    if isinstance(errors, dict):
        for key, value in errors.items():
            if key == "_schema":
                _flatten(path, value, lines)
            else:
                _flatten(f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key),
                         value, lines)
    elif isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        lines.append(f"{path or 'the transcript'}: {' '.join(errors)}")
    else:
        for value in errors:
            _flatten(path, value, lines)
