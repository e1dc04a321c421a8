"""The stored record of one Gops game (or match), and the moves on it: what the HTTP layer calls.

The functions every referee module has (:mod:`service.games.contract`), and Gops' own:
:func:`seat_out`, :func:`game_number`, :func:`view_clock`.  A stored document is ``{"kind",
"state", "bots", "bot_bids", "created_at", "updated_at"}`` and the ``auth`` the caller adds;
``state`` is :meth:`Gops.to_dict`.  Every change is logged as transcript entries ``{"version",
"at", "by", "game", "round", "action"}`` — the move, then the referee's deals it called for
(:func:`supply`) and the bots' moves it made due, all at one version.

**Bots** (docs/bots.md).  ``bots`` maps a seat the referee plays (``"1"``) to its level; each bot's
move is made in the request that made it due (:func:`_bot_moves`), decided from its seat's view alone.
Its bid is salted and committed like anyone's, and kept in ``bot_bids`` — the referee's secret, never
shown — until it reveals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.errors import IllegalAction
from service.games import commitments, entropy
from service.games.contract import Action, Applied, bot_list, check_bots, pause
from service.games.gops import bot, chance, observer
from service.games.gops.actions import ChoosePrize, Commit, DealPrizes, EnforceDeadline, Reveal, action_to_dict
from service.games.gops.rules import MatchFormat, MatchRules, Rules, make_match_rules, make_rules
from service.games.gops.state import Gops

KIND = "gops"


def entry(version: int, at: float, by: str, action: Action | dict[str, Any], game: int, round: int = 1) -> dict[str, Any]:
    """One transcript entry (``action``: an action, or the create entry's dict)."""
    data = action if isinstance(action, dict) else action_to_dict(action)
    return {"version": version, "at": at, "by": by, "game": game, "round": round, "action": data}


def supply(state: Gops, at: float) -> list[tuple[int, DealPrizes]]:
    """Deal every game that waits for its order (:func:`service.games.gops.chance.deal`; a match deals
    the next game as the last ends); returns ``(game number, deal)`` for each, applied to ``state``."""
    dealt: list[tuple[int, DealPrizes]] = []
    while state.needs_chance:
        action = chance.deal(state.rules)
        number = state.game.number
        state.apply(action, now=at)
        dealt.append((number, action))
    return dealt


def _deals(state: Gops, at: float, version: int) -> list[dict[str, Any]]:
    return [entry(version, at, "referee", deal, number) for number, deal in supply(state, at)]


def check_options(options: dict[str, Any]) -> tuple[Rules, MatchRules]:
    """The rules and match of a create request's ``profile``, ``options`` and ``match``
    (:func:`make_rules`, :func:`make_match_rules`); refused with ``InvalidOptions``."""
    rules = make_rules(options.get("profile", "standard"), **options.get("options", {}))
    return rules, make_match_rules(**options.get("match", {}))


def create(game_id: str, options: dict[str, Any], at: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The document (without ``auth``) and first log entries of a new game: the create entry, the
    first deal and the bots' first moves.  ``options``: as for :func:`check_options`, and ``bots``
    (:func:`~service.games.contract.check_bots`)."""
    rules, match = check_options(options)
    bots = check_bots(options.get("bots", []), rules.players)
    state = Gops.new(game_id, rules, match, now=at)
    made = {"type": "create", "rules": rules.to_dict(), "match": match.to_dict()}
    if bots:
        made["bots"] = bot_list(bots)
    entries = [entry(1, at, "host", made, 1), *_deals(state, at, 1)]
    bids: dict[str, dict[str, Any]] = {}
    entries += _bot_moves(state, bots, bids, at, 1)
    doc = {"kind": KIND, "state": state.to_dict(), "bots": bots, "bot_bids": bids, "created_at": at, "updated_at": at}
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
    bids = dict(doc.get("bot_bids", {}))  # the document given is left as it was
    entries += _bot_moves(state, doc.get("bots", {}), bids, at, version)
    new = dict(doc, state=state.to_dict(), updated_at=at)
    if bids or "bot_bids" in doc:
        new["bot_bids"] = bids
    return Applied(new, entries, state.over, state)


def _bot_moves(state: Gops, bots: Mapping[str, int], bids: dict[str, dict[str, Any]], at: float,
               version: int) -> list[dict[str, Any]]:
    """Every move the bot seats owe, in seat order, until none owes one (a bot's move may make
    another's due: the last commit opens the reveals); their entries and the deals they call for.
    ``bids``: each bot's committed bid and salt until it reveals (changed in place).

    With no person left in the game (every seat a bot, or the people resigned or forfeited) a
    request plays at most the game in progress: the next game of a match waits for the next request
    (:func:`enforce`), so no request plays a whole match."""
    entries: list[dict[str, Any]] = []
    started = state.game.number
    moved = True
    while moved and not state.over:
        if state.game.number != started and not _people_left(state, bots):
            break
        moved = False
        for key, level in bots.items():
            action = _bot_move(state, int(key), level, bots, bids, at)
            if action is not None:
                game, round_ = state.game.number, state.game.round
                state.apply(action, seat=int(key), now=at)
                entries += [entry(version, at, f"bot:{key}", action, game, round_), *_deals(state, at, version)]
                moved = True
    return entries


def _people_left(state: Gops, bots: Mapping[str, int]) -> bool:
    """Is a seat the referee does not play still in the game?"""
    return any(str(seat) not in bots and not state.seat_out(seat) for seat in range(state.rules.players))


def _bot_move(state: Gops, seat: int, level: int, bots: Mapping[str, int], bids: dict[str, dict[str, Any]],
              at: float) -> Action | None:
    """The move bot ``seat`` owes now (``None``: none), decided from its seat's view alone."""
    seen = observer.view(state, seat, at, bots)  # what a client of the seat gets (but the version and names, which decide nothing)
    due = {legal["type"] for legal in seen["legal_actions"]}
    game = state.game
    if "commit" in due:
        pause()
        cards = bot.bid(seen, level, entropy.source())
        salt = commitments.new_salt()
        bids[str(seat)] = {"game": game.number, "round": game.round, "cards": list(cards), "salt": salt}
        commitment = commitments.bid_commitment(game.game_id, game.round, seat, cards, salt)
        return Commit(seat, game.round, commitment, game.number)
    if "reveal" in due:
        bid = bids.pop(str(seat))
        return Reveal(seat, bid["round"], tuple(bid["cards"]), bid["salt"], bid["game"])
    if "choose_prize" in due:
        return ChoosePrize(seat, bot.choose(seen, level, entropy.source()))
    return None


def enforce(doc: dict[str, Any], version: int, who: str, at: float, state: Gops | None = None) -> Applied | None:
    """The phase's deadline has passed: every seat that has not acted forfeits (``who`` asked).

    With no person left in the game and a bot's move due (a match of bots waits at the start of its
    next game), the bots play that game instead: a bot is never late."""
    if state is None:
        state = load(doc)
    bots = doc.get("bots", {})
    if bots and not state.over and not _people_left(state, bots):
        bids = dict(doc.get("bot_bids", {}))
        entries = _bot_moves(state, bots, bids, at, version + 1)
        if entries:
            new = dict(doc, state=state.to_dict(), bot_bids=bids, updated_at=at)
            return Applied(new, entries, state.over, state)
    return play(doc, version, who, at, None, EnforceDeadline(), state)


def view(doc: dict[str, Any], version: int, seat: int | None, now: float,
         state: Gops | None = None) -> dict[str, Any]:
    """What ``seat`` (``None``: the public) may see of the record at ``version``; ``state``: the
    document's state when the caller has it (:attr:`Applied.state`), else it is loaded from ``doc``."""
    data = observer.view(load(doc) if state is None else state, seat, now, doc.get("bots"), doc.get("names"))
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
    names = doc.get("names") or [None] * state.rules.players
    return {"id": state.id, "kind": KIND, "version": version, **observer.transcript(state, shown), "names": names}
