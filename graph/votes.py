"""Contributor-weighted edge counts: one key's flood of traces counts as one voice.

Imports and crawls count every observation (`successes`, `failures`). Traces
contributed through the API also leave one `Vote` per (edge, contributor)
(cypher/merge_votes.cypher), folded onto the edge by cypher/edge_crowd.cypher:
`crowd_successes` / `crowd_failures` add, per contributor, its success and
failure *ratio* times its weight (1 for a run, CORRECTION_WEIGHT for a person's
correction). `weighted_counts` replaces the contributed raw counts by those, and
`crowd_reliability` is the edge reliability a planner should rank by.

No single key may change what other users get: the crowd's counts, and an edge
only contributions report (`crowd_only`), count only once QUORUM distinct
contributors (APPMEM_TRUST_QUORUM) voted on the edge, or a crawl or import saw it.
A contributor is its key id, whatever it sends (runs, tarballs, corrections).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from appmem.graph.model import reliability

if TYPE_CHECKING:
    from appmem.graph.store import GraphStore

CORRECTION_WEIGHT = 3.0


def usable(edge: Mapping[str, Any]) -> bool:
    """Whether plans may use the edge: a crawl or import saw it, or enough contributors back it (the one
    trust predicate, cypher/__init__.py TRUSTED, as the statement that read the edge computed it)."""
    return bool(edge["trusted"])


def weighted_counts(edge: Mapping[str, Any]) -> tuple[float, float]:
    """(successes, failures) of an edge with each contributor counted once, and the contributors'
    counts only once a quorum of them voted on it (edge_crowd's `crowd_trusted`); a tenant's view adds its own
    keys' counts (`own_counts`: "TENANT/ successes failures", one per key), as a team trusts its members."""
    s = float(edge.get("successes") or 0) - float(edge.get("contributed_successes") or 0)
    f = float(edge.get("failures") or 0) - float(edge.get("contributed_failures") or 0)
    for own in edge.get("own_counts") or ():
        _, successes, failures = own.split(" ")
        s, f = s + float(successes), f + float(failures)
    if not edge.get("crowd_trusted"):
        return s, f
    return s + float(edge.get("crowd_successes") or 0), f + float(edge.get("crowd_failures") or 0)


def shown_counts(counts: Mapping[str, Any]) -> dict[str, float]:
    """An edge's counts as every reader may see them, from the map a statement's `counts(t)` returns
    (cypher/__init__.py): `weighted_counts`, so one key's raw counts on a trusted edge show nowhere;
    observations are its successes and failures."""
    s, f = weighted_counts(counts)
    return {"observations": _number(s + f), "successes": _number(s), "failures": _number(f)}


def _number(x: float) -> float:
    return int(x) if x == int(x) else round(x, 2)


def judge_crowd(store: "GraphStore", packages: list[str], quorum: int) -> dict[str, int]:
    """Screens, elements and screen links to app versions only contributions reported count (summaries, the
    element index, plans, the map) once `quorum` distinct contributors back them; judged again whenever their contributors change (a
    contribution, a purge, `appmem migrate`). Returns how many of each kind were judged."""
    return {kind: store.write(f"crowd_trust_{kind}", packages=packages, quorum=quorum)[0]["judged"]
            for kind in ("screens", "elements", "links")}


def crowd_reliability(edge: Mapping[str, Any]) -> float:
    """appmem.graph.model.reliability over contributor-weighted counts (docs/concepts.md: "Outcomes and reliability")."""
    return reliability(*weighted_counts(edge))
