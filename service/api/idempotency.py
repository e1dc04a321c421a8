"""``Idempotency-Key`` on creation: a retried create makes one game and gets the same answer.

A create's response holds the tokens, shown once; a client whose connection
dropped before it read them must be able to ask again.  So the response is
kept for a day, **encrypted with a key derived from the Idempotency-Key
itself** (Fernet), under a lookup name that is a different hash of it: Redis
never holds a usable token, and only the client that chose the key can
decrypt the stored answer.

* same key, same body  → the stored response, again (header ``Idempotent-Replayed: true``);
* same key, other body → 422 ``idempotency_key_reused``;
* same key while the first request is still running → wait briefly, then
  409 ``idempotency_key_in_progress``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any, Callable

from cryptography.fernet import Fernet, InvalidToken
from flask import request

from ..errors import IllegalAction, InvalidAction
from . import common

HEADER = "Idempotency-Key"
KEEP_SECONDS = 24 * 3600
PENDING_SECONDS = 60
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
    if not 1 <= len(key) <= 255 or not key.isascii() or not key.isprintable():
        raise InvalidAction(f"{HEADER} must be 1–255 printable ASCII characters", code="invalid_idempotency_key")
    return key


def once(scope: str, body: Any, create: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """Run ``create`` at most once per Idempotency-Key; return (response body, replayed)."""
    key = presented_key()
    if key is None:
        return create(), False
    store = common.store()
    lookup = _derive("lookup", key).hex()
    fernet = Fernet(base64.urlsafe_b64encode(_derive("encryption", key)))
    fingerprint = _fingerprint(body)
    pending = json.dumps({"state": "pending", "fingerprint": fingerprint})
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        existing = store.remember(scope, lookup, pending, PENDING_SECONDS)
        if existing is None:
            break  # ours: go ahead
        record = json.loads(existing)
        if record["fingerprint"] != fingerprint:
            raise KeyReused(f"this {HEADER} was already used with a different request body")
        if record["state"] == "done":
            try:
                return json.loads(fernet.decrypt(record["response"].encode())), True
            except InvalidToken:  # pragma: no cover - only if the lookup hash collided
                raise KeyReused(f"this {HEADER} cannot be replayed") from None
        if time.monotonic() >= deadline:
            raise InProgress(f"a request with this {HEADER} is still being processed; retry shortly")
        time.sleep(0.05)
    try:
        response = create()
    except Exception:
        store.forget(scope, lookup)
        raise
    done = {"state": "done", "fingerprint": fingerprint,
            "response": fernet.encrypt(json.dumps(response).encode()).decode()}
    store.replace(scope, lookup, json.dumps(done), KEEP_SECONDS)
    return response, False
