"""The offline verifier of a Gops transcript: :func:`verify_gops` (``python -m service.verify``).

A shuffled prize order is checked against the commitment published when its game started, from
``result.games`` or ``--prize-commitment`` (``docs/verify.md``); known from neither, it is a problem
(exit 1): a verifier must not pass what it could not check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.errors import RefereeError
from service.games import commitments
from service.games.gops import rules as gops_rules
from service.games.gops import state as gops_state
from service.games.gops.actions import action_from_dict
from service.games.gops.chance import fixed_order
from service.games.gops.schemas import GopsTranscriptSchema
from service.games.schemas import shape_problems
from service.games.verification import (
    Report, check_copied, check_entry_order, engine_applies, listed_bots, _short, _is_int, _diff,
)


def _where(index: int, entry: dict[str, Any]) -> str:
    """``entry #5 (version 4, game 1, round 2, reveal)`` — how problems name an entry."""
    if not isinstance(entry, dict):
        return f"entry #{index}"
    action = entry.get("action")
    kind = action.get("type") if isinstance(action, dict) else "?"
    return (f"entry #{index} (version {entry.get('version')}, game {entry.get('game')}, "
            f"round {entry.get('round')}, {kind})")


# The fields the transcript endpoint withholds (null) until they are public (gops.transcript_entry):
# a round's commitments until every seat has committed, its reveals until it is over, and so on.
_SECRETS = {"deal_prizes": ("order", "salt"), "commit": ("commitment",), "reveal": ("cards", "salt"),
            "report_prize": ("rank",)}


# Who may make each action (``by`` of its entry). ``name``: a seat naming itself (not a move of the
# game: checked for its author and shape, nothing replayed).
_SEAT_ACTIONS = ("commit", "reveal", "choose_prize", "resign", "name")
_TABLE_ACTIONS = ("report_prize", "enforce_deadline")


def _check_by(report: Report, where: str, entry: dict[str, Any], players: int, bots: set[int]) -> None:
    by = entry.get("by")
    action = entry["action"]
    kind = action.get("type")
    if kind in _SEAT_ACTIONS:
        seat = action.get("seat")
        # the referee plays a bot seat: nobody else
        author = f"bot:{seat}" if _is_int(seat) and seat in bots else f"seat:{seat}"
        if by != author:
            report.problem(f"{where}: made by {by!r}, but a {kind} for seat {seat!r} can only be made by {author!r}")
    elif kind == "deal_prizes":
        if by != "referee":
            report.problem(f"{where}: made by {by!r}, but only the referee deals the prizes")
    elif kind in _TABLE_ACTIONS:
        seats = {f"seat:{s}" for s in range(players) if s not in bots}
        if by != "host" and by not in seats:
            report.problem(f"{where}: made by {by!r}, but a {kind} comes from the host or a seat of this game")


def _version_rule(index: int, where: str, entry: dict[str, Any], previous_version: int) -> str | None:
    """Only the referee's deal and a bot's move share the version of the action that triggered them."""
    if entry["version"] == previous_version and entry["action"]["type"] != "deal_prizes" \
            and not entry["by"].startswith("bot:"):
        return (f"{where}: repeats version {previous_version}; only the referee's deal and a bot's move may "
                "share the version of the action that triggered it (an entry was duplicated)")
    return None


def _game_id(transcript_id: str, match_format: str, number: int) -> str:
    return transcript_id if match_format == "single" else f"{transcript_id}-{number}"


def verify_gops(transcript: dict[str, Any], prize_commitments: dict[int, str] | None = None) -> Report:
    """Check a Gops transcript; every problem found is a line of ``report.problems``.

    The transcript is first loaded through the schema the API publishes it with
    (:class:`~service.games.gops.schemas.GopsTranscriptSchema`): one that is not in that form is
    reported field by field and checked no further.  Then the game: the create entry and rules, the
    replay with every reveal against its commitment, the prize orders, the result."""
    tid = transcript.get("id")
    report = Report("gops", str(tid))
    if not isinstance(tid, str) or not commitments.ID_PATTERN.match(tid):
        report.problem(f"id: {tid!r} is not a game id ([A-Za-z0-9_-], 1..64 characters)")
        return report
    report.problems += shape_problems(GopsTranscriptSchema(), transcript, "")
    if not report.ok:
        return report
    if transcript["complete"] is not True:
        report.problem(
            f"complete: is {transcript['complete']!r}, not true — the transcript was exported before the "
            "game was over, so secrets are withheld and there is no result to check")
    entries = transcript["entries"]
    if not entries:
        report.problem("entries: missing or empty; a transcript starts with the create entry")
        return report
    shaped = check_entry_order(report, entries, transcript["version"], _where, _version_rule)
    replay = _create(report, transcript, entries, shaped)
    if replay is None:
        return report
    replay.run(report)
    recorded_games = transcript["result"]["games"] if transcript["result"] is not None else None
    _check_prize_orders(report, replay, entries, dict(prize_commitments or {}), recorded_games)
    if replay.ok:
        _check_result(report, replay.state, transcript["result"])
    if report.ok:
        report.summary = _summary(transcript, replay)
    return report


def _create(report: Report, transcript: dict[str, Any], entries: list[dict[str, Any]],
            shaped: list[tuple[int, dict[str, Any]]]) -> _Replay | None:
    """The create entry, the rules and match it made and the bots it lists: the replay's start, or
    ``None`` (and the problem) when there is nothing to replay."""
    first_index, first = (shaped[0] if shaped else (1, entries[0]))
    if not shaped or first_index != 1 or first["action"]["type"] != "create":
        report.problem(f"{_where(1, entries[0])}: the first entry must be the create entry")
        return None
    for i, _ in (e for e in shaped[1:] if e[1]["action"]["type"] == "create"):
        report.problem(f"{_where(i, entries[i - 1])}: a second create entry")
    if first["by"] != "host":
        report.problem(f"{_where(1, first)}: made by {first['by']!r}, but games are created by the host")
    check_copied(report, transcript, first["action"], "rules", "match")
    try:
        rules = gops_rules.Rules.from_dict(first["action"]["rules"]).validate()
        match = gops_rules.MatchRules.from_dict(first["action"]["match"]).validate()
    except (RefereeError, TypeError, KeyError, AttributeError, ValueError) as exc:
        report.problem(f"{_where(1, first)}: the rules/match are not valid Gops rules: {exc}")
        return None
    bots = listed_bots(report, _where(1, first), first["action"].get("bots", []), rules.players, "game")
    try:
        state = gops_state.Gops.new(transcript["id"], rules, match, now=first["at"])
    except RefereeError as exc:
        report.problem(f"the engine refuses to create this game: {exc}")
        return None
    return _Replay(transcript["id"], rules, match, bots, state, shaped)


@dataclass
class _Replay:
    """The replay of a transcript's entries on the engine, with the independent checks alongside:
    who made each entry, each reveal against its seat's commitment, the deals and the prizes turned."""

    tid: str
    rules: gops_rules.Rules
    match: gops_rules.MatchRules
    bots: set[int]
    state: gops_state.Gops
    shaped: list[tuple[int, dict[str, Any]]]
    ok: bool = True
    # (game, round, seat) -> the commitment and the entry # that made it
    bids: dict[tuple[int, int, int], tuple[Any, int]] = field(default_factory=dict)
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)  # game -> {"order", "salt", "index"}
    turned: dict[int, list[int]] = field(default_factory=dict)
    reveals_checked: int = 0

    def run(self, report: Report) -> None:
        self._collect_deals(report)
        first_index, first = self.shaped[0]
        self.ok = _dealt_next(report, _where(first_index, first), self.state, first, self.shaped, 1)
        for position, (index, entry) in enumerate(self.shaped[1:] if self.ok else [], 1):
            self.ok = self._apply(report, index, entry)
            if not self.ok or not _dealt_next(report, _where(index, entry), self.state, entry, self.shaped,
                                              position + 1):
                self.ok = False
                break

    def _collect_deals(self, report: Report) -> None:
        for index, entry in self.shaped:
            if entry["action"]["type"] != "deal_prizes":
                continue
            if entry["game"] in self.deals:
                report.problem(f"{_where(index, entry)}: a second deal for game {entry['game']} "
                               f"(the first is entry #{self.deals[entry['game']]['index']})")
                continue
            action = entry["action"]
            self.deals[entry["game"]] = {"order": action.get("order"), "salt": action.get("salt"), "index": index}

    def _apply(self, report: Report, index: int, entry: dict[str, Any]) -> bool:
        """Check one entry and apply it; False when the replay cannot go on."""
        state, action, where = self.state, entry["action"], _where(index, entry)
        kind = action["type"]
        _check_by(report, where, entry, self.rules.players, self.bots)
        if entry["game"] != state.game.number or entry["round"] != state.game.round:
            report.problem(f"{where}: recorded for game {entry['game']} round {entry['round']}, but replaying "
                           f"the entries before it, the game is at game {state.game.number} round "
                           f"{state.game.round}")
        if kind == "name":
            if not (_is_int(action.get("seat")) and 0 <= action["seat"] < self.rules.players
                    and isinstance(action.get("name"), str)):
                report.problem(f"{where}: a name entry names seat {action.get('seat')!r} {action.get('name')!r}")
            return True
        withheld = [k for k in _SECRETS.get(kind, ()) if k in action and action[k] is None]
        if withheld:
            report.problem(f"{where}: {', '.join(withheld)} withheld (null); the transcript is not complete")
            return False
        if kind == "commit" and _is_int(action.get("seat")) and _is_int(action.get("round")):
            self.bids.setdefault((entry["game"], action["round"], action["seat"]), (action.get("commitment"), index))
        elif kind == "reveal":
            game_id = _game_id(self.tid, self.match.format, entry["game"])
            self.reveals_checked += _check_reveal(report, where, action, entry["game"], game_id, self.bids)
        applied, changed = engine_applies(report, where, lambda: state.apply(action_from_dict(action), now=entry["at"]))
        if not applied:
            return False
        if not changed:
            report.problem(f"{where}: changes nothing (an exact repeat); the referee never records those")
        self.turned[state.game.number] = list(state.game.turned)
        return True


def _check_prize_orders(report: Report, replay: _Replay, entries: list[dict[str, Any]], given: dict[int, str],
                        recorded_games: list[dict[str, Any]] | None) -> None:
    """Every deal against its published commitment, and the prizes turned up against the order."""
    rules = replay.rules
    for number, deal in sorted(replay.deals.items()):
        _check_deal(report, entries, replay.tid, replay.match.format, rules.ranks, number, deal, given, recorded_games)
    for number, seen in sorted(replay.turned.items()):
        order = replay.deals.get(number, {}).get("order") if rules.prize_order == "shuffled" else fixed_order(rules)
        if order is not None and isinstance(order, list) and seen != order[: len(seen)]:
            report.problem(f"game {number}: the prizes turned up {seen} do not follow the prize order {order}")
    for number in sorted(set(given) - set(replay.deals)):
        report.problem(f"--prize-commitment {number}=…: the transcript has no shuffled deal for game {number}")


def _check_result(report: Report, state: gops_state.Gops, recorded: dict[str, Any] | None) -> None:
    """The replayed game is over, and its result is the transcript's, field by field (and game by game)."""
    if not state.over:
        report.problem(f"replaying every entry leaves the game unfinished (game {state.game.number}, round "
                       f"{state.game.round}, phase {str(state.game.phase)!r}): entries are missing at the end")
        return
    recorded_games = None
    if recorded is not None:
        recorded_games = recorded["games"]
        recorded = {k: v for k, v in recorded.items() if k != "games"}  # checked just below
    _diff("result", recorded, state.result.to_dict(), report.problems)
    if recorded_games is not None:
        report.problems += _diff_games(recorded_games, [p.to_dict() for p in state.games])


def _summary(transcript: dict[str, Any], replay: _Replay) -> str:
    state, rules = replay.state, replay.rules
    result = state.result.to_dict() if state.result is not None else {}
    played, shuffled, reveals = len(state.games), len(replay.deals), replay.reveals_checked
    return (
        f"gops {replay.tid}: {len(transcript['entries'])} entries (version {transcript['version']}) replayed; "
        f"{played} game{'s' if played != 1 else ''}, {rules.players} seats; "
        f"{reveals} reveal{'s match their' if reveals != 1 else ' matches its'} commitment{'s' if reveals != 1 else ''}; "
        + (f"{shuffled} prize order{'s match' if shuffled != 1 else ' matches'} the published commitment"
           f"{'s' if shuffled != 1 else ''}; " if shuffled else f"prize order {rules.prize_order}; ")
        + f"result reproduced (winners {result.get('winners')}, totals {result.get('totals')})"
    )


def _dealt_next(report: Report, where: str, state: Any, entry: dict[str, Any],
                shaped: list[tuple[int, dict[str, Any]]], following: int) -> bool:
    """When the engine needs chance, the very next entry must be the referee's deal, same version."""
    if not state.needs_chance:
        return True
    nxt = shaped[following][1] if following < len(shaped) else None
    if nxt and nxt["version"] == entry["version"] and nxt["action"]["type"] == "deal_prizes":
        return True
    report.problem(f"{where}: after it game {state.game.number} needs the referee's deal, but the next "
                   "entry is not that deal (the deal_prizes entry was dropped or moved)")
    return False


def _check_reveal(report: Report, where: str, action: dict[str, Any], game: int, game_id: str,
                  bids: dict[tuple[int, int, int], tuple[str, int]]) -> int:
    """Recompute the reveal's hash and compare it with that seat's commitment; 1 if it matches."""
    seat, round_, cards, salt = (action.get(k) for k in ("seat", "round", "cards", "salt"))
    if not (_is_int(seat) and _is_int(round_) and isinstance(cards, list) and all(_is_int(c) for c in cards)
            and isinstance(salt, str)):
        report.problem(f"{where}: malformed reveal (seat, round, cards and salt are required)")
        return 0
    committed = bids.get((game, round_, seat))
    if committed is None:
        report.problem(f"{where}: seat {seat} reveals for game {game} round {round_} but made no commitment there")
        return 0
    expected, commit_index = committed
    actual = commitments.bid_commitment(game_id, round_, seat, cards, salt)
    if not isinstance(expected, str) or not commitments.matches(actual, expected):
        report.problem(
            f"{where}: seat {seat}'s reveal (cards {cards}, salt {_short(salt)}) hashes to {_short(actual)}, "
            f"which does not match the commitment {_short(expected)} seat {seat} made for game {game_id} "
            f"round {round_} (entry #{commit_index})")
        return 0
    return 1


_GAME_RESULT_KEYS = ("game", "game_id", "termination", "scores", "unclaimed", "winners",
                     "prize_commitment", "prize_order", "prize_salt")


def _diff_games(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> list[str]:
    """Per-game results: every result field must match; a ``history`` is compared on the fields it shows
    (a public export leaves out the round records' ``sealed``, or in records of the old form their
    commitments and reveals)."""
    out: list[str] = []
    if len(recorded) != len(replayed):
        out.append(f"result.games: the transcript lists {len(recorded)} games, replaying the actions gives "
                   f"{len(replayed)}")
        return out
    for i, (mine, theirs) in enumerate(zip(recorded, replayed)):
        for key in _GAME_RESULT_KEYS:
            if key not in mine:
                out.append(f"result.games[{i}].{key}: missing from the transcript; the replay gives {theirs.get(key)!r}")
        for key in sorted(mine):
            if key == "history" and isinstance(mine[key], list) and isinstance(theirs.get(key), list) \
                    and len(mine[key]) == len(theirs[key]) and all(isinstance(r, dict) for r in mine[key]):
                for n, (rec, rep) in enumerate(zip(mine[key], theirs[key])):
                    _diff(f"result.games[{i}].history[{n}]", rec, {k: rep[k] for k in rec if k in rep}, out)
            else:
                _diff(f"result.games[{i}].{key}", mine[key], theirs.get(key, "<no such field>"), out)
    return out


def _check_deal(report: Report, entries: list, tid: str, match_format: str, ranks: int, number: int,
                deal: dict[str, Any], given: dict[int, str],
                recorded_games: list[dict[str, Any]] | None) -> None:
    """The deal's order and salt against the commitment published when the game started."""
    where = _where(deal["index"], entries[deal["index"] - 1])
    order, salt = deal["order"], deal["salt"]
    if order is None or salt is None:
        report.problem(f"{where}: the prize order and salt are withheld (null); the game was not over")
        return
    if not isinstance(order, list) or sorted(o for o in order if _is_int(o)) != list(range(1, ranks + 1)) \
            or not all(_is_int(o) for o in order):
        report.problem(f"{where}: the prize order {order!r} is not every rank 1..{ranks} exactly once")
        return
    if not isinstance(salt, str) or not commitments.SALT_PATTERN.match(salt):
        report.problem(f"{where}: the prize salt {_short(salt)!r} is not 64 lowercase hex characters")
        return
    game_id = _game_id(tid, match_format, number)
    actual = commitments.prize_order_commitment(game_id, order, salt)
    published: list[tuple[str, Any]] = []
    if number in given:
        published.append((f"--prize-commitment {number}", given[number]))
    if recorded_games is not None:
        mine = [g for g in recorded_games if g.get("game") == number]
        if mine and mine[0].get("prize_commitment") is not None:
            published.append((f"result.games (game {number})", mine[0]["prize_commitment"]))
    if not published:
        report.problem(
            f"game {number}: cannot check the deal — the transcript does not carry the prize commitment "
            f"published when game {game_id} started; pass --prize-commitment {number}=<hex> "
            "(the prize_commitment the players saw before their first bid)")
        return
    for source, expected in published:
        if not isinstance(expected, str) or not commitments.matches(actual, expected):
            report.problem(
                f"{where}: the prize order {order} and salt {_short(salt)} hash to {_short(actual)}, which does "
                f"not match the prize commitment {_short(expected)} published for game {game_id} ({source})")


verify = verify_gops  # the name every game's verifier has (service.games.contract)
