"""What both games' schemas share: the description helper, whole-string patterns, players' names,
bots and a move's optional ``version``."""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields, validate

from service.games.contract import TOP_BOT_LEVEL
from service.games.schemas import doc  # (the games' published schemas describe their fields with it too)


class FullMatch(validate.Regexp):
    """``validate.Regexp`` that must match the whole string.

    The pattern is documented as written (``^...$``, ECMA-262 semantics in the
    spec) while Python's ``$`` would also accept a trailing newline.
    """

    def __call__(self, value):
        if not isinstance(value, str) or self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


class BotSchema(ma.Schema):
    """One seat the referee plays (both games' create bodies take a list of these)."""

    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=6), **doc(
        "The seat the referee plays (0-based, a seat of the game; its entry in seat_tokens is null)."))
    level = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=TOP_BOT_LEVEL), **doc(
        f"1 (weakest) to {TOP_BOT_LEVEL} (strongest): docs/bots.md has the table of what each level does."))


NAME_LENGTH = 24
# What a name never holds: control characters, line and paragraph separators, invisible format
# characters (zero-width, direction overrides, the byte-order mark; beyond the first 65,536 code points
# the hieroglyph, shorthand and musical format controls and the tag characters, which can carry hidden
# text) and the Hangul fillers (letters drawn blank). (Lone surrogates never reach it: a body holding
# one is not JSON text, service.web.app.)
_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x61C, 0x61C), (0x115F, 0x1160), (0x180E, 0x180E),
           (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFEFF, 0xFEFF),
           (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB))
_ASTRAL = ((0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE007F))


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """The characters of ``ranges`` as a regex class's body, written as the characters themselves (not
    \\u escapes), none of them special in a class."""
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in ranges)


# The published pattern names only characters below U+FFFF, so every regex engine reads it alike (an
# ECMA-262 engine without the u flag, schemathesis, SDK generators): the characters past U+FFFF a name
# never holds are refused by a second check, and the field's description says so.
NAME_PATTERN = f"^[^{_class(_RANGES)}]*[^\\s{_class(_RANGES)}][^{_class(_RANGES)}]*$"
NAME_RULE = ("1 to 24 characters, not only spaces (those around it are dropped); no control or invisible "
             "characters: those below U+FFFF as the pattern says, and none of the hieroglyph, shorthand or "
             "musical format controls or tag characters (U+13430-1343F, U+1BCA0-1BCA3, U+1D173-1D17A, "
             "U+E0000-E007F).")
_HIDDEN_ASTRAL = re.compile(f"[{_class(_ASTRAL)}]")


def _no_hidden_astral(name: str) -> None:
    if _HIDDEN_ASTRAL.search(name):
        raise ma.ValidationError("a name holds no invisible character (tag or format characters)")


class PlayerName(fields.String):
    """A player's name as people type it: up to 24 characters of text (no control characters), kept
    without the spaces around it. Clients show it as text: escaping is theirs, as for any string."""

    def __init__(self, **kwargs):
        super().__init__(validate=[validate.Length(min=1, max=NAME_LENGTH), FullMatch(NAME_PATTERN), _no_hidden_astral],
                         **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        super()._deserialize(value, attr, data, **kwargs)  # its type
        return value

    def deserialize(self, value, attr=None, data=None, **kwargs):
        name = super().deserialize(value, attr, data, **kwargs)  # checked as sent, then kept without spaces around
        return name.strip() if isinstance(name, str) else name


def names_field() -> fields.List:
    return fields.List(PlayerName(allow_none=True, **doc(f"A name, or null for a seat without one. {NAME_RULE}")),
                       validate=validate.Length(max=7), **doc(
        "Optional player names by seat (null or left out: no name); a seat may set or change its own "
        "later (POST …/seats/{seat}/name). Shown to everyone in views and transcripts."))


class NameSchema(ma.Schema):
    name = PlayerName(required=True, **doc(f"The seat's name. {NAME_RULE}"))


def bots_field() -> fields.List:
    return fields.List(fields.Nested(BotSchema), load_default=list, validate=validate.Length(max=7), **doc(
        "Seats the referee plays itself, each at a level; any number of seats, each at most once. A bot "
        "moves as soon as its move is due, in the request that made it due."))


class VersionedSchema(ma.Schema):
    version = fields.Integer(strict=True, validate=validate.Range(min=1), **doc("Optional: the state version this move was decided on; if the game has moved on the move is refused with stale_version."))
