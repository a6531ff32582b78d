"""``tafelrunde serve`` believes ``X-Forwarded-For`` only from the configured proxies (issue
20, M3): by default a client cannot pick the address the login throttle counts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

#: Failures from one address before its attempts wait (lowered for the test).
ADDRESS_FREE = 3


@contextmanager
def _serve(data_dir: Path, **settings: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAFELRUNDE_")}
    env |= {
        "TAFELRUNDE_DATA_DIR": str(data_dir),
        "TAFELRUNDE_ARGON2_TIME_COST": "1",
        "TAFELRUNDE_ARGON2_MEMORY_KIB": "8192",
        "TAFELRUNDE_LOGIN_ADDRESS_FREE_FAILURES": str(ADDRESS_FREE),
        **{f"TAFELRUNDE_{k.upper()}": v for k, v in settings.items()},
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)], cwd=data_dir, env=env
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/login", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def _fail_from(url: str, forwarded_for: str, username: str) -> int:
    r = httpx.post(
        f"{url}/api/v1/auth/login",
        json={"username": username, "password": "falsch-falsch"},
        headers={"X-Forwarded-For": forwarded_for},
    )
    return r.status_code


def test_forwarded_for_from_an_untrusted_peer_is_ignored(tmp_path: Path) -> None:
    with _serve(tmp_path) as url:
        # A new made-up address for every guess: all count for the real one, 127.0.0.1.
        for n in range(ADDRESS_FREE):
            assert _fail_from(url, f"10.0.0.{n + 1}", f"nobody{n}") == 401
        assert _fail_from(url, "10.0.0.99", "nobody99") == 429


def test_forwarded_for_from_a_trusted_proxy_names_the_client(tmp_path: Path) -> None:
    with _serve(tmp_path, trusted_proxies="127.0.0.1") as url:
        for n in range(ADDRESS_FREE):
            assert _fail_from(url, "10.0.0.1", f"nobody{n}") == 401
        assert _fail_from(url, "10.0.0.1", "nobody99") == 429
        # Another client behind the same proxy is not slowed.
        assert _fail_from(url, "10.0.0.2", "nobody99") == 401
