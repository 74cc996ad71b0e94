"""Order-2 outcomes: where an action led, given the transition the trace came by.

Where some actions land depends on how the app reached their screen: BACK,
"navigate up" or a dialog's CANCEL return to wherever the app came from, so one
(screen, action) has many recorded outcomes. Every trace says which transition
preceded each transition it observed (consecutive steps that both worked). The
graph keeps one `Follow` node per (previous transition key, transition key):
`observations` counts what imports and crawls saw (in the chunk's transaction, so a
chunk written again counts nothing), `crowd_keys` the contributors that reported
the pair, one voice each, counted once a quorum of them back it (`crowd_trusted`),
as for edges (graph/votes.py). `Follows` answers graph/routes.py's question: given
the edge a route came by, how often did this edge's action land on this edge's target.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from appmem.formats.ui import stable_id
from appmem.graph.model import Screen, Step, Trace, Transition
from appmem.graph.screens import screen_of

Group = tuple[str, str, str, str]  # (source screen, action, element id, detail): one action on one screen


def follow_rows(trace: Trace, steps: list[Step], screens: Mapping[str, Screen], first: bool = True
                ) -> list[dict[str, Any]]:
    """merge_follows rows of `steps` (a chunk of `trace`): each step that worked, after the last step before it
    that moved the app to another screen, when every step between worked and each began where the one before
    ended. A step that changed nothing is an outcome of its own, but no edge a route comes by: the pair skips it.
    `screens` (by state id) are the chunk's; the others are computed here. The walk starts at the trace's first
    step the chunk holds (the explorer streams chunk by chunk: its chunks start afresh). A trace with a `history`
    (its steps in the order they happened, when `steps` are not) counts over that, once, with its `first` chunk."""
    if trace.history:
        steps, walk = (trace.history, trace.history) if first else ([], [])
    else:
        walk = sorted(trace.steps, key=lambda s: s.index)
    wanted = {id(s) for s in steps}
    known = dict(screens)

    def screen(state_id: str) -> Screen | None:
        if state_id not in known and state_id in trace.states:
            known[state_id] = screen_of(trace.states[state_id], trace.package, trace.app_version)
        elif state_id not in known and state_id in trace.located:
            known[state_id] = trace.located[state_id].screen
        return known.get(state_id)

    rows: dict[str, dict[str, Any]] = {}
    last: str | None = None  # the key of the last step that moved, on an unbroken chain up to here
    ended: str | None = None  # the state the step before ended in
    for step in walk:
        a, b = screen(step.source_state), screen(step.target_state)
        if a is None or b is None or not _worked(trace, step) or step.source_state != ended:
            last = None
        ended = step.target_state if a is not None and b is not None and _worked(trace, step) else None
        if ended is None:
            continue
        key = Transition(a.id, b.id, step.action, "").key
        if last is not None and id(step) in wanted:
            row = rows.setdefault(last + key, {"id": stable_id("follow", last, key), "prev": last, "next": key,
                                               "package": a.package, "observations": 0})
            row["observations"] += 1
        if a.id != b.id:
            last = key
    return list(rows.values())


def _worked(trace: Trace, step: Step) -> bool:
    if step.target_state in trace.located:  # seen in a screenshot: its outcome is the agent's word
        return step.ok
    target = trace.states.get(step.target_state)
    return step.ok and target is not None and not target.crashed


def pseudo_share(count: float, total: float, prior: float) -> float:
    """P(an action lands here) from its recorded outcomes (`count` of `total` here), with the order-1 share
    `prior` as one pseudo-observation: one recorded outcome is strong evidence, not certainty."""
    return (count + prior) / (total + 1.0)


@dataclass
class Follows:
    """Order-2 counts: previous edge key → next edge key → observations (planner_app_follows rows)."""

    after: dict[str, dict[str, float]] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)  # edge key → its action on its screen
    _totals: dict[tuple[str, Group], float] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[Mapping[str, Any]], groups: Mapping[str, Group]) -> "Follows":
        """From planner_app_follows rows whose next edge is one of `groups` (the usable edges' keys)."""
        out = cls(groups=dict(groups))
        for r in rows:
            if r["next"] in out.groups and r["observations"] > 0:
                out.after.setdefault(r["prev"], {})[r["next"]] = float(r["observations"])
                total = (r["prev"], out.groups[r["next"]])
                out._totals[total] = out._totals.get(total, 0.0) + float(r["observations"])
        return out

    def knows(self, came_by: str) -> bool:
        """Whether anything was recorded after edge `came_by` (else a route's state forgets it)."""
        return came_by in self.after

    def share(self, came_by: str, key: str, prior: float) -> float | None:
        """P(this action lands on edge `key`'s target | the route came by edge `came_by`): the pair's counts,
        with the order-1 share `prior` as one pseudo-observation (so one recorded pair is strong evidence,
        not certainty); None when this action was never recorded after `came_by`."""
        total = self._totals.get((came_by, self.groups.get(key, ("", "", "", ""))), 0.0)
        if not total:
            return None
        return pseudo_share(self.after[came_by].get(key, 0.0), total, prior)
