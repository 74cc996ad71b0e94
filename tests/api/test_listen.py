"""The socket that `appmem serve --workers N` workers share: their accepted connections send at once."""
from __future__ import annotations

import asyncio
import socket

import pytest

from appmem.api.commands import listening_socket
from appmem.errors import ConfigError


def test_connections_accepted_on_the_workers_socket_have_nagle_off():
    """asyncio sets TCP_NODELAY only on connections whose socket says IPPROTO_TCP: with it off, every
    keep-alive answer after the first waits for the client's delayed ACK (≈ 40 ms on Linux)."""
    listener = listening_socket("127.0.0.1", 0)
    seen: list[int] = []

    class Probe(asyncio.Protocol):
        def connection_made(self, transport):
            seen.append(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        writer.close()
        server.close()
        await server.wait_closed()

    asyncio.run(accept_one())
    assert seen and seen[0] != 0


def test_a_port_in_use_is_a_clear_error():
    taken = listening_socket("127.0.0.1", 0)
    taken.listen()
    try:
        with pytest.raises(ConfigError, match="cannot listen on 127.0.0.1"):
            listening_socket("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()
