"""Build the Redis client from ``REDIS_URL``: one server, or a Redis/Valkey Cluster.

* ``redis://[user:password@]host:port/db`` (or ``rediss://``, ``unix://``): one server, ``redis.Redis``;
* ``redis+cluster://[user:password@]host:port[,host:port...]`` (or ``rediss+cluster://``): a
  cluster given by its startup nodes, ``RedisCluster``. Every key of one game carries its ``{id}``
  hash tag, so each script stays in one slot. A ``/db`` other than ``/0`` is refused there.

Durability on failover (``REFEREE_REDIS_WAIT_REPLICAS``): :mod:`service.storage.writes`.
"""

from __future__ import annotations

import select
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from gevent.monkey import get_original
from redis._parsers import _HiredisParser
from redis.cluster import ClusterNode, RedisCluster

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


_poll = get_original("select", "poll")  # the OS's, even in a gevent worker (which patches select)


class Parser(_HiredisParser):
    """redis-py's hiredis parser, whose "is anything waiting?" test never yields.

    The pool asks every connection it hands out ``can_read(0)``; under gevent that went through
    the hub for a question with no wait in it. Here an empty parser and a socket with nothing to
    read answer False at once, with the OS's ``poll``; anything else goes to redis-py's own test.
    Without it a read of a game took 19-25 % more CPU and a move 2-15 % more. It reads two private
    attributes of redis-py's parser: pyproject.toml pins the redis-py it was tested with.
    """

    def can_read(self, timeout: float) -> bool:
        sock, reader = self._sock, self._reader
        if timeout == 0 and sock is not None and reader is not None and not reader.has_data():
            poller = _poll()
            poller.register(sock, select.POLLIN)
            if not poller.poll(0):
                return False
        return super().can_read(timeout)


def pool_size(concurrency: int, cap: int) -> int:
    """The Redis connections a worker holds at most: one per request it serves at once, up to ``cap``
    (past it requests wait for one); ``concurrency`` 0 (unknown: not under gunicorn) gives the cap."""
    return max(1, min(concurrency, cap) if concurrency > 0 else cap)


def make_client(url: str, timeout: float, *, max_connections: int = 100,
                pool_timeout: float = 5.0) -> redis.Redis | RedisCluster:
    """The client for ``url``. ``timeout`` bounds connecting and every reply (a slow store is a 503,
    never a hang); a command that finds all ``max_connections`` (per node) in use waits up to
    ``pool_timeout`` seconds for one, then raises the error :func:`pool_exhausted` recognises."""
    common = dict(socket_timeout=timeout, socket_connect_timeout=timeout,
                  max_connections=max_connections, timeout=pool_timeout)
    if is_cluster_url(url):
        # Topology is learnt from any startup node; MOVED / failover refresh it.
        return RedisCluster(**parse_cluster_url(url), connection_pool_class=redis.BlockingConnectionPool, **common)
    pool = redis.BlockingConnectionPool.from_url(url, health_check_interval=30, parser_class=Parser, **common)
    client = redis.Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # as redis.Redis.from_url leaves it: closing the client closes the pool
    return client


def subscriber_client(url: str, timeout: float) -> redis.Redis | RedisCluster:
    """A client of its own for a process's live-update subscriber (service.storage.live.Hub).

    Its pub/sub connection lives as long as the process: taken from the requests' pool it would
    be one fewer for them, and waiting for one under a burst would drop live updates."""
    common = dict(socket_timeout=timeout, socket_connect_timeout=timeout)
    if is_cluster_url(url):
        return RedisCluster(**parse_cluster_url(url), **common)
    return redis.Redis.from_url(url, health_check_interval=30, **common)


def pool_exhausted(error: BaseException) -> bool:
    """True when ``error`` says no connection of the pool came free in time (not that Redis is away).

    ``BlockingConnectionPool`` raises a plain ``ConnectionError`` with this message; the
    non-blocking pool raises ``MaxConnectionsError``."""
    return isinstance(error, redis.exceptions.MaxConnectionsError) or (
        type(error) is redis.exceptions.ConnectionError and str(error) == "No connection available.")


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)
