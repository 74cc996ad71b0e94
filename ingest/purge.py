"""Remove a contributor: every observation its key contributed, then the key itself.

    revoke the key (its queued contributions are dropped by the worker from now on)
    → its parked bodies and pending contributions; the reports of its contributions (Redis)
    → its votes, taken off the edges' counts (and its device pseudonyms off their lists), the crowd
      counts folded again
    → its voice on order-2 outcomes (graph/follows.py), and the pairs only it reported
    → its traces and the states only they saw; its tasks
    → its run outcomes of stored tasks (and those of its tasks), the tasks' counts recounted
    → the element text variants, element reports and typed texts (a tenant key's, in the elements' and
      edges' layers) and element-to-element LEADS_TO observations it added (kept under its key id by
      merge_element_texts, merge_elements, merge_transitions, merge_leads_to)
    → the versions its devices reported (claims, graph/version_claims.py), each
      version they named judged again
    → its voice on screens, elements, edges and app-to-screen links, and its version claims, judged
      again (staleness too)
    → those that only contributions reported and no other contributor backs, then the apps left with nothing
    → the vectors of what went and of what is no longer trusted, and what the local caches keep of the
      key's apps (LLM summaries, embeddings: computed again when needed); the plans kept in Redis

What a crawl or an import recorded is never touched: a contribution never
overwrote it (cypher/merge_*.cypher), and its counts are given back exactly.

A purge cannot half-happen. Each step above is one transaction that finds its
work in the graph (what is still under the key), so a purge stopped anywhere and
run again redoes only what was not done and subtracts nothing twice. What a step
deletes that has vectors (tasks, elements, screens) and what later steps need
once the traces are gone (the key's devices and apps) are written to the key's
journal (a `PurgeJournal` node) in the same transaction: the vectors to delete
are found there and in the graph, never from what is left. The journal goes
once the vectors are deleted; a purge by a process that may not write them,
or that finds the vector store down, keeps it for the next.

Purges of one key run one at a time (a Redis lock): a worker that finds its
contribution purged while it ingests it runs the purge again once it has stopped
writing (ingest/contributions.py), after the one under way. The lock is a lease
(`PurgeOptions.lease_s`) renewed while the purge runs: a purge whose process was
killed holds it no longer than that, and the next run takes over.

`PurgeOptions.pause_after` names a step after which the purge waits, announcing it
in the log: an operator (or a test) stops its process there, to see that the
next run finishes what it left.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import redis

from appmem import generations
from appmem.errors import ConfigError, TransientError
from appmem.keys import VOICE, KeyStore
from appmem.settings import Settings
from appmem.graph.store import GraphStore, Transaction, aggregate
from appmem.graph.version_claims import rejudge_after_purge
from appmem.graph.votes import judge_crowd
from appmem.ingest.contributions import PENDING, PREFIX, PURGED, Contributions


log = logging.getLogger(__name__)

LOCK_S = 600  # the longest a purge waits for another purge of its key
STEPS = ("journal", "votes", "follows", "traces", "tasks", "texts", "leads_to", "versions", "voices", "unbacked",
         "vectors")  # the purge's steps, in order, each one transaction
AfterStep = Callable[[str], None]  # called with a step's name once it committed
ForgetCached = Callable[[list[str]], dict[str, int]]  # forgets what local caches keep of these apps: how many each


@dataclass(frozen=True)
class PurgeOptions:
    """How a purge runs (from Settings: APPMEM_PURGE_LEASE_S, APPMEM_PURGE_PAUSE_AFTER, APPMEM_PURGE_PAUSE_S).
    `lease_s`: how long the key's purge lock outlives a purge whose process died; `pause_after`: a step
    after which the purge waits `pause_s` seconds (None: never)."""
    lease_s: int = 30
    pause_after: str | None = None
    pause_s: int = 0

    def __post_init__(self) -> None:
        if self.pause_after is not None and self.pause_after not in STEPS:
            raise ConfigError(f"APPMEM_PURGE_PAUSE_AFTER={self.pause_after!r}: expected one of {', '.join(STEPS)}")

    @classmethod
    def of(cls, settings: Settings) -> "PurgeOptions":
        return cls(settings.purge_lease_s, settings.purge_pause_after, settings.purge_pause_s)

    def after_step(self, step: str) -> None:
        if step == self.pause_after:
            log.warning("purge paused after step %r for %s s", step, self.pause_s)
            time.sleep(self.pause_s)


def purge_contributor(store: GraphStore, r: redis.Redis, key_id: str, quorum: int, vectors=None,
                      after_step: AfterStep | None = None, options: PurgeOptions = PurgeOptions(),
                      forget_cached: ForgetCached | None = None) -> dict[str, Any]:
    """Purge key `key_id` (revoked first); `vectors` (a VectorStore) when this process may write them, and
    `forget_cached` for the caches beside them (the LLM summaries, the embeddings); `after_step(name)` is
    called after each step commits (a test stops the purge there; default: the options' pause)."""
    with _leased(r, PREFIX + "purge:" + key_id, options.lease_s):
        return _purge(store, r, key_id, quorum, vectors, after_step or options.after_step, forget_cached)


@contextmanager
def _leased(r: redis.Redis, name: str, lease_s: int) -> Iterator[None]:
    """Hold lock `name` as a lease of `lease_s`, renewed every third of it while the body runs."""
    lock = r.lock(name, timeout=lease_s, blocking_timeout=LOCK_S, thread_local=False)  # renewed by another thread
    if not lock.acquire():
        raise TransientError(f"another purge held lock {name} for {LOCK_S} s")
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease_s / 3):
            try:
                lock.reacquire()
            except redis.exceptions.RedisError as exc:  # lost: a second purge may start; each step is still whole
                log.warning("purge lock %s not renewed: %s", name, exc)
                return

    renewer = threading.Thread(target=renew, name="purge-lease", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        try:
            lock.release()
        except redis.exceptions.LockError:
            log.warning("purge lock %s expired while held", name)


def _purge(store: GraphStore, r: redis.Redis, key_id: str, quorum: int, vectors,
           after_step: AfterStep | None, forget_cached: ForgetCached | None) -> dict[str, Any]:
    keys = KeyStore(r)
    key = keys.revoke(key_id)  # KeyRequestError for an unknown id; from now on the worker drops its queue
    report: dict[str, Any] = {"key": key.as_dict(), "contributions": _purge_parked(r, key_id)}
    report.update(purge_observations(store, r, key.contributor, quorum, vectors, after_step, forget_cached))
    return report


def purge_observations(store: GraphStore, r: redis.Redis, contributor: str, quorum: int, vectors,
                       after_step: AfterStep | None = None, forget_cached: ForgetCached | None = None
                       ) -> dict[str, Any]:
    """Take back every observation the graph keeps under `contributor` (a key's contributor id, or a tenant's
    shared voice: ingest/tenants.py), with their vectors and what caches keep of its apps; the apps' cached
    plans dropped."""
    steps = _Steps(store, contributor, after_step)
    own = store.read("purge_devices", contributor=contributor)[0]
    backed = [row["package"] for row in store.read("contributor_packages", contributor=contributor)]
    journal = steps.run("journal", lambda tx: _journal(tx, contributor, own["devices"], own["packages"] + backed))
    packages = journal["packages"]
    report: dict[str, Any] = {}
    report.update(steps.run("votes", lambda tx: _take_votes(tx, contributor, journal["devices"], quorum)))
    report["follows_deleted"] = steps.run("follows", lambda tx: tx.write(
        "purge_follows", contributor=contributor, quorum=quorum)[0]["deleted"])
    traces = steps.run("traces", lambda tx: tx.write("purge_traces", contributor=contributor))
    report["traces"], report["states"] = aggregate(traces, "traces"), aggregate(traces, "states")
    report.update(steps.run("tasks", lambda tx: _take_tasks(tx, contributor, quorum)))
    report.update(steps.run("texts", lambda tx: _take_texts(tx, contributor)))
    report["leads_to_deleted"] = steps.run("leads_to", lambda tx: tx.write(
        "purge_leads_to", contributor=contributor)[0]["deleted"])
    report["versions_judged"] = steps.run("versions", lambda tx: rejudge_after_purge(tx, contributor, quorum))
    steps.run("voices", lambda tx: _take_voices(tx, contributor, packages, quorum))
    report.update(steps.run("unbacked", lambda tx: _delete_unbacked(tx, contributor)))
    report["vectors"] = _delete_vectors(store, steps, r, contributor, vectors, forget_cached, report)
    generations.bump(r, packages)  # plans cached by every server process are stale now
    generations.drop_plans(r)  # and the plans kept in Redis (which may show what the key backed) go
    return report


class _Steps:
    """The purge's steps, each one transaction (graph/store.py `atomic`) that finds its own work in the graph:
    run again after a stop, a step redoes only what is left."""

    def __init__(self, store: GraphStore, contributor: str, after_step: AfterStep | None):
        self.store, self.contributor, self.after_step = store, contributor, after_step

    def run(self, name: str, work: Callable[[Transaction], Any]) -> Any:
        done = self.store.atomic(f"purge of {self.contributor}: step {name!r}", work)
        if self.after_step is not None:
            self.after_step(name)
        return done


def _journal(tx: Transaction, contributor: str, devices: list[str] = (), packages: list[str] = (),
             **deleted: list[str]) -> dict[str, list[str]]:
    """The key's journal with these entries added (the key's devices and apps, ids deleted: tasks, elements,
    screens); what it holds now."""
    lists = {"devices": devices, "packages": packages, "tasks": [], "elements": [], "screens": [], **deleted}
    return tx.write("purge_journal", contributor=contributor, **{k: sorted(set(v)) for k, v in lists.items()})[0]


def _take_votes(tx: Transaction, contributor: str, devices: list[str], quorum: int) -> dict[str, int]:
    """The key's votes taken off the edges' counts and deleted in one go (a second run finds none), the edges'
    crowd counts folded again."""
    edges = tx.write("purge_edge_counts", contributor=contributor, devices=devices)
    deleted = tx.write("purge_votes", contributor=contributor)[0]["deleted"]
    if edges:
        tx.write("purge_edge_reset", keys=[e["key"] for e in edges])
        tx.write("edge_crowd", rows=edges, quorum=quorum)
    return {"votes": deleted, "edge_counts_restored": len(edges)}


def _take_tasks(tx: Transaction, contributor: str, quorum: int) -> dict[str, int]:
    """The key's demonstrations (their ids journaled), its run outcomes and every outcome of a task of the key
    (one the journal names: deleted by this run or an earlier one), the counts recounted."""
    ids = tx.write("purge_tasks", contributor=contributor)[0]["ids"]
    unshared = tx.write("purge_task_voice", contributor=contributor)[0]["ids"]  # a tenant's shared voice
    journal = _journal(tx, contributor, tasks=ids + unshared)  # the unshared ones' vectors leave the shared set
    tx.write("task_crowd_all", quorum=quorum)
    kept = set(unshared)  # the tenant's own again: their outcomes stay in its layer
    runs = tx.write("task_run_purge", contributor=contributor, tasks=[t for t in journal["tasks"] if t not in kept])[0]
    if runs["ids"]:
        tx.write("task_run_counts", ids=runs["ids"], quorum=quorum)
    return {"tasks": len(ids), "tasks_unshared": len(unshared), "task_runs": runs["deleted"]}


def _take_texts(tx: Transaction, contributor: str) -> dict[str, int]:
    """The key's text variants off the elements' counts, and its reports of elements, what it typed on edges and its
    titles of screens off their layers (a tenant key's)."""
    restored = tx.write("purge_element_texts", contributor=contributor)
    layers = tx.write("purge_element_layers", contributor=contributor)
    typed = tx.write("purge_edge_layers", contributor=contributor)
    titles = tx.write("purge_screen_titles", contributor=contributor)
    return {"elements_texts_restored": aggregate(restored, "elements"),
            "element_layers_taken": aggregate(layers, "elements"),
            "edge_layers_taken": aggregate(typed, "edges"), "screen_titles_taken": aggregate(titles, "screens")}


def _take_voices(tx: Transaction, contributor: str, packages: list[str], quorum: int) -> None:
    """The key off the lists of who reported what only contributions report, and its version claims off
    screens; its apps judged again (fewer contributors: what they alone backed is held out again, the versions
    they alone agreed on count no more) and their edges' staleness with them."""
    tx.write("purge_crowd_keys", contributor=contributor)
    judge_crowd(tx, packages, quorum)
    for package in packages:  # the versions a quorum agreed an edge was seen in may be fewer now
        tx.write("refresh_stale", package=package)


def _delete_unbacked(tx: Transaction, contributor: str) -> dict[str, int]:
    """What only contributions reported and nobody backs any more, the ids of what has vectors journaled."""
    edges = tx.write("purge_crowd_edges")[0]["deleted"]
    elements = tx.write("purge_crowd_elements")[0]["ids"]
    screens = tx.write("purge_crowd_screens")[0]["ids"]
    tx.write("purge_crowd_app_screens")
    apps = tx.write("purge_orphan_apps")[0]["deleted"]
    _journal(tx, contributor, elements=elements, screens=screens)
    return {"edges": edges, "elements": len(elements), "screens": len(screens), "apps": apps}


def _delete_vectors(store: GraphStore, steps: _Steps, r: redis.Redis, contributor: str, vectors,
                    forget_cached: ForgetCached | None, report: dict[str, Any]) -> str:
    """Delete the vectors of what the journal says went (this run or an earlier one) and of what the graph no
    longer trusts in the key's apps, and what the caches keep of those apps (`report["cached"]`), then the
    journal; then the same for every journal left by a purge whose key is gone since (a tenant's purge
    forgets its keys). Without `vectors`, or with the vector store down, the journals wait."""
    if vectors is None:
        return ("not touched: another process owns the local vector store (summarize, the ingest worker); "
                "purge again when it is free")
    try:
        report["cached"] = _empty_journal(store, contributor, vectors, forget_cached)
        steps.run("vectors", lambda tx: tx.write("purge_journal_close", contributor=contributor))
        report["journals_of_removed_keys"] = _empty_orphans(store, r, vectors, forget_cached)
    except TransientError as exc:  # the vector store is down: what to delete stays in the journal
        log.warning("purge of %s: vectors pending: %s", contributor, exc)
        return f"pending: {exc}; the journal keeps what to delete: purge the key again once the vector store answers"
    return "deleted"


def _empty_journal(store: GraphStore, contributor: str, vectors, forget_cached: ForgetCached | None
                   ) -> dict[str, int]:
    """The vectors of what `contributor`'s journal names and of what its apps no longer trust deleted, and
    what the caches keep of those apps: how many of each cache."""
    journal = store.atomic("reading a purge journal", lambda tx: _journal(tx, contributor))
    held_out = store.read("purge_untrusted_ids", packages=journal["packages"])[0]
    vectors.delete("tasks", sorted({*journal["tasks"], *held_out["tasks"]}))
    vectors.delete("elements", sorted({*journal["elements"], *held_out["elements"]}))
    vectors.delete_screens("screens", sorted({*journal["screens"], *held_out["screens"]}))
    return forget_cached(journal["packages"]) if forget_cached is not None else {}


def _empty_orphans(store: GraphStore, r: redis.Redis, vectors, forget_cached: ForgetCached | None) -> int:
    """Empty and close the journals whose contributor has no key left (whose purge no one can run again)."""
    keys = KeyStore(r)

    def removed(contributor: str) -> bool:
        if contributor.startswith(VOICE):
            return not keys.of_tenant(contributor[len(VOICE):])
        return keys.get(contributor.rsplit("/", 1)[-1]) is None  # a key id, or TENANT/key id

    orphans = [row["contributor"] for row in store.read("purge_open_journals") if removed(row["contributor"])]
    for contributor in orphans:
        _empty_journal(store, contributor, vectors, forget_cached)
        store.atomic(f"closing the purge journal of {contributor}",
                     lambda tx, c=contributor: tx.write("purge_journal_close", contributor=c))
    return len(orphans)


def _purge_parked(r: redis.Redis, key_id: str) -> int:
    """Delete the key's parked bodies and its contributions' reports (their status stays); its pending and dead
    contributions end `failed` (never pending forever)."""
    board = Contributions(r)
    ids = list(r.smembers(PREFIX + "by:" + key_id))
    for cid in ids:
        if r.hget(PREFIX + cid, "status") in ("pending", "dead"):  # a dead letter, held for a re-queue, too
            board.finish(cid, reason=PURGED)  # an ingest under way sees it and stops
        r.delete(PREFIX + cid + ":body")
        r.hdel(PREFIX + cid, "report")  # what the key's traces held (trace ids, steps kept out)
    r.delete(PENDING + key_id, PREFIX + "by:" + key_id)
    return len(ids)
