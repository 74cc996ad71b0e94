"""A chunk of a Trace → the parameter rows the graph store writes in one transaction.

Rows are aggregated and de-duplicated here, in Python, so that each Cypher
statement is one `UNWIND $rows` over distinct keys: screens, states, elements,
UTG transitions (counts per chunk) and ETG edges.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from appmem.formats.ui import ActionType, stable_id, UIState
from appmem.formats.uixml import variant_id

from appmem.graph.follows import follow_rows
from appmem.graph.model import Element, Screen, Step, Trace, Transition
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.times import now_iso


def app_id(package: str, version: str) -> str:
    return stable_id("app", package, version)


def state_node_id(state: UIState) -> str:
    return stable_id("state", state.package, state.state_id)


@dataclass
class ChunkRows:
    apps: list[dict] = field(default_factory=list)
    screens: list[dict] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)
    elements: list[dict] = field(default_factory=list)
    transitions: list[dict] = field(default_factory=list)
    leads_to: list[dict] = field(default_factory=list)
    element_texts: list[dict] = field(default_factory=list)  # per element: its text variants and counts
    follows: list[dict] = field(default_factory=list)  # order-2 outcomes an import or crawl saw (graph/follows.py)
    # Where the run entered the app: the screen of its first step on one of the
    # app's own screens (known to the chunk holding that step, else None).
    entry_screen: str | None = None

    def batches(self) -> list[tuple[str, list[dict]]]:
        """(statement, rows) in write order: nodes before the edges that match them."""
        return [("merge_screens", self.screens), ("merge_elements", self.elements),
                ("merge_element_texts", self.element_texts), ("merge_states", self.states),
                ("merge_transitions", self.transitions), ("merge_leads_to", self.leads_to),
                ("merge_follows", self.follows)]


def transition_row(t: Transition, version: str) -> dict:
    """A Transition as a merge_transitions row (one device and one app version: the trace's)."""
    return {"key": t.key, "source": t.source_screen, "target": t.target_screen, "action": t.action.type.value,
            "element_id": t.element_id, "element_key": t.action.element_key, "detail": t.action.detail,
            "input_template": t.action.text if t.action.type is ActionType.INPUT else "",
            "observations": t.observations, "successes": t.successes, "failures": t.failures,
            "first_seen": t.first_seen, "last_seen": t.last_seen, "device": t.devices[0], "version": version}


def chunk_steps(trace: Trace, size: int) -> list[list[Step]]:
    """Split a trace's steps into chunks; a trace with no steps is one empty chunk."""
    if not trace.steps:
        return [[]]
    return [trace.steps[i:i + size] for i in range(0, len(trace.steps), size)]


def chunk_states(trace: Trace, steps: list[Step], first: bool) -> list[UIState]:
    """States a chunk writes: those its steps touch; the first chunk also takes
    the states no step touches, so every observation lands exactly once."""
    wanted = {s.source_state for s in steps} | {s.target_state for s in steps}
    if first:
        touched = {s.source_state for s in trace.steps} | {s.target_state for s in trace.steps}
        wanted |= set(trace.states) - touched
    return [trace.states[sid] for sid in sorted(wanted) if sid in trace.states]


def build_rows(trace: Trace, steps: list[Step], states: list[UIState],
               written_elements: set[str] | None = None, counted_states: set[str] | None = None,
               first: bool = True) -> ChunkRows:
    """Rows of one chunk (`first`: the trace's first). `written_elements` (element ids an earlier chunk of the
    same load already wrote) is updated in place, and those rows are not resent;
    likewise `counted_states`: states whose element texts an earlier chunk counted."""
    rows = ChunkRows()
    acted: dict[str, set[str]] = {}
    # What the trace itself typed: a field showing it shows content, not its name ("hello" typed into
    # the "Title" field). The field keeps a text it showed that was not typed, when it showed one.
    typed = {s.action.text for s in trace.steps if s.action.type == ActionType.INPUT and s.action.text}
    for step in steps:
        if step.action.element_key:
            acted.setdefault(step.source_state, set()).add(step.action.element_key)

    by_state = {state.state_id: state for state in states}
    screens: dict[str, Screen] = {}  # by state id
    elements: dict[str, dict[str, Element]] = {}  # by state id: key → element
    apps: dict[str, dict] = {}
    screen_rows: dict[str, dict] = {}
    element_rows: dict[str, dict] = {}
    texts: dict[str, dict[str, int]] = {}  # element id → text variant → observations
    default_seen = trace.started or now_iso()
    trusted = not trace.contributor  # a contribution's rows never overwrite what crawls and imports recorded
    for state in states:
        screen = screen_of(state, trace.package, trace.app_version)
        screens[state.state_id] = screen
        aid = app_id(screen.package, screen.app_version)
        apps[aid] = {"id": aid, "package": screen.package, "version": screen.app_version, "version_code": None}
        screen_rows[screen.id] = {
            "id": screen.id, "app_id": aid, "package": screen.package, "app_version": screen.app_version,
            "activity": screen.activity, "signature": screen.signature, "title": screen.title,
            "seen": state.observed_at or default_seen, "version": screen.app_version, "trusted": trusted,
            "contributor": trace.contributor,
        }
        rows.states.append({"id": state_node_id(state), "state_id": state.state_id, "screen_id": screen.id,
                            "package": state.package, "observed_at": state.observed_at or None})
        els = elements_of(state, screen, frozenset(acted.get(state.state_id, ())))
        elements[state.state_id] = {e.key: e for e in els.values()}
        if counted_states is None or state.state_id not in counted_states:
            for e in els.values():
                if e.text or e.content_desc:
                    variants = texts.setdefault(e.id, {})
                    variants[e.text or e.content_desc] = variants.get(e.text or e.content_desc, 0) + 1
            if counted_states is not None:
                counted_states.add(state.state_id)
        for e in els.values():
            if written_elements is not None and e.id in written_elements:
                continue
            if e.id in element_rows and e.text in typed and element_rows[e.id]["text"] not in typed:
                continue
            element_rows[e.id] = {
                "id": e.id, "screen_id": e.screen_id, "key": e.key, "class_name": e.class_name,
                "resource_id": e.resource_id, "text": e.text, "content_desc": e.content_desc, "label": e.label,
                "bounds": e.bounds.as_list(), "flags": e.flags, "locators": e.locators, "trusted": trusted,
                "contributor": trace.contributor,
            }
    own = app_id(trace.package, trace.app_version)
    apps[own] = {"id": own, "package": trace.package, "version": trace.app_version,
                 "version_code": trace.version_code}
    rows.apps = list(apps.values())
    rows.screens = list(screen_rows.values())
    rows.elements = list(element_rows.values())
    rows.element_texts = [{"id": eid, "texts": list(v), "counts": list(v.values()), "contributor": trace.contributor}
                          for eid, v in texts.items()]
    if written_elements is not None:
        written_elements.update(element_rows)

    transitions: dict[str, Transition] = {}
    # per edge, the concrete variants (formats/uixml.variant_id) its action went from and to, when it
    # worked: routes condition on the variant an agent stands in (graph/variants.py)
    variants: dict[str, set[str]] = {}
    leads: dict[tuple[str, str, str], dict] = {}
    first_own = next((s for s in trace.steps if s.source_state in trace.states
                      and trace.states[s.source_state].package == trace.package), None)
    for step in steps:
        src, dst = screens.get(step.source_state), screens.get(step.target_state)
        if src is None or dst is None:
            continue
        if step is first_own:
            rows.entry_screen = src.id
        action = step.action
        element = elements[step.source_state].get(action.element_key) if action.element_key else None
        seen = step.at or default_seen
        ok = step.ok and not by_state[step.target_state].crashed
        # A failed step counts against the edge the memory expected, when it names one.
        target = dst.id if ok or not step.expected_screen else step.expected_screen
        edge = Transition(src.id, target, action, element.id if element else "", first_seen=seen, last_seen=seen,
                          devices=[trace.device])
        edge = transitions.setdefault(edge.key, edge)
        edge.observe(ok, seen)
        if ok and trusted:
            pair = [variant_id(by_state[sid]) for sid in (step.source_state, step.target_state)]
            variants.setdefault(edge.key, set()).add(">".join(pair))
        if ok and element is not None and src.id != dst.id:
            before = set(elements[step.source_state])
            for target in elements[step.target_state].values():
                if target.key in before:
                    continue
                lk = (element.id, target.id, action.type.value)
                lead = leads.setdefault(lk, {"source": element.id, "target": target.id,
                                             "action": action.type.value, "observations": 0})
                lead["observations"] += 1
    rows.transitions = [{**transition_row(t, trace.app_version), "trusted": trusted, "contributor": trace.contributor,
                         "variants": sorted(variants.get(t.key, ()))} for t in transitions.values()]
    rows.leads_to = [{**lead, "contributor": trace.contributor} for lead in leads.values()]
    if trusted:  # a contribution's are votes (ingest/contributions.count_votes)
        rows.follows = follow_rows(trace, steps, screens, first)
    return rows

