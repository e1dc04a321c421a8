"""Every error code the referee answers with: one enumerated set.

The error table of docs/client-guide.md is generated from it (``python -m service.error_codes``),
the spec's ``Problem.code`` lists exactly these values, and a test fails when the source raises a
code not here. A code's HTTP status is decided in ``service.api.problems``; ``rows`` only says
where the table lists it (``duplicate_card`` is 409 or 422 depending on the request).
"""

from __future__ import annotations

import sys
from enum import StrEnum

# The error table's rows (docs/client-guide.md), in order.
ROWS = ("400", "401", "403", "404", "405", "406", "408", "409 — Gops", "409 — Gofo", "409 — any", "413", "415",
        "422", "429", "500", "503", "other")


class ErrorCode(StrEnum):
    """A stable error code; ``rows`` are (table row, note) pairs."""

    rows: tuple[tuple[str, str], ...]

    def __new__(cls, value: str, rows: tuple[tuple[str, str], ...]) -> "ErrorCode":
        member = str.__new__(cls, value)
        member._value_ = value
        member.rows = rows
        return member

    MALFORMED_JSON = 'malformed_json', (('400', ''),)
    DUPLICATE_KEY = 'duplicate_key', (('400', 'an object of the body holds a key twice; the detail names it'),)
    BAD_REQUEST = 'bad_request', (('400', ''),)
    MISSING_TOKEN = 'missing_token', (('401', ''),)
    INVALID_TOKEN = 'invalid_token', (('401', ''),)
    UNAUTHORIZED = 'unauthorized', (('401', ''),)
    INVALID_APP_KEY = 'invalid_app_key', (('401', 'a `Referee-App-Key` this referee never issued'),)
    APP_KEY_ROLLED = 'app_key_rolled', (('401', 'an app key replaced by a newer one'),)
    APP_KEY_REVOKED = 'app_key_revoked', (('401', ''),)
    APP_KEY_REQUIRED = 'app_key_required', (('401', 'a create without an app key when `REFEREE_APP_KEYS_REQUIRED_FOR_CREATES`, or an app route without one'),)
    NOT_YOUR_SEAT = 'not_your_seat', (('403', ''),)
    HOST_NOT_ALLOWED = 'host_not_allowed', (('403', ''),)
    SEAT_OUT = 'seat_out', (('403', "a resigned or forfeited seat's token"),)
    APP_ORIGIN_NOT_ALLOWED = 'app_origin_not_allowed', (('403', "an app key sent from a browser origin the app does not list"),)
    FORBIDDEN = 'forbidden', (('403', ''),)
    GAME_NOT_FOUND = 'game_not_found', (('404', ''),)
    NOT_FOUND = 'not_found', (('404', ''),)
    METHOD_NOT_ALLOWED = 'method_not_allowed', (('405', ''),)
    NOT_ACCEPTABLE = 'not_acceptable', (('406', ''),)
    REQUEST_TIMEOUT = 'request_timeout', (('408', 'the body did not arrive within `REFEREE_BODY_TIMEOUT`; the connection is closed'),)
    WRONG_PHASE = 'wrong_phase', (('409 — Gops', ''), ('409 — Gofo', ''))
    WRONG_ROUND = 'wrong_round', (('409 — Gops', ''),)
    WRONG_GAME = 'wrong_game', (('409 — Gops', ''),)
    WRONG_SEAT = 'wrong_seat', (('409 — Gops', 'an action naming another seat than the one it is applied for (engine callers; the HTTP routes name the seat once)'),)
    ALREADY_COMMITTED = 'already_committed', (('409 — Gops', ''),)
    ALREADY_REVEALED = 'already_revealed', (('409 — Gops', ''),)
    COMMITMENT_MISMATCH = 'commitment_mismatch', (('409 — Gops', ''),)
    CARD_NOT_IN_HAND = 'card_not_in_hand', (('409 — Gops', ''), ('409 — Gofo', ''))
    NOT_YOUR_TURN = 'not_your_turn', (('409 — Gops', ''), ('409 — Gofo', ''))
    PRIZE_NOT_IN_ROW = 'prize_not_in_row', (('409 — Gops', ''),)
    PRIZE_ALREADY_SEEN = 'prize_already_seen', (('409 — Gops', ''),)
    DEADLINE_NOT_PASSED = 'deadline_not_passed', (('409 — Gops', ''),)
    NO_DEADLINE = 'no_deadline', (('409 — Gops', ''),)
    NOBODY_LATE = 'nobody_late', (('409 — Gops', ''),)
    GAME_OVER = 'game_over', (('409 — Gops', ''),)
    HINT_UNAVAILABLE = 'hint_unavailable', (('409 — Gops', 'a hint outside the commit phase, or for rules the solver does not cover'), ('409 — Gofo', 'a hint for a seat that is not to act, or at a tabletop table'))
    MUST_ANSWER = 'must_answer', (('409 — Gofo', ''),)
    NOTHING_TO_ANSWER = 'nothing_to_answer', (('409 — Gofo', ''),)
    MUST_SHOW = 'must_show', (('409 — Gofo', ''),)
    OPENING_TOO_SMALL = 'opening_too_small', (('409 — Gofo', ''),)
    OPENING_TOO_LARGE = 'opening_too_large', (('409 — Gofo', ''),)
    BET_BELOW_MINIMUM = 'bet_below_minimum', (('409 — Gofo', ''),)
    BET_ABOVE_RESTO = 'bet_above_resto', (('409 — Gofo', ''),)
    ALREADY_LOOKED = 'already_looked', (('409 — Gofo', ''),)
    CANNOT_LOOK = 'cannot_look', (('409 — Gofo', ''),)
    BAD_DISCARD_COUNT = 'bad_discard_count', (('409 — Gofo', ''),)
    DUPLICATE_CARD = 'duplicate_card', (('409 — Gofo', 'a card already elsewhere'), ('422', ''))
    DECLARED_VALUE_MISMATCH = 'declared_value_mismatch', (('409 — Gofo', ''),)
    DECLARATION_LOCKED = 'declaration_locked', (('409 — Gofo', 'a correction after cards were shown'),)
    ALREADY_SHOWN = 'already_shown', (('409 — Gofo', ''),)
    NOT_IN_HAND = 'not_in_hand', (('409 — Gofo', ''),)
    CANNOT_RESHUFFLE = 'cannot_reshuffle', (('409 — Gofo', ''),)
    WAITING_FOR_CHANCE = 'waiting_for_chance', (('409 — Gofo', ''),)
    UNEXPECTED_CHANCE = 'unexpected_chance', (('409 — Gofo', ''),)
    CHANCE_ACTION = 'chance_action', (('409 — Gofo', ''),)
    HAND_OVER = 'hand_over', (('409 — Gofo', ''),)
    INAUGURATION_PENDING = 'inauguration_pending', (('409 — Gofo', 'any other move while seats choose the front of a new caja'),)
    NO_INAUGURATION_PENDING = 'no_inauguration_pending', (('409 — Gofo', 'an inaugurate by a seat with no new caja to inaugurate'),)
    STALE_VERSION = 'stale_version', (('409 — any', ''),)
    IDEMPOTENCY_KEY_IN_PROGRESS = 'idempotency_key_in_progress', (('409 — any', ''),)
    ILLEGAL_ACTION = 'illegal_action', (('409 — any', ''),)
    CONFLICT = 'conflict', (('409 — any', ''),)
    BODY_TOO_LARGE = 'body_too_large', (('413', ''),)
    UNSUPPORTED_MEDIA_TYPE = 'unsupported_media_type', (('415', ''),)
    INVALID_REQUEST = 'invalid_request', (('422', 'with field-by-field `errors`; unknown fields are refused'),)
    INVALID_OPTIONS = 'invalid_options', (('422', ''),)
    INVALID_NAMES = 'invalid_names', (('422', 'more names than the game has seats'),)
    INVALID_BOTS = 'invalid_bots', (('422', 'a bot on a seat the game does not have, a seat twice, or on a tabletop table'),)
    UNKNOWN_PROFILE = 'unknown_profile', (('422', ''),)
    UNKNOWN_OPTION = 'unknown_option', (('422', ''),)
    BAD_OPTION = 'bad_option', (('422', ''),)
    BAD_MODE = 'bad_mode', (('422', ''),)
    BAD_SEAT_COUNT = 'bad_seat_count', (('422', ''),)
    BAD_FIRST_DEALER = 'bad_first_dealer', (('422', ''),)
    FIRST_DEALER_NOT_TABLETOP = 'first_dealer_not_tabletop', (('422', ''),)
    BAD_RESUMED_LEDGER = 'bad_resumed_ledger', (('422', ''),)
    CHIPS_NOT_CONSERVED = 'chips_not_conserved', (('422', ''),)
    WRONG_CARD_COUNT = 'wrong_card_count', (('422', ''),)
    NO_SUCH_RANK = 'no_such_rank', (('422', ''),)
    NO_SUCH_SEAT = 'no_such_seat', (('404', 'a seat the game or table does not have, asked with a token of it; without one, 401 first'), ('422', 'an engine caller\'s action naming a seat the game does not have'))
    BAD_SEAT = 'bad_seat', (('422', ''),)
    INVALID_SALT = 'invalid_salt', (('422', ''),)
    INVALID_COMMITMENT = 'invalid_commitment', (('422', ''),)
    INVALID_PRIZE_ORDER = 'invalid_prize_order', (('422', ''),)
    BAD_CARD = 'bad_card', (('422', ''),)
    BAD_HAND_SIZE = 'bad_hand_size', (('422', ''),)
    BAD_POINTS = 'bad_points', (('422', ''),)
    COUNT_MISMATCH = 'count_mismatch', (('422', ''),)
    BAD_DECK_ORDER = 'bad_deck_order', (('422', ''),)
    BAD_DRAW = 'bad_draw', (('422', ''),)
    BAD_INAUGURATION_FRONT = 'bad_inauguration_front', (('422', ''),)
    UNKNOWN_ACTION = 'unknown_action', (('422', ''),)
    MALFORMED_ACTION = 'malformed_action', (('422', ''),)
    INVALID_ACTION = 'invalid_action', (('422', ''),)
    INVALID_IDEMPOTENCY_KEY = 'invalid_idempotency_key', (('422', ''),)
    INVALID_CURSOR = 'invalid_cursor', (('422', ''),)
    IDEMPOTENCY_KEY_REUSED = 'idempotency_key_reused', (('422', ''),)
    RATE_LIMITED = 'rate_limited', (('429', 'with `Retry-After`'),)
    TOO_MANY_CONNECTIONS = 'too_many_connections', (('429', 'a client over `REFEREE_MAX_CONNECTIONS_PER_CLIENT` open connections; the connection is closed'),)
    INTERNAL_ERROR = 'internal_error', (('500', '— always a bug; please report it'),)
    STORE_UNAVAILABLE = 'store_unavailable', (('503', ''),)
    BUSY = 'busy', (('503', ''),)
    STORE_BUSY = 'store_busy', (('503', 'with `Retry-After`'),)
    QUEUE_TIMEOUT = 'queue_timeout', (('503', 'with `Retry-After`: the request waited past `REFEREE_QUEUE_TIMEOUT` before the worker could start on it; nothing was done; the connection is closed'),)
    TOO_MANY_STREAMS = 'too_many_streams', (('503', 'with `Retry-After`: the worker\'s share of connections for streams is taken'),)
    ID_COLLISION = 'id_collision', (('503', ''),)
    UNAVAILABLE = 'unavailable', (('503', ''),)
    HTTP_ERROR = 'http_error', (('other', 'any other status the web stack answers with, e.g. 414'),)


def readme_table() -> str:
    """The error table of docs/client-guide.md (between its ``<!-- error-codes -->`` markers)."""
    lines = ["| status | codes |", "|---|---|"]
    for row in ROWS:
        cells = []
        for code in ErrorCode:
            for where, note in code.rows:
                if where == row:
                    if not note:
                        cells.append(f"`{code}`")
                    elif note.startswith("— "):
                        cells.append(f"`{code}` {note}")
                    else:
                        cells.append(f"`{code}` ({note})")
        if cells:
            lines.append(f"| {row} | {', '.join(cells)} |")
    return "\n".join(lines)


MARKERS = ("<!-- error-codes: generated by `python -m service.error_codes --write` -->", "<!-- /error-codes -->")


def with_table(readme: str) -> str:
    """``readme`` with the text between the markers replaced by :func:`readme_table`."""
    start, end = readme.index(MARKERS[0]) + len(MARKERS[0]), readme.index(MARKERS[1])
    return readme[:start] + "\n" + readme_table() + "\n" + readme[end:]


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        from pathlib import Path

        path = Path(__file__).resolve().parent.parent / "docs" / "client-guide.md"
        path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(readme_table() + "\n")
