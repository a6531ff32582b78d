"""A ``nats-server -js`` of the tests' own: a free port, its own store directory, stopped
after the test. Never the machine's shared NATS server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.faults.harness import free_port

NATS_SERVER = "/usr/sbin/nats-server"


def nats_server_binary() -> str:
    """The path of ``nats-server``; skips the test without one (fails in CI)."""
    found = shutil.which("nats-server") or (NATS_SERVER if os.path.exists(NATS_SERVER) else None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nats-server is missing in CI (.ci/run installs it)")
        pytest.skip("nats-server is not installed (apt-get install nats-server)")
    return found


class NatsServer:
    """``host``: the address it listens on (``0.0.0.0`` for hosts in network namespaces)."""

    def __init__(self, store: Path, host: str = "127.0.0.1") -> None:
        self.binary = nats_server_binary()
        self.store = store
        self.host = host
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url_for(self, address: str = "127.0.0.1") -> str:
        return f"nats://{address}:{self.port}"

    def start(self) -> None:
        command = [
            self.binary,
            "-js",
            "-a",
            self.host,
            "-p",
            str(self.port),
            "-sd",
            str(self.store),
        ]
        log = (self.store.parent / f"nats-{self.port}.log").open("ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "nats-server exited"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    if conn.recv(4).startswith(b"INFO"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server did not start")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
