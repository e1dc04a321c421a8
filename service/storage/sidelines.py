"""Writes beside a move that live on another shard of a Redis Cluster: tried within a budget, given
up at once while their shard is known to be down.

Two writes a request makes are bookkeeping whose keys sit elsewhere on a cluster: the client's
rate-limit counters and the set of active games. Through ``RedisCluster`` a command to a dead
primary is retried for seconds, so one failing shard stalled the moves on every healthy shard.
Here it goes straight to the key's node, with the ``budget`` as its timeouts and no retry; on a
failure that node is skipped for ``cooldown`` seconds and the caller fails open. (On one server
the game and its bookkeeping share the server and its scripts write them together.)
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service.ops import metrics

log = logging.getLogger(__name__)

#: The errors that say "that node cannot answer now": a dead or paused process, a failover under way.
UNAVAILABLE = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.MovedError,
    redis.exceptions.ReadOnlyError,
)


class Skipped(redis.exceptions.ConnectionError):
    """Not sent: the key's node failed within the last ``cooldown`` seconds."""


class Sidelines:
    """Bounded, fail-fast commands on keys of a cluster that are not the request's game."""

    def __init__(self, cluster: RedisCluster, budget: float = 0.25, cooldown: float = 2.0) -> None:
        self.cluster = cluster
        self.budget = budget
        self.cooldown = cooldown
        self._clients: dict[tuple[str, int], redis.Redis] = {}
        self._down_until: dict[tuple[str, int], float] = {}
        self._lock = threading.Lock()

    def execute(self, kind: str, key: str, *command: Any) -> Any:
        """Run ``command`` (which touches ``key`` only) on the primary of ``key``'s slot.

        Raises :class:`Skipped` when that node failed lately, or the error it failed with now
        (after which it is skipped for ``cooldown`` seconds); ``kind`` labels the metrics."""
        node = self.cluster.get_node_from_key(key)
        address = (node.host, node.port)
        if self._down_until.get(address, 0.0) > time.monotonic():
            metrics.SIDELINE_SKIPPED.labels(kind=kind).inc()
            raise Skipped(f"{node.host}:{node.port} failed within the last {self.cooldown} s")
        try:
            return self._client(address).execute_command(*command)
        except UNAVAILABLE as error:
            with self._lock:
                self._down_until[address] = time.monotonic() + self.cooldown
            log.warning("%s: %s:%s unavailable (%s); skipped for %s s", kind, node.host, node.port, error,
                        self.cooldown)
            raise

    def _client(self, address: tuple[str, int]) -> redis.Redis:
        client = self._clients.get(address)
        if client is None:
            kwargs = {k: v for k, v in self.cluster.nodes_manager.connection_kwargs.items()
                      if k in ("username", "password", "ssl", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile",
                               "ssl_cert_reqs", "credential_provider", "protocol")}
            client = redis.Redis(host=address[0], port=address[1], socket_timeout=self.budget,
                                 socket_connect_timeout=self.budget, retry=Retry(NoBackoff(), 0), **kwargs)
            with self._lock:
                client = self._clients.setdefault(address, client)
        return client
