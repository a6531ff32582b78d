"""Run Tafelrunde as several processes behind Debian's nginx, on loopback.

    python scripts/nginx_front.py --processes 2 --workers 2 --port 8080

starts ``--processes`` app servers (``tafelrunde serve --workers W`` each, on free ports) and
one nginx in front of them, with a configuration and temp prefix of its own (a new directory
under ``--prefix`` or the system's temp dir): the system nginx service and its files are
never touched, and the paths work with or without root. Needs PostgreSQL in
``TAFELRUNDE_DATABASE_URL`` (the processes tell each other about new events by
LISTEN/NOTIFY). Prints one line ``ready <url> <upstream ports>`` when all answer, runs until
SIGTERM or Ctrl-C, then stops everything it started.

What the nginx configuration does, and why:

- ``proxy_buffering off``: every SSE frame goes to the browser the moment it is written
  (nginx would otherwise hold it until its buffer fills); ``X-Accel-Buffering`` not needed.
- ``proxy_read_timeout`` 1 h: a stream is quiet between events; the app pings every 15 s,
  so the timeout only ends streams of a hung upstream.
- ``X-Forwarded-For`` / ``-Proto`` / ``-Host`` are *set* from the connection, never passed
  on from the client, and the app processes trust them from ``127.0.0.1`` only
  (``TAFELRUNDE_TRUSTED_PROXIES``): a client cannot pick the address the login throttle
  counts.
- HTTP/1.1 with keep-alive to the upstreams; a request goes to the next process in turn
  (round robin). ``--show-upstream`` adds the answering process's address as a response
  header ``X-Upstream`` (tests use it to put a stream and a write on different processes;
  leave it off in production).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")

CONFIG = """\
worker_processes 1;
{user}
pid {prefix}/nginx.pid;
error_log stderr warn;
daemon off;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    client_max_body_size 16m;
    upstream tafelrunde {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://tafelrunde;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;
            proxy_buffering off;
            proxy_cache off;
            proxy_connect_timeout 5s;
            proxy_send_timeout 60s;
            proxy_read_timeout 3600s;
{extra}
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def nginx_config(prefix: Path, port: int, upstreams: Sequence[int], show_upstream: bool) -> str:
    """The whole nginx configuration for ``port`` in front of the ``upstreams`` ports."""
    servers = "\n".join(f"        server 127.0.0.1:{p};" for p in upstreams)
    extra = "            add_header X-Upstream $upstream_addr always;" if show_upstream else ""
    # As root nginx's workers drop to an unprivileged user; one that can read the prefix.
    user = "user nobody nogroup;" if os.geteuid() == 0 else ""
    return CONFIG.format(
        prefix=prefix,
        port=port,
        servers=servers,
        extra=extra,
        user=user,
        connections=16384,
    )


def _wait_until_up(url: str, processes: Sequence[subprocess.Popen[bytes]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            raise RuntimeError(f"a process ended before {url} answered")
        try:
            if httpx.get(url + "/login", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def _app_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("TAFELRUNDE_TRUSTED_PROXIES", "127.0.0.1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _serve(port: int, workers: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
    return subprocess.Popen(
        [*command, "--workers", str(workers)],
        cwd=ROOT,
        env=_app_env(),
        start_new_session=True,
        stdout=sys.stderr,  # the access log: stdout has the one "ready" line only
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextlib.contextmanager
def front(
    processes: int,
    workers: int = 1,
    port: int | None = None,
    prefix: Path | None = None,
    show_upstream: bool = False,
) -> Iterator[tuple[str, list[int]]]:
    """App servers and nginx running; yields nginx's URL and the app servers' ports."""
    ports = [free_port() for _ in range(processes)]
    listen = port or free_port()
    home = Path(tempfile.mkdtemp(prefix="tafelrunde-nginx-", dir=prefix))
    home.chmod(0o755)
    started: list[subprocess.Popen[bytes]] = []
    try:
        # The first one migrates the database alone; the others find it up to date.
        started.append(_serve(ports[0], workers))
        _wait_until_up(f"http://127.0.0.1:{ports[0]}", started, 60)
        started += [_serve(p, workers) for p in ports[1:]]
        for p in ports[1:]:
            _wait_until_up(f"http://127.0.0.1:{p}", started, 60)
        for name in TEMP_DIRS:
            (home / name).mkdir()
        conf = home / "nginx.conf"
        conf.write_text(nginx_config(home, listen, ports, show_upstream))
        nginx = [NGINX, "-e", "stderr", "-p", str(home), "-c", str(conf)]
        started.append(subprocess.Popen(nginx, stdout=sys.stderr))
        url = f"http://127.0.0.1:{listen}"
        _wait_until_up(url, started, 20)
        yield url, ports
    finally:
        for process in reversed(started):
            _stop(process)
        shutil.rmtree(home, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--processes", type=int, default=2, help="app servers (default 2)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes per server")
    parser.add_argument("--port", type=int, default=None, help="nginx's port (default: free)")
    parser.add_argument("--prefix", type=Path, default=None, help="parent of the temp prefix")
    parser.add_argument("--show-upstream", action="store_true", help="X-Upstream header")
    args = parser.parse_args(argv)
    if not os.environ.get("TAFELRUNDE_DATABASE_URL", "").startswith("postgresql"):
        raise SystemExit("nginx_front: set TAFELRUNDE_DATABASE_URL to a PostgreSQL database")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with front(args.processes, args.workers, args.port, args.prefix, args.show_upstream) as (
        url,
        ports,
    ):
        print("ready", url, ",".join(map(str, ports)), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
