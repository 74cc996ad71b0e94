"""Plans kept by request: in process, and in Redis when one is given, so that every server worker shares them.
A key names the request and the generations of the apps it touches (`agent.service`), so a kept plan is never
stale: a change to an app moves its generation and with it the key.

Both are bounded by `budget` bytes (APPMEM_PLAN_CACHE_MB): in process, the least recently used plans go
first; in Redis, which also holds the API keys, the ingest queue and the parked contributions (none of which
may be evicted, so Redis runs with no eviction policy), the oldest plans go first: each plan is listed with
its size in PLAN_INDEX and PLAN_BYTES counts them, in one script, so what the plans take never passes the
budget. A plan that expired (PLAN_TTL_S) still counts until it leaves the list: the count only errs high.

Agents that send one new task at once (a fleet started together, retries after a timeout) would each plan it:
`computing(key)` lets one thread of a process compute a key's plan while the others wait for it and then find it
kept, so a new task is planned once per process however many ask it together.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from appmem.generations import PLAN_BYTES, PLAN_INDEX, PLAN_PREFIX, POP_OLDEST_PLAN

PLAN_TTL_S = 24 * 3600  # plans kept in Redis (their keys name the apps' generations: never stale)

# keep: one plan stored and listed, then the oldest dropped until the plans fit the budget
_KEEP = POP_OLDEST_PLAN + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local size = string.len(ARGV[1]) + string.len(KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('RPUSH', KEYS[2], size .. ' ' .. KEYS[1])
local total = redis.call('INCRBY', KEYS[3], size)
while total > tonumber(ARGV[3]) do
  total = pop_oldest_plan(KEYS[2], KEYS[3])
  if not total then
    redis.call('SET', KEYS[3], 0)
    break
  end
end
return 1
"""


@dataclass(eq=False)
class Flight:
    """One key's plan being computed in this process: its lock, the threads at it, the plan once computed."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: int = 0
    plan_json: str | None = None


class PlanCache:
    def __init__(self, redis: Any = None, budget: int = 64 << 20) -> None:
        self.redis = redis
        self.budget = budget
        self._lock = threading.Lock()
        self._plans: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0
        self._computing: dict[str, Flight] = {}

    def get(self, key: str) -> str | None:
        """The plan (JSON) kept for this key, in process or else in Redis."""
        with self._lock:
            if key in self._plans:
                self._plans.move_to_end(key)
                return self._plans[key]
        found = self.redis.get(PLAN_PREFIX + key) if self.redis is not None and self.budget else None
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, key: str, plan_json: str) -> None:
        self._remember(key, plan_json)
        if self.redis is not None and self.budget:
            self.redis.eval(_KEEP, 3, PLAN_PREFIX + key, PLAN_INDEX, PLAN_BYTES, plan_json, PLAN_TTL_S, self.budget)

    @contextmanager
    def computing(self, key: str) -> Iterator["Flight"]:
        """Held by one thread of this process at a time per key: the first computes the key's plan and leaves it in
        the flight (`plan_json`); the others wait here, then read it there (kept or not: a budget of zero, a plan
        larger than the budget)."""
        with self._lock:
            flight = self._computing.setdefault(key, Flight())
            flight.threads += 1
        try:
            with flight.lock:
                yield flight
        finally:
            with self._lock:
                flight.threads -= 1
                if not flight.threads:
                    del self._computing[key]

    def clear(self) -> None:
        """Forget the plans kept in process (Redis's keys name generations: they retire by themselves)."""
        with self._lock:
            self._plans.clear()
            self._bytes = 0

    @property
    def size(self) -> int:
        """The bytes the plans kept in process take (their text and keys)."""
        return self._bytes

    def _remember(self, key: str, plan_json: str) -> None:
        size = len(key) + len(plan_json)
        if size > self.budget:
            return
        with self._lock:
            if key in self._plans:
                self._bytes -= len(key) + len(self._plans.pop(key))
            self._plans[key] = plan_json
            self._bytes += size
            while self._bytes > self.budget:
                old, text = self._plans.popitem(last=False)
                self._bytes -= len(old) + len(text)
