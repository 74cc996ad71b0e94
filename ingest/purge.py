"""Remove a contributor: every observation its key contributed, then the key itself.

    revoke the key (its queued contributions are dropped by the worker from now on)
    → its parked bodies and pending contributions (Redis)
    → its votes, taken off the edges' counts first; the crowd counts folded again;
      its voice on order-2 outcomes (graph/follows.py), and the pairs only it reported
    → its traces and the states only they saw; its tasks (and their vectors)
    → its run outcomes of stored tasks (and those of its tasks), the tasks' counts recounted
    → the element text variants and element-to-element LEADS_TO observations it
      added (kept under its key id by merge_element_texts / merge_leads_to)
    → the versions its devices reported (claims, graph/version_claims.py), each
      version they named judged again
    → screens, elements, edges and app-to-screen links that only contributions
      reported and no other contributor backs (their vectors too), then the apps
      left with nothing

What a crawl or an import recorded is never touched: a contribution never
overwrote it (cypher/merge_*.cypher), and its counts are given back exactly.
Purges of one key run one at a time (a Redis lock): a worker that finds its
contribution purged while it ingests it runs the purge again once it has stopped
writing (ingest/contributions.py), after the one under way.
"""
from __future__ import annotations

from typing import Any

import redis

from appmem import generations
from appmem.errors import TransientError
from appmem.keys import KeyStore
from appmem.graph.store import GraphStore
from appmem.graph.version_claims import rejudge_after_purge
from appmem.graph.votes import judge_crowd
from appmem.ingest.contributions import PENDING, PREFIX, PURGED, Contributions


LOCK_S = 600  # the longest a purge may hold its key's lock, and wait for it


def purge_contributor(store: GraphStore, r: redis.Redis, key_id: str, quorum: int, vectors=None) -> dict[str, Any]:
    """Purge key `key_id` (revoked first); `vectors` (a VectorStore) when this process may write them."""
    try:
        with r.lock(PREFIX + "purge:" + key_id, timeout=LOCK_S, blocking_timeout=LOCK_S):
            return _purge(store, r, key_id, quorum, vectors)
    except redis.exceptions.LockError:
        raise TransientError(f"another purge of key {key_id} held its lock for {LOCK_S} s") from None


def _purge(store: GraphStore, r: redis.Redis, key_id: str, quorum: int, vectors) -> dict[str, Any]:
    keys = KeyStore(r)
    key = keys.revoke(key_id)  # KeyRequestError for an unknown id; from now on the worker drops its queue
    report: dict[str, Any] = {"key": key.as_dict(), "contributions": _purge_parked(r, key_id)}
    report.update(purge_observations(store, r, key.contributor, quorum, vectors))
    return report


def purge_observations(store: GraphStore, r: redis.Redis, contributor: str, quorum: int, vectors) -> dict[str, Any]:
    """Take back every observation the graph keeps under `contributor` (a key's contributor id, or a tenant's
    shared voice: ingest/tenants.py), with their vectors; the apps' cached plans dropped."""
    report: dict[str, Any] = {}
    own = store.read("purge_devices", contributor=contributor)[0]
    edges = store.write("purge_edge_counts", contributor=contributor, devices=own["devices"])
    report["votes"] = store.write("purge_votes", contributor=contributor)[0]["deleted"]
    if edges:
        store.write("purge_edge_reset", keys=[e["key"] for e in edges])
        store.write("edge_crowd", rows=edges, quorum=quorum)
    report["follows_deleted"] = store.write("purge_follows", contributor=contributor, quorum=quorum)[0]["deleted"]
    traces = store.write("purge_traces", contributor=contributor)
    report["traces"] = traces[0]["traces"] if traces else 0
    report["states"] = traces[0]["states"] if traces else 0
    tasks = store.write("purge_tasks", contributor=contributor)[0]["ids"]
    unshared = store.write("purge_task_voice", contributor=contributor)[0]["ids"]  # a tenant's shared voice
    store.write("task_crowd_all", quorum=quorum)
    runs = store.write("task_run_purge", contributor=contributor, tasks=tasks)[0]
    if runs["ids"]:
        store.write("task_run_counts", ids=runs["ids"], quorum=quorum)
    report["task_runs"] = runs["deleted"]
    report["elements_texts_restored"] = store.write("purge_element_texts", contributor=contributor)[0]["elements"]
    report["leads_to_deleted"] = store.write("purge_leads_to", contributor=contributor)[0]["deleted"]
    report["versions_judged"] = rejudge_after_purge(store, contributor, quorum)  # its reported versions, taken back
    packages = sorted(set(own["packages"]) | {r["package"] for r in store.read("contributor_packages",
                                                                               contributor=contributor)})
    store.write("purge_crowd_keys", contributor=contributor)
    judge_crowd(store, packages, quorum)  # fewer contributors: what they alone backed is held out again
    report["edges"] = store.write("purge_crowd_edges")[0]["deleted"]
    elements = store.write("purge_crowd_elements")[0]["ids"]
    screens = store.write("purge_crowd_screens")[0]["ids"]
    store.write("purge_crowd_app_screens")
    report["apps"] = store.write("purge_orphan_apps")[0]["deleted"]
    report.update(tasks=len(tasks), tasks_unshared=len(unshared), elements=len(elements), screens=len(screens), edge_counts_restored=len(edges))
    if vectors is not None:
        vectors.delete("tasks", tasks + unshared)
        vectors.delete("elements", elements)
        vectors.delete_screens("screens", screens)
        report["vectors"] = "deleted"
    else:
        report["vectors"] = ("not touched: another process owns the local vector store (summarize, the ingest "
                             "worker); purge again when it is free")
    generations.bump(r, packages)  # plans cached by every server process are stale now
    return report


def _purge_parked(r: redis.Redis, key_id: str) -> int:
    """Delete the key's parked bodies; its pending contributions end `failed` (never pending forever)."""
    board = Contributions(r)
    ids = list(r.smembers(PREFIX + "by:" + key_id))
    for cid in ids:
        if r.hget(PREFIX + cid, "status") == "pending":
            board.finish(cid, reason=PURGED)  # an ingest under way sees it and stops
        r.delete(PREFIX + cid + ":body")
    r.delete(PENDING + key_id, PREFIX + "by:" + key_id)
    return len(ids)
