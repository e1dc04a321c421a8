"""The offline verifier of a Gofo transcript: :func:`verify_gofo` (``python -m service.verify``).

Every finished hand is replayed against its opened deck commitment (``deals``); closed positions and
closed reshuffles hold stand-ins (:class:`~service.games.gofo.verify_unseen.Unseen`) that every public
action must fit.  What is checked, and what cannot be: ``docs/verify.md`` (Gofo).
"""

from __future__ import annotations

from typing import Any

from service.errors import RefereeError
from service.games import commitments
from service.games.gofo import chance as chance_rules
from service.games.gofo import clock
from service.games.gofo.actions import action_from_dict, action_to_dict
from service.games.gofo.records import HandRecord
from service.games.gofo.rules import Mode, Phase, TableOptions
from service.games.gofo.table import Table
from service.games.gofo.verify_decks import (
    check_deals,
    check_openings,
    reshuffle_order,
    shuffle_order,
)
from service.games.gofo.verify_entries import bot_seats, check_entries, entry_name, is_chance
from service.games.gofo.verify_unseen import Unseen
from service.games.verification import (
    Report,
    check_copied,
    engine_applies,
    _diff,
    _differing_keys,
    _is_int,
    _is_number,
)


def verify_gofo(transcript: dict[str, Any], deck_commitments: dict[int, str] | None = None) -> Report:
    """Check a Gofo transcript: every finished hand is replayed and checked against ``deals`` and
    ``results``.  The hand in progress is only checked for its envelope and who made each entry at a
    dealt table (its deck order is withheld); at a tabletop table it is replayed as far as it goes."""
    tid = transcript.get("id")
    report = Report("gofo", str(tid))
    given = dict(deck_commitments or {})

    # ---- the envelope
    if not isinstance(tid, str) or not commitments.ID_PATTERN.match(tid):
        report.problem(f"id: {tid!r} is not a table id ([A-Za-z0-9_-], 1..64 characters)")
        return report
    entries = transcript.get("entries")
    if not isinstance(entries, list) or not entries:
        report.problem("entries: missing or empty; a transcript starts with the create entry")
        return report
    top_version = transcript.get("version")
    if not _is_int(top_version):
        report.problem(f"version: {top_version!r} is not an integer")
    finished = transcript.get("hands_finished")
    if not _is_int(finished) or finished < 0:
        report.problem(f"hands_finished: {finished!r} is not a number of hands (an integer ≥ 0)")
        return report
    if finished > len(entries):
        report.problem(f"hands_finished: {finished} hands cannot have been played in {len(entries)} entries")
        return report
    first = entries[0]
    if not isinstance(first, dict) or not isinstance(first.get("action"), dict) \
            or first["action"].get("type") != "create":
        report.problem(f"{entry_name(1, first)}: the first entry must be the create entry")
        return report
    options = first["action"].get("options")
    if not isinstance(options, dict):
        report.problem(f"{entry_name(1, first)}: the create entry has no options object")
        return report
    check_copied(report, transcript, first["action"], "options")
    try:
        parsed_options = TableOptions.from_dict(options)
    except (RefereeError, TypeError, ValueError, AttributeError) as exc:
        report.problem(f"{entry_name(1, first)}: the options are not valid Gofo table options: {exc}")
        return report
    if parsed_options.to_dict() != options:
        report.problem(f"{entry_name(1, first)}: the options are not written out in full as the referee "
                       f"records them ({_differing_keys(options, parsed_options.to_dict())})")
    mode, seats = parsed_options.mode, parsed_options.seats
    if first.get("by") != "host" or first.get("seat") is not None or first.get("hand") != 0:
        report.problem(f"{entry_name(1, first)}: the create entry is made by the host, for no seat, before "
                       f"hand 1 (by {first.get('by')!r}, seat {first.get('seat')!r}, hand {first.get('hand')!r})")

    # ---- every entry's shape, version order, time order and author
    bots = bot_seats(report, first, seats, mode)
    shaped = check_entries(report, entries, seats, mode, top_version, bots)

    # ---- the revealed decks, on their own
    deals = check_deals(report, tid, transcript.get("deals"), finished, mode, given)
    recorded = transcript.get("results")
    if not isinstance(recorded, list) or not all(isinstance(r, dict) for r in recorded):
        report.problem("results: missing or not a list of hand results")
        recorded = None
    else:
        numbers = [r.get("hand") for r in recorded]
        if numbers != list(range(1, finished + 1)):
            missing = sorted(set(range(1, finished + 1)) - set(n for n in numbers if _is_int(n)))
            report.problem(
                f"results: the transcript lists {len(recorded)} hand result{'s' if len(recorded) != 1 else ''} "
                f"(for hands {numbers}) but {finished} finished hand{'s' if finished != 1 else ''} (hands_finished); "
                + (f"no result for hand{'s' if len(missing) != 1 else ''} {', '.join(map(str, missing))}"
                   if missing else "one result per finished hand, in order"))
    results_by_hand = {r["hand"]: r for r in recorded or [] if _is_int(r.get("hand"))}
    check_openings(report, deals, results_by_hand)

    # ---- replay every finished hand
    table = Table.new(parsed_options)
    total_chips = sum(table.cajas) * parsed_options.caja  # a resumed session starts with its own ledger
    replayed_results: list[HandRecord] = []
    reshuffle_count: dict[int, int] = {}
    unseen = Unseen()
    carries: dict[int, list[str]] = {}  # seat -> cards it must still draw for the canto (after a reshuffle)
    turn_seconds = transcript.get("turn_seconds")
    if turn_seconds is not None and (not _is_int(turn_seconds) or turn_seconds < 1):
        report.problem(f"turn_seconds: {turn_seconds!r} is not a number of seconds (an integer ≥ 1, or null)")
        turn_seconds = None
    clock_since = first.get("at") if _is_number(first.get("at")) else 0.0
    last_move: tuple[float, tuple, Any] | None = None  # (at, turn marker before, action) of the last seat move
    draw_rounds = 0
    replay_ok = bool(shaped) and shaped[0][0] == 1
    position = 1  # index into ``shaped`` of the next entry to apply
    # A tabletop hand in progress hides nothing: it is replayed too (no result to compare yet); nor do
    # the choices of the seats inaugurating new cajas before the next hand (they come before its deal).
    while replay_ok and position < len(shaped) and (table.hand_number <= finished or mode == Mode.TABLETOP
                                                    or table.inaugurations_pending):
        index, entry = shaped[position]
        position += 1
        where = entry_name(index, entry)
        action = entry["action"]
        kind = action["type"]
        number = table.hand_number
        if entry["hand"] != number:
            report.problem(f"{where}: recorded for hand {entry['hand']}, but replaying the entries before it, "
                           f"the table is at hand {number}")
        if kind == "name":  # a seat naming itself: not a move of the game (its author is checked above)
            if not (isinstance(action.get("name"), str) and action.get("seat") == entry["seat"]):
                report.problem(f"{where}: a name entry names seat {action.get('seat')!r} {action.get('name')!r}")
            continue
        chance = is_chance(kind, mode)
        seat = None if chance else entry["seat"]
        deal = deals.get(number)
        if kind == "dealer_draw" and chance:
            draw_rounds += 1
            draw = entry.get("draw")
            if not isinstance(draw, dict):
                report.problem(f"{where}: the first-dealer draw shows no committed draw deck (draw: round, "
                               "commitment, order, salt); every draw is made from a committed deck")
            else:
                cards = action.get("cards")
                cards = cards if isinstance(cards, list) else []  # not a list: the engine refuses it below
                why = chance_rules.draw_checks_out(tid, draw, cards) \
                    if draw.get("round") == draw_rounds else f"it is numbered round {draw.get('round')!r}, not {draw_rounds}"
                if why:
                    report.problem(f"{where}: draw round {draw_rounds} does not check out: {why}")
        if kind in ("shuffle", "reshuffle") and chance:
            if deal is None:
                report.problem(f"{where}: hand {number} is finished (hands_finished {finished}), but deals has no "
                               f"usable deal for it: its closed positions cannot be filled in, so the hand cannot "
                               "be replayed")
                replay_ok = False
                break
            if kind == "shuffle":
                order, opened = shuffle_order(report, where, number, action.get("order"), deal)
                unseen, carries = Unseen(), {}
            else:
                k = reshuffle_count[number] = reshuffle_count.get(number, 0) + 1
                order = reshuffle_order(report, where, number, k, action.get("order"), deal, table.hand,
                                        unseen, carries)
            if order is None:
                replay_ok = False
                break
            action = dict(action, order=order)
        if not chance:
            if last_move is not None and clock.restarts_clock(last_move[2], last_move[1], clock.turn_marker(table)):
                clock_since = last_move[0]
            if entry.get("timeout") is True:
                silent = table.default_action(seat) if _is_int(seat) else None
                if silent is None:
                    report.problem(f"{where}: marked as a timeout, but seat {seat} cannot be moved by the deadline "
                                   f"now (it is seat {table.to_act()}'s turn)")
                else:
                    try:
                        made = action_to_dict(action_from_dict(action))
                    except RefereeError:
                        made = action
                    if made != action_to_dict(silent):
                        report.problem(f"{where}: the referee's timeout move for seat {seat} is {made}, but a silent "
                                       f"seat makes {action_to_dict(silent)}")
                due = clock.deadline(clock_since, turn_seconds)
                if due is None:
                    report.problem(f"{where}: marked as a timeout, but the table has no turn deadline (turn_seconds)")
                elif entry["at"] < due:
                    report.problem(f"{where}: the referee moved seat {seat} at {entry['at']}, before its deadline "
                                   f"{due} ({turn_seconds} s after the move at {clock_since})")
            try:
                last_move = (entry["at"], clock.turn_marker(table), action_from_dict(action))
            except RefereeError:
                last_move = None
        if kind == "discard" and mode is not Mode.TABLETOP and table.hand is not None and table.hand.phase is Phase.DISCARD \
                and table.to_act() == seat and isinstance(action.get("cards"), list) \
                and all(isinstance(c, str) for c in action["cards"]):
            why = unseen.hold(table.hand, seat, action["cards"])
            shown = results_by_hand.get(number, {}).get("shown")
            if not why and table.hand.final_discard and isinstance(shown, list) and 0 <= seat < len(shown) \
                    and isinstance(shown[seat], list) and all(isinstance(c, str) for c in shown[seat]):
                carry, why = unseen.final_draw(table.hand, seat, action["cards"], shown[seat])
                if carry is not None:
                    carries[seat] = carry
            if why:
                report.problem(f"{where}: {why}")
                replay_ok = False
                break
        replay_ok = engine_applies(report, where, lambda: table.apply(action_from_dict(action), seat=seat))[0]
        if not replay_ok:
            break
        if chance and kind == "shuffle":  # the cards it did not open become stand-ins
            unseen.after_shuffle(table.hand, opened)
        if table.hand_number != number and number >= 1:
            record = table.last_result
            assert record is not None
            replayed_results.append(record)
            result = record.result
            chips = sum(table.fronts) + sum(table.behinds)
            if chips != sum(table.cajas) * parsed_options.caja or sum(result.net) != 0 \
                    or sum(result.payouts) != sum(p.amount for p in result.pots):
                report.problem(f"hand {number}: chips are not conserved in the replay ({chips} chips at the table "
                               f"for {sum(table.cajas)} cajas of {parsed_options.caja}, net {list(result.net)})")
            total_chips = chips
        # When the engine needs chance, the very next entry is the referee's, with the same version.
        needed = table.chance_request() if table.to_act() is None else None
        if needed is not None:
            nxt = shaped[position][1] if position < len(shaped) else None
            if not (nxt and nxt["action"]["type"] == needed["kind"] and nxt["version"] == entry["version"]
                    and is_chance(nxt["action"]["type"], mode)):
                report.problem(
                    f"{where}: after it hand {table.hand_number} needs the referee's {needed['kind']}, but the "
                    f"next entry is not that {needed['kind']} (it was dropped or moved)")
                replay_ok = False
                break
    chips = sum(table.fronts) + sum(table.behinds)  # the replayed ledger: every chip in a front or behind
    if chips != sum(table.cajas) * table.options.caja:
        report.problem(f"the replayed ledger holds {chips} chips for {sum(table.cajas)} cajas of "
                       f"{table.options.caja} (chips are not conserved)")
    if replay_ok and table.hand_number <= finished:
        report.problem(f"replaying every entry finishes {table.hand_number - 1 if table.hand_number else 0} "
                       f"hand{'s' if table.hand_number != 2 else ''}, but hands_finished is {finished}: "
                       "entries are missing at the end")
        replay_ok = False
    elif replay_ok and table.hand_number > finished + 1:
        report.problem(f"replaying every entry finishes {table.hand_number - 1} hands, but hands_finished is "
                       f"{finished}: the hand in progress is over")

    # ---- the hand in progress: not replayable (its deck is withheld), but it must be that hand's
    if replay_ok:
        for index, entry in shaped[position:]:
            if entry["hand"] != finished + 1:
                report.problem(
                    f"{entry_name(index, entry)}: recorded for hand {entry['hand']}, but after the {finished} "
                    f"finished hand{'s' if finished != 1 else ''} only hand {finished + 1} is in progress")
                break

    # ---- reshuffle keys revealed for reshuffles never made, the results
    for number, deal in sorted(deals.items()):
        made = reshuffle_count.get(number, 0)
        extra = sorted(k for k in deal["keys"] if k > made)
        if replay_ok and extra:
            report.problem(f"{deal['where']}: reveals the key of reshuffle{'s' if len(extra) != 1 else ''} {extra}, "
                           f"but hand {number} has {made} reshuffle entr{'ies' if made != 1 else 'y'}")
    if recorded is not None:
        by_hand: dict[int, tuple[int, dict[str, Any]]] = {}
        for i, mine in enumerate(recorded):
            by_hand.setdefault(mine["hand"] if _is_int(mine.get("hand")) else -1 - i, (i, mine))
        for number, theirs in enumerate(replayed_results, 1):
            if number not in by_hand:
                continue  # reported above
            i, mine = by_hand[number]
            lines: list[str] = []
            _diff(f"results[{i}]", mine, theirs.to_dict(), lines)
            for line in lines:
                report.problem(f"hand {number}: {line}")
        for i, mine in enumerate(recorded):
            pots = mine.get("pots")
            if isinstance(pots, list) and all(isinstance(p, dict) and _is_int(p.get("amount")) for p in pots) \
                    and isinstance(mine.get("payouts"), list) and all(_is_int(x) for x in mine["payouts"]) \
                    and sum(mine["payouts"]) != sum(p["amount"] for p in pots):
                report.problem(f"hand {mine.get('hand')}: results[{i}]: the payouts add up to "
                               f"{sum(mine['payouts'])} but the pots hold {sum(p['amount'] for p in pots)} "
                               "(chips are not conserved)")
            if isinstance(mine.get("net"), list) and all(_is_int(x) for x in mine["net"]) and sum(mine["net"]) != 0:
                report.problem(f"hand {mine.get('hand')}: results[{i}]: the nets add up to {sum(mine['net'])}, not 0 "
                               "(chips are not conserved)")

    if report.ok:
        balances = [table.balance(s) for s in range(seats)]
        dealt = len(deals)
        opened = sum(len(d["openings"]) for d in deals.values())
        closed = 28 * dealt - opened
        derived = sum(len(d["keys"]) for d in deals.values())  # every revealed key was used (else a problem)
        kept_closed = sum(reshuffle_count.values()) - derived
        report.summary = (
            f"gofo {tid}: {len(entries)} entries (version {top_version}), {seats} seats, {mode}; "
            f"{finished} finished hand{'s' if finished != 1 else ''} replayed"
            + (f"; {dealt} deck{'s match their' if dealt != 1 else ' matches its'} commitment"
               f"{'s' if dealt != 1 else ''}, {opened} public card{'s' if opened != 1 else ''} opened and "
               f"{closed} position{'s' if closed != 1 else ''} kept closed, {derived} reshuffle"
               f"{'s' if derived != 1 else ''} derived from the revealed keys"
               + (f", {kept_closed} reshuffle{'s' if kept_closed != 1 else ''} kept closed (a folded or unshown "
                  "hand went through it)" if kept_closed else "")
               if mode != Mode.TABLETOP else "")
            + f"; results reproduced, chips conserved ({total_chips} at the table), balances {balances}"
            + (f"; hand {finished + 1} in progress, replayed so far" if mode == Mode.TABLETOP
               else f"; hand {finished + 1} in progress, not checked (its deck is withheld)"
               if len(shaped) > position else "")
        )
    return report


verify = verify_gofo  # the name every game's verifier has (service.games.contract)
