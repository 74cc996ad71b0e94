"""Running one exploration job: own the job, lease a device, explore, release.

The Celery task (workers/tasks.py) calls `run_job` with the worker process's
clients. The order of things:
1. A job already done (a redelivered or duplicated message) returns its result.
2. The job lease (`job:{id}:lease`) makes one execution the owner. A second
   delivery waits up to 1.5 lease TTLs for it (the previous owner may have just
   died: its lease expires within one TTL); a lease still renewed after that
   belongs to a live owner, and this delivery ends as a duplicate.
3. A device of the job's queue is leased (SET NX + TTL) and probed (`echo`);
   one that does not answer is quarantined and the next one is tried, for up
   to `device_wait_s`.
4. A heartbeat thread renews both leases while the device answers. A device
   error quarantines the device and raises LeaseError (a TransientError): the
   task is retried, and the retry resumes the trace on another device.
5. A lease lost to another execution ends this one quietly ("superseded").

`reap_orphans` re-enqueues running jobs whose owner's lease expired (a whole
worker killed, its message unacknowledged until the broker's visibility
timeout): the crawl driver calls it while it waits.
"""
from __future__ import annotations

import logging
import os
import socket
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import redis

from appmem.errors import DeviceError, LeaseError
from appmem.graph.times import now_iso
from appmem.graph.store import GraphStore
from appmem.workers.devices import DevicePool, Heartbeat, JobBoard, Lease, acquire, key
from appmem.device.driver import AdbServer, DeviceDriver
from appmem.workers.explorer import Explorer
from appmem.workers.jobspec import JobSpec
from appmem.workers.knowledge import FleetKnowledge
from appmem.workers.layers import LayerEmbedder
from appmem.workers.sinks import GraphChunkSink
from appmem.workers.policies import make_policy

log = logging.getLogger(__name__)

QUARANTINE_TTLS = 10  # a device that stopped answering sits out this many lease TTLs


@dataclass
class WorkerClients:
    """The clients of one worker process, created at its start (workers/celery_app.py)."""

    store: GraphStore
    r: redis.Redis
    risky_words: tuple[str, ...]
    holder: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    _adb: dict[tuple[str, int, float], AdbServer] = field(default_factory=dict)
    # after a tenant's key's contribution is stored: prepare(tenant, package) embeds its layer (workers/layers.py)
    prepare: LayerEmbedder | None = None

    def adb(self, host: str, port: int, timeout_s: float) -> AdbServer:
        slot = (host, port, timeout_s)
        if slot not in self._adb:
            self._adb[slot] = AdbServer(host, port, timeout_s)
        return self._adb[slot]


def wait_for(attempt: Callable[[], Lease | None], seconds: float, poll_s: float = 0.25) -> Lease | None:
    deadline = time.monotonic() + seconds
    while True:
        got = attempt()
        if got is not None or time.monotonic() >= deadline:
            return got
        time.sleep(poll_s)


def port_open(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
        return True
    except OSError:
        return False


def lease_device(clients: WorkerClients, spec: JobSpec) -> tuple[DeviceDriver, Lease]:
    pool = DevicePool(clients.r)
    deadline = time.monotonic() + spec.device_wait_s
    start = zlib.crc32(spec.job_id.encode())
    while True:
        got = pool.lease(f"{clients.holder}/{spec.job_id}", spec.lease_ttl_s, spec.queue, start)
        if got is not None:
            device, lease = got
            if not port_open(device.adb_host, device.adb_port):  # adbutils would spawn a local adb server
                pool.quarantine(device.id, QUARANTINE_TTLS * spec.lease_ttl_s, "adb server port closed")
                lease.release()
                continue
            driver = DeviceDriver(clients.adb(device.adb_host, device.adb_port, spec.adb_timeout_s).device(device.serial),
                                  device.id, spec.adb_timeout_s)
            try:
                driver.ping()
                return driver, lease
            except DeviceError as exc:
                pool.quarantine(device.id, QUARANTINE_TTLS * spec.lease_ttl_s, str(exc))
                lease.release()
                continue
        if time.monotonic() >= deadline:
            raise LeaseError(f"no free device in queue {spec.queue!r} after {spec.device_wait_s:.0f}s "
                             f"(registered: {len(pool.devices(spec.queue))})")
        time.sleep(0.5)


def run_job(clients: WorkerClients, spec: JobSpec) -> dict:
    board = JobBoard(clients.r)
    record = board.get(spec.job_id)
    if record.get("status") == "done":
        return {"status": "done", **record["result"]}
    lease_name = board.job_lease_name(spec.job_id)
    job_lease = wait_for(lambda: acquire(clients.r, lease_name, spec.lease_ttl_s, clients.holder),
                         1.5 * spec.lease_ttl_s)
    if job_lease is None:
        log.info("job %s is owned by a live execution; this delivery is a duplicate", spec.job_id)
        return {"status": "duplicate", "job_id": spec.job_id}
    try:
        record = board.get(spec.job_id)
        if record.get("status") == "done":  # finished while we waited for its lease
            return {"status": "done", **record["result"]}
        return _explore(clients, spec, board, job_lease, float(record.get("seconds") or 0.0))
    except LeaseError as exc:
        owner = clients.r.get(lease_name)
        if owner is not None and owner != job_lease.token:
            log.warning("job %s: superseded by %s (%s)", spec.job_id, owner, exc)
            return {"status": "superseded", "job_id": spec.job_id}
        board.update(spec.job_id, status="queued", error=str(exc))
        raise
    finally:
        job_lease.release()


def _explore(clients: WorkerClients, spec: JobSpec, board: JobBoard, job_lease: Lease, seconds_spent: float) -> dict:
    driver, device_lease = lease_device(clients, spec)
    pool = DevicePool(clients.r)
    board.start(spec.job_id, driver.name, clients.holder)
    started = time.monotonic()
    heartbeat = Heartbeat(
        [job_lease, device_lease], spec.lease_ttl_s / 3,
        fresh=lambda: time.monotonic() - driver.touched < spec.lease_ttl_s,
        on_stall=lambda: pool.quarantine(driver.name, QUARANTINE_TTLS * spec.lease_ttl_s,
                                         "no answer within a lease TTL"),
    ).start()
    knowledge = FleetKnowledge(clients.store, clients.r, spec.run_id, spec.run_started or now_iso())

    def progress(chunk: int, steps: int) -> None:
        board.update(spec.job_id, actions=steps, chunks=chunk + 1,
                     seconds=round(seconds_spent + time.monotonic() - started, 3))

    sink = GraphChunkSink(clients.store, clients.r, job_lease, lock_wait_s=spec.lock_wait_s, on_written=progress)
    explorer = Explorer(driver, spec, make_policy(spec.policy, spec.seed, knowledge), sink, clients.risky_words,
                        alive=heartbeat.check, expected=knowledge.expected)
    try:
        result = explorer.run(seconds_spent)
    except DeviceError as exc:
        pool.quarantine(driver.name, QUARANTINE_TTLS * spec.lease_ttl_s, str(exc))
        raise LeaseError(f"{exc}; job {spec.job_id} moves to another device") from exc
    finally:
        heartbeat.stop()
        device_lease.release()
    out = {"status": "done", **result.as_dict()}
    board.finish(spec.job_id, out)
    return out


def reap_orphans(r: redis.Redis, run_id: str, requeue: Callable[[dict], None], max_requeues: int = 5) -> list[str]:
    """Re-enqueue the run's running jobs whose owner lease expired; fail those requeued too often."""
    board = JobBoard(r)
    out = []
    for job_id in board.orphans(run_id):
        record = board.get(job_id)
        if record["requeues"] >= max_requeues:
            board.fail(job_id, f"owner lost {record['requeues']} times (last device {record.get('device')})")
            continue
        log.warning("job %s lost its owner (device %s); re-enqueued", job_id, record.get("device"))
        r.hincrby(key("job", job_id), "requeues", 1)
        board.update(job_id, status="queued")
        requeue(record["spec"])
        out.append(job_id)
    return out
