"""The HTTP protocol `appmem serve` runs: uvicorn's own (httptools, else h11), with one change.

A request the HTTP parser cannot read (a control character in a header, a method no
HTTP defines, a path of raw non-ASCII bytes, two Content-Lengths, a bad chunk) never
reaches the app: uvicorn answers it with a 400 of its own, "Invalid HTTP request
received." as text/plain. Here that 400 is JSON like every other refusal of the API
(`{"error": "bad_request", "detail": ...}`), so a client reads every 4xx the one way.
The API has no WebSocket route, so uvicorn runs without WebSockets (`ws="none"`): an
`Upgrade: websocket` request is answered as the plain HTTP request it also is, where
uvicorn's WebSocket side refused it with an empty 403. Everything else is uvicorn's.
Pass `**SERVER_OPTIONS` to `uvicorn.Config` (strings, so the worker processes of
`serve --workers N` import the protocol themselves).
"""
from __future__ import annotations

import json

from uvicorn.protocols.http.auto import AutoHTTPProtocol

SERVER_OPTIONS = {"http": "appmem.api.protocol:JsonErrorsProtocol", "ws": "none"}
MALFORMED = json.dumps({"error": "bad_request", "detail": "malformed HTTP request: its request line, a header or "
                                                          "its chunked body could not be parsed"}).encode()


class JsonErrorsProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]  (a class chosen at import)
    def send_400_response(self, msg: str) -> None:
        """uvicorn's 400 for an unparseable request, as JSON; the connection closes, as uvicorn's does (the
        parser cannot tell where the next request would start)."""
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        for name, value in self.server_state.default_headers:  # server, date
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-type: application/json\r\n", b"content-length: %d\r\n" % len(MALFORMED),
                 b"connection: close\r\n\r\n", MALFORMED]
        self.transport.write(b"".join(head))
        self.transport.close()

    def _unsupported_upgrade_warning(self) -> None:
        """Silent: an upgrade request is answered as plain HTTP on purpose (no WebSocket route), and uvicorn's
        two warnings per request advise installing a WebSocket library, which would not help."""
