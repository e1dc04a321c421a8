"""The embedded Valkey of ``make run`` and the tests: ``python -m service.storage.embedded [--cluster]
[DATA_DIR]`` runs one in the foreground and prints its ``REDIS_URL``.

The server itself is :mod:`service.storage.valkey`; a local cluster, :mod:`service.storage.valkey_cluster`.
"""

from __future__ import annotations

import sys
import time

from service.storage.valkey import EmbeddedServerError, Supervisor, free_port, start_server
from service.storage.valkey_cluster import start_cluster

__all__ = ["EmbeddedServerError", "Supervisor", "free_port", "start_cluster", "start_server"]


def _arguments(argv: list[str]):
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m service.storage.embedded",
        description="Run a Valkey-compatible server for the referee in the foreground (Ctrl-C stops it) "
                    "and print its REDIS_URL.")
    parser.add_argument("--cluster", action="store_true",
                        help="a local Redis Cluster: 3 primaries and 3 replicas")
    parser.add_argument("data_dir", nargs="?", metavar="DATA_DIR",
                        help="where the data is kept (default: a fresh temporary directory)")
    return parser.parse_args(argv)


if __name__ == "__main__":  # python -m service.storage.embedded [--cluster] [DATA_DIR]: run in the foreground
    args = _arguments(sys.argv[1:])
    if args.cluster:
        server = start_cluster(base_dir=args.data_dir)
        print(f"valkey cluster at {server.url}\n  REDIS_URL={server.url}", flush=True)
        nodes = server.nodes
    else:
        server = start_server(data_dir=args.data_dir)
        print(f"valkey at {server.url} (data in {server.data_dir}); Ctrl-C to stop", flush=True)
        nodes = [server]
    try:
        while any(node.is_running() for node in nodes):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.cleanup()  # a temporary directory of a single server goes; given ones stay
