"""The adb `sync:` service of a twin device: STAT, LIST, RECV and SEND on its files (twins/vfs.py),
as `adb push`/`pull` and adbutils' sync client use it."""
from __future__ import annotations

import socket
import struct
from collections.abc import Callable

from appmem.twins.adb_wire import Hang, recv_exact, sync_fail
from appmem.twins.device import TwinDevice

SYNC_CHUNK = 64 * 1024


def serve_sync(sock: socket.socket, device: TwinDevice, hangs: Callable[[], bool]) -> None:
    """Answer sync requests (STAT, LIST, RECV, SEND) until QUIT or the client closes; raise `Hang`
    when `hangs()` says the device went unresponsive."""
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return
        command, length = header[:4], struct.unpack("<I", header[4:])[0]
        if command == b"QUIT":
            return
        raw_path = recv_exact(sock, length)
        if raw_path is None:
            return
        path = raw_path.decode("utf-8", errors="replace")
        if hangs():
            raise Hang
        if command == b"STAT":
            with device.lock:
                st = device.files.stat(path)
            sock.sendall(b"STAT" + (struct.pack("<III", st.mode, st.size, st.mtime) if st else bytes(12)))
        elif command == b"LIST":
            with device.lock:
                entries = device.files.listdir(path) or {}
            out = bytearray()
            for name, st in entries.items():
                encoded = name.encode("utf-8")
                out += b"DENT" + struct.pack("<IIII", st.mode, st.size, st.mtime, len(encoded)) + encoded
            sock.sendall(bytes(out) + b"DONE" + bytes(16))
        elif command == b"RECV":
            with device.lock:
                data = device.files.read(path)
            if data is None:
                sock.sendall(sync_fail("No such file or directory"))
                return
            out = bytearray()
            for start in range(0, len(data), SYNC_CHUNK):
                chunk = data[start:start + SYNC_CHUNK]
                out += b"DATA" + struct.pack("<I", len(chunk)) + chunk
            sock.sendall(bytes(out) + b"DONE" + bytes(4))
        elif command == b"SEND":
            target, _, mode = path.rpartition(",")
            received = _receive_file(sock)
            if received is None:
                return
            data, mtime = received
            with device.lock:
                device.files.write(target or path, data, int(mode) if mode.isdigit() else 0o644, mtime)
            sock.sendall(b"OKAY" + bytes(4))
        else:
            sock.sendall(sync_fail(f"unknown sync command {command!r}"))
            return


def _receive_file(sock: socket.socket) -> tuple[bytes, int] | None:
    """A SEND's DATA chunks up to its DONE: the file and its mtime; None when the client stopped."""
    data = bytearray()
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return None
        kind, value = header[:4], struct.unpack("<I", header[4:])[0]
        if kind == b"DONE":
            return bytes(data), value
        if kind != b"DATA":
            sock.sendall(sync_fail(f"expected DATA or DONE, got {kind!r}"))
            return None
        chunk = recv_exact(sock, value)
        if chunk is None:
            return None
        data += chunk
