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
from service.games.gofo.schemas import GofoTranscriptSchema
from service.games.schemas import shape_problems
from service.games.verification import Report, check_copied, engine_applies, _diff, _differing_keys


def verify_gofo(transcript: dict[str, Any], deck_commitments: dict[int, str] | None = None) -> Report:
    """Check a Gofo transcript: every finished hand is replayed and checked against ``deals`` and
    ``results``.  The hand in progress is only checked for its envelope and who made each entry at a
    dealt table (its deck order is withheld); at a tabletop table it is replayed as far as it goes.

    The transcript is first loaded through the schema the API publishes it with
    (:class:`~service.games.gofo.schemas.GofoTranscriptSchema`): one that is not in that form is
    reported field by field and checked no further."""
    tid = transcript.get("id")
    report = Report("gofo", str(tid))
    given = dict(deck_commitments or {})
    if not isinstance(tid, str) or not commitments.ID_PATTERN.match(tid):
        report.problem(f"id: {tid!r} is not a table id ([A-Za-z0-9_-], 1..64 characters)")
        return report
    report.problems += shape_problems(GofoTranscriptSchema(), transcript, "")
    if not report.ok:
        return report
    entries, finished = transcript["entries"], transcript["hands_finished"]
    if not entries:
        report.problem("entries: missing or empty; a transcript starts with the create entry")
        return report
    if finished < 0:
        report.problem(f"hands_finished: {finished!r} is not a number of hands (an integer ≥ 0)")
        return report
    if finished > len(entries):
        report.problem(f"hands_finished: {finished} hands cannot have been played in {len(entries)} entries")
        return report
    first = entries[0]
    options = _options(report, transcript, first)
    if options is None:
        return report
    bots = bot_seats(report, first, options.seats, options.mode)
    shaped = check_entries(report, entries, options.seats, options.mode, transcript["version"], bots)
    deals = check_deals(report, tid, transcript["deals"], finished, options.mode, given)
    recorded = transcript["results"]
    _check_result_numbers(report, recorded, finished)
    results_by_hand = {r["hand"]: r for r in recorded if "hand" in r}
    check_openings(report, deals, results_by_hand)
    replay = _TableReplay(report, tid, options, transcript, shaped, deals, results_by_hand)
    replay.run()
    replay.check_the_end()
    for number, deal in sorted(deals.items()):  # reshuffle keys revealed for reshuffles never made
        made = replay.reshuffle_count.get(number, 0)
        extra = sorted(k for k in deal["keys"] if k > made)
        if replay.ok and extra:
            report.problem(f"{deal['where']}: reveals the key of reshuffle{'s' if len(extra) != 1 else ''} {extra}, "
                           f"but hand {number} has {made} reshuffle entr{'ies' if made != 1 else 'y'}")
    _check_results(report, recorded, replay.results)
    if report.ok:
        report.summary = _summary(transcript, replay, deals)
    return report


def _options(report: Report, transcript: dict[str, Any], first: dict[str, Any]) -> TableOptions | None:
    """The create entry's table options (the transcript repeats them); ``None`` and the problem when
    the first entry is no create entry or its options are not a table's."""
    if first["action"].get("type") != "create":
        report.problem(f"{entry_name(1, first)}: the first entry must be the create entry")
        return None
    options = first["action"].get("options")
    if not isinstance(options, dict):
        report.problem(f"{entry_name(1, first)}: the create entry has no options object")
        return None
    check_copied(report, transcript, first["action"], "options")
    try:
        parsed = TableOptions.from_dict(options)
    except (RefereeError, TypeError, ValueError, AttributeError) as exc:
        report.problem(f"{entry_name(1, first)}: the options are not valid Gofo table options: {exc}")
        return None
    if parsed.to_dict() != options:
        report.problem(f"{entry_name(1, first)}: the options are not written out in full as the referee "
                       f"records them ({_differing_keys(options, parsed.to_dict())})")
    if first["by"] != "host" or first["seat"] is not None or first["hand"] != 0:
        report.problem(f"{entry_name(1, first)}: the create entry is made by the host, for no seat, before "
                       f"hand 1 (by {first['by']!r}, seat {first['seat']!r}, hand {first['hand']!r})")
    return parsed


def _check_result_numbers(report: Report, recorded: list[dict[str, Any]], finished: int) -> None:
    """One result per finished hand, numbered in order."""
    numbers = [r.get("hand") for r in recorded]
    if numbers != list(range(1, finished + 1)):
        missing = sorted(set(range(1, finished + 1)) - set(n for n in numbers if n is not None))
        report.problem(
            f"results: the transcript lists {len(recorded)} hand result{'s' if len(recorded) != 1 else ''} "
            f"(for hands {numbers}) but {finished} finished hand{'s' if finished != 1 else ''} (hands_finished); "
            + (f"no result for hand{'s' if len(missing) != 1 else ''} {', '.join(map(str, missing))}"
               if missing else "one result per finished hand, in order"))


class _TableReplay:
    """Every finished hand replayed on the engine (and a tabletop hand in progress), entry by entry,
    the deals filling in the deck orders, the stand-ins of closed positions checked as they go."""

    def __init__(self, report: Report, tid: str, options: TableOptions, transcript: dict[str, Any],
                 shaped: list[tuple[int, dict[str, Any]]], deals: dict[int, dict[str, Any]],
                 results_by_hand: dict[int, dict[str, Any]]) -> None:
        self.report, self.tid, self.options, self.deals = report, tid, options, deals
        self.results_by_hand, self.shaped = results_by_hand, shaped
        self.finished = transcript["hands_finished"]
        self.table = Table.new(options)
        self.total_chips = sum(self.table.cajas) * options.caja  # a resumed session starts with its own ledger
        self.results: list[HandRecord] = []
        self.reshuffle_count: dict[int, int] = {}
        self.unseen = Unseen()
        self.carries: dict[int, list[str]] = {}  # seat -> cards it must still draw for the canto (after a reshuffle)
        self.opened: dict[int, str] = {}
        self.turn_seconds = transcript["turn_seconds"]
        if self.turn_seconds is not None and self.turn_seconds < 1:
            report.problem(f"turn_seconds: {self.turn_seconds!r} is not a number of seconds (an integer ≥ 1, or null)")
            self.turn_seconds = None
        self.clock_since = transcript["entries"][0]["at"]
        self.last_move: tuple[float, tuple, Any] | None = None  # (at, turn marker before, action) of the last seat move
        self.draw_rounds = 0
        self.ok = bool(shaped) and shaped[0][0] == 1
        self.position = 1  # index into ``shaped`` of the next entry to apply

    def run(self) -> None:
        # A tabletop hand in progress hides nothing: it is replayed too (no result to compare yet); nor do
        # the choices of the seats inaugurating new cajas before the next hand (they come before its deal).
        table, mode = self.table, self.options.mode
        while self.ok and self.position < len(self.shaped) and (
                table.hand_number <= self.finished or mode == Mode.TABLETOP or table.inaugurations_pending):
            index, entry = self.shaped[self.position]
            self.position += 1
            self.ok = self._step(entry_name(index, entry), entry)

    def _step(self, where: str, entry: dict[str, Any]) -> bool:
        """Check one entry and apply it; False when the replay cannot go on."""
        report, table, action = self.report, self.table, entry["action"]
        kind, number = action["type"], table.hand_number
        if entry["hand"] != number:
            report.problem(f"{where}: recorded for hand {entry['hand']}, but replaying the entries before it, "
                           f"the table is at hand {number}")
        if kind == "name":  # a seat naming itself: not a move of the game (its author is checked above)
            if not (isinstance(action.get("name"), str) and action.get("seat") == entry["seat"]):
                report.problem(f"{where}: a name entry names seat {action.get('seat')!r} {action.get('name')!r}")
            return True
        chance = is_chance(kind, self.options.mode)
        seat = None if chance else entry["seat"]
        if kind == "dealer_draw" and chance:
            self._check_draw(where, entry)
        if kind in ("shuffle", "reshuffle") and chance:
            order = self._deck_order(where, kind, number, action)
            if order is None:
                return False
            action = dict(action, order=order)
        if not chance:
            self._check_clock(where, entry, action, seat)
        if kind == "discard" and not self._check_discard(where, number, seat, action):
            return False
        if not engine_applies(report, where, lambda: table.apply(action_from_dict(action), seat=seat))[0]:
            return False
        if chance and kind == "shuffle":  # the cards it did not open become stand-ins
            self.unseen.after_shuffle(table.hand, self.opened)
        if table.hand_number != number and number >= 1:
            self._hand_over(number)
        return self._chance_follows(where, entry)

    def _check_draw(self, where: str, entry: dict[str, Any]) -> None:
        """A first-dealer draw is made from the committed draw deck it shows, round after round."""
        self.draw_rounds += 1
        draw = entry.get("draw")
        if draw is None:
            self.report.problem(f"{where}: the first-dealer draw shows no committed draw deck (draw: round, "
                                "commitment, order, salt); every draw is made from a committed deck")
            return
        cards = entry["action"].get("cards")
        cards = cards if isinstance(cards, list) else []  # not a list: the engine refuses it below
        why = chance_rules.draw_checks_out(self.tid, draw, cards) if draw["round"] == self.draw_rounds \
            else f"it is numbered round {draw['round']!r}, not {self.draw_rounds}"
        if why:
            self.report.problem(f"{where}: draw round {self.draw_rounds} does not check out: {why}")

    def _deck_order(self, where: str, kind: str, number: int, action: dict[str, Any]) -> list[str] | None:
        """The deck (or reshuffled pile) order the deal opens for this entry, closed positions as stand-ins."""
        deal = self.deals.get(number)
        if deal is None:
            self.report.problem(f"{where}: hand {number} is finished (hands_finished {self.finished}), but deals "
                                "has no usable deal for it: its closed positions cannot be filled in, so the hand "
                                "cannot be replayed")
            return None
        if kind == "shuffle":
            order, self.opened = shuffle_order(self.report, where, number, action.get("order"), deal)
            self.unseen, self.carries = Unseen(), {}
            return order
        k = self.reshuffle_count[number] = self.reshuffle_count.get(number, 0) + 1
        return reshuffle_order(self.report, where, number, k, action.get("order"), deal, self.table.hand,
                               self.unseen, self.carries)

    def _check_clock(self, where: str, entry: dict[str, Any], action: dict[str, Any], seat: int | None) -> None:
        """A seat's move: when its turn's clock started, and a timeout move made as a silent seat's, late."""
        table, report = self.table, self.report
        if self.last_move is not None and clock.restarts_clock(self.last_move[2], self.last_move[1],
                                                               clock.turn_marker(table)):
            self.clock_since = self.last_move[0]
        if entry.get("timeout") is True:
            silent = table.default_action(seat) if seat is not None else None
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
            due = clock.deadline(self.clock_since, self.turn_seconds)
            if due is None:
                report.problem(f"{where}: marked as a timeout, but the table has no turn deadline (turn_seconds)")
            elif entry["at"] < due:
                report.problem(f"{where}: the referee moved seat {seat} at {entry['at']}, before its deadline "
                               f"{due} ({self.turn_seconds} s after the move at {self.clock_since})")
        try:
            self.last_move = (entry["at"], clock.turn_marker(table), action_from_dict(action))
        except RefereeError:
            self.last_move = None

    def _check_discard(self, where: str, number: int, seat: int | None, action: dict[str, Any]) -> bool:
        """A dealt discard's thrown cards fit the stand-ins it held; False (and the problem) when not."""
        table = self.table
        if self.options.mode is Mode.TABLETOP or table.hand is None or table.hand.phase is not Phase.DISCARD \
                or table.to_act() != seat or not isinstance(action.get("cards"), list) \
                or not all(isinstance(c, str) for c in action["cards"]):
            return True
        why = self.unseen.hold(table.hand, seat, action["cards"])
        shown = self.results_by_hand.get(number, {}).get("shown")
        if not why and table.hand.final_discard and shown is not None and 0 <= seat < len(shown) \
                and shown[seat] is not None:
            carry, why = self.unseen.final_draw(table.hand, seat, action["cards"], shown[seat])
            if carry is not None:
                self.carries[seat] = carry
        if why:
            self.report.problem(f"{where}: {why}")
            return False
        return True

    def _hand_over(self, number: int) -> None:
        """Hand ``number`` ended with this entry: its record, and the chips all still at the table."""
        table, caja = self.table, self.options.caja
        record = table.last_result
        assert record is not None
        self.results.append(record)
        result = record.result
        chips = sum(table.fronts) + sum(table.behinds)
        if chips != sum(table.cajas) * caja or sum(result.net) != 0 \
                or sum(result.payouts) != sum(p.amount for p in result.pots):
            self.report.problem(f"hand {number}: chips are not conserved in the replay ({chips} chips at the table "
                                f"for {sum(table.cajas)} cajas of {caja}, net {list(result.net)})")
        self.total_chips = chips

    def _chance_follows(self, where: str, entry: dict[str, Any]) -> bool:
        """When the engine needs chance, the very next entry is the referee's, with the same version."""
        table = self.table
        needed = table.chance_request() if table.to_act() is None else None
        if needed is None:
            return True
        nxt = self.shaped[self.position][1] if self.position < len(self.shaped) else None
        if nxt and nxt["action"]["type"] == needed["kind"] and nxt["version"] == entry["version"] \
                and is_chance(nxt["action"]["type"], self.options.mode):
            return True
        self.report.problem(f"{where}: after it hand {table.hand_number} needs the referee's {needed['kind']}, but "
                            f"the next entry is not that {needed['kind']} (it was dropped or moved)")
        return False

    def check_the_end(self) -> None:
        """The replayed ledger, the number of hands it finished, and the entries of the hand in progress."""
        report, table, finished = self.report, self.table, self.finished
        chips = sum(table.fronts) + sum(table.behinds)  # the replayed ledger: every chip in a front or behind
        if chips != sum(table.cajas) * table.options.caja:
            report.problem(f"the replayed ledger holds {chips} chips for {sum(table.cajas)} cajas of "
                           f"{table.options.caja} (chips are not conserved)")
        if self.ok and table.hand_number <= finished:
            report.problem(f"replaying every entry finishes {table.hand_number - 1 if table.hand_number else 0} "
                           f"hand{'s' if table.hand_number != 2 else ''}, but hands_finished is {finished}: "
                           "entries are missing at the end")
            self.ok = False
        elif self.ok and table.hand_number > finished + 1:
            report.problem(f"replaying every entry finishes {table.hand_number - 1} hands, but hands_finished is "
                           f"{finished}: the hand in progress is over")
        if not self.ok:
            return
        for index, entry in self.shaped[self.position:]:  # not replayable (its deck is withheld), but that hand's
            if entry["hand"] != finished + 1:
                report.problem(
                    f"{entry_name(index, entry)}: recorded for hand {entry['hand']}, but after the {finished} "
                    f"finished hand{'s' if finished != 1 else ''} only hand {finished + 1} is in progress")
                break


def _check_results(report: Report, recorded: list[dict[str, Any]], replayed: list[HandRecord]) -> None:
    """Each finished hand's result as replayed, field by field, and the chips of every recorded one."""
    by_hand: dict[int, tuple[int, dict[str, Any]]] = {}
    for i, mine in enumerate(recorded):
        by_hand.setdefault(mine["hand"] if "hand" in mine else -1 - i, (i, mine))
    for number, theirs in enumerate(replayed, 1):
        if number not in by_hand:
            continue  # reported above
        i, mine = by_hand[number]
        lines: list[str] = []
        _diff(f"results[{i}]", mine, theirs.to_dict(), lines)
        for line in lines:
            report.problem(f"hand {number}: {line}")
    for i, mine in enumerate(recorded):
        pots = sum(p["amount"] for p in mine["pots"])
        if sum(mine["payouts"]) != pots:
            report.problem(f"hand {mine.get('hand')}: results[{i}]: the payouts add up to "
                           f"{sum(mine['payouts'])} but the pots hold {pots} (chips are not conserved)")
        if sum(mine["net"]) != 0:
            report.problem(f"hand {mine.get('hand')}: results[{i}]: the nets add up to {sum(mine['net'])}, not 0 "
                           "(chips are not conserved)")


def _summary(transcript: dict[str, Any], replay: _TableReplay, deals: dict[int, dict[str, Any]]) -> str:
    options, finished, table = replay.options, replay.finished, replay.table
    balances = [table.balance(s) for s in range(options.seats)]
    dealt = len(deals)
    opened = sum(len(d["openings"]) for d in deals.values())
    closed = 28 * dealt - opened
    derived = sum(len(d["keys"]) for d in deals.values())  # every revealed key was used (else a problem)
    kept_closed = sum(replay.reshuffle_count.values()) - derived
    return (
        f"gofo {replay.tid}: {len(transcript['entries'])} entries (version {transcript['version']}), "
        f"{options.seats} seats, {options.mode}; {finished} finished hand{'s' if finished != 1 else ''} replayed"
        + (f"; {dealt} deck{'s match their' if dealt != 1 else ' matches its'} commitment"
           f"{'s' if dealt != 1 else ''}, {opened} public card{'s' if opened != 1 else ''} opened and "
           f"{closed} position{'s' if closed != 1 else ''} kept closed, {derived} reshuffle"
           f"{'s' if derived != 1 else ''} derived from the revealed keys"
           + (f", {kept_closed} reshuffle{'s' if kept_closed != 1 else ''} kept closed (a folded or unshown "
              "hand went through it)" if kept_closed else "")
           if options.mode != Mode.TABLETOP else "")
        + f"; results reproduced, chips conserved ({replay.total_chips} at the table), balances {balances}"
        + (f"; hand {finished + 1} in progress, replayed so far" if options.mode == Mode.TABLETOP
           else f"; hand {finished + 1} in progress, not checked (its deck is withheld)"
           if len(replay.shaped) > replay.position else "")
    )


verify = verify_gofo  # the name every game's verifier has (service.games.contract)
