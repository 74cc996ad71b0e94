"""Plans kept by request: in process (the newest PLAN_CACHE), and in Redis when one is given, so that every
server worker shares them. A key names the request and the generations of the apps it touches
(`agent.service`), so a kept plan is never stale: a change to an app moves its generation and with it the key.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from appmem.generations import PLAN_PREFIX

PLAN_CACHE = 4096  # plans kept in process
PLAN_TTL_S = 24 * 3600  # plans kept in Redis (their keys name the apps' generations: never stale)


class PlanCache:
    def __init__(self, redis: Any = None) -> None:
        self.redis = redis
        self._lock = threading.Lock()
        self._plans: OrderedDict[str, str] = OrderedDict()

    def get(self, key: str) -> str | None:
        """The plan (JSON) kept for this key, in process or else in Redis."""
        with self._lock:
            if key in self._plans:
                self._plans.move_to_end(key)
                return self._plans[key]
        found = self.redis.get(PLAN_PREFIX + key) if self.redis is not None else None
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, key: str, plan_json: str) -> None:
        self._remember(key, plan_json)
        if self.redis is not None:
            self.redis.set(PLAN_PREFIX + key, plan_json, ex=PLAN_TTL_S)

    def clear(self) -> None:
        """Forget the plans kept in process (Redis's keys name generations: they retire by themselves)."""
        with self._lock:
            self._plans.clear()

    def _remember(self, key: str, plan_json: str) -> None:
        with self._lock:
            self._plans[key] = plan_json
            while len(self._plans) > PLAN_CACHE:
                self._plans.popitem(last=False)
