"""Build the Redis client from ``REDIS_URL``: one server, or a Redis/Valkey Cluster.

* ``redis://[user:password@]host:port/db`` (or ``rediss://``, ``unix://``): one
  server (a single Valkey, or the primary a Sentinel-aware proxy points at);
  ``redis.Redis``.
* ``redis+cluster://[user:password@]host:port[,host:port...]`` (or
  ``rediss+cluster://`` for TLS): a Redis Cluster, given by one or more startup
  nodes; ``redis.cluster.RedisCluster``.  The service runs unchanged on it: every
  key of one game carries the game's ``{id}`` hash tag and every rate-limit key
  the client's ``{client}`` tag, so each script and pipeline stays in one slot;
  announcements use sharded pub/sub (``SPUBLISH``), subscribers ``SSUBSCRIBE``.
  A cluster has no databases: a ``/db`` path other than ``/0`` is refused.

Durability on failover (``REDIS_WAIT_REPLICAS``, ``REFEREE_REDIS_WAIT_REPLICAS``):
replication is asynchronous, so a write the primary acknowledged can be lost if
the primary dies before a replica has it and the replica is promoted.  With
``N > 0`` the store sends ``WAIT N timeout`` on the same connection right after
each write and only then answers; the default is 1 for a cluster URL, 0 for one
server (see :class:`service.storage.store.Store`).
"""

from __future__ import annotations

import os
import select
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.event import AfterConnectionReleasedEvent
from redis.utils import HIREDIS_AVAILABLE

CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}


def is_cluster_url(url: str) -> bool:
    return urlsplit(url).scheme.lower() in CLUSTER_SCHEMES


def parse_cluster_url(url: str) -> dict[str, Any]:
    """``redis+cluster://user:pw@h1:p1,h2:p2/0`` -> RedisCluster keyword arguments."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in CLUSTER_SCHEMES:
        raise ValueError(f"not a cluster URL: {url!r}")
    netloc = parts.netloc
    credentials, _, hosts = netloc.rpartition("@")
    kwargs: dict[str, Any] = {}
    if credentials:
        user, sep, password = credentials.partition(":")
        if sep:
            kwargs["password"] = unquote(password)
            if user:
                kwargs["username"] = unquote(user)
        else:  # redis+cluster://password@host (no user)
            kwargs["password"] = unquote(user)
    nodes = []
    for item in hosts.split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):  # [::1]:7000
            host, _, port = item[1:].partition("]:")
        else:
            host, _, port = item.rpartition(":")
            if not host:
                host, port = item, ""
        nodes.append(ClusterNode(host, int(port or 6379)))
    if not nodes:
        raise ValueError(f"no startup node in {url!r}")
    db = parts.path.strip("/")
    if db not in ("", "0"):
        raise ValueError(f"a Redis Cluster has only database 0, not {db!r} ({url!r})")
    kwargs["startup_nodes"] = nodes
    if CLUSTER_SCHEMES[scheme]:
        kwargs["ssl"] = True
    return kwargs


def _original_poll():
    """``select.poll`` as the OS gives it, even in a gevent worker (which patches ``select``)."""
    try:
        from gevent.monkey import get_original
    except ImportError:  # pragma: no cover - gevent is a dependency
        return select.poll
    return get_original("select", "poll")


_poll = _original_poll()

if HIREDIS_AVAILABLE:
    from redis._parsers import _HiredisParser

    class Parser(_HiredisParser):
        """redis-py's hiredis parser, whose "is anything waiting?" test never yields.

        The pool asks every connection it hands out whether data is waiting on it
        (``can_read(0)``: a reply left unread makes it unusable). Under gevent that check
        went through gevent's cooperative ``poll``, a trip through the hub for a question
        with no wait in it: 5 % of a move's CPU in a gevent worker (py-spy; bench/README.md
        "A worker's profile"). Here an empty parser and a socket with nothing to read
        answer False at once, with the OS's ``poll``; anything else (buffered data, a
        readable or closed socket, a real timeout) goes to redis-py's own test, unchanged.
        """

        def can_read(self, timeout: float) -> bool:
            sock, reader = self._sock, self._reader
            if timeout == 0 and sock is not None and reader is not None and not reader.has_data():
                poller = _poll()
                poller.register(sock, select.POLLIN)
                if not poller.poll(0):
                    return False
            return super().can_read(timeout)

    PARSER: dict[str, Any] = {"parser_class": Parser}
else:  # pragma: no cover - hiredis is a dependency
    PARSER = {}


class Pool(redis.ConnectionPool):
    """redis-py's connection pool, less the bookkeeping this service never reads.

    A move takes a connection twice (its read, its save) and so does every pool method of
    redis-py 8 on its way: a deprecated-arguments check that inspects the call's arguments,
    and four OpenTelemetry connection-count records, each asking redis-py's observability
    registry for a collector that is never there (this service exports Prometheus metrics,
    :mod:`service.ops.metrics`, and never enables redis-py's OpenTelemetry). Together they were
    ~5 % of a move's CPU. Everything else is redis-py's, in its order: the fork check, the
    lock, reconnecting a connection that has unread data or is closed, the release event
    (re-authentication with a streaming credential provider), giving back a connection
    another process made. A call with arguments (deprecated since redis-py 5.3) goes to
    redis-py's own method, warning as before.
    """

    def get_connection(self, command_name=None, *keys, **options) -> Any:
        if command_name is not None or keys or options:
            return super().get_connection(command_name, *keys, **options)
        if self.pid != os.getpid():
            self._checkpid()
        with self._lock:
            try:
                connection = self._available_connections.pop()
            except IndexError:
                connection = self.make_connection()
            self._in_use_connections.add(connection)
        try:
            connection.connect()
            try:
                if connection.can_read() and self.cache is None and not self.maint_notifications_enabled():
                    raise redis.exceptions.ConnectionError("Connection has data")
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
                connection.disconnect()
                connection.connect()
                if connection.can_read() and self.cache is None and not self.maint_notifications_enabled():
                    raise redis.exceptions.ConnectionError("Connection not ready")
        except BaseException:
            self.release(connection)  # not leaked
            raise
        return connection

    def release(self, connection: Any) -> None:
        if self.pid != os.getpid():
            self._checkpid()
        with self._lock:
            try:
                self._in_use_connections.remove(connection)
            except KeyError:  # not this pool's
                return
            if self.owns_connection(connection):
                if connection.should_reconnect():
                    connection.disconnect()
                self._available_connections.append(connection)
                self._event_dispatcher.dispatch(AfterConnectionReleasedEvent(connection))
            else:  # made by another process (before a fork): never reused
                connection.disconnect()


def one_round_trip(client: redis.Redis, *commands: tuple) -> list[Any]:
    """Send ``commands`` in one write and read their replies, in order: what
    ``client.pipeline(transaction=False)`` with them, then ``execute(raise_on_error=False)``, gives
    for commands without a response callback (EVALSHA, HMGET): each raw reply, or the
    ``ResponseError`` its command got (a ``NoScriptError`` included). A connection error or timeout
    is retried by the connection's own policy, the connection reset between tries, then raised,
    as a pipeline's is. One server only (a cluster's pipeline finds each key's node itself).

    redis-py 8's pipeline does much more around the same write and reads: a pipeline object and
    its command stack, fieldset bookkeeping (HIMPORT), operation timings for OpenTelemetry, debug
    logging hooks. Measured without the machine's load (valgrind's instruction count through the
    WSGI app in-process, a Valkey beside it): a Gops seat view 1.22 M -> 1.17 M instructions
    (-4 %), a move 2.83 M -> 2.73 M (-3 %).
    """
    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        def attempt() -> list[Any]:
            connection.send_packed_command(connection.pack_commands(commands))
            replies: list[Any] = []
            for _ in commands:  # every reply is read, errors included: the socket never desyncs
                try:
                    replies.append(connection.read_response())
                except redis.exceptions.ResponseError as error:
                    replies.append(error)
            return replies

        return connection.retry.call_with_retry(attempt, lambda error: connection.disconnect())
    finally:
        pool.release(connection)


def make_client(url: str, timeout: float, health_check_interval: int = 30) -> redis.Redis | RedisCluster:
    """The client for ``url``: ``redis.Redis`` or, for a cluster URL, ``RedisCluster``.

    ``timeout`` bounds connecting and every reply (a slow store is a 503, never a hang).
    """
    common = dict(socket_timeout=timeout, socket_connect_timeout=timeout)
    if is_cluster_url(url):
        # Topology is learnt from any startup node; MOVED / failover refresh it.
        return RedisCluster(**parse_cluster_url(url), **common)
    pool = Pool.from_url(url, health_check_interval=health_check_interval, **PARSER, **common)
    client = redis.Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # as redis.Redis.from_url leaves it: closing the client closes the pool
    return client


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)
