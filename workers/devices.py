"""The fleet's shared state in Redis: the device pool, leases, the job board, the graph write locks.

Keys (all under `appmem:`):
- `devices` (hash): device id → JSON `DeviceRecord` (adb host, port, serial, queue).
- `device:{id}:lease`: the token of the job using the device; expires after the
  lease TTL unless the holder's heartbeat renews it. One job per device: a lease
  is taken with SET NX. `device:{id}:quarantine`: a device that stopped
  answering is skipped until this key expires.
- `job:{id}` (hash): a job's spec, status (queued|running|done|failed),
  attempts, device, progress and result. `job:{id}:lease`: the token of the
  execution that owns the job (same TTL/heartbeat rule). `run:{id}:jobs` (set).
- `run:{id}:claimed:{screen}` (set): frontier claims, see workers/explorer.py.
- `lock:graph:{package}`: serialises graph writes touching a package (ArcadeDB
  MERGE on relationships is not unique under concurrent writers).

A lease is renewed only by its holder (compare-and-expire in Lua) and only
while the device answers; a holder that dies or hangs loses it within one TTL,
and the job is taken over by another execution (see workers/jobs.py).
Redis calls retry connection errors a bounded number of times, logged, so a
Redis restart of a few seconds does not fail a job.
"""
from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from appmem.errors import LeaseError, TransientError

log = logging.getLogger(__name__)

PREFIX = "appmem"
DEFAULT_QUEUE = "explore"
REDIS_RETRIES = 14  # ≈ 20 s of backoff capped at 2 s: a Redis restart, not an outage

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class LoggedRetry(Retry):
    """redis-py's bounded retry of connection errors, logging each failure."""

    def call_with_retry(self, do, fail, *args, **kwargs):
        def logged(error, *rest):
            log.warning("redis: %s; retrying", error)
            return fail(error, *rest)

        return super().call_with_retry(do, logged, *args, **kwargs)


def open_redis(url: str, retries: int = REDIS_RETRIES, timeout_s: float = 10.0) -> redis.Redis:
    """The Redis client of an entry point (worker process, CLI). Caller closes it. `retries` and `timeout_s`
    (each command's socket timeout; connecting waits at most 3 s) bound how long a call waits for a Redis that
    is down: a worker rides out a restart, the API answers 503 within seconds (api/app.py)."""
    return redis.Redis.from_url(
        url, decode_responses=True, socket_timeout=timeout_s, socket_connect_timeout=min(3.0, timeout_s),
        retry=LoggedRetry(ExponentialBackoff(cap=2.0, base=0.1), retries),
        retry_on_error=[redis.ConnectionError, redis.TimeoutError], health_check_interval=5)


def key(*parts: str) -> str:
    return ":".join((PREFIX, *parts))


@dataclass(frozen=True)
class DeviceRecord:
    serial: str
    adb_host: str
    adb_port: int
    queue: str = DEFAULT_QUEUE

    @property
    def id(self) -> str:
        return f"{self.adb_host}:{self.adb_port}/{self.serial}"


@dataclass
class Lease:
    """A held lease on `name` (a Redis key) with `token`; renew/release only if still ours."""

    r: redis.Redis
    name: str
    token: str
    ttl_ms: int

    def renew(self) -> bool:
        return bool(self.r.eval(_RENEW, 1, self.name, self.token, self.ttl_ms))

    def release(self) -> bool:
        return bool(self.r.eval(_RELEASE, 1, self.name, self.token))

    def held(self) -> bool:
        return self.r.get(self.name) == self.token


def acquire(r: redis.Redis, name: str, ttl_s: float, holder: str) -> Lease | None:
    token = f"{holder}/{uuid.uuid4().hex[:12]}"
    ttl_ms = max(100, int(ttl_s * 1000))
    return Lease(r, name, token, ttl_ms) if r.set(name, token, nx=True, px=ttl_ms) else None


class DevicePool:
    def __init__(self, r: redis.Redis):
        self.r = r

    def register(self, device: DeviceRecord) -> None:
        self.r.hset(key("devices"), device.id, json.dumps(asdict(device)))

    def unregister(self, device_id: str) -> None:
        self.r.hdel(key("devices"), device_id)

    def devices(self, queue: str | None = None) -> list[DeviceRecord]:
        out = [DeviceRecord(**json.loads(raw)) for raw in self.r.hvals(key("devices"))]
        return sorted((d for d in out if queue is None or d.queue == queue), key=lambda d: d.id)

    def quarantine(self, device_id: str, seconds: float, reason: str) -> None:
        log.warning("device %s quarantined for %.0fs: %s", device_id, seconds, reason)
        self.r.set(key("device", device_id, "quarantine"), reason, px=max(100, int(seconds * 1000)))

    def lease(self, holder: str, ttl_s: float, queue: str | None = None, start: int = 0) -> tuple[DeviceRecord, Lease] | None:
        """Lease a free, healthy device of the queue; `start` rotates the scan so jobs spread."""
        devices = self.devices(queue)
        for i in range(len(devices)):
            device = devices[(start + i) % len(devices)]
            if self.r.exists(key("device", device.id, "quarantine")):
                continue
            lease = acquire(self.r, key("device", device.id, "lease"), ttl_s, holder)
            if lease is not None:
                return device, lease
        return None

    def status(self) -> dict[str, dict[str, str | None]]:
        return {d.id: {"lease": self.r.get(key("device", d.id, "lease")),
                       "quarantine": self.r.get(key("device", d.id, "quarantine"))} for d in self.devices()}


@dataclass
class Heartbeat:
    """Renews leases every `interval_s` from a thread while `fresh()` says the work
    progresses. A lease that could not be renewed sets `lost`; a stall stops renewing
    (the leases then expire) and calls `on_stall` once."""

    leases: list[Lease]
    interval_s: float
    fresh: Callable[[], bool]
    on_stall: Callable[[], None]
    lost: threading.Event = field(default_factory=threading.Event)
    stalled: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> "Heartbeat":
        self._thread = threading.Thread(target=self._run, name="lease-heartbeat", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval_s + 1)

    def check(self) -> None:
        """Raise LeaseError when a lease is gone: another execution may own the job now."""
        if self.lost.is_set() or self.stalled.is_set():
            raise LeaseError("lease lost: " + ", ".join(l.name for l in self.leases))

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            if not self.fresh():
                if not self.stalled.is_set():
                    self.stalled.set()
                    self.on_stall()
                continue
            for lease in self.leases:
                try:
                    if not lease.renew():
                        log.warning("lease %s expired before its renewal", lease.name)
                        self.lost.set()
                except redis.RedisError as exc:  # already retried by the client; the TTL decides
                    log.warning("lease %s not renewed: %s", lease.name, exc)


# -- the job board ---------------------------------------------------------------------------------
class JobBoard:
    """Jobs of crawl runs: what was asked, who runs it, how far it got."""

    def __init__(self, r: redis.Redis):
        self.r = r

    def create(self, run_id: str, job_id: str, spec: dict) -> None:
        self.r.hset(key("job", job_id), mapping={"spec": json.dumps(spec), "status": "queued", "attempts": 0,
                                                  "actions": 0, "states": 0, "run": run_id})
        self.r.sadd(key("run", run_id, "jobs"), job_id)

    def jobs(self, run_id: str) -> list[str]:
        return sorted(self.r.smembers(key("run", run_id, "jobs")))

    def get(self, job_id: str) -> dict:
        raw = self.r.hgetall(key("job", job_id))
        if not raw:
            return {}
        out: dict = dict(raw)
        out["spec"] = json.loads(raw.get("spec", "{}"))
        out["result"] = json.loads(raw["result"]) if raw.get("result") else None
        for name in ("attempts", "actions", "states", "requeues"):
            out[name] = int(raw.get(name, 0))
        return out

    def update(self, job_id: str, **fields: object) -> None:
        self.r.hset(key("job", job_id), mapping={k: json.dumps(v) if isinstance(v, dict) else v
                                                 for k, v in fields.items()})

    def start(self, job_id: str, device_id: str, worker: str) -> None:
        self.r.hincrby(key("job", job_id), "attempts", 1)
        self.r.hsetnx(key("job", job_id), "started_at", time.time())
        self.update(job_id, status="running", device=device_id, worker=worker, error="")

    def finish(self, job_id: str, result: dict) -> None:
        self.update(job_id, status="done", result=result, actions=result["actions"], states=result["states"],
                    finished_at=time.time())

    def fail(self, job_id: str, error: str) -> None:
        self.update(job_id, status="failed", error=error)

    def job_lease_name(self, job_id: str) -> str:
        return key("job", job_id, "lease")

    def orphans(self, run_id: str) -> list[str]:
        """Running jobs whose owner's lease expired: the owner died or hung."""
        return [j for j in self.jobs(run_id)
                if self.r.hget(key("job", j), "status") == "running" and not self.r.exists(self.job_lease_name(j))]


@contextmanager
def graph_write_lock(r: redis.Redis, packages: list[str], ttl_s: float, wait_s: float) -> Iterator[None]:
    """Hold the graph write locks of these packages (sorted: no deadlock between writers)."""
    held: list[redis.lock.Lock] = []
    started = time.monotonic()
    try:
        for package in sorted(set(packages)):
            lock = r.lock(key("lock", "graph", package), timeout=ttl_s, blocking_timeout=wait_s)
            if not lock.acquire():
                raise TransientError(f"graph write lock of {package} still busy after {wait_s:.0f}s")
            held.append(lock)
        waited = time.monotonic() - started
        if waited > 1.0:
            log.info("waited %.1fs for the graph write locks of %s", waited, ", ".join(sorted(set(packages))))
        yield
    finally:
        for lock in reversed(held):
            try:
                lock.release()
            except redis.exceptions.LockError:  # expired while held: the TTL is the bound, log it
                log.warning("graph write lock %s expired while held", lock.name)
