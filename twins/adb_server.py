"""An adb server on loopback that serves twin devices, so the real adb clients
(adbutils, the `adb` binary) drive them.

Protocol (a request is 4 hex digits of length + payload; answers are OKAY, or
FAIL + 4 hex digits of length + message):
- host services: `host:version` (41, the version adb 1.0.41 wants),
  `host:devices`, `host:devices-l`, `host:features`, `host:host-features`,
  `host:kill` (acknowledged; the server keeps running),
  `host:wait-for-*`, and the device selections `host:transport:SERIAL`,
  `host:transport-id:ID`, `host:transport-any|usb|local`,
  `host:tport:serial:SERIAL|any|usb|local` (OKAY + 8-byte transport id);
  device host services `host-serial:SERIAL:`, `host-transport-id:ID:`,
  `host-usb:`, `host-local:` + `get-state`, `get-serialno`, `get-devpath`,
  `features`, `list-forward`, `wait-for-*`.
- device services after a selection: `shell:CMD` and `exec:CMD` (raw output,
  stdout then stderr, then close), `shell,v2[,opts]:CMD` (packets: 1-byte id,
  LE u32 length, payload; 1 stdout, 2 stderr, 3 exit code), `sync:` with
  STAT, LIST, RECV, SEND and QUIT.
Port forwarding, `reverse:`, `framebuffer:` and interactive shells are
refused with FAIL.

Fault injection: `set_unresponsive(serial, True)` makes every new and ongoing
exchange with that device hang without an answer until the client gives up;
`reset(serial)` brings a device back to its launcher.

This module owns the server, the host services and the device selection; the
wire format is twins/adb_wire.py, the `sync:` service twins/adb_sync.py.
"""
from __future__ import annotations

import logging
import socket
import socketserver
import struct
import threading
from types import TracebackType

from appmem.errors import DeviceError
from appmem.twins.adb_sync import serve_sync
from appmem.twins.adb_wire import Hang, block, fail, read_request, send_packets, wait_for_close
from appmem.twins.device import TwinDevice
from appmem.twins.shell import execute

log = logging.getLogger(__name__)

ADB_SERVER_VERSION = 41
FEATURES = "shell_v2,fixed_push_mkdir,apex,fixed_push_symlink_timestamp"


class TwinServer:
    """Serves `devices` (serial → TwinDevice) on host:port (0 picks a free port).

    >>> server = TwinServer(build_fleet(folders, 4)); port = server.start()
    >>> adbutils.AdbClient("127.0.0.1", port).device("twin-0001").dump_hierarchy()
    >>> server.stop()
    """

    def __init__(self, devices: dict[str, TwinDevice], host: str = "127.0.0.1", port: int = 0):
        self.devices = devices
        self.host = host
        self.port = port
        self._transport_ids = {serial: i for i, serial in enumerate(devices, start=1)}
        self._unresponsive: set[str] = set()
        self._server: _ThreadingServer | None = None
        self._thread: threading.Thread | None = None
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    # ---- lifecycle ---------------------------------------------------------
    def start(self) -> int:
        """Bind and serve in a background thread; returns the bound port."""
        if self._server is not None:
            return self.port
        try:
            self._server = _ThreadingServer((self.host, self.port), _Handler, self)
        except OSError as exc:
            raise DeviceError(f"cannot serve twins on {self.host}:{self.port}: {exc}") from None
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"twin-adb-{self.port}", daemon=True)
        self._thread.start()
        log.info("twin adb server on %s:%d serving %d devices", self.host, self.port, len(self.devices))
        return self.port

    def stop(self) -> None:
        """Stop serving and drop every open connection (hanging ones included)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self._open_lock:
            for sock in list(self._open):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "TwinServer":
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # ---- fault injection ---------------------------------------------------
    def set_unresponsive(self, serial: str, unresponsive: bool = True) -> None:
        self._device(serial)
        if unresponsive:
            self._unresponsive.add(serial)
        else:
            self._unresponsive.discard(serial)

    def reset(self, serial: str) -> None:
        self._device(serial).reset()

    def _device(self, serial: str) -> TwinDevice:
        device = self.devices.get(serial)
        if device is None:
            raise DeviceError(f"no twin device {serial!r} on this server")
        return device

    # ---- one connection ----------------------------------------------------
    def _serve(self, sock: socket.socket) -> None:
        with self._open_lock:
            self._open.add(sock)
        try:
            device: TwinDevice | None = None
            while True:
                request = read_request(sock)
                if request is None:
                    return
                if device is None:
                    device = self._host(sock, request)
                    if device is None:
                        return
                else:
                    self._local(sock, device, request)
                    return
        except Hang:
            wait_for_close(sock)
        except (ConnectionError, OSError) as exc:
            log.debug("twin adb connection ended: %s", exc)
        finally:
            with self._open_lock:
                self._open.discard(sock)

    def _select(self, selector: str) -> TwinDevice | str:
        """A device by serial, 'id:N' or any|usb|local; an error message when none fits."""
        if selector in ("any", "usb", "local"):
            if not self.devices:
                return "no devices/emulators found"
            if len(self.devices) > 1:
                return "more than one device/emulator"
            device = next(iter(self.devices.values()))
        elif selector.startswith("id:"):
            by_id = {i: s for s, i in self._transport_ids.items()}
            serial = by_id.get(int(selector[3:])) if selector[3:].isdigit() else None
            if serial is None:
                return f"no device with transport id '{selector[3:]}'"
            device = self.devices[serial]
        elif selector in self.devices:
            device = self.devices[selector]
        else:
            return f"device '{selector}' not found"
        if device.serial in self._unresponsive:
            raise Hang
        return device

    def _host(self, sock: socket.socket, request: str) -> TwinDevice | None:
        """Answer a host request; returns the device when the connection switches to it."""
        if request == "host:version":
            sock.sendall(b"OKAY" + block(f"{ADB_SERVER_VERSION:04x}"))
        elif request in ("host:devices", "host:devices-l"):
            long = request.endswith("-l")
            lines = [f"{s}\tdevice" + (f" product:appmem_twin model:appmem_twin device:twin "
                                        f"transport_id:{self._transport_ids[s]}" if long else "")
                     for s in self.devices]
            sock.sendall(b"OKAY" + block("".join(line + "\n" for line in lines)))
        elif request in ("host:features", "host:host-features"):
            sock.sendall(b"OKAY" + block(FEATURES))
        elif request == "host:kill":
            log.info("host:kill acknowledged; the twin server keeps running until stop()")
            sock.sendall(b"OKAY")
        elif request.startswith(("host:transport:", "host:transport-id:", "host:tport:")) or request in (
                "host:transport-any", "host:transport-usb", "host:transport-local"):
            tport = request.startswith("host:tport:")
            if request.startswith("host:transport-id:"):
                selector = "id:" + request.split(":", 2)[2]
            elif request.startswith(("host:transport:", "host:tport:serial:")):
                selector = request.split(":", 3 if tport else 2)[-1]
            else:
                selector = request.rsplit(":", 1)[1].removeprefix("transport-")
            device = self._select(selector)
            if isinstance(device, str):
                sock.sendall(fail(device))
                return None
            reply = b"OKAY"
            if tport:
                reply += struct.pack("<Q", self._transport_ids[device.serial])
            sock.sendall(reply)
            return device
        elif request.startswith(("host-serial:", "host-transport-id:", "host-usb:", "host-local:")):
            kind, rest = request.split(":", 1)
            if kind == "host-serial":
                serial = next((s for s in self.devices if rest.startswith(s + ":")), rest.split(":", 1)[0])
                selector, command = serial, rest[len(serial) + 1:]
            elif kind == "host-transport-id":
                number, _, command = rest.partition(":")
                selector = "id:" + number
            else:
                selector, command = kind.removeprefix("host-"), rest
            device = self._select(selector)
            if isinstance(device, str):
                sock.sendall(fail(device))
            else:
                self._device_host(sock, device, command)
        elif request.startswith("host:wait-for-"):
            sock.sendall(b"OKAYOKAY")
        else:
            sock.sendall(fail(f"unknown host service '{request}'"))
        return None

    def _device_host(self, sock: socket.socket, device: TwinDevice, command: str) -> None:
        answers = {"get-state": "device", "get-serialno": device.serial, "get-devpath": f"twin:{device.serial}",
                   "features": FEATURES, "list-forward": ""}
        if command in answers:
            sock.sendall(b"OKAY" + block(answers[command]))
        elif command.startswith("wait-for-"):
            sock.sendall(b"OKAYOKAY")
        else:
            sock.sendall(fail(f"twin devices do not support '{command}'"))

    def _local(self, sock: socket.socket, device: TwinDevice, request: str) -> None:
        """A device service on a selected transport."""
        if device.serial in self._unresponsive:
            raise Hang
        service, _, argument = request.partition(":")
        name, *options = service.split(",")
        if name in ("shell", "exec") and not argument.strip():
            sock.sendall(fail("twin devices have no interactive shell: pass a command"))
        elif name == "shell" and "v2" in options:
            sock.sendall(b"OKAY")
            result = execute(device, argument)
            send_packets(sock, 1, result.stdout)
            send_packets(sock, 2, result.stderr)
            sock.sendall(b"\x03" + struct.pack("<I", 1) + bytes([result.exit_code & 0xFF]))
        elif name in ("shell", "exec"):
            sock.sendall(b"OKAY")
            result = execute(device, argument)
            sock.sendall(result.output)
        elif request == "sync:":
            sock.sendall(b"OKAY")
            serve_sync(sock, device, lambda: device.serial in self._unresponsive)
        else:
            sock.sendall(fail(f"twin devices do not support '{service}'"))


class _ThreadingServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(self, address: tuple[str, int], handler: type[socketserver.BaseRequestHandler],
                 twin: TwinServer):
        self.twin = twin
        super().__init__(address, handler)


class _Handler(socketserver.BaseRequestHandler):
    server: _ThreadingServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.twin._serve(sock)
