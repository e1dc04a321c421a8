"""The stored record of one Gofo table, and the moves on it — what the HTTP layer calls.

Pure: no I/O.  The referee's chance (the draw, the shuffles, the salts) comes from
:func:`service.games.gofo.chance.supply_chance`, which draws from :mod:`service.games.entropy` unless an ``rng``
and ``new_salt`` are given; the caller loads the document, hands it here, and stores what comes back.

The document (``doc``): ``kind``, ``id``, ``state`` (:meth:`service.games.gofo.table.Table.to_dict`), the
referee's secrets ``deals`` (hand number → its deck, salts and reshuffle keys:
:func:`service.games.gofo.chance.new_deal`) and ``draws`` (the committed first-dealer draw decks), ``results``
(every finished hand's result), the turn clock (``turn_seconds``, ``turn_since``) and times.  The
caller adds ``auth``.  Each change returns the new document (the one given is left as it was) and
its transcript entries: the seat's move, then the chance it called for.
"""

from __future__ import annotations

from typing import Any, Callable

from service.errors import InvalidOptions
from service.games import contract, entropy
from service.games.contract import Applied, bot_list, pause
from service.games.gofo import bot, chance, clock, observer
from service.games.gofo.actions import Action, DealerDraw, action_to_dict
from service.games.gofo.cards import RandomLike
from service.games.gofo.rules import Mode, TableOptions
from service.games.gofo.table import Table

KIND = "gofo"
_DRAW_FIELDS = ("round", "commitment", "order", "salt")


def entry(version: int, at: float, by: str, seat: int | None, hand: int, action: Action | dict[str, Any]) -> dict[str, Any]:
    """One transcript entry: who (``host``, ``seat``, ``referee``) did what, in which hand."""
    data = action if isinstance(action, dict) else action_to_dict(action)
    return {"version": version, "at": at, "by": by, "seat": seat, "hand": hand, "action": data}


def create(table_id: str, options: dict[str, Any], at: float, rng: RandomLike | None = None,
           new_salt: Callable[[], str] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A new table's document (without ``auth``) and its first entries: the create entry, the
    first-dealer draw (until a dealer is drawn), the first hand's shuffle and the moves of the bots
    to act before a person (:func:`_bot_moves`).  ``options``: the table options, ``turn_seconds``
    and ``bots`` (:func:`check_bots`); refused with ``InvalidOptions`` (:class:`TableOptions`)."""
    body = dict(options)
    turn_seconds = body.pop("turn_seconds", None)
    listed = body.pop("bots", None) or []
    options = TableOptions.from_dict({k: v for k, v in body.items() if v is not None})
    bots = check_bots(listed, options)
    doc: dict[str, Any] = {"kind": KIND, "id": table_id, "deals": {}, "draws": [], "results": [],
                           "turn_seconds": turn_seconds, "turn_since": at, "bots": bots,
                           "created_at": at, "updated_at": at}
    made: dict[str, Any] = {"type": "create", "options": options.to_dict()}
    if bots:
        made["bots"] = bot_list(bots)
    entries = [entry(1, at, "host", None, 0, made)]
    table = Table.new(options)
    _supply_chance(table, doc, 1, at, entries, rng, new_salt)
    doc["state"] = table.to_dict()
    if bots:
        _bot_moves(doc, table, 1, at, entries, rng, new_salt)
        doc["state"] = table.to_dict()
    return doc, entries


def check_bots(bots: list[dict[str, int]], options: TableOptions) -> dict[str, int]:
    """The create request's ``bots`` as :func:`service.games.contract.check_bots` keeps them; also
    ``invalid_bots`` for any bot at a tabletop table (the referee sees no card there to decide from)."""
    if not bots:
        return {}
    if options.mode is Mode.TABLETOP:
        raise InvalidOptions("a bot sits only at a dealt table (at a tabletop table the cards are real)",
                             code="invalid_bots")
    return contract.check_bots(bots, options.seats)


def play(doc: dict[str, Any], version: int, who: str, at: float, seat: int | None, action: Action,
         state: Table | None = None, rng: RandomLike | None = None,
         new_salt: Callable[[], str] | None = None) -> Applied:
    """Apply one seat's move (and the chance it calls for) to the table stored at ``version``.
    An illegal move raises and nothing changes.  ``state``: the document's table when the caller
    has one that is its own to change, else it is parsed from ``doc``."""
    table = load(doc) if state is None else state
    return _apply(doc, table, version, who, at, seat, action, rng, new_salt)


def enforce(doc: dict[str, Any], version: int, who: str, at: float, state: Table | None = None,
            rng: RandomLike | None = None, new_salt: Callable[[], str] | None = None) -> Applied:
    """The move silence makes for the seat to act once its turn deadline has passed
    (:func:`service.games.gofo.clock.timeout_move`), entered as the referee's (whoever asked,
    ``who``), marked ``timeout``; then the bots' moves it made due.

    A bot to act is never late: it waits only at a table whose every seat is a bot, between two of
    its hands (:func:`_bot_moves`), and then asking plays its next hand at once, deadline or not."""
    table = load(doc) if state is None else state
    seat = table.to_act()
    if seat is not None and str(seat) in doc.get("bots", {}):
        return _apply(doc, table, version, who, at, seat, None, rng, new_salt)
    seat, action = clock.timeout_move(table, clock.turn_deadline(doc), at)
    return _apply(doc, table, version, "referee", at, seat, action, rng, new_salt, timeout=True)


def _apply(doc: dict[str, Any], table: Table, version: int, who: str, at: float, seat: int,
           action: Action | None, rng: RandomLike | None, new_salt: Callable[[], str] | None,
           timeout: bool = False) -> Applied:
    """The seat's move (``None``: only the bots' moves now due), then the bots' moves it made due."""
    version += 1
    new = _next_doc(doc, table.hand_number)
    entries: list[dict[str, Any]] = []
    if action is not None:
        _move(new, table, version, at, who, seat, action, entries, rng, new_salt, timeout)
    _bot_moves(new, table, version, at, entries, rng, new_salt)
    new.update(state=table.to_dict(), updated_at=at)
    return Applied(new, entries, False, table)


def _move(doc: dict[str, Any], table: Table, version: int, at: float, by: str, seat: int, action: Action,
          entries: list[dict[str, Any]], rng: RandomLike | None, new_salt: Callable[[], str] | None,
          timeout: bool = False) -> None:
    """Apply one seat's move and the chance it calls for to ``table`` and to ``doc`` (its own copy,
    changed in place: the results, the hand that ended, the turn clock); its entries go to ``entries``."""
    number, before = table.hand_number, clock.turn_marker(table)
    table.apply(action, seat=seat)  # checked first: an illegal move raises here, before anything changes
    move = entry(version, at, by, seat, number, action)
    if timeout:
        move["timeout"] = True
    entries.append(move)
    _supply_chance(table, doc, version, at, entries, rng, new_salt)  # may finish the hand (a reshuffle, then the canto)
    if table.hand_number != number and table.last_result is not None:
        doc["results"].append(table.last_result.to_dict())
        doc["hand_ended_at"] = version  # this move ended the hand: its answer carries the result
    if clock.restarts_clock(action, before, clock.turn_marker(table)):
        doc["turn_since"] = at  # the clock of the seat to act restarts with every move


#: A bound on the bots' moves in one request; the bots' own rule stops them long before it
#: (:func:`_bot_moves`): a bot left to act waits for the next request (``enforce`` plays it).
MAX_BOT_MOVES = 2000


def _bot_moves(doc: dict[str, Any], table: Table, version: int, at: float, entries: list[dict[str, Any]],
               rng: RandomLike | None, new_salt: Callable[[], str] | None) -> None:
    """While the seat to act is a bot (``doc["bots"]``), it moves: it decides from exactly the view
    a client of that seat gets (:func:`service.games.gofo.observer.record_view`, its legal actions
    included) and a random source (``rng``, else :func:`service.games.entropy.source`), and its move is
    applied like any seat's (:func:`_move`), made ``by`` ``"bot:<seat>"`` at ``version`` (the version
    of the request that made it due).  It stops when a person must act, and at a table whose every
    seat is a bot once the hand in progress has ended (a table of bots plays one hand a request)."""
    bots = doc.get("bots") or {}
    if not bots:
        return
    everyone = len(bots) == table.n
    start = table.hand_number
    source = rng if rng is not None else entropy.source()
    for _ in range(MAX_BOT_MOVES):
        seat = table.to_act()
        if seat is None or str(seat) not in bots or (everyone and table.hand_number != start):
            return
        pause()
        seen = observer.record_view(doc, version, seat, table)
        action = bot.act(seen, bots[str(seat)], source)
        _move(doc, table, version, at, f"bot:{seat}", seat, action, entries, rng, new_salt)


def _next_doc(doc: dict[str, Any], number: int) -> dict[str, Any]:
    """A copy of ``doc`` whose parts a move may change are its own: the results, the draws, the
    deals (the current hand's reshuffles are appended to; the next hand's deal is added)."""
    deals = dict(doc["deals"])
    current = deals.get(str(number))
    if current is not None:
        deals[str(number)] = dict(current, reshuffles=list(current["reshuffles"]))
    return dict(doc, deals=deals, draws=list(doc.get("draws", [])), results=list(doc["results"]))


def _supply_chance(table: Table, doc: dict[str, Any], version: int, at: float, entries: list[dict[str, Any]],
                   rng: RandomLike | None = None, new_salt: Callable[[], str] | None = None) -> None:
    """Answer every chance request (:func:`service.games.gofo.chance.supply_chance`) and record each as the
    referee's entry, with the request's ``version`` (a draw's entry shows its committed deck)."""
    draws = doc.setdefault("draws", [])
    before = len(draws)
    _, applied = chance.supply_chance(table, doc["id"], doc["deals"], draws, rng, new_salt)
    new_draws = iter(draws[before:])
    for number, action in applied:
        made = entry(version, at, "referee", None, number, action)
        if isinstance(action, DealerDraw):
            made["draw"] = {k: v for k, v in next(new_draws).items() if k in _DRAW_FIELDS}
        entries.append(made)


# ------------------------------------------------------------------ reading a record


def load(doc: dict[str, Any]) -> Table:
    """The table of a stored document."""
    return Table.from_dict(doc["state"])


def seat_count(doc: dict[str, Any]) -> int:
    return doc["state"]["options"]["seats"]


def host_acts_for_seats(doc: dict[str, Any]) -> bool:
    """At a tabletop table the host's token may act for any seat (one phone for the real table)."""
    return doc["state"]["options"]["mode"] == Mode.TABLETOP


def view(doc: dict[str, Any], version: int, seat: int | None, now: float,
         state: Table | None = None) -> dict[str, Any]:
    """:func:`service.games.gofo.observer.record_view` (``state``: :attr:`Applied.state`, when the caller
    has it); ``now`` is not read: a Gofo view's deadlines are instants in the document."""
    return observer.record_view(doc, version, seat, state)


def etag_tag(seat_view: dict[str, Any]) -> str:
    """What a seat's ETag adds to the version: nothing (a Gofo view changes only with the version)."""
    return ""


result_of = observer.result_of
move_answer = observer.move_answer  # the answer to a move or an enforced deadline
ledger = observer.ledger_view
transcript = observer.transcript_view  # the published transcript
