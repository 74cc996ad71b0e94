"""What the suite's small OpenAI-compatible servers share (tests/semantic/test_llm.py, tests/api/test_crowd.py):
serving a handler on a free port, and writing a JSON reply at once or as a trickle."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRICKLE = 40  # leading spaces sent one every 0.25 s (10 s in all) before the body: still valid JSON


def reply_json(handler: BaseHTTPRequestHandler, data: bytes, trickle: bool = False) -> None:
    """A 200 with `data`; `trickle`: a server that holds the call open, each read quick."""
    pad = TRICKLE if trickle else 0
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(pad + len(data)))
    handler.end_headers()
    try:
        for _ in range(pad):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.25)
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):  # the client gave up: what a deadline does
        pass


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    """The handler on a free local port, in a daemon thread; (server, its /v1 base URL)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
