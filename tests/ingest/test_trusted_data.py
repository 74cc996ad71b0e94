"""What crawls and imports recorded stays theirs (cypher/merge_screens.cypher, merge_transitions.cypher,
graph/versions.py): one key's contributions change no edge's or screen's `versions`, times or `stale`, and
no version's aliases or code; the versions they report count once a quorum of keys agrees, and a purge
(ingest/purge.py) gives back exactly what was there. On the real graph and Redis."""
from __future__ import annotations

from dataclasses import replace

from appmem.formats.ui import Action, ActionType
from appmem.graph.model import Step, Trace
from appmem.ingest.contributions import count_votes
from appmem.ingest.pipeline import ingest_trace
from appmem.ingest.purge import purge_observations
from tests.agent.test_crowd import state, tap
from tests.graph.test_staleness import cypher_rows

APP = "org.example.printer"
QUORUM = 3


def imported(version: str, code: int, tapped: str, started: str) -> Trace:
    """An import of `version` (versionCode `code`): the print dialog, its button `tapped` to the picker, back."""
    printing = state(APP, f"print-{version}", "Print", [("pdf", "Save to PDF"), ("all", "All printers")])
    picker = state(APP, f"picker-{version}", "Downloads", [("save", "SAVE"), ("folder", "New folder")])
    return Trace(f"import-{version}", "explorer", APP, version, "lab", "test", started, "",
                 states={printing.state_id: printing, picker.state_id: picker},
                 steps=[Step(0, printing.state_id, tap(APP, tapped), picker.state_id, at=started),
                        Step(1, picker.state_id, Action(ActionType.BACK), printing.state_id, at=started)],
                 version_code=code)


def contributed(store, key: str, version: str, started: str) -> None:
    """One key's run that taps "Save to PDF" (an edge only version 1 showed) under `version`, with a later
    time and a versionCode of its own, as the ingest worker writes it (ingest/contributions.py)."""
    run = imported("1", 99, "pdf", started)
    trace = replace(run, id=f"run-{key}-{version}", source="agent", app_version=version, device=f"device:{key}",
                    steps=run.steps[:1], contributor=key)
    ingest_trace(store, trace, chunk_size=10, quorum=QUORUM)
    count_votes(store, trace, key, QUORUM)


def recorded(store) -> dict[str, list[dict]]:
    """What crawls and imports recorded: edges' and screens' versions, times and staleness, apps' names."""
    return {"edges": cypher_rows(store, "MATCH ()-[t:TRANSITION]->() RETURN t.key AS key, t.versions AS versions, "
                                        "t.first_seen AS first_seen, t.last_seen AS last_seen, t.stale AS stale "
                                        "ORDER BY key"),
            "screens": cypher_rows(store, "MATCH (s:Screen) RETURN s.id AS id, s.versions AS versions, "
                                          "s.first_seen AS first_seen, s.last_seen AS last_seen ORDER BY id"),
            "apps": cypher_rows(store, "MATCH (a:App) RETURN a.id AS id, a.version AS version, a.aliases AS aliases, "
                                       "a.version_code AS code ORDER BY id")}


def pdf_edge_stale(store) -> bool:
    return cypher_rows(store, "MATCH (:Screen)-[t:TRANSITION {action: 'tap'}]->(:Screen) "
                              "WHERE t.element_key ENDS WITH 'id/pdf]#0' RETURN t.stale AS stale")[0]["stale"]


def test_contributions_change_no_trusted_version_time_or_staleness_until_a_quorum_and_a_purge_restores_them(
        empty_graph, redis_client):
    ingest_trace(empty_graph, imported("1", 1, "pdf", "2026-01-01T00:00:00Z"), chunk_size=10)
    ingest_trace(empty_graph, imported("2", 2, "all", "2026-02-01T00:00:00Z"), chunk_size=10)
    assert pdf_edge_stale(empty_graph)  # "Save to PDF" was seen in version 1, not in the newest (2)
    counts, before = empty_graph.read("crowd_counts")[0], recorded(empty_graph)
    contributed(empty_graph, "k0", "2", "2027-01-01T00:00:00Z")  # one key says version 2 shows it, later
    contributed(empty_graph, "k0", "sha256:feed", "2027-01-02T00:00:00Z")  # and under an alias of its own
    assert recorded(empty_graph) == before  # no version, time, staleness, alias or versionCode moved
    contributed(empty_graph, "k1", "2", "2027-01-03T00:00:00Z")
    assert pdf_edge_stale(empty_graph)  # two keys: no quorum
    contributed(empty_graph, "k2", "2", "2027-01-04T00:00:00Z")
    assert not pdf_edge_stale(empty_graph)  # a quorum agrees it is in version 2: not stale
    purge_observations(empty_graph, redis_client, "k0", QUORUM, None)
    assert recorded(empty_graph) == before  # the quorum is gone: stale again, all as it was
    for key in ("k1", "k2"):
        purge_observations(empty_graph, redis_client, key, QUORUM, None)
    assert recorded(empty_graph) == before and empty_graph.read("crowd_counts")[0] == counts
