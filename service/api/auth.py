"""Bearer tokens: one per seat and one for the host, shown once, 256 bits from the OS CSPRNG.

Only a token's SHA-256 is stored; a presented one is hashed and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from service.games import entropy

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def same_hash(presented_hash: str, stored_hash: str) -> bool:
    return hmac.compare_digest(presented_hash.encode("ascii"), stored_hash.encode("ascii"))


def new_game_id() -> str:
    """12 URL-safe characters (72 random bits): only ``[A-Za-z0-9_-]``, as commitments need."""
    return entropy.token_urlsafe(9)
