"""A TCP proxy on 127.0.0.1 whose connections can die without a word, as a phone's do on a change of Wi-Fi.

``SilentProxy(upstream_port)`` forwards every connection to ``127.0.0.1:upstream_port``.
``drop()``: every connection open now stops forwarding, silently (no FIN, no RST: bytes sent either way
are swallowed), and stays so; new connections work. ``drop(new_too=True)``: new connections are
swallowed too until ``restore()``. Only ever listens on and connects to the loopback interface.
"""

from __future__ import annotations

import socket
import threading


class SilentProxy:
    def __init__(self, upstream_port: int):
        self.upstream = ("127.0.0.1", upstream_port)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.generation = 0      # connections of an older generation are dead
        self.swallow_new = False
        self.sockets: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def drop(self, new_too: bool = False) -> None:
        with self.lock:
            self.generation += 1
            self.swallow_new = new_too

    def restore(self) -> None:
        with self.lock:
            self.generation += 1  # what was swallowed stays dead, as a real dropped connection does
            self.swallow_new = False

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        with self.lock:
            for s in self.sockets:
                try:
                    s.close()
                except OSError:
                    pass

    def _alive(self, generation: int) -> bool:
        with self.lock:
            return generation == self.generation and not self.swallow_new

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                generation = self.generation
            try:
                upstream = socket.create_connection(self.upstream, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst, generation), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, generation: int) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    if self._alive(generation):
                        dst.shutdown(socket.SHUT_WR)
                    return
                if self._alive(generation):
                    dst.sendall(data)
                # else: swallowed, and the connection is never told
        except OSError:
            return
