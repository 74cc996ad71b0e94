"""Migrations of graphs written by earlier versions of appmem (`appmem migrate`).

Idempotent: each step finds only what is still in the old form.
- times: string times (`2023-10-19_025206`, `2023-10-19 02:52:06`, ISO) → Neo4j
  datetimes in UTC, converted by `graph.times.utc_iso` (the one converter).
- crowd trust: screens and elements only contributions reported are read only once
  enough contributors back them (`crowd_trusted`, cypher/crowd_trust_*.cypher); a graph
  written before has none judged, so each is judged with the configured quorum.
- versions: a version only contributions named, whose screens an import of unknown
  version holds, joins it as claims (graph/versions.py `join_crowd_versions`).
- texts: an element's own texts are the public's (`text_owner` says whose), and a tenant key's
  report of it is kept in its layer (cypher/merge_elements.cypher). A graph written before gets its
  texts' owner (its first reporter, found from its backers), and a tenant key's texts move to the layer;
  so does what a tenant key typed on an edge only contributions report, which it reported first
  (an edge's `input_template` is the public's, cypher/merge_transitions.cypher).
- titles: a screen's own title is the public's (`title_owner` says whose), and a tenant key's title
  of it is kept in its layer (cypher/merge_screens.cypher). A graph written before gets its title's
  owner (its first reporter, found from its backers), and a tenant key's title moves to the layer.
- screens: screen ids lost their app version (graph/screens.py). A graph written before
  that cannot be converted in place (one screen is a node per version there: merging them
  needs their views); `old_screen_ids` counts such screens, and the answer says to
  re-import the traces into a fresh graph (`appmem ingest …`, `appmem crawl …`). They are
  not deleted: nothing stored is lost by a migration.
- state texts: each state keeps the texts it showed (graph/screens.py `shown_texts`:
  what a screenshot is located on). A state written before has none, and its views are not stored to
  find them: `states_without_texts` counts such states, and the answer says to ingest their traces again
  (the chunks already written add only their states' texts: nothing is counted twice). Until then a
  screenshot is located on those screens' element texts and titles, as before.
What serving processes loaded of the old graph (app graphs, indexes, cached plans) is
retired by the caller (graph/commands.py: every app's generation moves).
"""
from __future__ import annotations

from appmem import cypher
from appmem.graph.screens import id_of
from appmem.graph.store import GraphStore, aggregate
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


def migrate_text_owner(store: GraphStore) -> int:
    """Give each element written before texts had owners its owner, and move a tenant key's texts kept as an
    element's own to its layer; how many elements."""
    return aggregate(store.write("migrate_text_owner"), "owned")


def migrate_layer_sets(store: GraphStore) -> int:
    """Give each element whose tenants' reports keep their flags and locators flat one entry per report of each
    (cypher/migrate_layer_sets.cypher); how many elements."""
    return aggregate(store.write("migrate_layer_sets"), "moved")


def migrate_layer_reports(store: GraphStore) -> int:
    """Make each tenant key's report kept in an element's layer lists a Report node of its own
    (cypher/migrate_layer_reports.cypher); how many elements."""
    return aggregate(store.write("migrate_layer_reports"), "moved")


def migrate_edge_inputs(store: GraphStore) -> int:
    """Move what a tenant key typed, kept as a contribution-only edge's own template, to the edge's layer; how many
    edges."""
    return aggregate(store.write("migrate_edge_inputs"), "moved")


def migrate_screen_titles(store: GraphStore) -> int:
    """Give each screen written before titles had owners its owner, and move a tenant key's title kept as a screen's
    own to its layer; how many titles moved."""
    return aggregate(store.write("migrate_screen_titles"), "moved")


def old_screen_ids(store: GraphStore) -> int:
    """How many screens keep an id of the old form (with their app version): not their signature's."""
    return sum(r["id"] != id_of(r["package"], r["signature"]) for r in store.read("migrate_screen_ids"))


def states_without_texts(store: GraphStore) -> int:
    """How many states were written before states kept the texts they showed."""
    return aggregate(store.read("migrate_state_texts"), "states")


def migrate(store: GraphStore, quorum: int = 3) -> dict[str, dict[str, int]]:
    store.ensure_schema()
    return {"times": migrate_times(store), "crowd_trust": migrate_crowd_trust(store, quorum),
            "versions": {"joined": join_crowd_versions(store, quorum),
                         "empty_aliases": store.write("version_clean_aliases")[0]["cleaned"]},
            "texts": {"layer_sets": migrate_layer_sets(store), "owned": migrate_text_owner(store),
                      "reports": migrate_layer_reports(store),
                      "typed": migrate_edge_inputs(store)},
            "screens": {"old_ids": old_screen_ids(store), "titles_moved": migrate_screen_titles(store)},
            "states": {"without_texts": states_without_texts(store)}}
