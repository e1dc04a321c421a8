"""The stored record of one Gops game (or match), and the moves on it: what the HTTP layer calls.

The functions every referee module has (:mod:`service.games.contract`): :func:`create`,
:func:`load`, :func:`seat_count`, :func:`play`, :func:`enforce`, :func:`view`, :func:`etag_tag`,
:func:`transcript`; and Gops' own: :func:`seat_out`, :func:`game_number`, :func:`view_clock`.

Pure, no I/O: :mod:`service.api.gops` loads a document, hands it here with the caller's move, and
stores what comes back.  A stored document is ``{"kind", "state", "created_at", "updated_at"}``
and the ``auth`` the caller adds; ``state`` is :meth:`Gops.to_dict`.  Every change is logged as
transcript entries ``{"version", "at", "by", "game", "round", "action"}`` — the move, then the
referee's deals it called for (:func:`service.games.gops.chance.supply`), at the same version.
"""

from __future__ import annotations

from typing import Any

from service.errors import IllegalAction
from service.games.contract import Action, Applied
from service.games.gops import chance, observer
from service.games.gops.actions import EnforceDeadline, action_to_dict
from service.games.gops.rules import MatchFormat, MatchRules, Rules, make_match_rules, make_rules
from service.games.gops.state import Gops

KIND = "gops"


def entry(version: int, at: float, by: str, action: Action | dict[str, Any], game: int, round: int = 1) -> dict[str, Any]:
    """One transcript entry (``action``: an action, or the create entry's dict)."""
    data = action if isinstance(action, dict) else action_to_dict(action)
    return {"version": version, "at": at, "by": by, "game": game, "round": round, "action": data}


def _deals(state: Gops, at: float, version: int) -> list[dict[str, Any]]:
    return [entry(version, at, "referee", deal, number) for number, deal in chance.supply(state, at)]


def check_options(options: dict[str, Any]) -> tuple[Rules, MatchRules]:
    """The rules and match of a create request's ``profile``, ``options`` and ``match``
    (:func:`make_rules`, :func:`make_match_rules`); refused with ``InvalidOptions``."""
    rules = make_rules(options.get("profile", "standard"), **options.get("options", {}))
    return rules, make_match_rules(**options.get("match", {}))


def create(game_id: str, options: dict[str, Any], at: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The document (without ``auth``) and first log entries of a new game: the create entry and
    the first deal.  ``options``: as for :func:`check_options`."""
    rules, match = check_options(options)
    state = Gops.new(game_id, rules, match, now=at)
    entries = [entry(1, at, "host", {"type": "create", "rules": rules.to_dict(), "match": match.to_dict()}, 1)]
    entries += _deals(state, at, 1)
    doc = {"kind": KIND, "state": state.to_dict(), "created_at": at, "updated_at": at}
    return doc, entries


def load(doc: dict[str, Any]) -> Gops:
    """The game of a stored document."""
    return Gops.from_dict(doc["state"])


def seat_count(doc: dict[str, Any]) -> int:
    return doc["state"]["rules"]["players"]


def seat_out(doc: dict[str, Any], seat: int) -> bool:
    """Has ``seat`` resigned or forfeited the current game (its token can no longer act)?

    Read from the stored form without loading the state (``Gops.seat_out`` says the same)."""
    state = doc["state"]
    return seat in state["resigned"] or str(seat) in state["game"]["forfeited"]


def game_number(state: Gops, named: str | None) -> int | None:
    """The game (number) a commit or reveal names with its optional ``game_id``."""
    if named is None:
        return None
    if named == state.game.game_id:
        return state.game.number
    prefix = f"{state.id}-"
    if state.match.format != MatchFormat.SINGLE and named.startswith(prefix) and named[len(prefix):].isdigit():
        return int(named[len(prefix):])
    raise IllegalAction(f"{named!r} is not a game of {state.id}", code="wrong_game", game_id=state.game.game_id)


def play(doc: dict[str, Any], version: int, who: str, at: float, seat: int | None, action: Action,
         state: Gops | None = None) -> Applied | None:
    """Apply ``action`` by ``seat`` (``None``: the host or the table) to the record at ``version``;
    ``None`` for an exact repeat (nothing changes).  An illegal move raises and nothing changes.

    ``state``: the document's state object when the caller has one that is its own to change (a
    refused move leaves it as it was; an applied one changes it in place: it is then
    :attr:`Applied.state`); else it is parsed from ``doc``."""
    if state is None:
        state = load(doc)
    game, round_ = state.game.number, state.game.round
    if not state.apply(action, seat=seat, now=at):
        return None
    version += 1
    entries = [entry(version, at, who, action, game, round_), *_deals(state, at, version)]
    return Applied(dict(doc, state=state.to_dict(), updated_at=at), entries, state.over, state)


def enforce(doc: dict[str, Any], version: int, who: str, at: float, state: Gops | None = None) -> Applied | None:
    """The phase's deadline has passed: every seat that has not acted forfeits (``who`` asked)."""
    return play(doc, version, who, at, None, EnforceDeadline(), state)


def view(doc: dict[str, Any], version: int, seat: int | None, now: float,
         state: Gops | None = None) -> dict[str, Any]:
    """What ``seat`` (``None``: the public) may see of the record at ``version``; ``state``: the
    document's state when the caller has it (:attr:`Applied.state`), else it is loaded from ``doc``."""
    data = observer.view(load(doc) if state is None else state, seat, now)
    data["version"] = version
    return data


view_clock = observer.view_clock


def etag_tag(seat_view: dict[str, Any]) -> str:
    """What a seat's ETag adds to the version: ``-late`` once it may enforce a passed deadline
    (the view changes with the clock, not only with the version)."""
    late = any(a["type"] == "enforce_deadline" for a in seat_view.get("legal_actions", ()))
    return "-late" if late else ""


def transcript(doc: dict[str, Any], version: int, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The public transcript of the record at ``version`` (entries logged after it are left out)."""
    state = load(doc)
    shown = [e for e in entries if e["version"] <= version]
    return {"id": state.id, "kind": KIND, "version": version, **observer.transcript(state, shown)}
