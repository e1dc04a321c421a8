"""The one write path of every game: a move from HTTP to Redis and back, top to bottom.

    authorize → the record (the bytes this worker kept, else one fetch) → apply → save → answer

A game's API module describes each kind of move as a :class:`Move` (who may make it, what it
changes, what it answers) and calls :func:`act`, which does the rest, in the numbered steps below
(docs/architecture.md#a-move-from-http-to-redis-and-back). A move is tried on this worker's newest
record of the game, a guess (:meth:`Store.latest`, where what it buys is measured), and only a change
may be decided on a guess, since the save checks it: a refusal or an exact repeat is decided again
on the stored record. The request's rate-limit hit rides in its first store command
(:func:`ratelimit.carried`). Redis round trips: one on a guess (the save), two otherwise (the fetch,
the save).
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response, request

from service.api import apps, common, idempotency, ratelimit, views
from service.errors import Busy, NotFound, RefereeError, StaleVersion
from service.games.contract import Applied
from service.storage.records import Change, Record
from service.storage.scripts import ANSWERED, GONE, STALE
from service.storage.store import Store, not_found

#: How many times a move is applied again after losing a race to another change of the game.
ATTEMPTS = 50


class Move:
    """One kind of move of one game, as the write path needs it (a game's API module subclasses it)."""

    def authorize(self, who: str, record: Record) -> None:
        """Raise (Forbidden) when ``who`` (``host`` or ``seat:N``) may not make this move here."""

    def apply(self, record: Record, who: str, at: float) -> Applied | None:
        """What this move makes of ``record`` at time ``at`` (as a referee applies it), or None for
        an exact repeat (nothing changes; the same answer). Raises a RefereeError to refuse."""
        raise NotImplementedError

    def answer(self, record: Record) -> dict[str, Any]:
        """The answer's body for ``record`` (the game as the move left it)."""
        raise NotImplementedError


def act(kind: str, id: str, body: dict[str, Any], move: Move) -> Response:
    """Apply ``move`` to the game ``kind``/``id`` and answer with its view (module docstring)."""
    store = common.store()
    presented = common.bearer_hash()
    pinned = body.get("version")
    once = idempotency.for_move(kind, id, presented, request.path, body)  # None without the header

    # 1. The record: a guess (the newest this worker saved or read) if the caller may act on it, else
    #    the stored one (the request's rate-limit hit rides in the first store command: ratelimit.carried).
    record = store.latest(kind, id)
    guess = record is not None and _may_act(move, record, presented)
    if not guess:
        record = _stored(store, kind, id, move, presented)

    # 2. A retry of a move already answered gets that answer.
    if once is not None:
        lookup = once.lookup
        stored = ratelimit.carried(lambda hit: store.recall_answer(kind, id, lookup, rider=hit))
        if stored is not None:
            return views.view_response(once.replay(stored))

    races = 0  # saves lost to another change so far
    for _ in range(ATTEMPTS):
        # 3. Apply. Only a change may be decided on a guess (its save checks it): a refusal or an
        #    exact repeat is decided again on the stored record.
        refusal = None
        try:
            change = _apply(move, record, presented, pinned)
        except RefereeError as error:
            change, refusal = None, error
        if change is None and guess:
            store.drop_latest(kind, id)
            record, guess = _stored(store, kind, id, move, presented), False
            continue
        if refusal is not None:
            if once is not None and (stored := store.recall_answer(kind, id, once.lookup)) is not None:
                return views.view_response(once.replay(stored))  # a concurrent retry applied it first
            raise refusal
        if change is None:  # an exact repeat: nothing to store, the same answer
            answer = move.answer(record)
            if once is not None:
                answer = once.keep_unchanged(store, answer)
            return views.view_response(answer)

        # 4. Save: one script, a compare-and-set on the version (and on a guess's bytes). Over a rate
        #    limit it stores nothing and ratelimit.carried raises the 429.
        answer, sealed = None, None
        if once is not None:  # rendered for the version the save makes, and stored by it
            answer = move.answer(Record(kind, id, record.version + 1, change.doc, state=change.state))
            sealed = once.sealed(answer)
        entry = apps.stream_entry(kind, id, change.doc, "finished" if change.finished else "state", change.log)
        saved = ratelimit.carried(lambda hit: store.save(record, change, sealed, entry, rider=hit))
        if saved.code == ANSWERED:
            return views.view_response(once.replay(saved.answered))
        if saved.code == GONE:
            raise NotFound(f"{kind} {id} expired", code="game_not_found")
        if saved.code == STALE:  # another change came first: apply again on the game as it is now
            if not pinned and (saved.current is None or races > 0):  # a first miss on a guess is no race yet
                time.sleep(min(0.001 * (races + 1), 0.02))
            races += 1
            record, guess = saved.current or store.load(kind, id), False
            continue

        # 5. Answer.
        if once is not None:
            once.answered()
        response = views.view_response(answer if answer is not None else move.answer(saved.record))
        store.keep(saved.record)  # serialized: its state is the next move's here
        return response
    raise Busy(f"too many simultaneous changes to {kind} {id}; try again")


def _may_act(move: Move, record: Record, presented: str | None) -> bool:
    try:
        move.authorize(common.identify(record.doc["auth"], presented), record)
    except RefereeError:
        return False
    return True


def _stored(store: Store, kind: str, id: str, move: Move, presented: str | None) -> Record:
    """The game as stored, and the caller authorized on it: a refusal here is final."""
    record = ratelimit.carried(lambda hit: store.fetch(kind, id, rider=hit)) or not_found(kind, id)
    move.authorize(common.identify(record.doc["auth"], presented), record)
    return record


def _apply(move: Move, record: Record, presented: str | None, pinned: int | None) -> Change | None:
    who = common.identify(record.doc["auth"], presented)
    move.authorize(who, record)
    if pinned is not None and record.version != pinned:
        raise StaleVersion(f"you acted on version {pinned} but the current version is {record.version}",
                           current_version=record.version)
    applied = move.apply(record, who, common.now())
    return None if applied is None else Change(applied.doc, applied.entries, applied.finished, applied.state)
