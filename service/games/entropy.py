"""The referee's one source of randomness for game ids, salts and shuffles.

In service it is the OS CSPRNG (``secrets.SystemRandom``).  A test may draw
from a seeded generator for the length of a block with :func:`seeded`, so a
property test that reads what the referee dealt replays exactly the same
example for the same seed, whatever the clock, the load or earlier runs.
Bearer tokens never come from here: they are always drawn from ``secrets``.
"""

from __future__ import annotations

import base64
import contextlib
import random
import secrets
from collections.abc import Iterator

_source: random.Random = secrets.SystemRandom()


def source() -> random.Random:
    """The generator in use (shuffles take it as their ``rng``)."""
    return _source


def token_bytes(nbytes: int) -> bytes:
    return _source.getrandbits(nbytes * 8).to_bytes(nbytes, "big") if nbytes else b""


def token_hex(nbytes: int) -> str:
    return token_bytes(nbytes).hex()


def token_urlsafe(nbytes: int) -> str:
    return base64.urlsafe_b64encode(token_bytes(nbytes)).rstrip(b"=").decode("ascii")


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[random.Random]:
    """Draw ids, salts and shuffles from ``random.Random(seed)`` inside the block (tests only)."""
    global _source
    saved, _source = _source, random.Random(seed)
    try:
        yield _source
    finally:
        _source = saved
