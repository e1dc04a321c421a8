"""What both games' schemas share: the description helper, whole-string patterns, players' names,
bots and a move's optional ``version``."""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields, validate

from service.games.levels import TOP_BOT_LEVEL
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
#: Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt): characters drawn as nothing
#: where a font has no glyph for them — zero-width characters, direction controls, variation selectors
#: (U+FE00-FE0F, U+E0100-E01EF), the combining grapheme joiner, the Hangul fillers, the tag characters
#: (which can carry hidden text), and the code points reserved as such. "A\u034fna\ufe0f" shows as "Ana".
DEFAULT_IGNORABLE = ((0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
                     (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
#: What else a name never holds: control characters, line and paragraph separators, the interlinear
#: annotation and hieroglyph format controls, and a character drawn blank (U+2800, the blank Braille
#: pattern; the Hangul fillers are default-ignorable too). (Lone surrogates never reach it: a body
#: holding one is not JSON text, service.web.json_body.)
_NEVER_SHOWN = ((0x00, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029), (0x2800, 0x2800), (0xFFF9, 0xFFFB),
                (0x13430, 0x1343F))


def _merged(ranges) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return tuple((a, b) for a, b in merged)


#: Every code point a name never holds, as ranges.
NEVER_IN_A_NAME = _merged(DEFAULT_IGNORABLE + _NEVER_SHOWN)
_RANGES = tuple(r for r in NEVER_IN_A_NAME if r[1] <= 0xFFFF)
_ASTRAL = tuple(r for r in NEVER_IN_A_NAME if r[0] > 0xFFFF)
assert all(a > 0xFFFF or b <= 0xFFFF for a, b in NEVER_IN_A_NAME)  # no range straddles U+FFFF


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """The characters of ``ranges`` as a regex class's body, written as the characters themselves (not
    \\u escapes: the spec's JSON escapes them), none of them special in a class."""
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in ranges)


# The published pattern names only characters below U+FFFF, so every regex engine reads it alike (an
# ECMA-262 engine without the u flag, schemathesis, SDK generators): the characters past U+FFFF a name
# never holds are refused by a second check, and the field's description lists them.
NAME_PATTERN = f"^[^{_class(_RANGES)}]*[^\\s{_class(_RANGES)}][^{_class(_RANGES)}]*$"
NAME_RULE = ("1 to 24 characters, not only spaces (those around it are dropped); no control, invisible or "
             "blank characters: none of Unicode's default-ignorable code points (variation selectors "
             "included) and none drawn blank, such as U+2800. Those below U+FFFF as the pattern says; past "
             "it, none of " + ", ".join(f"U+{a:X}-{b:X}" for a, b in _ASTRAL) + ".")
_HIDDEN_ASTRAL = re.compile(f"[{_class(_ASTRAL)}]")
#: The refusal of a name holding one of them (the published pattern cannot name them; a fuzzer
#: generating from the pattern alone meets it: tests/test_fuzz.py).
HIDDEN_ASTRAL_MESSAGE = ("a name holds no invisible character past U+FFFF (tag, format or variation "
                         "selector characters)")


def _no_hidden_astral(name: str) -> None:
    if _HIDDEN_ASTRAL.search(name):
        raise ma.ValidationError(HIDDEN_ASTRAL_MESSAGE)


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
