"""The API application: `create_app(settings)` builds the FastAPI app over clients opened once.

The API is transport only: every answer comes from the one front door,
`agent.service.Service` (graph store, vector store, embedder), shared with the
CLI and MCP. The process also holds a Redis client (keys, rate limits,
contribution status, the plan cache and the apps' generations, shared by every
worker process of `appmem serve --workers N`) and a Celery client (the ingest
queue). Tests inject an already open `Service`. At start the service preloads
every app's graph and index in the background (`APPMEM_PRELOAD=0` turns it
off); `/healthz` answers 503 `loading` until then. Errors: a client's mistake is
a 4xx with a JSON body naming it (422 names the field); a store that is down
(a TransientError, or the Redis client's connection errors) a 503 with
Retry-After; anything else is a 500 with an error id and no detail, logged
without request content.
"""
from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import kombu.exceptions
import redis
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from appmem.keys import KeyStore
from appmem.api.limits import LimitsMiddleware
from appmem.api.metrics import Metrics
from mcp.server.transport_security import TransportSecuritySettings
from appmem.agent.service import Service
from appmem.errors import AppmemError, ConfigError, Conflict, InvalidInput, NotFound, TransientError
from appmem.settings import Settings
from appmem.stack import Stack
from appmem.ingest.contributions import Contributions

log = logging.getLogger("appmem.api")
PRELOAD_STOP_S = 60.0  # at shutdown, how long to wait for the preload to finish the app it is loading
# Every request reads Redis (its key): with Redis down a request answers 503 within about a second
# (connection refused; ≈ 10 s when nothing answers at all), not after the workers' ≈ 20 s of retries.
REDIS_RETRIES = 2
REDIS_TIMEOUT_S = 3.0


@dataclass
class Services:
    settings: Settings
    service: Service
    redis: Any
    keys: KeyStore
    contributions: Contributions
    celery: Any
    metrics: Metrics
    ready: threading.Event
    preload_error: str = ""
    stopping: threading.Event = field(default_factory=threading.Event)

    def preload(self) -> None:
        """Every app's graph and index, loaded before `/healthz` says ready and then kept out of the garbage
        collector's full collections; stops early at shutdown."""
        try:
            self.service.preload(stop=self.stopping)
        except Exception as exc:  # the service still answers (loading on demand): health says why
            log.error("preload failed: %s", type(exc).__name__)
            self.preload_error = f"preload failed: {type(exc).__name__}"
        if not self.stopping.is_set():
            self.service.freeze()  # what stays loaded leaves the collector's full collections (Service.freeze)
        self.ready.set()


def open_services(settings: Settings, service: Service | None = None) -> Services:
    from celery import Celery

    from appmem.workers.devices import open_redis

    url = Stack(settings).redis_url()
    r = open_redis(url, REDIS_RETRIES, REDIS_TIMEOUT_S)
    celery = Celery("appmem-api", broker=url, backend=url)
    celery.conf.update(task_serializer="json", accept_content=["json"], broker_connection_retry_on_startup=True)
    service = service or Service.open(settings, read_only=True, threads=model_threads(settings))
    service.redis = r  # the shared plan cache, and the apps' generations that every writer bumps
    return Services(settings, service, r, KeyStore(r), Contributions(r), celery, Metrics(), threading.Event())


def model_threads(settings: Settings) -> int:
    """The ONNX threads of a serve worker: APPMEM_MODEL_THREADS, else one. A worker embeds one short task per
    new plan, and its concurrent requests already run their models side by side on the cores (each on its
    own request thread): a second intra-op thread for a task of ≈ 28 tokens cut its latency by ≈ 1 ms but cost
    ≈ 2 ms more CPU (10.0 against 7.8-8.2 ms, with the same vectors; 2 cores, 2026-11-27), so a loaded
    server answered fewer plans per core with it."""
    return settings.model_threads if settings.model_threads > 0 else 1


# An error's HTTP status comes from its class (appmem/errors.py): the nearest listed base decides; the
# one table for every route (a malformed body is a 422, as FastAPI's own validation answers), others 400.
STATUS_OF: dict[type[AppmemError], tuple[int, str]] = {
    InvalidInput: (422, "invalid_request"),
    NotFound: (404, "not_found"),
    Conflict: (409, "conflict"),
    TransientError: (503, "unavailable"),
    ConfigError: (503, "misconfigured"),
}
# What the API's own Redis and Celery clients raise when Redis is down or too slow (their retries spent):
# a TransientError's answer, on every route (keys, rate limits, contributions, the plan cache).
UNAVAILABLE_CLIENT_ERRORS = (redis.ConnectionError, redis.TimeoutError, kombu.exceptions.OperationalError)


UNREADABLE_BODY = "the body is not JSON text: it could not be decoded as UTF-8"


def _error(status: int, code: str, detail: Any, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)


def _fields(exc: RequestValidationError) -> list[dict[str, str]]:
    """Each problem with the field it is in; the offending input is not echoed."""
    return [{"field": ".".join(str(p) for p in e.get("loc", ())), "problem": e.get("msg", "")} for e in exc.errors()]


def install_errors(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, "invalid_request", _fields(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                 405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
                 422: "invalid_request", 429: "rate_limited"}
        # FastAPI's words for a JSON body it could not decode at all (not UTF-8, UTF-16 or UTF-32 text)
        detail = UNREADABLE_BODY if exc.detail == "There was an error parsing the body" else exc.detail
        return _error(exc.status_code, codes.get(exc.status_code, "error"), detail, exc.headers)

    def unavailable() -> JSONResponse:
        return _error(503, "unavailable", "a store is busy or unreachable; retry", {"Retry-After": "1"})

    @app.exception_handler(AppmemError)
    async def domain(_: Request, exc: AppmemError) -> JSONResponse:
        status, code = next((STATUS_OF[k] for k in type(exc).__mro__ if k in STATUS_OF), (400, "bad_request"))
        if isinstance(exc, TransientError):
            return unavailable()
        if isinstance(exc, InvalidInput):  # names the field, as a validation error does
            return _error(status, code, [{"field": exc.source, "problem": exc.problem}])
        return _error(status, code, str(exc))

    async def client_unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("%s on %s %s: answered 503", type(exc).__name__, request.method, request.url.path)
        return unavailable()

    for kind in UNAVAILABLE_CLIENT_ERRORS:
        app.add_exception_handler(kind, client_unavailable)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        error_id = secrets.token_hex(6)
        log.error("error %s on %s %s: %s", error_id, request.method, request.url.path, type(exc).__name__)
        return _error(500, "internal", f"internal error {error_id}")


def worker_app() -> FastAPI:
    """The app of one `appmem serve --workers N` worker process (uvicorn's factory): settings from the
    environment the parent set."""
    from appmem import tracing

    settings = Settings.from_env()
    tracing.configure(settings.tracing)
    return create_app(settings)


def create_app(settings: Settings, service: Service | None = None) -> FastAPI:
    from appmem.analyst.map import map_router
    from appmem.api.auth import require
    from appmem.api import contrib, routes, tenants
    from appmem.api.mcp_server import build_mcp

    services = open_services(settings, service)
    mcp = build_mcp(lambda: services.service.viewing(MCP_TENANT.get()))
    # Every MCP request carries an API key (mcp_guard), which a DNS-rebinding page cannot know;
    # the SDK's Host-header check would refuse the API's own public host name.
    mcp_app = mcp.streamable_http_app(streamable_http_path="/", stateless_http=True, json_response=True,
                                      transport_security=TransportSecuritySettings(
                                          enable_dns_rebinding_protection=False))

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        preload = threading.Thread(target=services.preload, name="appmem-preload", daemon=True)
        if settings.preload:
            preload.start()
        else:
            services.ready.set()
        async with mcp.session_manager.run():
            yield
        if preload.is_alive():  # it reads the service: let it stop before the service is closed
            services.stopping.set()
            await asyncio.to_thread(preload.join, PRELOAD_STOP_S)
        services.service.thaw()  # what the preload froze (Service.freeze) is collectable again
        if service is None:  # what the app opened, it closes; an injected service belongs to the caller
            services.service.close()
        services.redis.close()

    app = FastAPI(title="appmem", version="1", lifespan=lifespan,
                  description="A shared memory of mobile apps for LLM GUI agents: plans, locating, hints, "
                              "contributions. Every /v1 route needs `Authorization: Bearer KEY`.")
    app.state.services = services
    app.openapi = with_hoisted_defs(app.openapi)
    app.add_middleware(LimitsMiddleware, max_body=settings.max_body_bytes, metrics=services.metrics)
    install_errors(app)
    app.include_router(routes.router)
    app.include_router(contrib.router)
    app.include_router(tenants.router)
    app.include_router(map_router(lambda key: services.service.viewing(key.tenant).store, require("plan")))
    app.mount("/mcp", mcp_guard(mcp_app, services))

    @app.get("/healthz", tags=["ops"], summary="loading (503) until every app is preloaded, then ready; "
                                                "degraded (503) when a store does not answer")
    def healthz() -> JSONResponse:
        checks = _checks({"graph": services.service.store.ping, "redis": services.redis.ping,
                          "vectors": services.service.vectors.health}, settings.health_timeout_s)
        ok = all(v == "ok" for v in checks.values())
        status = "degraded" if not ok else "ready" if services.ready.is_set() else "loading"
        body = {"status": status, **checks, **({"preload": services.preload_error} if services.preload_error else {})}
        return JSONResponse(body, status_code=200 if status == "ready" else 503)

    # Contribution volumes and request counts are no one's business but the operator's: a key with the
    # `metrics` scope (or admin), which a Prometheus scrape sends as its bearer token (authorization:
    # credentials in the scrape config).
    @app.get("/metrics", tags=["ops"], summary="Prometheus metrics (a key with the metrics or admin scope)",
             response_class=PlainTextResponse, dependencies=[Depends(require("metrics"))])
    def metrics() -> Response:
        return Response(services.metrics.text(), media_type="text/plain; version=0.0.4")

    return app


def with_hoisted_defs(openapi: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """FastAPI's OpenAPI document with the `$defs` of hand-written body schemas (`openapi_extra`: POST /v1/traces
    takes a run trace or a tarball) copied to components/schemas, where their `$ref`s point: there alone, a
    `$ref` to a model no route names otherwise (RunStep) resolved to nothing, and clients and fuzzers that read
    the document skipped the steps of a run. Copied, not moved: the extra is the route's own dict (FastAPI
    puts it into the document as it is), which every app built in this process shares."""
    def hoisted() -> dict[str, Any]:
        schema = openapi()  # built once, then FastAPI's cached copy: copying again changes nothing
        components = schema.setdefault("components", {}).setdefault("schemas", {})

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                for name, sub in node.get("$defs", {}).items():
                    components.setdefault(name, sub)
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
        walk(schema.get("paths", {}))
        return schema
    return hoisted


def _checks(probes: dict[str, Callable[[], object]], timeout_s: float) -> dict[str, str]:
    """Each store's state, "ok" or "failing: why": the probes run side by side and are waited for at most
    `timeout_s` in all, so a store that hangs is reported as such, not waited for."""
    pool = ThreadPoolExecutor(len(probes), thread_name_prefix="appmem-health")
    futures = {name: pool.submit(probe) for name, probe in probes.items()}
    wait(futures.values(), timeout=timeout_s)
    states = {name: "ok" if f.done() and f.exception() is None else
              f"failing: {type(f.exception()).__name__}" if f.done() else f"failing: no answer within {timeout_s:g} s"
              for name, f in futures.items()}
    pool.shutdown(wait=False, cancel_futures=True)  # a hung probe's thread ends with its client's own timeout
    return states


# What the MCP SDK would answer otherwise. A GET opens its event stream for server-initiated messages, which
# the stateless endpoint never sends: the stream stayed open, idle, as long as the client kept it (the spec's
# answer for an endpoint without one is 405). A POST that is not JSON got a bare text/plain 400.
MCP_TENANT: contextvars.ContextVar[str] = contextvars.ContextVar("appmem_mcp_tenant", default="")
NO_STREAM = (405, "method_not_allowed", "this MCP endpoint has no event stream: POST JSON-RPC requests to it")
NOT_JSON = (415, "unsupported_media_type", "send MCP requests as application/json (JSON-RPC)")


def mcp_guard(inner, services: Services):
    """The MCP endpoint behind the same keys: a live key with the `plan` scope, within its rate; then only
    POSTs of JSON (and DELETE, which the SDK refuses itself) reach the SDK."""
    async def guarded(scope, receive, send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            auth = headers.get(b"authorization", b"").decode("latin-1")
            secret = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            key, retry = services.keys.check(secret, services.settings.rate_limit) if secret else (None, 0)
            ctype = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
            problem = (401, "unauthorized", "missing, unknown or revoked API key") if key is None else \
                (429, "rate_limited", "rate limit exceeded") if retry else \
                (403, "forbidden", "this key lacks the 'plan' scope") \
                if not {"plan", "admin"} & set(key.scopes) else \
                NO_STREAM if scope["method"] == "GET" else \
                NOT_JSON if scope["method"] == "POST" and ctype != "application/json" else None
            if problem:
                extra = {"Retry-After": "1"} if problem[0] == 429 else \
                    {"Allow": "POST"} if problem is NO_STREAM else None
                await _error(problem[0], problem[1], problem[2], extra)(scope, receive, send)
                return
            MCP_TENANT.set(key.tenant)  # the tools answer from the key's view (copied into the SDK's tasks)
        await inner(scope, receive, send)
    return guarded
