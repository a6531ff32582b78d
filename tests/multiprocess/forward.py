"""A TCP forwarder for the multi-host test: ``python -m tests.multiprocess.forward
LISTEN_HOST PORT=TARGET_PORT...`` accepts on ``LISTEN_HOST:PORT`` and forwards to
``127.0.0.1:TARGET_PORT``, so app hosts in network namespaces reach the PostgreSQL and the
NATS server that listen on the loopback only. Prints ``ready`` once listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


def _forwarder(
    target_port: int,
) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            writer.close()  # the target is down (a NATS restart): the client reconnects
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    return forward


async def main(host: str, mappings: list[str]) -> None:
    servers = []
    for mapping in mappings:
        port, _, target = mapping.partition("=")
        servers.append(await asyncio.start_server(_forwarder(int(target)), host, int(port)))
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
