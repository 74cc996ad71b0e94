"""The adb wire format, as the twin adb server (twins/adb_server.py) speaks it: a request is 4 hex
digits of length + payload; an answer is OKAY, or FAIL + 4 hex digits of length + message; sync
answers carry little-endian u32 lengths; shell v2 packets are a 1-byte stream id, a LE u32 length
and the payload. Also the fault a hanging device raises (`Hang`)."""
from __future__ import annotations

import socket
import struct

SHELL_CHUNK = 32 * 1024


class Hang(Exception):
    """The device is unresponsive: leave the client waiting (`wait_for_close`)."""


def block(text: str) -> bytes:
    data = text.encode("utf-8")
    return f"{len(data):04x}".encode() + data


def fail(message: str) -> bytes:
    return b"FAIL" + block(message)


def sync_fail(message: str) -> bytes:
    data = message.encode("utf-8")
    return b"FAIL" + struct.pack("<I", len(data)) + data


def send_packets(sock: socket.socket, stream: int, data: bytes) -> None:
    for start in range(0, len(data), SHELL_CHUNK):
        chunk = data[start:start + SHELL_CHUNK]
        sock.sendall(bytes([stream]) + struct.pack("<I", len(chunk)) + chunk)


def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_request(sock: socket.socket) -> str | None:
    head = recv_exact(sock, 4)
    if head is None:
        return None
    try:
        length = int(head, 16)
    except ValueError:
        sock.sendall(fail(f"bad request length {head!r}"))
        return None
    body = recv_exact(sock, length)
    return None if body is None else body.decode("utf-8", errors="replace")


def wait_for_close(sock: socket.socket) -> None:
    """Hold a connection without answering until the client (or stop()) closes it."""
    try:
        while sock.recv(4096):
            pass
    except OSError:
        pass
