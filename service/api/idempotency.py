"""``Idempotency-Key``: a retried request is applied once and gets the first answer back
(the contract, and its codes: docs/client-guide.md#retries-and-idempotency).

The first answer is kept for a day, **encrypted with a key derived from the Idempotency-Key itself**
(Fernet), under a lookup name that is a different hash of it: Redis never holds a usable token, and
only the client that chose the key can decrypt the stored answer (so a key must not be guessable).

**Moves** (:class:`MoveKey`, used by service.api.moves): the answer is written by the same Lua step
that applies the move, so a move is never applied without its answer, and a retry after any fault
finds the first answer or finds nothing applied. Two requests with one key race like any two moves.
A refused move stores nothing. The record is scoped to the game and the bearer token: only the mover
can replay it.

**Creates** (:func:`once`): the game's keys are not known before the create, so a short ``pending``
record holds the key while it runs (a retry meanwhile waits, then gets 409); a dead worker's claim
expires within seconds. Scoped to the client's address too: a replay holds the game's tokens.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any, Callable

from cryptography.fernet import Fernet, InvalidToken
from flask import after_this_request, request

from service.errors import IllegalAction, InvalidAction
from service.api import common
from service.storage.store import Store, StoredAnswer

HEADER = "Idempotency-Key"
MIN_LENGTH = 16
MAX_LENGTH = 255
KEEP_SECONDS = 24 * 3600
PENDING_SECONDS = 10  # a create takes milliseconds; a dead worker's claim is gone this fast
WAIT_SECONDS = 3.0


class KeyReused(InvalidAction):
    code = "idempotency_key_reused"


class InProgress(IllegalAction):
    code = "idempotency_key_in_progress"


def _derive(purpose: str, key: str) -> bytes:
    return hashlib.sha256(f"referee-idempotency-{purpose}|{key}".encode()).digest()


def _fingerprint(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def presented_key() -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not MIN_LENGTH <= len(key) <= MAX_LENGTH or not key.isascii() or not key.isprintable():
        raise InvalidAction(f"{HEADER} must be {MIN_LENGTH}–{MAX_LENGTH} printable ASCII characters "
                            "(e.g. a random UUID)", code="invalid_idempotency_key")
    return key


class _Sealed:
    """Seal and open stored answers of one Idempotency-Key and one request body."""

    def __init__(self, key: str, body: Any) -> None:
        self.fernet = Fernet(base64.urlsafe_b64encode(_derive("encryption", key)))
        self.fingerprint = _fingerprint(body)

    def seal(self, response: dict[str, Any]) -> str:
        return json.dumps({"state": "done", "fingerprint": self.fingerprint,
                           "response": self.fernet.encrypt(json.dumps(response).encode()).decode()})

    def open(self, stored: str) -> dict[str, Any] | None:
        """The stored response; ``None`` while pending; KeyReused for another body."""
        record = json.loads(stored)
        if record["fingerprint"] != self.fingerprint:
            raise KeyReused(f"this {HEADER} was already used with a different request body")
        if record["state"] != "done":
            return None
        try:
            return json.loads(self.fernet.decrypt(record["response"].encode()))
        except InvalidToken:  # pragma: no cover - only if the lookup hash collided
            raise KeyReused(f"this {HEADER} cannot be replayed") from None


def _mark_replayed(replayed: bool) -> None:
    @after_this_request
    def _header(response):
        response.headers["Idempotent-Replayed"] = "true" if replayed else "false"
        return response


class MoveKey:
    """A move's Idempotency-Key: where its first answer is stored and how it is sealed (module
    docstring); the write path (service.api.moves) asks it the four things below."""

    def __init__(self, kind: str, id: str, presented: str | None, key: str, move: Any) -> None:
        self.kind, self.id = kind, id
        # scoped to the game and the bearer token: only the mover can replay it
        self.lookup = _derive("lookup", f"{kind}-move|{id}|{presented}|{key}").hex()
        self._sealed = _Sealed(key, move)

    def replay(self, stored: str) -> dict[str, Any]:
        """The first answer, again (``Idempotent-Replayed: true``); KeyReused for another body."""
        response = self._sealed.open(stored)  # never None: moves store no pending record
        _mark_replayed(True)
        return response

    def sealed(self, answer: dict[str, Any]) -> StoredAnswer:
        """``answer`` as the move's save stores it, with the move, atomically."""
        return StoredAnswer(self.lookup, self._sealed.seal(answer), KEEP_SECONDS)

    def keep_unchanged(self, store: Store, answer: dict[str, Any]) -> dict[str, Any]:
        """An exact repeat changed nothing, so no save stores its answer: stored here, unless one
        is there already (then that one is the answer)."""
        existing = store.remember_answer(self.kind, self.id, self.lookup, self._sealed.seal(answer), KEEP_SECONDS)
        if existing is not None:
            return self.replay(existing)
        _mark_replayed(False)
        return answer

    def answered(self) -> None:
        """The move was applied now (``Idempotent-Replayed: false``)."""
        _mark_replayed(False)


def for_move(kind: str, id: str, presented: str | None, path: str, body: Any) -> MoveKey | None:
    """The move's :class:`MoveKey`, or None without an ``Idempotency-Key`` header."""
    key = presented_key()
    return None if key is None else MoveKey(kind, id, presented, key, {"path": path, "body": body})


def once(scope: str, body: Any, create: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``create`` at most once per Idempotency-Key: its answer, or the stored one again."""
    key = presented_key()
    if key is None:
        response = create()
        _mark_replayed(False)
        return response
    store = common.store()
    lookup = _derive("lookup", key).hex()
    sealed = _Sealed(key, body)
    pending = json.dumps({"state": "pending", "fingerprint": sealed.fingerprint})
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        existing = store.remember(scope, lookup, pending, PENDING_SECONDS)
        if existing is None:
            break  # ours: go ahead
        response = sealed.open(existing)
        if response is not None:
            _mark_replayed(True)
            return response
        if time.monotonic() >= deadline:
            raise InProgress(f"a request with this {HEADER} is still being processed; retry shortly")
        time.sleep(0.05)
    try:
        response = create()
    except Exception:
        store.forget(scope, lookup)
        raise
    store.replace(scope, lookup, sealed.seal(response), KEEP_SECONDS)
    _mark_replayed(False)
    return response
