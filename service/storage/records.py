"""What the store hands out and takes in: a game's :class:`Record` at one version, a :class:`Change`
to save on top of it, and the bytes they are stored as."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from service.storage import archive


@dataclass
class Record:
    """A stored game at one version: its document and, once the game is over, its archived log."""

    kind: str
    id: str
    version: int
    doc: dict[str, Any]
    #: A finished game's log entries (the stored JSON bytes, restored from its archive:
    #: :class:`service.storage.archive.Log`); None while the log is a list of its own.
    archived: archive.Log | list[bytes] | None = None
    #: The game's state object of ``doc``, when whoever made the record has it (a save, or the first
    #: view of a shared record); None when the record was just read from Redis.
    state: Any = None
    #: The views already serialized of a *shared* record (:meth:`Store.read`: every read of the same
    #: stored bytes gets the same object, so nothing may change it): key (the seat and what of the
    #: clock the view shows) -> (ETag tag, JSON body). None on a record that is not shared.
    views: dict[Any, tuple[str, bytes]] | None = None
    #: On a record a worker kept (:meth:`Store.latest`): the SHA-1 (hex) of the stored bytes it was
    #: made from; the save checks the stored document is still those bytes, not only the version.
    fingerprint: str | None = None

    @property
    def shared(self) -> bool:
        return self.views is not None


@dataclass
class Change:
    """What a move wants stored: the new document and its transcript entries."""

    doc: dict[str, Any]
    log: list[dict[str, Any]]
    finished: bool = False
    #: The game's state object ``doc`` was written from (never stored): the saved record carries it
    #: on, so the answer's view is made from it instead of parsing the new document again.
    state: Any = None


def record_from(kind: str, id: str, version: int, stored: bytes) -> Record:
    """The record of a game's stored document bytes (a finished game's are an archive)."""
    if archive.is_archive(stored):
        opened, entries = archive.open_archive(stored)
        return Record(kind, id, version, load(opened), entries)
    return Record(kind, id, version, load(stored))


# Stored documents and log entries: compact JSON with sorted keys, as UTF-8 bytes (orjson: a 6.5 KB
# Gops document is encoded 5x and parsed 3x faster than by the json module, to the same values).
# Non-ASCII is written as UTF-8 and 1e-05 as 0.00001; integer keys become strings, as json.dumps
# made them. Stored JSON is read back only by :func:`load`.
_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dump(value: Any) -> bytes:
    return orjson.dumps(value, option=_DUMP_OPTIONS)


load = orjson.loads


def text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value
