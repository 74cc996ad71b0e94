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
# the plans kept in Redis under keys that name generations (agent/plancache.py)
PLAN_PREFIX = "appmem:plan:"
PLAN_INDEX = "appmem:plans:index"  # "<bytes> <key>" of every plan kept, oldest first
PLAN_BYTES = "appmem:plans:bytes"  # what the listed plans take
DROP_BATCH = 1000  # plans dropped per script call (Redis serves nobody else while one runs)

# Lua, for the scripts that drop plans (here and agent/plancache.py): the oldest listed plan deleted and unlisted,
# its bytes uncounted; the bytes the listed plans take then, nil when none was listed
POP_OLDEST_PLAN = """
local function pop_oldest_plan(index, bytes)
  local oldest = redis.call('LPOP', index)
  if not oldest then return nil end
  local space = string.find(oldest, ' ', 1, true)
  redis.call('DEL', string.sub(oldest, space + 1))
  return redis.call('DECRBY', bytes, tonumber(string.sub(oldest, 1, space - 1)))
end
"""

# drop: up to ARGV[1] of the listed plans dropped; how many are left
_DROP = POP_OLDEST_PLAN + """
for _ = 1, tonumber(ARGV[1]) do
  if not pop_oldest_plan(KEYS[1], KEYS[2]) then break end
end
return redis.call('LLEN', KEYS[1])
"""

log = logging.getLogger(__name__)


def bump(r: redis.Redis, packages: Iterable[str]) -> None:
    pipe = r.pipeline()
    for package in {*packages, ALL}:
        pipe.incr(PREFIX + package)
    pipe.execute()


def drop_plans(r: redis.Redis) -> None:
    """Delete every plan kept in Redis, as agent/plancache.py lists them (a purge: a plan kept under an older
    generation is never served, but it may show what the purged key backed until it expires)."""
    while r.eval(_DROP, 2, PLAN_INDEX, PLAN_BYTES, DROP_BATCH):
        pass


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
