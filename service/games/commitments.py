"""Commit–reveal hashing, exactly as specified in ``shared/rules/gops.md``.

A bid commitment is ``lowercase hex(SHA-256(message))`` where *message* is the
UTF-8 text::

    gops-bid-v1|<game id>|<round>|<seat>|<cards>|<salt>

round counts from 1, seat from 0 (both decimal); cards are the bid's ranks as
decimal numbers joined by commas, in the order the player chose them; salt is
exactly 32 random bytes written as 64 lowercase hex characters.

The referee commits to its own secrets the same way: a shuffled prize order
(Gops) or deck order (Gofo) is published as a hash when the game is created and
revealed when it ends::

    gops-prizes-v1|<game id>|<ranks joined by commas>|<salt>
    gofo-deck-v2|<hand id>|<one leaf per card position>|<reshuffle key hash>   (see deck_commitment)
    gofo-draw-v1|<table id>|<round>|<draw deck>|<salt>                       (see draw_commitment)

>>> bid_commitment("g1", 1, 0, [9], "00" * 32)[:16]
'46d7d03167c517bb'
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence

from service.games import entropy
from service.errors import InvalidAction

SALT_BYTES = 32
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
SALT_PATTERN = re.compile(r"^[0-9a-f]{64}\Z")
COMMITMENT_PATTERN = re.compile(r"^[0-9a-f]{64}\Z")


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_salt() -> str:
    """A fresh salt: 32 random bytes from the OS CSPRNG (service.games.entropy), as 64 lowercase hex chars."""
    return entropy.token_hex(SALT_BYTES)


def check_salt(salt: str) -> None:
    if not isinstance(salt, str) or not SALT_PATTERN.match(salt):
        raise InvalidAction(
            "salt must be exactly 32 bytes written as 64 lowercase hex characters",
            code="invalid_salt",
        )


def check_commitment_format(commitment: str) -> None:
    if not isinstance(commitment, str) or not COMMITMENT_PATTERN.match(commitment):
        raise InvalidAction(
            "commitment must be a SHA-256 digest written as 64 lowercase hex characters",
            code="invalid_commitment",
        )


def bid_message(game_id: str, round_number: int, seat: int, cards: Sequence[int], salt: str) -> str:
    """The exact text a client hashes to commit to a bid."""
    joined = ",".join(map(str, map(int, cards)))
    return f"gops-bid-v1|{game_id}|{round_number}|{seat}|{joined}|{salt}"


def bid_commitment(game_id: str, round_number: int, seat: int, cards: Sequence[int], salt: str) -> str:
    """``lowercase hex(SHA-256(bid_message(...)))``."""
    return _sha256_hex(bid_message(game_id, round_number, seat, cards, salt))


def matches(commitment: str, expected: str) -> bool:
    """Constant-time comparison of two hex digests."""
    return hmac.compare_digest(commitment.encode("ascii"), expected.encode("ascii"))


def prize_order_message(game_id: str, order: Sequence[int], salt: str) -> str:
    return f"gops-prizes-v1|{game_id}|{','.join(map(str, map(int, order)))}|{salt}"


def prize_order_commitment(game_id: str, order: Sequence[int], salt: str) -> str:
    """The hash the referee publishes for a shuffled prize order before any bid."""
    return _sha256_hex(prize_order_message(game_id, order, salt))


def card_leaf(hand_id: str, position: int, card: str, salt: str) -> str:
    """The commitment to one position of a Gofo deck: ``sha256("gofo-card-v1|<hand_id>|<position>|<card>|<salt>")``."""
    return _sha256_hex(f"gofo-card-v1|{hand_id}|{position}|{card}|{salt}")


def reshuffle_key_leaf(hand_id: str, number: int, key: str) -> str:
    """The commitment to the key of a hand's ``number``-th reshuffle (from 1):
    ``sha256("gofo-reshuffle-key-v2|<hand_id>|<number>|<key>")``."""
    return _sha256_hex(f"gofo-reshuffle-key-v2|{hand_id}|{number}|{key}")


def reshuffle_key_hash(hand_id: str, key_leaves: Sequence[str]) -> str:
    """The commitment to all of a hand's reshuffle keys, one leaf each (``reshuffle_key_leaf``):
    ``sha256("gofo-reshuffle-keys-v2|<hand_id>|<leaf 1>,…,<leaf N>")``.  Each reshuffle has its
    own key, so one can be revealed and the others kept closed."""
    return _sha256_hex(f"gofo-reshuffle-keys-v2|{hand_id}|{','.join(key_leaves)}")


def deck_commitment(hand_id: str, leaves: Sequence[str], reshuffle_key_digest: str) -> str:
    """The hash the referee publishes for a shuffled Gofo deck before the deal.

    ``sha256("gofo-deck-v2|<hand_id>|<leaf 0>,…,<leaf 27>|<reshuffle key hash>")``: one
    leaf per card position (each with its own salt), so after the hand the referee can open
    some positions and keep the others closed (``service.games.gofo.deal`` decides which), while the
    commitment still binds them all.
    """
    return _sha256_hex(f"gofo-deck-v2|{hand_id}|{','.join(leaves)}|{reshuffle_key_digest}")


def draw_commitment(table_id: str, round_number: int, order: Sequence[str], salt: str) -> str:
    """The commitment to the deck a first-dealer draw is made from (round from 1; ties draw
    again): ``sha256("gofo-draw-v1|<table id>|<round>|<28 cards joined by commas>|<salt>")``;
    the drawing seats take its top cards, in order."""
    return _sha256_hex(f"gofo-draw-v1|{table_id}|{round_number}|{','.join(order)}|{salt}")


def derived_shuffle(seed: str, items: Sequence[str]) -> list[str]:
    """A shuffle fully determined by ``seed``: Fisher–Yates driven by SHA-256.

    Used for the Gofo reshuffles: their seed is derived from the hand's
    committed reshuffle key, so the referee cannot choose them after seeing
    play and anyone can recompute them once the key is revealed.  Byte stream: the
    SHA-256 digests of ``<seed>|<counter>`` for counter 0, 1, …; each draw takes
    4 bytes as a big-endian integer and rejects values that would bias the
    modulo.

    >>> derived_shuffle("s", ["a", "b", "c"])
    ['b', 'a', 'c']
    """
    out = list(items)
    stream = _byte_stream(seed)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - ((1 << 32) % bound)
        while True:
            value = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
            if value < limit:
                break
        j = value % bound
        out[i], out[j] = out[j], out[i]
    return out


def _byte_stream(seed: str):
    counter = 0
    while True:
        yield from hashlib.sha256(f"{seed}|{counter}".encode("utf-8")).digest()
        counter += 1


def reshuffle_seed(hand_id: str, number: int, key: str) -> str:
    """The seed of the ``number``-th reshuffle (from 1) of a dealt Gofo hand, from its committed key."""
    return f"gofo-reshuffle-v1|{hand_id}|{number}|{key}"
