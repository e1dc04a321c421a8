"""A Server-Sent Events client on plain sockets, so one thread can hold hundreds of streams.

``RawStream`` speaks HTTP/1.1 to the server (``GET`` with the headers given), decodes the
chunked response and parses the events; ``pump`` reads every stream's socket until a condition
holds or the time is up.  Used by tests/test_events.py, tests/test_slow_clients.py and
bench/streams.py.  ``source`` binds the socket to another loopback address (127.0.0.0/8 all reaches
the local server), so a test can be many clients, as the per-client connection cap sees them.
"""

from __future__ import annotations

import json
import selectors
import socket
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable


@dataclass
class Event:
    id: str | None
    event: str
    data: str

    def json(self):
        return json.loads(self.data)


def parse(body: bytes) -> tuple[list[Event], list[str], bytes]:
    """The complete events and comment lines in ``body``, and what is left of an incomplete one."""
    events: list[Event] = []
    comments: list[str] = []
    text = body.replace(b"\r\n", b"\n")
    while b"\n\n" in text:
        block, _, text = text.partition(b"\n\n")
        fields: dict[str, list[str]] = {}
        for line in block.decode().split("\n"):
            if line.startswith(":"):
                comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        if "data" in fields:
            events.append(Event((fields.get("id") or [None])[-1], (fields.get("event") or ["message"])[-1],
                                "\n".join(fields["data"])))
    return events, comments, text


@dataclass
class RawStream:
    host: str
    port: int
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    closed: bool = False
    raw: bytes = b""

    def __post_init__(self) -> None:
        self._buffer = b""
        self._chunked = False
        self._body = b""  # de-chunked bytes not yet parsed into events
        self._head_done = False
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.source:
            self.sock.bind((self.source, 0))
        self.sock.settimeout(10)
        self.sock.connect((self.host, self.port))
        lines = [f"GET {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in self.headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.sock.setblocking(False)

    # -------------------------------------------------------------- parsing

    def feed(self, data: bytes) -> None:
        self.raw += data
        self._buffer += data
        if not self._head_done:
            head, sep, rest = self._buffer.partition(b"\r\n\r\n")
            if not sep:
                return
            lines = head.decode("latin-1").split("\r\n")
            self.status = int(lines[0].split()[1])
            for line in lines[1:]:
                name, _, value = line.partition(":")
                self.response_headers[name.strip().lower()] = value.strip()
            self._chunked = "chunked" in self.response_headers.get("transfer-encoding", "")
            self._head_done = True
            self._buffer = rest
        if self._chunked:
            while True:
                size_line, sep, rest = self._buffer.partition(b"\r\n")
                if not sep:
                    break
                size = int(size_line.split(b";")[0], 16)
                if len(rest) < size + 2:
                    break
                self._body += rest[:size]
                self._buffer = rest[size + 2:]
                if size == 0:
                    self.closed = True
                    break
        else:
            self._body += self._buffer
            self._buffer = b""
        self._parse_events()

    def _parse_events(self) -> None:
        events, comments, self._body = parse(self._body)
        self.events += events
        self.comments += comments

    def read_available(self) -> None:
        while not self.closed:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return
            except OSError:
                self.closed = True
                return
            if not data:
                self.closed = True
                return
            self.feed(data)

    @property
    def versions(self) -> list[int]:
        return [int(e.id) for e in self.events if e.id is not None]

    def close(self) -> None:
        try:
            self.sock.close()
        finally:
            self.closed = True


def pump(streams: Iterable[RawStream], until: Callable[[], bool], timeout: float) -> bool:
    """Read from every stream until ``until()`` is true (True) or ``timeout`` seconds pass (False)."""
    streams = list(streams)
    selector = selectors.DefaultSelector()
    for s in streams:
        if not s.closed:
            selector.register(s.sock, selectors.EVENT_READ, s)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if until():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in selector.select(min(remaining, 0.2)):
                stream = key.data
                stream.read_available()
                if stream.closed:
                    selector.unregister(stream.sock)
    finally:
        selector.close()
