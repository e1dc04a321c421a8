"""The stored form of a finished game: its document and whole transcript log in one compressed value.

A game that is over is read-only, so its final save (:meth:`service.storage.store.Store.save`) replaces the
document and the log list with one archive, written into the hash's ``doc`` field (a JSON document
always starts with ``{``, an archive with :data:`MAGIC`, so a reader tells them apart and a game
stored before archives existed still loads).  The archive is lossless: :func:`unpack` gives back
the very bytes that were stored — the document and every log entry, as the store wrote them — so
views, transcripts and ETags built from it are byte for byte what they were.

Layout: ``MAGIC`` (1 byte), ``n`` (2 bytes, big-endian), ``n`` × 32 raw bytes, then the zlib
stream of the text, compressed against a preset dictionary (:data:`service.storage.archive_dict.ZDICT_1`,
frozen: the shapes of a finished game's document and entries, which halves the compressed JSON).
The text is the document and the entries joined by newlines (compact JSON never holds a raw
newline nor a NUL: both are escaped inside strings), with every JSON string that is 64 lowercase
hex characters (commitments, salts, token hashes: random, so zlib can only halve them) replaced by
``"\\x00<i>"``, ``i`` indexing its 32 bytes, each distinct value stored once.
"""

from __future__ import annotations

import re
import zlib

from service.storage.archive_dict import ZDICT_1

MAGIC = b"\x01"
_HEX = re.compile(rb'"([0-9a-f]{64})"')
_MARK = re.compile(rb'"\x00([0-9]+)"')
_WIDTH = 32


def is_archive(value: bytes) -> bool:
    return value[:1] == MAGIC


def pack(doc: bytes, entries: list[bytes]) -> bytes:
    """One archive of a document and its log entries (each the stored JSON bytes)."""
    text = b"\n".join([doc, *entries])
    if b"\x00" in text:  # never in JSON the store wrote; refuse rather than store something ambiguous
        raise ValueError("a stored document or entry holds a NUL byte")
    index: dict[bytes, int] = {}

    def mark(match: re.Match) -> bytes:
        number = index.setdefault(match.group(1), len(index))
        return b'"\x00%d"' % number

    body = _HEX.sub(mark, text)
    if len(index) > 0xFFFF:
        raise ValueError("too many distinct hex strings for one archive")
    raw = b"".join(bytes.fromhex(h.decode()) for h in index)
    packer = zlib.compressobj(9, zdict=ZDICT_1)
    return MAGIC + len(index).to_bytes(2, "big") + raw + packer.compress(body) + packer.flush()


def unpack(archive: bytes) -> tuple[bytes, list[bytes]]:
    """The document and the log entries an archive holds, as they were stored."""
    doc, log = open_archive(archive)
    return doc, list(log)


def open_archive(archive: bytes) -> tuple[bytes, Log]:
    """The document an archive holds, and its log entries, restored only when first read (a view
    needs the document alone)."""
    if not is_archive(archive):
        raise ValueError("not an archive")
    count = int.from_bytes(archive[1:3], "big")
    start = 3 + count * _WIDTH
    raw = archive[3:start]
    values = [raw[i * _WIDTH:(i + 1) * _WIDTH].hex().encode() for i in range(count)]
    unpacker = zlib.decompressobj(zdict=ZDICT_1)
    body = unpacker.decompress(archive[start:]) + unpacker.flush()
    if not unpacker.eof:
        raise ValueError("a truncated archive")
    doc, _, rest = body.partition(b"\n")
    return _restore(doc, values), Log(rest, values)


def _restore(text: bytes, values: list[bytes]) -> bytes:
    return _MARK.sub(lambda m: b'"' + values[int(m.group(1))] + b'"', text)


class Log:
    """An archive's log entries (the stored JSON bytes of each), restored on first use."""

    def __init__(self, text: bytes, values: list[bytes]) -> None:
        self._text, self._values, self._entries = text, values, None

    def _restored(self) -> list[bytes]:
        if self._entries is None:
            self._entries = _restore(self._text, self._values).split(b"\n") if self._text else []
        return self._entries

    def __iter__(self):
        return iter(self._restored())

    def __len__(self) -> int:
        return len(self._restored())
