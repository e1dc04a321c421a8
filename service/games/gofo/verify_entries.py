"""The entries of a Gofo transcript, one by one: how a problem names them, which are the referee's
chance, the seats the referee plays, each entry's shape and order, and who may have made it."""

from __future__ import annotations

from typing import Any

from service.games.gofo.rules import Mode
from service.games.verification import Report, check_entry_order, listed_bots, _is_int


def entry_name(index: int, entry: Any) -> str:
    """``entry #5 (version 4, hand 2, seat 3 open)`` — how Gofo problems name an entry."""
    if not isinstance(entry, dict):
        return f"entry #{index}"
    action = entry.get("action")
    kind = action.get("type") if isinstance(action, dict) else "?"
    seat = entry.get("seat")
    who = f"seat {seat} " if _is_int(seat) else ""
    return f"entry #{index} (version {entry.get('version')}, hand {entry.get('hand')}, {who}{kind})"


def is_chance(kind: str, mode: str) -> bool:
    """Is an entry of this kind the referee's chance?  The first-dealer draw and the shuffle always;
    a reshuffle only at a dealt table (at a tabletop table the dealer reports that the real pile was
    reshuffled: a seat's action, without an order)."""
    return kind in ("dealer_draw", "shuffle") or (kind == "reshuffle" and mode != Mode.TABLETOP)


def bot_seats(report: Report, first: dict[str, Any], seats: int, mode: str) -> set[int]:
    """The seats the create entry says the referee plays (absent: none; never at a tabletop table)."""
    listed = first["action"].get("bots", [])
    seated = listed_bots(report, entry_name(1, first), listed, seats, "table")
    if listed and seated and mode == Mode.TABLETOP:
        report.problem(f"{entry_name(1, first)}: bots at a tabletop table; the referee plays seats only at a dealt table")
    return seated


def is_bot_move(entry: dict[str, Any], bots: set[int]) -> bool:
    """Is the entry a move the referee made for a seat it plays (``by`` ``bot:<seat>``)?"""
    seat = entry.get("seat")
    return _is_int(seat) and seat in bots and entry.get("by") == f"bot:{seat}" and entry.get("timeout") is None


def check_author(report: Report, where: str, entry: dict[str, Any], seats: int, mode: str,
                 bots: set[int] = frozenset()) -> None:
    """Who made the entry (``by``) and for which seat the engine applied it (``seat``).

    A seat's move is made by that seat, by the host at a tabletop table, or by the referee when the
    seat's time ran out (``timeout: true``; the move itself is checked in the replay).  A seat the
    referee plays (``bots``) moves only as ``bot:<seat>``, and only such a seat does."""
    by, seat, kind = entry.get("by"), entry.get("seat"), entry["action"]["type"]
    timeout = entry.get("timeout", False)
    if kind == "create":
        return  # the first entry is checked on its own; a second one is reported there
    if is_chance(kind, mode):
        if by != "referee":
            report.problem(f"{where}: made by {by!r}, but only the referee supplies chance ({kind})")
        if seat is not None:
            report.problem(f"{where}: recorded for seat {seat!r}, but chance ({kind}) is applied for no seat (null)")
        if timeout is not False:
            report.problem(f"{where}: marked timeout {timeout!r}, but chance ({kind}) is nobody's turn")
        return
    if not _is_int(seat) or not 0 <= seat < seats:
        report.problem(f"{where}: seat {seat!r} is not a seat of this {seats}-seat table")
        return
    if timeout is True:
        if by != "referee":
            report.problem(f"{where}: marked as a timeout, but made by {by!r}; only the referee moves a seat "
                           "whose time ran out")
        return
    if timeout is not False:
        report.problem(f"{where}: timeout is {timeout!r}, not true or absent")
    if seat in bots:
        if by != f"bot:{seat}":
            report.problem(f"{where}: made by {by!r}, but seat {seat} is played by the referee (a bot): its "
                           f"{kind} can only be made by 'bot:{seat}'")
        return
    if by == f"bot:{seat}":
        report.problem(f"{where}: made by {by!r}, but the create entry does not list seat {seat} among the bots")
        return
    if by == f"seat:{seat}":
        return
    if by == "host":
        if mode != Mode.TABLETOP:
            report.problem(f"{where}: made by 'host', but at a dealt table the host cannot act for a seat "
                           f"(a {kind} for seat {seat} can only be made by 'seat:{seat}')")
        return
    also = " or the host" if mode == Mode.TABLETOP else ""
    referee = " (the referee moves a seat only when its time ran out, marked timeout)" if by == "referee" else ""
    report.problem(f"{where}: made by {by!r}, but a {kind} for seat {seat} can only be made by "
                   f"'seat:{seat}'{also}{referee}")


def check_entries(report: Report, entries: list[dict[str, Any]], seats: int, mode: str,
                  top_version: int, bots: set[int] = frozenset()) -> list[tuple[int, dict[str, Any]]]:
    """:func:`~service.games.verification.check_entry_order`, and each entry's author.  Like chance, a
    bot's move shares the version of the request that made it due (or, the first of a request, has one
    of its own)."""

    def version_rule(index: int, where: str, entry: dict[str, Any], previous_version: int) -> str | None:
        version, kind = entry["version"], entry["action"]["type"]
        chance = is_chance(kind, mode)
        if version == previous_version and not (chance or is_bot_move(entry, bots)):
            return (f"{where}: repeats version {version}; only the referee's chance (draw, shuffle, "
                    "reshuffle) and a bot's move share the version of the request that needed it (an entry "
                    "was duplicated)")
        if version > previous_version and chance and index > 1:
            return (f"{where}: the referee's {kind} has a version of its own ({version}); chance is "
                    f"supplied in the request that needed it, with its version ({previous_version})")
        return None

    def then(index: int, where: str, entry: dict[str, Any]) -> None:
        if index > 1 and entry["action"]["type"] == "create":
            report.problem(f"{where}: a second create entry")
        elif index > 1:
            check_author(report, where, entry, seats, mode, bots)

    return check_entry_order(report, entries, top_version, entry_name, version_rule, then)
