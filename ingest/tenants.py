"""Tenants: a private layer over the shared memory, what a tenant offers the crowd, and its removal.

A tenant's keys contribute under the contributor id `NAME/key id` (appmem/keys.py).
Everything they report is stored once, in the one graph and the one vector store,
beside the shared base: a screen, element or edge they alone report is
`crowd_only` with only their ids in `crowd_keys`, and their counts sit in their
votes. No public quorum counts those ids (cypher/crowd_trust_*, edge_crowd,
follow_votes, task_crowd*): the layer is the tenant's alone until it shares it.

`share` offers the tenant's observations of public apps to the crowd as ONE
voice, `tenant:NAME`, which joins `crowd_keys` and votes with the sums of its
keys' counts, and which its keys' demonstrations of those apps count as
(`voice` on each Task, task_crowd), and which reports one run outcome per
stored task, the latest of its keys' (task_run_counts): the public quorum then
weighs it like any one contributor. What is offered was scrubbed when it was accepted, as every
contribution is.
`purge` withdraws that voice, then purges each of its keys (ingest/purge.py:
their layer, vectors, parked bodies and share of public counts) and forgets the
keys and the shares.
"""
from __future__ import annotations

from typing import Any

import redis

from appmem import generations
from appmem.errors import InvalidInput
from appmem.formats.ui import stable_id
from appmem.graph.rows import now_iso
from appmem.graph.store import GraphStore
from appmem.graph.votes import judge_crowd
from appmem.ingest.purge import PurgeOptions, purge_contributor, purge_observations
from appmem.keys import VOICE, KeyStore, tenant_name

SUMMED = ("traces", "states", "votes", "edges", "screens", "elements", "tasks", "task_runs", "contributions")


def voice(tenant: str) -> str:
    """The one public contributor a tenant's shared observations count as."""
    return VOICE + tenant


def layer(store: GraphStore, tenant: str) -> dict[str, Any]:
    """What the tenant's keys contributed, counted (cypher/tenant_layer.cypher)."""
    return store.read("tenant_layer", prefix=tenant_name(tenant) + "/")[0]


def describe(store: GraphStore, keys: KeyStore, tenant: str) -> dict[str, Any]:
    members = keys.tenant(tenant)
    return {"tenant": tenant, "keys": [k.as_dict() for k in members], "shared": keys.shares(tenant),
            "layer": layer(store, tenant)}


def listing(keys: KeyStore) -> list[dict[str, Any]]:
    return [{"tenant": name, "keys": len(members), "live_keys": sum(not k.revoked for k in members),
             "shared": sorted(keys.shares(name))} for name, members in keys.tenants().items()]


def share(store: GraphStore, r: redis.Redis, tenant: str, app: str | None, quorum: int) -> dict[str, Any]:
    """Offer the tenant's observations of `app` (None: of every public app it observed) to the crowd."""
    keys = KeyStore(r)
    keys.tenant(tenant)
    prefix, who = tenant + "/", voice(tenant)
    packages = [row["package"] for row in store.read("tenant_share_apps", prefix=prefix, package=app)]
    if app is not None and not packages:
        raise InvalidInput("--app", f"tenant {tenant!r} has no observations of a public app {app!r} to share "
                                    "(an app only contributions reported stays private)")
    report: dict[str, Any] = {"tenant": tenant, "voice": who, "apps": packages}
    if packages:
        params = {"prefix": prefix, "voice": who, "packages": packages}
        for kind in ("screens", "elements", "links", "edges"):
            report[kind] = store.write(f"tenant_share_{kind}", **params)[0]["shared"]
        edges = store.write("tenant_share_votes", **params)
        if edges:
            store.write("edge_crowd", rows=edges, quorum=quorum)
        report["votes"] = len(edges)
        report["follows"] = store.write("tenant_share_follows", quorum=quorum, **params)[0]["shared"]
        tasks = [row["id"] for row in store.write("tenant_share_tasks", **params)]
        for task in tasks:
            store.write("task_crowd", task_id=task, quorum=quorum)
        report["tasks"] = len(tasks)
        report["runs"] = share_runs(store, prefix, who, packages, quorum)
        judge_crowd(store, packages, quorum)
        generations.bump(r, packages)
    keys.record_share(tenant, app or "*", now_iso())
    return report


def share_runs(store: GraphStore, prefix: str, who: str, packages: list[str], quorum: int) -> int:
    """The run outcomes the tenant's keys reported of stored tasks of `packages`, offered as its voice's: one
    outcome per task, the latest of its keys' (as one key holds one, task_run_outcome), which the task's
    counts then weigh as one contributor's. How many tasks it reports on."""
    latest: dict[str, dict[str, Any]] = {}
    for row in store.read("tenant_share_runs", prefix=prefix, packages=packages):  # ordered by task, then time
        latest[row["task_id"]] = row
    for row in latest.values():
        store.write("task_run_outcome", id=stable_id("taskrun", row["task_id"], who), task_id=row["task_id"],
                    package=row["package"], contributor=who, ok=row["ok"], at=row["at"])
    if latest:
        store.write("task_run_counts", ids=sorted(latest), quorum=quorum)
    return len(latest)


def purge(store: GraphStore, r: redis.Redis, tenant: str, quorum: int, vectors=None,
          options: PurgeOptions = PurgeOptions()) -> dict[str, Any]:
    """Remove everything of the tenant: what it shared, then each key's observations, vectors and parked
    bodies (its share of public counts given back), then the keys and the record of its shares."""
    keys = KeyStore(r)
    members = keys.tenant(tenant)
    report: dict[str, Any] = {"tenant": tenant,
                              "withdrawn": purge_observations(store, r, voice(tenant), quorum, vectors)}
    purged = [purge_contributor(store, r, key.id, quorum, vectors, options=options) for key in members]
    for key in members:
        keys.delete(key.id)
    keys.forget_shares(tenant)
    report["keys"] = [p["key"]["id"] for p in purged]
    report.update({field: sum(p.get(field, 0) for p in purged) for field in SUMMED})
    report["vectors"] = purged[0]["vectors"] if purged else report["withdrawn"]["vectors"]
    return report
