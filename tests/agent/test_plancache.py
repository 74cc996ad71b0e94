"""The plan cache is bounded in bytes (APPMEM_PLAN_CACHE_MB): in Redis (shared with the keys, the queue and the
parked contributions, which are never evicted) the oldest plans leave first, in process the least recently
used; nothing else in Redis is touched."""
from __future__ import annotations

import json
import time

from appmem.agent.plancache import PLAN_BYTES, PLAN_INDEX, PLAN_PREFIX, PlanCache

BUDGET = 20_000


def plan(n: int) -> str:
    return json.dumps({"task": f"task {n}", "steps": ["x" * 900]})


def kept_bytes(r) -> int:
    return sum(len(k) + len(r.get(k)) for k in r.scan_iter(PLAN_PREFIX + "*"))


def test_plans_in_redis_stay_within_the_budget_the_oldest_leaving_first(redis_client):
    redis_client.set("appmem:apikey:someone", "a key's record")  # what else Redis holds
    writer = PlanCache(redis_client, BUDGET)
    for n in range(200):
        writer.put(f"key-{n}", plan(n))
        assert kept_bytes(redis_client) <= BUDGET
    assert int(redis_client.get(PLAN_BYTES)) == kept_bytes(redis_client) > BUDGET - 2 * len(plan(0))
    reader = PlanCache(redis_client, BUDGET)  # another server process: the newest plans, from Redis
    assert reader.get("key-199") == plan(199) and reader.get("key-0") is None
    assert redis_client.llen(PLAN_INDEX) == len(list(redis_client.scan_iter(PLAN_PREFIX + "*")))
    assert redis_client.get("appmem:apikey:someone") == "a key's record"
    writer.put("key-199", plan(199))  # kept already: listed once
    assert redis_client.llen(PLAN_INDEX) == len(list(redis_client.scan_iter(PLAN_PREFIX + "*")))


def test_plans_in_process_stay_within_the_budget_the_least_recently_used_leaving_first():
    cache = PlanCache(None, BUDGET)
    for n in range(100):
        cache.put(f"key-{n}", plan(n))
        assert cache.size <= BUDGET
        if n > 10:
            assert cache.get("key-0") == plan(0)  # used again and again: kept
    assert cache.get("key-1") is None and cache.get("key-99") == plan(99)
    cache.put("huge", "x" * (BUDGET + 1))  # larger than the whole budget: not kept, nothing dropped for it
    assert cache.get("huge") is None and cache.get("key-99") == plan(99)


def test_a_budget_of_zero_keeps_no_plan(redis_client):
    cache = PlanCache(redis_client, 0)
    cache.put("key", plan(0))
    assert cache.get("key") is None and not list(redis_client.scan_iter(PLAN_PREFIX + "*"))


def test_dropping_the_plans_deletes_every_plan_and_its_listing_and_nothing_else(redis_client):
    """What a purge does (ingest/purge.py): more plans than one script call drops, all gone, the budget's count
    with them, so later plans are counted from zero."""
    from appmem import generations

    redis_client.set("appmem:apikey:someone", "a key's record")
    cache = PlanCache(redis_client, 10 * generations.DROP_BATCH * len(plan(0)))
    for n in range(generations.DROP_BATCH + 5):
        cache.put(f"key-{n}", plan(n))
    generations.drop_plans(redis_client)
    assert not list(redis_client.scan_iter(PLAN_PREFIX + "*")) and redis_client.llen(PLAN_INDEX) == 0
    assert int(redis_client.get(PLAN_BYTES) or 0) == 0
    assert redis_client.get("appmem:apikey:someone") == "a key's record"
    cache.put("after", plan(0))
    assert int(redis_client.get(PLAN_BYTES)) == kept_bytes(redis_client)


def test_a_flight_whose_first_thread_failed_is_computed_by_the_next():
    """`computing`: the thread that holds a key's flight and fails leaves no plan in it; the next thread at the
    key computes it, and the flight is gone once no thread is at it."""
    import threading

    cache = PlanCache(None, BUDGET)
    first_in, failed = threading.Event(), []

    def failing() -> None:
        try:
            with cache.computing("key") as flight:
                first_in.set()
                deadline = time.monotonic() + 30
                while flight.threads < 2 and time.monotonic() < deadline:  # until the second waits at the key
                    time.sleep(0.01)
                raise RuntimeError(f"the planner failed with {flight.threads} threads at the key")
        except RuntimeError as exc:
            failed.append(exc)

    thread = threading.Thread(target=failing)
    thread.start()
    assert first_in.wait(10)
    with cache.computing("key") as flight:
        assert str(failed[0]).endswith("with 2 threads at the key")  # it waited at the first's flight
        assert flight.plan_json is None  # and left nothing in it
        flight.plan_json = plan(1)
    thread.join(10)
    assert not cache._computing
