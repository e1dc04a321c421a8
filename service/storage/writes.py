"""How the store sends a write: one script, and with ``wait_replicas`` a ``WAIT`` on the same
connection so the answer is only given once a replica has the write.

Replication is asynchronous: a primary can acknowledge a write and die before its replica has it,
and a promoted replica then lacks an acknowledged move. ``WAIT n timeout`` after each write closes
that window (``REDIS_WAIT_REPLICAS``; 1 by default on a cluster). A write that reaches fewer replicas
within the timeout stands (the game stays playable on a shard that lost its replica), counted in
``referee_store_unreplicated_writes_total``. A primary known to have no replica online is written
without a WAIT that could only time out (:meth:`Writes.replicas_to_wait`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis

from service.ops import metrics
from service.storage.records import text

log = logging.getLogger(__name__)

_RETRYABLE = (redis.exceptions.TryAgainError, redis.exceptions.ClusterDownError)


class Writes:
    #: While a primary is known to have fewer replicas online than ``wait_replicas``, how often (s)
    #: a write asks it again (``ROLE``: one more round trip, at most this often per primary).
    REPLICA_RECOUNT_SECONDS = 1.0

    def __init__(self, client: redis.Redis, cluster: bool, wait_replicas: int = 0, wait_timeout_ms: int = 500):
        self.redis = client
        self.cluster = cluster
        self.wait_replicas = max(0, int(wait_replicas))
        self.wait_timeout_ms = max(1, int(wait_timeout_ms))  # WAIT n 0 would block forever
        # (host, port) of a primary -> (replicas it had online, time.monotonic() of that count)
        self._replicas_online: dict[tuple[str, int], tuple[int, float]] = {}

    def run(self, script, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script (``client.register_script``); its reply. With ``wait_replicas``,
        only once the WAIT after it has returned."""
        if self.wait_replicas:
            command = ("EVALSHA", script.sha, len(keys), *keys, *args)
            return self.replicated(keys[0], command, script=script.script)
        return script(keys=keys, args=args)

    def node_client(self, key: str) -> redis.Redis:
        """The client of the server that holds ``key`` (the primary of its slot on a cluster)."""
        if not self.cluster:
            return self.redis
        return self.redis.get_redis_connection(self.redis.get_node_from_key(key))

    def replicated(self, key: str, command: tuple, script: str | None = None) -> Any:
        """Send ``command`` then ``WAIT n timeout`` on one connection; the command's reply.

        WAIT counts the replicas that have every write made *on this connection*, so the command
        and the WAIT share a pipeline to the primary of ``key``'s slot. On a cluster a MOVED /
        TRYAGAIN / CLUSTERDOWN reply (the slot moved, a failover is under way) means nothing ran:
        the topology is refreshed and the command is sent again; an ASK reply (the slot is being
        migrated and these keys are on the importing node) sends it there, after ASKING.
        For "refuse writes without a replica" run the servers with ``min-replicas-to-write 1``.
        ``script``: the source of the EVALSHA sent, loaded on a node that answers NOSCRIPT (a new
        primary, an importing node) before sending again.
        """
        asked: tuple[str, int] | None = None  # an ASK redirect: the slot is migrating to that node
        for attempt in range(4):
            client = self.node_client(key) if asked is None else self._client_at(*asked)
            wanted = self.replicas_to_wait(client)
            pipe = client.pipeline(transaction=False)
            if asked is not None:
                pipe.execute_command("ASKING")  # valid for the next command only
            pipe.execute_command(*command)
            if wanted:
                pipe.execute_command("WAIT", wanted, self.wait_timeout_ms)
            try:
                replies = pipe.execute(raise_on_error=False)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                self.refresh_topology()
                raise
            acked = replies.pop() if wanted else 0
            reply = replies[-1]  # the command's, after ASKING's
            if isinstance(reply, redis.exceptions.NoScriptError) and script is not None and attempt < 3:
                client.script_load(script)  # not run: load it on the node that answered, run again
                continue
            if self.cluster and attempt < 3:
                moved = isinstance(reply, redis.exceptions.MovedError)  # a MovedError is an AskError too
                if isinstance(reply, redis.exceptions.AskError) and not moved:
                    asked = (reply.host, reply.port)  # the slot map stays
                    continue
                if moved or isinstance(reply, _RETRYABLE):  # the slot map changed
                    asked = None
                    self.refresh_topology()
                    time.sleep(0.05 * (attempt + 1))
                    continue
            if isinstance(reply, Exception):
                raise reply
            if int(acked) < self.wait_replicas:
                metrics.UNREPLICATED_WRITES.inc()
                if wanted:
                    log.warning("write to %s acknowledged by %s of %s replicas within %s ms",
                                key, acked, wanted, self.wait_timeout_ms)
                    if int(acked) < wanted:  # a replica went away? count them again now
                        self.replicas_to_wait(client, recount=True)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    def replicas_to_wait(self, client: redis.Redis, recount: bool = False) -> int:
        """How many replicas a write on ``client``'s server should WAIT for: ``wait_replicas``, or
        fewer while that primary has fewer online (``ROLE``, asked at its first write and then at
        most every :attr:`REPLICA_RECOUNT_SECONDS` while it is short; ``recount``: now)."""
        kwargs = client.connection_pool.connection_kwargs
        address = (kwargs.get("host", ""), int(kwargs.get("port", 0) or 0))
        known = self._replicas_online.get(address)
        now = time.monotonic()
        if recount or known is None or (known[0] < self.wait_replicas
                                         and now - known[1] >= self.REPLICA_RECOUNT_SECONDS):
            try:
                role = client.execute_command("ROLE")
                online = len(role[2]) if text(role[0]) == "master" else self.wait_replicas
            except redis.exceptions.RedisError:  # the write itself will say what is wrong
                online = self.wait_replicas
            if known is not None and (online == 0) != (known[0] == 0):
                log.warning("%s:%s has %s replicas online (wanted %s)%s", *address, online, self.wait_replicas,
                            "; writes go on without WAIT" if online == 0 else "")
            known = self._replicas_online[address] = (online, now)
        return min(self.wait_replicas, known[0])

    def announce(self, channel: str, version: int, sharded: bool) -> None:
        """Publish a saved version on its channel (after a WAIT; without one the save script does)."""
        try:
            self.node_client(channel).execute_command("SPUBLISH" if sharded else "PUBLISH", channel, version)
        except redis.exceptions.RedisError as error:  # the move stands; streams catch up on their next read
            metrics.STORE_ERRORS.labels(kind="request").inc()
            log.warning("announcing version %s on %s failed: %s", version, channel, error)

    def _client_at(self, host: str, port: int) -> redis.Redis:
        node = self.redis.get_node(host=host, port=port)
        if node is None:  # a node the slot map does not list yet
            self.refresh_topology()
            node = self.redis.get_node(host=host, port=port)
        if node is None:
            raise redis.exceptions.ClusterError(f"ASK redirect to an unknown node {host}:{port}")
        return self.redis.get_redis_connection(node)

    def refresh_topology(self) -> None:
        if self.cluster:
            try:
                self.redis.nodes_manager.initialize()
            except Exception as error:  # noqa: BLE001 - the next command refreshes again
                log.info("cluster topology refresh failed: %s", error)
