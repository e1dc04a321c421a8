"""A local Valkey Cluster from the same bundled binary (tests, ``python -m service.storage.embedded
--cluster``): primaries and replicas on loopback, formed with CLUSTER MEET / ADDSLOTSRANGE /
REPLICATE, ``cluster-require-full-coverage no`` so a failing shard does not stop the others."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from service.storage.valkey import EmbeddedServer, EmbeddedServerError, free_port


class EmbeddedCluster:
    """A local Valkey Cluster made by :func:`start_cluster`: every node an :class:`EmbeddedServer`
    (its own port, bus port and directory); ``url`` is what the API takes."""

    SLOTS = 16384

    def __init__(self, nodes: list[EmbeddedServer], masters: int) -> None:
        self.nodes = nodes
        self.masters = masters

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"{n.host}:{n.port}" for n in self.nodes)

    def client(self, node: EmbeddedServer):
        import redis

        return redis.Redis(host=node.host, port=node.port, socket_timeout=5, decode_responses=True)

    def _call(self, node: EmbeddedServer, *args):
        with self.client(node) as client:
            return client.execute_command(*args)

    def node_id(self, node: EmbeddedServer) -> str:
        return self._call(node, "CLUSTER", "MYID")

    def info(self, node: EmbeddedServer, section: str) -> dict:
        with self.client(node) as client:
            return client.info(section)

    def primary_for(self, key: str) -> EmbeddedServer:
        """The running node that serves ``key``'s slot as primary now."""
        from redis.crc import key_slot

        slot = key_slot(key.encode())
        for node in self.running():
            try:
                for start, end, primary, *_ in self._call(node, "CLUSTER", "SLOTS"):
                    if start <= slot <= end:
                        return self._by_port(int(primary[1]))
            except Exception:  # noqa: BLE001 - ask the next node
                continue
        raise EmbeddedServerError(f"no node serves slot {slot}")

    def replicas_of(self, primary: EmbeddedServer) -> list[EmbeddedServer]:
        info = self.info(primary, "replication")
        ports = [int(v["port"]) for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
        return [self._by_port(p) for p in ports]

    def _by_port(self, port: int) -> EmbeddedServer:
        return next(n for n in self.nodes if n.port == port)

    def running(self) -> list[EmbeddedServer]:
        return [n for n in self.nodes if n.is_running()]

    def healthy(self) -> bool:
        """Every node up, state ok, agreeing on ``masters`` primaries that each have a replica online."""
        try:
            primaries = 0
            for node in self.nodes:
                if not node.is_running() or "cluster_state:ok" not in self._call(node, "CLUSTER", "INFO"):
                    return False
                replication = self.info(node, "replication")
                if replication.get("role") == "master":
                    if not any(k.startswith("slave") and isinstance(v, dict) and v.get("state") == "online"
                               for k, v in replication.items()):
                        return False
                    primaries += 1
                elif replication.get("master_link_status") != "up":
                    return False
            return primaries == self.masters
        except Exception:  # noqa: BLE001 - not yet
            return False

    def wait_healthy(self, timeout: float = 30.0) -> "EmbeddedCluster":
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if time.monotonic() > deadline:
                raise EmbeddedServerError(f"cluster not healthy within {timeout}s: {self.describe()}")
            time.sleep(0.1)
        return self

    def describe(self) -> str:
        lines = []
        for node in self.running():
            try:
                lines.append(self._call(node, "CLUSTER", "NODES"))
                break
            except Exception as exc:  # noqa: BLE001
                lines.append(f"{node.port}: {exc}")
        return "\n".join(lines)

    def wait_promoted(self, node: EmbeddedServer, timeout: float = 30.0) -> None:
        """Wait until ``node`` (a replica) is a primary with its slots, as every running node sees it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.info(node, "replication").get("role") == "master" and all(
                    "cluster_state:ok" in self._call(n, "CLUSTER", "INFO") for n in self.running()
                ):
                    return
            except Exception:  # noqa: BLE001
                pass
            time.sleep(0.05)
        raise EmbeddedServerError(f"{node.port} not promoted within {timeout}s: {self.describe()}")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def cleanup(self) -> None:
        for node in self.nodes:
            node.cleanup()

    def __enter__(self) -> "EmbeddedCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def start_cluster(
    base_dir: str | os.PathLike[str] | None = None,
    masters: int = 3,
    replicas: int = 1,
    node_timeout_ms: int = 1000,
    appendfsync: str = "everysec",
    timeout: float = 60.0,
    extra_args: list[str] | None = None,
) -> EmbeddedCluster:
    """Start and form a cluster of ``masters * (1 + replicas)`` nodes; return once it is healthy."""
    import redis

    base = Path(base_dir) if base_dir is not None else Path(tempfile.mkdtemp(prefix="referee-cluster-"))
    count = masters * (1 + replicas)
    nodes: list[EmbeddedServer] = []
    try:
        for i in range(count):
            for attempt in range(5):
                bus = free_port()
                node = EmbeddedServer(
                    data_dir=base / f"node{i}",
                    appendfsync=appendfsync,
                    extra_args=[
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", str(node_timeout_ms),
                        # a failing shard must not stop the others (deploy/README.md)
                        "--cluster-require-full-coverage", "no",
                        "--cluster-port", str(bus),
                        *(extra_args or []),
                    ],
                )
                if node.port == bus:
                    continue
                try:
                    node.start()
                    break
                except EmbeddedServerError:
                    if attempt == 4:
                        raise
            node._fixed_port = True  # the cluster knows it by this port
            nodes.append(node)
        cluster = EmbeddedCluster(nodes, masters)
        first = nodes[0]
        for node in nodes[1:]:
            bus_port = int(node.extra_args[node.extra_args.index("--cluster-port") + 1])
            cluster._call(first, "CLUSTER", "MEET", node.host, node.port, bus_port)
        per = cluster.SLOTS // masters
        for i in range(masters):
            start = i * per
            end = cluster.SLOTS - 1 if i == masters - 1 else (i + 1) * per - 1
            cluster._call(nodes[i], "CLUSTER", "ADDSLOTSRANGE", start, end)
        deadline = time.monotonic() + timeout
        ids = {node.port: cluster.node_id(node) for node in nodes}
        for r, node in enumerate(nodes[masters:]):
            primary = nodes[r % masters]
            while True:  # the replica must have heard of its primary through the gossip first
                try:
                    cluster._call(node, "CLUSTER", "REPLICATE", ids[primary.port])
                    break
                except redis.exceptions.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        return cluster.wait_healthy(timeout=max(1.0, deadline - time.monotonic()))
    except BaseException:
        for node in nodes:
            node.cleanup()
        raise
