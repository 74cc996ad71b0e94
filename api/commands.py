"""CLI: `appmem serve`, `appmem keys create|list|revoke|purge`, `appmem tenants list|show|share|purge`,
`appmem contributions [requeue]`, `appmem mcp`."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from appmem.arguments import at_least, count, port
from appmem.output import emit
from appmem.errors import ConfigError
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser("serve", help="run the HTTP API (OpenAPI docs at /docs) with the MCP server at /mcp")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port, default=8750)
    serve.add_argument("--workers", type=count, default=None,
                       help="worker processes planning from the same memory (default: APPMEM_WORKERS, else one "
                            "per core; several read the vectors' read-only snapshots, or a Qdrant server)")
    serve.add_argument("--no-preload", action="store_true",
                       help="load each app on its first request instead of before /healthz says ready "
                            "(APPMEM_PRELOAD=0)")
    serve.set_defaults(handler=run_serve)

    keys = sub.add_parser("keys", help="API keys (stored hashed in Redis)")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="a new key; the key itself is printed only this once")
    create.add_argument("--name", required=True)
    create.add_argument("--scopes", default="plan", help="comma-separated: plan, contribute, correct, admin, metrics")
    create.add_argument("--rate-limit", type=at_least(0), default=0,
                        help="requests per second (default: APPMEM_RATE_LIMIT, 50)")
    create.add_argument("--tenant", default="", help="the tenant the key belongs to: what it contributes is that "
                        "tenant's private layer, and it reads that layer over the shared memory (default: none, "
                        "the public crowd)")
    create.add_argument("--json", action="store_true")
    create.set_defaults(handler=run_keys_create)
    listing = actions.add_parser("list", help="keys (ids, names, scopes; never the keys)")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=run_keys_list)
    revoke = actions.add_parser("revoke", help="revoke a key at once on every API replica")
    revoke.add_argument("id")
    revoke.add_argument("--json", action="store_true")
    revoke.set_defaults(handler=run_keys_revoke)
    purge = actions.add_parser("purge", help="remove every observation a key contributed, then revoke it")
    purge.add_argument("name", help="the key's name (or its id)")
    purge.add_argument("--json", action="store_true")
    purge.set_defaults(handler=run_keys_purge)

    register_tenants(sub)
    register_contributions(sub)

    mcp = sub.add_parser("mcp", help="the MCP server over stdio: local stores, or a proxy to an API server")
    mcp.add_argument("--server", help="API base URL (default: answer from the local stores)")
    mcp.add_argument("--key", help="API key for --server (or APPMEM_KEY)")
    mcp.set_defaults(handler=run_mcp)


def register_tenants(sub: argparse._SubParsersAction) -> None:
    tenants = sub.add_parser("tenants", help="tenants: private layers over the shared memory (their keys: "
                                             "appmem keys create --tenant NAME)")
    actions = tenants.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="tenants, their keys and what they shared")
    listing.set_defaults(handler=run_tenants_list)
    show = actions.add_parser("show", help="one tenant: its keys, what it shared, its layer counted")
    share = actions.add_parser("share", help="offer the tenant's observations of public apps to the crowd, as one "
                                             "contributor under the public quorum (a purge withdraws them)")
    share.add_argument("--app", default=None, help="only this package (default: every public app it observed)")
    purge = actions.add_parser("purge", help="remove everything of the tenant: its layer, vectors, parked bodies, "
                                             "keys and what it shared")
    show.set_defaults(handler=run_tenants_show)
    share.set_defaults(handler=run_tenants_share)
    purge.set_defaults(handler=run_tenants_purge)
    for action in (listing, show, share, purge):
        if action is not listing:
            action.add_argument("tenant")
        action.add_argument("--json", action="store_true")


def register_contributions(sub: argparse._SubParsersAction) -> None:
    from appmem.contract.contributions import STATUSES

    contributions = sub.add_parser("contributions", help="contributions waiting, held (dead letters), done or failed; "
                                                         "`requeue` queues dead letters again")
    contributions.add_argument("--status", choices=(*STATUSES, "all"), default="dead",
                               help="which to list (default: dead, the ones held with their bodies)")
    contributions.add_argument("--json", action="store_true")
    contributions.set_defaults(handler=run_contributions)
    actions = contributions.add_subparsers(dest="action")
    requeue = actions.add_parser("requeue", help="queue dead letters again: those named, or --all")
    requeue.add_argument("ids", nargs="*", metavar="ID")
    requeue.add_argument("--all", action="store_true", help="every dead letter")
    requeue.add_argument("--json", action="store_true")
    requeue.set_defaults(handler=run_contributions_requeue)


def run_contributions(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.ingest.backlog import listing

    rows = listing(_keystore(settings).r, None if args.status == "all" else args.status)
    none = "no contributions" if args.status == "all" else f"no {args.status} contributions"
    emit(args, rows, lambda rs: "\n".join(
        f"{r['trace_id']}  {r['status']:7}  {r['kind']:10}  key={r['contributor']}  age={_age(r['age_s'])}  "
        f"deliveries={r['deliveries']} retries={r['retries']}" + (f"  {r['reason']}" if r["reason"] else "")
        for r in rs) or none)
    return 0


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.0f}s"


def run_contributions_requeue(settings: Settings, args: argparse.Namespace) -> int:
    from celery import Celery

    from appmem.errors import InvalidInput
    from appmem.ingest.backlog import requeue, sender
    from appmem.stack import Stack

    if bool(args.ids) == args.all:
        raise InvalidInput("requeue", "name the dead letters to queue again (their ids), or --all")
    url = Stack(settings).redis_url()
    celery = Celery("appmem-cli", broker=url, backend=url)
    celery.conf.update(task_serializer="json", accept_content=["json"])
    try:
        result = requeue(_keystore(settings).r, sender(celery), None if args.all else args.ids)
    finally:
        celery.close()
    emit(args, result, lambda r: f"{len(r['requeued'])} queued again"
         + (f"; not dead letters: {', '.join(r['not_dead'])}" if r["not_dead"] else ""))
    return 1 if result["not_dead"] else 0


def _keystore(settings: Settings):
    from appmem.keys import KeyStore
    from appmem.stack import Stack
    from appmem.workers.devices import open_redis

    return KeyStore(open_redis(Stack(settings).redis_url()))


def run_keys_create(settings: Settings, args: argparse.Namespace) -> int:
    record, secret = _keystore(settings).create(args.name, args.scopes, args.rate_limit, args.tenant)
    emit(args, {"id": record.id, "key": secret, "scopes": list(record.scopes), "rate_limit": record.rate_limit,
                "tenant": record.tenant or None},
         lambda p: f"key {p['id']} ({','.join(p['scopes'])}{', tenant ' + p['tenant'] if p['tenant'] else ''}): "
                   f"{p['key']}\n(shown only this once)")
    return 0


def run_keys_list(settings: Settings, args: argparse.Namespace) -> int:
    emit(args, [k.as_dict() for k in _keystore(settings).list()], lambda ks: "\n".join(
        f"{k['id']}  {k['name']}  {','.join(k['scopes'])}  rate={k['rate_limit'] or 'default'}"
        + (f"  tenant={k['tenant']}" if k["tenant"] else "") + ("  REVOKED" if k["revoked"] else "") for k in ks)
        or "no keys")
    return 0


def run_keys_purge(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.api.contrib import purge

    keys = _keystore(settings)
    key = keys.find(args.name)
    store = open_graph(settings)
    try:
        report = purge(settings, store, keys.r, key.id)
    finally:
        store.driver.close()
    emit(args, report, lambda p: f"key {p['key']['id']} ({p['key']['name']}) purged and revoked: "
         f"{p['traces']} traces, {p['states']} states, {p['votes']} votes, {p['edges']} edges, {p['screens']} "
         f"screens, {p['elements']} elements, {p['tasks']} tasks, {p['contributions']} parked contributions; "
         f"vectors {p['vectors']}")
    return 0


def run_tenants_list(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.ingest.tenants import listing

    emit(args, listing(_keystore(settings)), lambda ts: "\n".join(
        f"{t['tenant']}  keys={t['keys']} (live {t['live_keys']})  shared={','.join(t['shared']) or '-'}"
        for t in ts) or "no tenants")
    return 0


def _with_graph(settings: Settings, work):
    from appmem.graph.clients import open_graph

    keys = _keystore(settings)
    store = open_graph(settings)
    try:
        return work(store, keys)
    finally:
        store.driver.close()


def run_tenants_show(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.ingest.tenants import describe

    report = _with_graph(settings, lambda store, keys: describe(store, keys, args.tenant))
    emit(args, report, lambda p: f"tenant {p['tenant']}: {len(p['keys'])} keys, shared "
         f"{','.join(p['shared']) or 'nothing'}; layer: " + ", ".join(
             f"{v} {k}" for k, v in p["layer"].items() if k != "apps") + f"; apps {','.join(p['layer']['apps'])}")
    return 0


def run_tenants_share(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.ingest.tenants import share

    report = _with_graph(settings, lambda store, keys: share(store, keys.r, args.tenant, args.app,
                                                             settings.trust_quorum))
    emit(args, report, lambda p: f"tenant {p['tenant']} shared {', '.join(p['apps']) or 'nothing'} as one "
         f"contributor ({p['voice']})")
    return 0


def run_tenants_purge(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.api.contrib import forget_tenant_cached, writable_vectors
    from appmem.ingest.purge import PurgeOptions
    from appmem.ingest.tenants import purge

    def work(store, keys):
        keys.tenant(args.tenant)  # an unknown tenant is an error before the vectors are opened
        with writable_vectors(settings) as vectors:
            report = purge(store, keys.r, args.tenant, settings.trust_quorum, vectors, PurgeOptions.of(settings))
        return {**report, **forget_tenant_cached(settings, args.tenant)}

    report = _with_graph(settings, work)
    emit(args, report, lambda p: f"tenant {p['tenant']} purged: {len(p['keys'])} keys, {p['traces']} traces, "
         f"{p['screens']} screens, {p['elements']} elements, {p['edges']} edges, {p['tasks']} tasks, "
         f"{p['contributions']} parked contributions; vectors {p['vectors']}")
    return 0


def run_keys_revoke(settings: Settings, args: argparse.Namespace) -> int:
    emit(args, _keystore(settings).revoke(args.id).as_dict(), lambda k: f"key {k['id']} revoked")
    return 0


def run_serve(settings: Settings, args: argparse.Namespace) -> int:
    import os

    import uvicorn

    from appmem.api.app import create_app
    from appmem.api.protocol import SERVER_OPTIONS
    from appmem.semantic.embedder import cores
    from appmem.semantic.snapshots import check_model

    if args.no_preload:
        os.environ["APPMEM_PRELOAD"] = "0"  # the worker processes read their settings from the environment
        settings = replace(settings, preload=False)
    if settings.workers < 0:  # --workers itself is at least 1 (appmem.arguments)
        raise ConfigError(f"APPMEM_WORKERS must be 0 (one per core) or more, got {settings.workers}")
    check_model(settings)  # a memory of another embedding model: one line here, not a traceback per worker
    workers = args.workers or settings.workers or cores()
    print(f"appmem API on http://{args.host}:{args.port} with {workers} worker{'s' if workers > 1 else ''} "
          "(docs: /docs, MCP: /mcp)", file=sys.stderr)
    if workers == 1:  # one process; like each of several, it reads the vectors read-only (api/app.py)
        uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning",
                    access_log=False, **SERVER_OPTIONS)
    else:
        from uvicorn.supervisors import Multiprocess

        config = uvicorn.Config("appmem.api.app:worker_app", factory=True, workers=workers, host=args.host, port=args.port,
                                log_level="warning", access_log=False, **SERVER_OPTIONS)
        Multiprocess(config, sockets=[listening_socket(args.host, args.port)]).run()
    return 0


def listening_socket(host: str, port: int):
    """The workers' shared listening socket, made with proto IPPROTO_TCP. uvicorn's own (`--workers N`) has
    proto 0, which its accepted connections inherit, so asyncio never sets TCP_NODELAY on them and each
    keep-alive answer after the first waits ≈ 40 ms for the client's delayed ACK (uvicorn issue #3149;
    measured here: a cached plan 44 ms with 2 workers, 1.9 ms with 1)."""
    import socket

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def run_mcp(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.api.mcp_server import build_mcp
    from appmem.agent.service import open_backend

    backend = open_backend(settings, args.server, args.key)
    try:
        build_mcp(lambda: backend).run("stdio")
    finally:
        backend.close()
    return 0
