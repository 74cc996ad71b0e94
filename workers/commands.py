"""CLI: `appmem crawl` (a fleet crawl over twins or a real adb server), `appmem worker`, `appmem devices`."""
from __future__ import annotations

import argparse
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from appmem.arguments import count, log_level, names, port, seconds
from appmem.errors import InvalidInput
from appmem.output import emit
from appmem.settings import Settings
from appmem.workers.policies import POLICIES

ADB_LIST_S = 10.0  # an adb server that does not answer the device listing within this is an error


def register(sub: argparse._SubParsersAction) -> None:
    crawl = sub.add_parser("crawl", help="explore apps on a fleet of devices with Celery workers")
    src = crawl.add_argument_group("devices")
    src.add_argument("--twins", nargs="+", type=Path, metavar="DIR", help="DroidBot folders served as app twins")
    src.add_argument("--adb-host", help="a real adb server instead of twins")
    src.add_argument("--adb-port", type=port, default=5037)
    src.add_argument("--apps", nargs="+", metavar="PKG", help="packages to explore (default: every twin)")
    crawl.add_argument("--devices", type=count, default=1, metavar="N", help="devices to use (default 1)")
    crawl.add_argument("--budget", type=count, default=500, metavar="ACTIONS", help="actions per app (default 500)")
    crawl.add_argument("--seconds", type=seconds, default=900.0, help="time budget per job (default 900)")
    crawl.add_argument("--policy", choices=POLICIES, default="frontier")
    crawl.add_argument("--workers", type=count, metavar="W", help="Celery worker processes (default: --devices)")
    crawl.add_argument("--max-job-actions", type=count, default=500,
                       help="split an app's budget into jobs of at most this many actions (default 500)")
    crawl.add_argument("--chunk-steps", type=count, default=50, help="steps per streamed trace chunk (default 50)")
    crawl.add_argument("--queue", default="explore", help="Celery queue of these devices (default explore)")
    crawl.add_argument("--run-id", help="resume a crawl: its jobs continue where their traces end")
    crawl.add_argument("--timeout", type=seconds, default=3600.0, help="give up after this many seconds")
    crawl.add_argument("--json", action="store_true")
    crawl.set_defaults(handler=run_crawl)

    worker = sub.add_parser("worker", help="run a long-lived Celery exploration worker for a cluster")
    # checked here, not by Celery: its click errors would come out as a traceback
    worker.add_argument("--queues", type=names, default="explore", help="comma-separated queues (default explore)")
    worker.add_argument("--concurrency", type=count, default=1)
    worker.add_argument("--loglevel", type=log_level, default="INFO", help="DEBUG, INFO (default), WARNING, ERROR "
                        "or CRITICAL")
    worker.set_defaults(handler=run_worker)

    devices = sub.add_parser("devices", help="register the devices of an adb server in the pool, or list the pool")
    devices.add_argument("--adb-host")
    devices.add_argument("--adb-port", type=port, default=5037)
    devices.add_argument("--queue", default="explore")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(handler=run_devices)


def run_worker(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.workers.celery_app import app

    app.worker_main(["worker", "-Q", args.queues, "-c", str(args.concurrency), "--pool", "prefork",
                     "-l", args.loglevel, "--without-gossip", "--without-mingle"])
    return 0


def run_devices(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.device.driver import AdbServer

    from appmem.stack import Stack
    from appmem.workers.devices import DevicePool, DeviceRecord, open_redis

    r = open_redis(Stack(settings).redis_url())
    try:
        pool = DevicePool(r)
        if args.adb_host:
            for serial in AdbServer(args.adb_host, args.adb_port, ADB_LIST_S).serials():
                pool.register(DeviceRecord(serial, args.adb_host, args.adb_port, args.queue))
        status = pool.status()
    finally:
        r.close()
    emit(args, status, lambda s: "\n".join(f"{d}: lease={v['lease'] or '-'} quarantine={v['quarantine'] or '-'}"
                                           for d, v in s.items()) or "no devices registered")
    return 0


@dataclass
class CrawlDevices:
    """Where a crawl's devices are: their adb server, serials, the apps to explore and, for twins, the states
    their recordings hold (the coverage baseline)."""
    host: str
    port: int
    serials: list[str]
    packages: list[str]
    recorded: dict[str, int] | None = None


@contextmanager
def crawl_devices(args: argparse.Namespace) -> Iterator[CrawlDevices]:
    """The devices `--twins DIR...` serves (a twin adb server, stopped at the end) or `--adb-host` lists."""
    if args.twins:
        from appmem.twins.adb_server import TwinServer
        from appmem.twins.commands import twin_fleet
        from appmem.workers.crawl import recorded_states

        fleet = twin_fleet(args.twins, args.devices, args.twin_profile, args.twin_version, args.twin_seed,
                           args.twin_replay)
        server = TwinServer(fleet)
        try:
            yield CrawlDevices("127.0.0.1", server.start(), list(fleet),
                               args.apps or list(next(iter(fleet.values())).apps),
                               dict(recorded_states(folder) for folder in args.twins))
        finally:
            server.stop()
        return
    from appmem.device.driver import AdbServer

    if not args.apps:
        raise InvalidInput("--apps", "PKG... is required with --adb-host")
    yield CrawlDevices(args.adb_host, args.adb_port, AdbServer(args.adb_host, args.adb_port, ADB_LIST_S).serials()[
        :args.devices], args.apps)


@contextmanager
def leased_to_crawl(r, devices: CrawlDevices, queue: str) -> Iterator[None]:
    """The devices registered in the device pool for the crawl's queue, and taken out again at the end."""
    from appmem.workers.devices import DevicePool, DeviceRecord

    pool, registered = DevicePool(r), []
    try:
        for serial in devices.serials:
            registered.append(DeviceRecord(serial, devices.host, devices.port, queue))
            pool.register(registered[-1])
        yield
    finally:
        for device in registered:
            pool.unregister(device.id)


def crawl_jobs(settings: Settings, args: argparse.Namespace, r, store, devices: CrawlDevices) -> dict:
    """Plan the crawl's jobs, run them on worker processes started for it, and summarise what they found."""
    from appmem.workers.celery_app import create_app
    from appmem.workers.crawl import WorkerProcesses, enqueue, plan_jobs, progress_line, summarize, wait_jobs

    started = time.monotonic()
    run_id = args.run_id or uuid.uuid4().hex[:12]
    specs = plan_jobs(run_id, devices.packages, args.policy, args.budget, args.max_job_actions, queue=args.queue,
                      max_seconds=args.seconds, chunk_steps=args.chunk_steps)
    workers = WorkerProcesses(args.workers or args.devices, [args.queue], settings.run_dir).start()
    try:
        print(f"crawl {run_id}: {len(specs)} jobs for {len(devices.packages)} apps on {len(devices.serials)} devices, "
              f"{workers.count} workers (logs in {settings.run_dir})", file=sys.stderr)
        celery = create_app(settings)
        enqueue(celery, r, specs)
        records = wait_jobs(celery, r, run_id, args.timeout, progress_line)
        print(file=sys.stderr)
    finally:
        workers.stop()
    summary = summarize(store, records, devices.recorded, time.monotonic() - started)
    summary.update(run_id=run_id, policy=args.policy, devices=len(devices.serials), workers=workers.count,
                   budget=args.budget)
    return summary


def run_crawl(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.stack import Stack
    from appmem.workers.devices import open_redis

    if bool(args.twins) == bool(args.adb_host):
        print("appmem: give either --twins DIR... or --adb-host", file=sys.stderr)
        return 2
    stack = Stack(settings)
    stack.up()
    store = open_graph(settings)
    r = open_redis(stack.redis_url())
    try:
        store.ensure_schema()
        with crawl_devices(args) as devices, leased_to_crawl(r, devices, args.queue):
            summary = crawl_jobs(settings, args, r, store, devices)
    finally:
        r.close()
        store.driver.close()
    emit(args, summary, format_summary)
    return 1 if summary["totals"]["failed_jobs"] else 0


def format_summary(summary: dict) -> str:
    lines = [f"{'app':42} {'states':>7} {'recorded':>9} {'coverage':>9} {'actions':>8} {'wall_s':>8}"]
    for package, a in summary["apps"].items():
        cov = "-" if a["coverage"] is None else f"{a['coverage']:.0%}"
        lines.append(f"{package[:42]:42} {a['states_discovered']:>7} {a['recorded_states'] or '-':>9} {cov:>9} "
                     f"{a['actions']:>8} {a['wall_s'] or '-':>8}")
    t = summary["totals"]
    lines.append(f"total: {t['actions']} actions, {t['states_discovered']} states in {t['wall_s']}s "
                 f"({t['actions_per_s']} actions/s); duplicates: {t['duplicate_nodes']} nodes, "
                 f"{t['duplicate_relationships']} relationships; failed jobs: {t['failed_jobs']}")
    return "\n".join(lines)
