"""What a worker remembers of the games it served: the records of the stored bytes it read (shared
by every view of those bytes) and, per game, the newest record it saved or read (a move's guess).

Both are keyed by what was stored, so neither can serve a stale answer: a view of a game that
changed is a view of other bytes, and a move tried on a kept record is saved only if the stored
document is still the very bytes that record was made from (the save script checks the version and
the bytes' SHA-1).
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from service.storage.records import Record, record_from


class RecordCache:
    """Bounded: the last ``shared_size`` stored documents read, the last ``latest_size`` games."""

    def __init__(self, shared_size: int = 256, latest_size: int = 256) -> None:
        self.shared_size = max(0, int(shared_size))
        self.latest_size = max(0, int(latest_size))
        self._lock = threading.Lock()
        # stored document bytes -> the shared Record made from them (oldest first)
        self._shared: dict[bytes, Record] = {}
        # (kind, id) -> [version, stored bytes, the record a move saved there with its state object,
        # handed to one move only, or None]
        self._latest: dict[tuple[str, str], list[Any]] = {}

    # ------------------------------------------------------------ shared records (views)

    def shared(self, kind: str, id: str, version: int, stored: bytes) -> Record:
        """The one record of these stored bytes every read shares (made on the first read): it keeps
        the state its first view parsed and each view serialized (:attr:`Record.views`), since
        parsing them was ~8 % of a read's CPU; a few KB per view read, tens of MB per worker at most."""
        if not self.shared_size:
            return record_from(kind, id, version, stored)
        cached = self._shared.get(stored)
        if cached is not None and cached.version == version and cached.id == id and cached.kind == kind:
            return cached
        record = record_from(kind, id, version, stored)
        record.views = {}
        with self._lock:
            self._shared.pop(stored, None)
            self._shared[stored] = record
            while len(self._shared) > self.shared_size:
                del self._shared[next(iter(self._shared))]
        return record

    # ------------------------------------------------------------ the latest record of each game

    def latest(self, kind: str, id: str) -> Record | None:
        """The newest record of the game this worker saved or read, if it still has one: a guess a
        move may be tried on without reading the game (one round trip instead of two). With the
        record a move saved here (its state object, not parsed again) a Gops move cost 1,133 µs of
        the worker's CPU against 1,385 µs reading the game first (−18 %; in-process, Flask test
        client, rate limiter on, medians of 6 × 2 games on a loaded machine).

        Each call returns a record of its own: the one a move saved here with its state object
        (:meth:`keep`), to the first caller only, else one parsed from the stored bytes."""
        if not self.latest_size:
            return None
        with self._lock:
            kept = self._latest.get((kind, id))
            if kept is None:
                return None
            version, stored, owned = kept
            kept[2] = None
        record = owned if owned is not None else record_from(kind, id, version, stored)
        record.fingerprint = hashlib.sha1(stored).hexdigest()
        return record

    def keep(self, record: Record) -> None:
        """Leave a saved ``record``, whose state object nothing will read or change any more, for the
        next move on the game here to apply to in place; only while it is still the game's latest."""
        if record.state is None or record.archived is not None:
            return
        with self._lock:
            kept = self._latest.get((record.kind, record.id))
            if kept is not None and kept[0] == record.version:
                kept[2] = record

    def note(self, kind: str, id: str, version: int, stored: bytes | None, current: bool = False) -> None:
        """Remember ``stored`` as the game's bytes at ``version``, unless newer ones (a read that
        overtook a save) or these very bytes are remembered; the same version with other bytes
        replaces them (Redis lost acknowledged writes and the version came back with other content).
        ``current``: the bytes are the game's as it is now (a save's script read them): they replace
        whatever is remembered. ``stored`` None (a finished game: no move changes it) forgets it."""
        if not self.latest_size:
            return
        key = (kind, id)
        with self._lock:
            known = self._latest.pop(key, None)
            if stored is None:
                return
            kept = known is not None and not current and (
                known[0] > version or (known[0] == version and known[1] == stored))
            self._latest[key] = known if kept else [version, stored, None]
            while len(self._latest) > self.latest_size:
                del self._latest[next(iter(self._latest))]

    def forget(self, kind: str, id: str) -> None:
        """Forget the game's latest record (it led a move astray, or the game is gone)."""
        with self._lock:
            self._latest.pop((kind, id), None)
