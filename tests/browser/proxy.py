"""A TCP proxy in front of the live server whose connections a test can cut, like a dead
Wi-Fi: open streams break at the socket, and new connections fail until it is restored.

(Playwright's ``context.set_offline`` is no substitute: Chromium keeps an already open
EventSource connection alive while "offline".)
"""

from __future__ import annotations

import contextlib
import socket
import threading


class FlakyProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._down = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _addr = self._server.accept()
            except OSError:
                return
            with self._lock:
                if self._down:
                    client.close()
                    continue
                try:
                    upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
                except OSError:
                    client.close()
                    continue
                self._open |= {client, upstream}
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                _shut(sock)
            with self._lock:
                self._open -= {src, dst}

    def cut(self) -> None:
        """Break every open connection and refuse new ones."""
        with self._lock:
            self._down = True
            doomed = list(self._open)
        for sock in doomed:
            _shut(sock)

    def restore(self) -> None:
        with self._lock:
            self._down = False

    def close(self) -> None:
        self._server.close()
        self.cut()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
