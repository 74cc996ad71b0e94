"""Which version of each app's memory is current: a counter per app in Redis, bumped by every writer.

Writers (an ingest, a summarize, an ingested contribution, a purge) call
`bump(redis, packages)`; each bump also moves the memory-wide counter (`"*"`),
which answers for requests naming no app. Readers put the counters of the apps
a request touches into their cache keys: a plan cached before a change is
never served after it, in every server process sharing the Redis.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # the one-shot CLI holds no Redis client: it does not import redis (≈ 0.2 s)
    import redis

PREFIX = "appmem:generation:"
ALL = "*"
PLAN_PREFIX = "appmem:plan:"  # the plans kept in Redis under keys that name generations (agent/plancache.py)

log = logging.getLogger(__name__)


def bump(r: redis.Redis, packages: Iterable[str]) -> None:
    pipe = r.pipeline()
    for package in {*packages, ALL}:
        pipe.incr(PREFIX + package)
    pipe.execute()


def drop_plans(r: redis.Redis) -> int:
    """Delete every plan kept in Redis (a purge: a plan kept under an older generation is never served, but
    it may show what the purged key backed until it expires); how many."""
    dropped = 0
    batch: list[str] = []
    for key in r.scan_iter(PLAN_PREFIX + "*", count=1000):
        batch.append(key)
        if len(batch) == 1000:
            dropped += r.delete(*batch)
            batch = []
    return dropped + (r.delete(*batch) if batch else 0)


def counters(r: redis.Redis, packages: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(name, counter) of `packages`, sorted (the memory-wide one when none is named); one Redis read."""
    names = sorted(set(packages)) or [ALL]
    return [(n, str(v or 0)) for n, v in zip(names, r.mget([PREFIX + n for n in names]))]


def current(r: redis.Redis, packages: Iterable[str] = ()) -> str:
    """The counters of `packages` (the memory-wide one when none is named), as one string for a cache key."""
    return ",".join(f"{n}={v}" for n, v in counters(r, packages))


def bump_from(settings, packages: Iterable[str]) -> None:
    """`bump` from a command that holds no Redis client (`appmem ingest`, `appmem summarize`). With no Redis
    reachable no server shares a plan cache either, so there is nothing to invalidate: say so and go on."""
    import redis

    from appmem.stack import Stack

    client = redis.Redis.from_url(Stack(settings).redis_url(), decode_responses=True, socket_connect_timeout=2)
    try:
        bump(client, packages)
    except redis.ConnectionError:
        log.info("no Redis at %s: no plan cache to invalidate", Stack(settings).redis_url())
    finally:
        client.close()
