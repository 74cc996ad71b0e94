"""Migrations of graphs written by earlier versions of appmem (`appmem migrate`).

Idempotent: each step finds only what is still in the old form.
- times: string times (`2023-10-19_025206`, `2023-10-19 02:52:06`, ISO) → Neo4j
  datetimes in UTC, converted by `graph.times.utc_iso` (the one converter).
- crowd trust: screens and elements only contributions reported are read only once
  enough contributors back them (`crowd_trusted`, cypher/crowd_trust_*.cypher); a graph
  written before has none judged, so each is judged with the configured quorum.
- versions: a version only contributions named, whose screens an import of unknown
  version holds, joins it as claims (graph/versions.py `join_crowd_versions`).
Screen ids lost their app version (graph/screens.py): a graph written before that
cannot be converted in place (the signatures need the views); re-import its traces
into a fresh graph (`appmem ingest …`, `appmem crawl …`).
"""
from __future__ import annotations

from appmem import cypher
from appmem.graph.store import GraphStore
from appmem.graph.times import utc_iso
from appmem.graph.versions import join_crowd_versions
from appmem.graph.votes import judge_crowd


def migrate_times(store: GraphStore) -> dict[str, int]:
    """Convert every time still stored as a string; returns how many nodes/edges per kind."""
    rows = []
    for r in store.read("migrate_times_find"):
        where = f"{r['kind']} {r['id']}"
        rows.append({"kind": r["kind"], "id": r["id"], "a": utc_iso(r["a"], where) or None,
                     "b": utc_iso(r["b"], where) or None})
    for statement in cypher.statements("migrate_times_set"):
        store.run_text(statement, rows=rows)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    return counts


def migrate_crowd_trust(store: GraphStore, quorum: int) -> dict[str, int]:
    """Judge every contribution-only screen and element against the quorum; how many of each."""
    return judge_crowd(store, [r["package"] for r in store.read("all_packages")], quorum)


def migrate(store: GraphStore, quorum: int = 3) -> dict[str, dict[str, int]]:
    store.ensure_schema()
    return {"times": migrate_times(store), "crowd_trust": migrate_crowd_trust(store, quorum),
            "versions": {"joined": join_crowd_versions(store, quorum),
                         "empty_aliases": store.write("version_clean_aliases")[0]["cleaned"]}}
