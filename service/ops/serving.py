"""The gunicorn worker the referee runs: gevent, plus guards against slow and greedy clients.

Why gevent, and what each guard bounds: docs/operations.md, "Serving" and "Slow and greedy clients".
gunicorn's gevent worker already bounds the headers and idle keep-alive connections (``keepalive``)
and the connections per worker (``worker_connections``). This worker adds:

* **idle connections make room**: when the worker is full, the connection idle the longest (kept
  alive, or new and silent ``NEW_CONNECTION_GRACE`` seconds after it was accepted) is closed for each
  new one, so connections opened and never used cannot hold the worker;
* a **body deadline** (``REFEREE_BODY_TIMEOUT``): the body is read before the application runs, so
  the application never waits for a client; a body declared past the limit is not read at all;
* a **queue deadline** (``REFEREE_QUEUE_TIMEOUT``): a request whose last byte reached the server
  longer ago than that when the worker could start on it (it waited in the listen backlog, or for a
  busy worker) is answered ``503 queue_timeout`` with ``Retry-After`` and not served: its client
  hears at once that it should come back, instead of waiting on with everyone behind it;
* a **write deadline** a response may set (a stream does, through :data:`FINISH_WRITES_BY`): a
  client that never reads fills the kernel's buffers, and without it the next write would wait as
  long as the client stays connected; past it the connection is reset instead;
* a **cap per client address** (``REFEREE_MAX_CONNECTIONS_PER_CLIENT``; off behind a proxy).
"""

from __future__ import annotations

import io
import json
import logging
import socket
import struct
import time
from collections import Counter

import gevent
from gunicorn.glogging import Logger as GunicornLogger
from gunicorn.workers.ggevent import GeventWorker

from service import config
from service.web.bodylimit import _read_at_most


def _problem(status: int, reason: str, code: str, detail: str, extra_headers: str = "") -> bytes:
    body = json.dumps({"type": f"https://referee.example/problems/{code}", "title": reason,
                       "status": status, "detail": detail, "code": code}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n"
            f"Cache-Control: no-store\r\n{extra_headers}\r\n")
    return head.encode() + body


TOO_MANY_CONNECTIONS = _problem(
    429, "Too Many Requests", code="too_many_connections",
    detail="too many open connections from your address; close some and retry", extra_headers="Retry-After: 1\r\n")
REQUEST_TIMEOUT = _problem(
    408, "Request Timeout", code="request_timeout",
    detail="the request body did not arrive in time")
QUEUE_TIMEOUT = _problem(
    503, "Service Unavailable", code="queue_timeout",
    detail="the server was too busy to start on this request in time: nothing was done; retry shortly",
    extra_headers="Retry-After: 1\r\n")


#: The WSGI environ key of ``finish_writes_by(deadline)``: the response's writes wait for the client
#: only until ``deadline`` (a ``time.monotonic()`` value).  Absent under other servers.
FINISH_WRITES_BY = "referee.finish_writes_by"


class _SlowBody(Exception):
    pass


class _WriteOverdue(TimeoutError):
    """A write to the client that would wait past the response's write deadline."""


class _ClientConnection:
    """The client's socket as one response is written to it: a write waits for the client only until
    the response's write deadline, if it has one (:data:`FINISH_WRITES_BY`).  Past the deadline a
    write the kernel can take at once still goes; one that would wait raises :class:`_WriteOverdue`."""

    def __init__(self, sock) -> None:
        self._sock = sock
        self.deadline: float | None = None

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def finish_writes_by(self, deadline: float) -> None:
        self.deadline = deadline

    def sendall(self, data) -> None:
        if self.deadline is None:
            self._sock.sendall(data)
            return
        left = memoryview(data)
        while left:
            with gevent.Timeout(max(0.0, self.deadline - time.monotonic()), _WriteOverdue):
                sent = self._sock.send(left)
            left = left[sent:]


class _OfferWriteDeadline:
    """Puts the response's ``finish_writes_by`` in the WSGI environ (:data:`FINISH_WRITES_BY`)."""

    def __init__(self, app) -> None:
        self.app = app

    def __call__(self, environ, start_response):
        connection = environ.get("gunicorn.socket")
        if isinstance(connection, _ClientConnection):
            environ[FINISH_WRITES_BY] = connection.finish_writes_by
        return self.app(environ, start_response)


NEW_CONNECTION_GRACE = 0.25  # seconds a new connection has to start its request before it counts as idle


class _Connection:
    """One connection a worker holds: its listener, when it was accepted, whether it has served a
    request, and, while it waits for a request, the timeout that ends the wait."""

    __slots__ = ("listener", "accepted", "served", "idle")

    def __init__(self, listener) -> None:
        self.listener = listener
        self.accepted = time.monotonic()
        self.served = False
        self.idle: gevent.Timeout | None = None

    def closable(self, now: float) -> bool:
        """Idle enough to be closed for a new client: kept alive, or new and silent past its grace."""
        return self.served or now - self.accepted >= NEW_CONNECTION_GRACE


class Worker(GeventWorker):
    """gunicorn's gevent worker with the guards above."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        settings = config.load()
        self.body_timeout = settings.body_timeout
        self.queue_timeout = settings.queue_timeout
        self.body_limit = settings.max_body_bytes
        proxied = settings.trusted_proxies > 0
        self.per_client = 0 if proxied else settings.max_connections_per_client
        self.open_by_client: Counter[str] = Counter()
        self.connections: dict[gevent.Greenlet, _Connection] = {}  # every connection being handled
        self.open_by_listener: Counter[object] = Counter()  # gunicorn gives each listener a pool of its own
        self.idle: dict[gevent.Greenlet, _Connection] = {}  # waiting for a request: the oldest first

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = _OfferWriteDeadline(self.wsgi)

    def run(self) -> None:
        gevent.spawn(self._close_silent_while_full)
        try:
            super().run()
        finally:  # end the live-update listeners before the interpreter (and gevent's hub) goes
            from service.storage import live

            live.stop_all()

    # ----------------------------------------------------- per-client cap

    def handle(self, listener, client, addr) -> None:
        peer = _client_key(addr)
        if self.per_client and peer is not None:
            if self.open_by_client[peer] >= self.per_client:
                try:
                    client.settimeout(1.0)
                    client.sendall(TOO_MANY_CONNECTIONS)
                except OSError:
                    pass
                finally:
                    client.close()
                return
            self.open_by_client[peer] += 1
        current = gevent.getcurrent()
        self.connections[current] = _Connection(listener)
        self.open_by_listener[listener] += 1
        if self._full(listener):
            self._close_oldest_idle(listener)  # its slot lets the server accept the next one
        try:
            super().handle(listener, client, addr)
        finally:
            self.connections.pop(current, None)
            self.idle.pop(current, None)
            self.open_by_listener[listener] -= 1
            if self.per_client and peer is not None:
                self.open_by_client[peer] -= 1
                if not self.open_by_client[peer]:
                    del self.open_by_client[peer]

    # ------------------------------------- idle connections make room

    def _full(self, listener) -> bool:
        return self.open_by_listener[listener] >= self.worker_connections

    def timeout_ctx(self):
        """The wait for a connection's request (gunicorn's keep-alive loop, the first request
        included): ``keepalive`` seconds, and none at all after a request when the worker is full."""
        timeout = super().timeout_ctx()  # gevent.Timeout(keepalive, False): on expiry, a quiet close
        current = gevent.getcurrent()
        connection = self.connections.get(current)
        if connection is not None:
            if connection.served and self._full(connection.listener):
                return gevent.Timeout(0, False)  # a request already sent is still read and served
            connection.idle = timeout
            self.idle[current] = connection
        return timeout

    def _close_oldest_idle(self, listener, every: bool = False) -> None:
        """Close the listener's connection idle the longest (``every``: all of them) that may be
        closed now (:meth:`_Connection.closable`)."""
        now = time.monotonic()
        for greenlet, connection in list(self.idle.items()):
            if connection.listener is listener and connection.closable(now):
                del self.idle[greenlet]
                gevent.get_hub().loop.run_callback(_end_wait, greenlet, connection, connection.idle)
                if not every:
                    return

    def _close_silent_while_full(self) -> None:
        """A full worker accepts nothing, so no new connection comes to close an idle one: while it
        stays full, the new connections that have sent nothing are closed as their grace runs out."""
        while self.alive:
            gevent.sleep(NEW_CONNECTION_GRACE / 2)
            for listener in [listener for listener in self.open_by_listener if self._full(listener)]:
                self._close_oldest_idle(listener, every=True)

    def _serving(self) -> None:
        current = gevent.getcurrent()
        connection = self.connections.get(current)
        if connection is not None:
            connection.served = True
            connection.idle = None
            self.idle.pop(current, None)

    # ------------------------------------------------------ body deadline

    def handle_request(self, listener_name, req, sock, addr):
        self._serving()
        body = req.body
        declared = _content_length(req)
        if declared is not None and declared > self.body_limit:
            # Refused unread: the application answers 413 from the declared length alone, and the
            # connection is closed after that answer (``Connection: close``) instead of being drained
            # to find where the next request starts.  Draining a client that sends as fast as it can
            # never waits, so it would hold the worker's only thread until gunicorn killed the worker.
            req.body = io.BytesIO(b"")
            req.must_close = True
            return self._respond(listener_name, req, sock, addr)
        if body is not None and _has_body(req, declared):
            if getattr(req, "_expected_100_continue", False):
                # The client waits for this before it sends the body (curl: 1 s, then it sends
                # anyway); gunicorn would send it only after our read, so we send it, once, here.
                try:
                    sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                except OSError:
                    raise StopIteration() from None
                req._expected_100_continue = False
            try:
                with gevent.Timeout(self.body_timeout, _SlowBody):
                    data = _read_at_most(body, self.body_limit + 1)
            except _SlowBody:
                try:
                    sock.sendall(REQUEST_TIMEOUT)
                except OSError:
                    pass
                raise StopIteration()  # the keep-alive loop ends: the connection is closed
            if len(data) > self.body_limit:  # a chunked body past the limit: 413, the rest unread, close
                req.must_close = True
            req.body = io.BytesIO(data)
        waited = request_age(sock)
        if waited is not None and waited > self.queue_timeout:
            self._refuse_queued(sock)
        return self._respond(listener_name, req, sock, addr)

    # ----------------------------------------------------- queue deadline

    def _refuse_queued(self, sock) -> None:
        """Answer ``503 queue_timeout`` for a request that waited too long, and close the connection."""
        from service.ops import metrics

        metrics.QUEUE_TIMEOUTS.inc()
        try:
            sock.sendall(QUEUE_TIMEOUT)
        except OSError:
            pass
        raise StopIteration()  # the keep-alive loop ends: the connection is closed

    # ----------------------------------------------------- write deadline

    def _respond(self, listener_name, req, sock, addr):
        """gunicorn runs the application and writes its response, each write bounded by the response's
        write deadline.  A write past it ends the connection with a reset: what the client never took
        is dropped at once instead of lingering in the kernel."""
        try:
            return super().handle_request(listener_name, req, _ClientConnection(sock), addr)
        except _WriteOverdue:
            self.log.info("client %s did not take the response by its deadline: connection reset", addr)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            raise StopIteration() from None


_TCP_INFO = getattr(socket, "TCP_INFO", None)  # Linux
_LAST_DATA_RECV = 52  # offset of tcpi_last_data_recv (u32, milliseconds) in Linux's struct tcp_info


def request_age(sock) -> float | None:
    """Seconds since the kernel last received data on ``sock``: for a request read whole, how long ago
    its last byte arrived, however long it then sat in the listen backlog or the socket's buffer
    (Linux's ``tcp_info.tcpi_last_data_recv``, to the kernel's clock tick). None where the kernel does
    not say (not Linux, not TCP)."""
    if _TCP_INFO is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, _LAST_DATA_RECV + 4)
    except OSError:  # a Unix socket
        return None
    if len(info) < _LAST_DATA_RECV + 4:
        return None
    return struct.unpack_from("=I", info, _LAST_DATA_RECV)[0] / 1000


def _end_wait(greenlet, connection: _Connection, timeout) -> None:
    """End an idle connection's wait for its next request as its keep-alive timeout would (the
    connection is closed quietly), unless a request arrived meanwhile."""
    if connection.idle is timeout and timeout is not None and not greenlet.dead:
        greenlet.throw(timeout)


def worker_concurrency(worker) -> int:
    """The requests a gunicorn worker serves at once: gevent's ``worker_connections``, gthread's
    threads, 1 for the sync worker.  deploy/gunicorn.conf.py hands it to the app of each worker it
    starts (``REFEREE_WORKER_CONCURRENCY``), which sizes its Redis pool and its share of streams
    from it."""
    from gunicorn.workers.base_async import AsyncWorker
    from gunicorn.workers.gthread import ThreadWorker

    if isinstance(worker, AsyncWorker):
        return int(worker.worker_connections)
    if isinstance(worker, ThreadWorker):
        return int(worker.cfg.threads)
    return 1


def _content_length(req) -> int | None:
    for name, value in req.headers:
        if name.upper() == "CONTENT-LENGTH":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _has_body(req, declared: int | None) -> bool:
    if declared is not None:
        return declared > 0
    return any(name.upper() == "TRANSFER-ENCODING" and "chunked" in value.lower() for name, value in req.headers)


def _client_key(addr) -> str | None:
    """The client a connection counts against: its IPv4 address, or its IPv6 /64.

    On a dual-stack listener IPv4 clients arrive as IPv4-mapped addresses (``::ffff:a.b.c.d``),
    which all share one /64: each counts as its own IPv4 address."""
    if not isinstance(addr, tuple) or not addr:
        return None  # a Unix socket: no client address
    host = str(addr[0])
    if ":" in host:
        import ipaddress

        try:
            address = ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            return host
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return host


class Logger(GunicornLogger):
    """gunicorn's logger, whose access log is written only when ``accesslog`` asks for it: with a
    ``logconfig_dict`` gunicorn built each request's ~30 log atoms for a silenced logger to drop
    (the app writes its own request line, service.ops.logs)."""

    def access(self, resp, req, environ, request_time) -> None:
        if self.cfg.accesslog:
            super().access(resp, req, environ, request_time)


# ------------------------------------------------------- one listening socket per worker

def settle_reuse_port(arbiter) -> None:
    """gunicorn's ``on_starting`` hook (deploy/gunicorn.conf.py): ready ``reuse_port`` or turn it off.

    With ``reuse_port`` each worker binds its own ``SO_REUSEPORT`` socket and the kernel spreads new
    connections over the workers; with one shared socket a burst lands mostly on whichever worker
    wakes first (bench/README.md "A socket per worker"). Off for a Unix socket, sockets handed over
    (``LISTEN_FDS``, ``GUNICORN_FD``) and port 0 (each worker would get a port of its own). Since
    the workers bind only after the arbiter has started, an address in use is checked here, so
    gunicorn exits 1 instead of restarting workers that cannot bind; a plain bind is refused by any
    listener there, so two servers never share a port silently."""
    import errno
    import socket
    import time

    cfg = arbiter.cfg
    if not cfg.reuse_port or not hasattr(socket, "SO_REUSEPORT"):
        return
    addresses = list(cfg.address)
    if (config.load().sockets_handed_over
            or any(not isinstance(address, tuple) for address in addresses)):
        cfg.set("reuse_port", False)
        arbiter.log.info("reuse_port off: the workers share the arbiter's listening sockets")
        return
    if any(address[1] == 0 for address in addresses):
        # Port 0 asks the system for a free port: each worker binding its own would get a port of
        # its own, and the arbiter would announce none.  One socket, one port, shared.
        cfg.set("reuse_port", False)
        arbiter.log.info("reuse_port off: port 0 in bind, the workers share every listening socket the arbiter binds")
        return
    for address in addresses:
        family = socket.AF_INET6 if ":" in str(address[0]) else socket.AF_INET
        for attempt in range(5):  # as gunicorn's own bind: 5 tries, a second apart
            probe = socket.socket(family, socket.SOCK_STREAM)
            try:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
                break
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise RuntimeError(f"cannot listen on {address[0]}:{address[1]}: {exc.strerror}") from None
                if attempt == 4:
                    raise RuntimeError(f"{address[0]}:{address[1]} is already in use") from None
                arbiter.log.error("%s:%s is in use, retrying in 1 second", address[0], address[1])
            finally:
                probe.close()
            time.sleep(1.0)
    # gunicorn announces the arbiter's own sockets ("Listening at:  (pid)" with none): name the
    # addresses the workers bind instead.
    urls = ",".join(f"http://[{h}]:{p}" if ":" in str(h) else f"http://{h}:{p}" for h, p in addresses)
    arbiter.log.error_log.addFilter(_AnnouncedAddresses(urls))


class _AnnouncedAddresses(logging.Filter):
    """Puts `urls` in gunicorn's "Listening at:" line when the arbiter itself listens on nothing."""

    def __init__(self, urls: str) -> None:
        super().__init__()
        self.urls = urls

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Listening at: %s (%s)" and record.args and record.args[0] == "":
            record.args = (self.urls, *record.args[1:])
        return True


def keep_listening_plan(arbiter) -> None:
    """gunicorn's ``on_reload`` hook (``SIGHUP``): the new workers listen as the first ones did.

    A reload reads the configuration again, ``reuse_port`` included, but does not call
    :func:`settle_reuse_port`: the arbiter holds listening sockets exactly when the workers are to
    share them, so then the new workers share them too."""
    if arbiter.cfg.reuse_port and arbiter.LISTENERS:
        arbiter.cfg.set("reuse_port", False)
        arbiter.log.info("reuse_port off: the new workers share the arbiter's listening sockets, as before the reload")

