"""Request limits that apply before any route runs: the body size (413) and per-request metrics.

A pure ASGI middleware: a declared Content-Length over the limit is refused at
once; any other body is read (up to the limit, then refused) before the route
sees it. Metrics label requests by route template (never by path: ids would
explode the label set) and record no request content. Every answer names the
worker process that gave it (`X-Appmem-Worker`: its pid), so that a client of
`appmem serve --workers N` can tell the workers apart.
"""
from __future__ import annotations

import json
import os
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from appmem.api.metrics import Metrics


def _json(status: int, payload: dict, headers: list[tuple[bytes, bytes]] | None = None):
    body = json.dumps(payload).encode()

    async def respond(send: Send) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                *(headers or [])]})
        await send({"type": "http.response.body", "body": body})
    return respond


class LimitsMiddleware:
    def __init__(self, app: ASGIApp, max_body: int, metrics: Metrics):
        self.app = app
        self.max_body = max_body
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500}
        too_large = _json(413, {"error": "payload_too_large",
                                "detail": f"request body over {self.max_body} bytes"})
        headers = dict(scope.get("headers") or [])
        try:
            declared = int(headers.get(b"content-length", b"0") or 0)
        except ValueError:
            declared = 0
        if declared > self.max_body:
            self._observe(scope, 413, started)
            await too_large(send)
            return
        if scope["method"] in ("POST", "PUT", "PATCH"):
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.max_body:
                    self._observe(scope, 413, started)
                    await too_large(send)
                    return
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": bytes(body), "more_body": False}
                return await receive()
        else:
            replay = receive

        async def tracked_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (b"x-appmem-worker", str(os.getpid()).encode())]}
            await send(message)

        try:
            await self.app(scope, replay, tracked_send)
        finally:
            self._observe(scope, status["code"], started)

    def _observe(self, scope: Scope, status: int, started: float) -> None:
        route = scope.get("route")
        name = getattr(route, "path", None) or "unmatched"
        self.metrics.requests.labels(scope["method"], name, str(status)).inc()
        self.metrics.latency.labels(name).observe(time.perf_counter() - started)
        if status >= 400:
            self.metrics.errors.labels("server" if status >= 500 else str(status)).inc()
