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
from appmem.graph.screens import elements_of, screen_of, shown_texts
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


def vote_rows(contributor: str, transitions: list[dict]) -> list[dict]:
    """merge_votes rows from a chunk's transition rows (key, successes, failures): one Vote per edge and
    contributor (graph/votes.py), whatever trace and chunk adds to it."""
    return [{"id": stable_id("vote", t["key"], contributor), "key": t["key"], "successes": t["successes"],
             "failures": t["failures"]} for t in transitions]


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


@dataclass
class Sent:
    """What earlier chunks of one load already sent: element rows (not sent again) and the states whose
    element texts were counted (not counted twice). `build_rows` reads it; the load adds each chunk's rows."""
    elements: set[str] = field(default_factory=set)
    counted_states: set[str] = field(default_factory=set)

    def add(self, rows: ChunkRows) -> None:
        self.elements.update(r["id"] for r in rows.elements)
        self.counted_states.update(r["state_id"] for r in rows.states)


def build_rows(trace: Trace, steps: list[Step], states: list[UIState], sent: Sent | None = None,
               first: bool = True) -> ChunkRows:
    """Rows of one chunk (`first`: the trace's first) that writes `states` and `steps`; `sent`: what earlier
    chunks of the same load sent (None: a load of one chunk)."""
    chunk = _Chunk(trace, steps, sent)
    for state in states:
        chunk.add_state(state)
    for step in steps:
        chunk.add_step(step)
    return chunk.rows(first)


def acted_keys(steps: list[Step]) -> dict[str, set[str]]:
    """Per state id, the structural keys of the elements the steps acted on there."""
    acted: dict[str, set[str]] = {}
    for step in steps:
        if step.action.element_key:
            acted.setdefault(step.source_state, set()).add(step.action.element_key)
    return acted


def typed_texts(trace: Trace) -> set[str]:
    """What the trace itself typed: a field showing it shows content, not its name ("hello" typed into the
    "Title" field)."""
    return {s.action.text for s in trace.steps if s.action.type == ActionType.INPUT and s.action.text}


def first_own_step(trace: Trace) -> Step | None:
    """The run's first step on one of the app's own screens: where it entered the app."""
    return next((s for s in trace.steps if s.source_state in trace.states
                 and trace.states[s.source_state].package == trace.package), None)


class _Chunk:
    """The rows of one chunk, gathered as its states (nodes) and then its steps (edges) are added."""

    def __init__(self, trace: Trace, steps: list[Step], sent: Sent | None):
        self.trace, self.steps, self.sent = trace, steps, sent
        self.trusted = not trace.contributor  # a contribution's rows never overwrite what crawls and imports recorded
        self.default_seen = trace.started or now_iso()
        self.acted, self.typed, self.first_own = acted_keys(steps), typed_texts(trace), first_own_step(trace)
        self.states: dict[str, UIState] = {}
        self.screens: dict[str, Screen] = {}  # by state id
        self.elements: dict[str, dict[str, Element]] = {}  # by state id: key → element
        self.apps: dict[str, dict] = {}
        self.screen_rows: dict[str, dict] = {}
        self.state_rows: list[dict] = []
        self.element_rows: dict[str, dict] = {}
        self.texts: dict[str, dict[str, int]] = {}  # element id → text variant → observations
        self.transitions: dict[str, Transition] = {}
        # per edge, the concrete variants (formats/uixml.variant_id) its action went from and to, when it
        # worked: routes condition on the variant an agent stands in (graph/variants.py)
        self.variants: dict[str, set[str]] = {}
        self.leads: dict[tuple[str, str, str], dict] = {}
        self.entry_screen: str | None = None
        for sid, found in trace.located.items():  # steps seen in screenshots: memory's own screens, not written
            self.screens[sid], self.elements[sid] = found.screen, dict(found.elements)

    def add_state(self, state: UIState) -> None:
        """The state's app, screen and state rows, its elements' rows and text observations."""
        screen = screen_of(state, self.trace.package, self.trace.app_version)
        self.states[state.state_id], self.screens[state.state_id] = state, screen
        aid = app_id(screen.package, screen.app_version)
        self.apps[aid] = {"id": aid, "package": screen.package, "version": screen.app_version, "version_code": None}
        self.screen_rows[screen.id] = {
            "id": screen.id, "app_id": aid, "package": screen.package, "app_version": screen.app_version,
            "activity": screen.activity, "signature": screen.signature, "title": screen.title,
            "seen": state.observed_at or self.default_seen, "version": screen.app_version, "trusted": self.trusted,
            "contributor": self.trace.contributor,
        }
        shown = shown_texts(state)
        self.state_rows.append({"id": state_node_id(state), "state_id": state.state_id, "screen_id": screen.id,
                                "package": state.package, "observed_at": state.observed_at or None,
                                "texts": [text for text, _ in shown],
                                "text_boxes": [n for _, box in shown for n in box.as_list()]})
        els = list(elements_of(state, screen, frozenset(self.acted.get(state.state_id, ()))).values())
        self.elements[state.state_id] = {e.key: e for e in els}
        if self.sent is None or state.state_id not in self.sent.counted_states:
            self._count_texts(els)
        for e in els:
            self._element_row(e)

    def _count_texts(self, elements: list[Element]) -> None:
        for e in elements:
            if e.text or e.content_desc:
                variants = self.texts.setdefault(e.id, {})
                variants[e.text or e.content_desc] = variants.get(e.text or e.content_desc, 0) + 1

    def _element_row(self, e: Element) -> None:
        """The element's row, unless an earlier chunk sent it; a field keeps a text it showed that was not
        typed, when it showed one."""
        if self.sent is not None and e.id in self.sent.elements:
            return
        if e.id in self.element_rows and e.text in self.typed and self.element_rows[e.id]["text"] not in self.typed:
            return
        self.element_rows[e.id] = {
            "id": e.id, "screen_id": e.screen_id, "key": e.key, "class_name": e.class_name,
            "resource_id": e.resource_id, "text": e.text, "content_desc": e.content_desc, "label": e.label,
            "bounds": e.bounds.as_list(), "flags": e.flags, "locators": e.locators, "trusted": self.trusted,
            "contributor": self.trace.contributor,
        }

    def add_step(self, step: Step) -> None:
        """The step's observation on its UTG edge, its variants and the ETG edges it showed (added states only)."""
        src, dst = self.screens.get(step.source_state), self.screens.get(step.target_state)
        if src is None or dst is None:
            return
        if step is self.first_own:
            self.entry_screen = src.id
        action = step.action
        element = self.elements[step.source_state].get(action.element_key) if action.element_key else None
        seen = step.at or self.default_seen
        after = self.states.get(step.target_state)  # None: seen in a screenshot (no view tells a crash)
        ok = step.ok and not (after is not None and after.crashed)
        # A failed step counts against the edge the memory expected, when it names one.
        target = dst.id if ok or not step.expected_screen else step.expected_screen
        edge = Transition(src.id, target, action, element.id if element else "", first_seen=seen, last_seen=seen,
                          devices=[self.trace.device])
        edge = self.transitions.setdefault(edge.key, edge)
        edge.observe(ok, seen)
        pixels = step.source_state in self.trace.located or step.target_state in self.trace.located
        if ok and self.trusted and not pixels:
            pair = [variant_id(self.states[sid]) for sid in (step.source_state, step.target_state)]
            self.variants.setdefault(edge.key, set()).add(">".join(pair))
        if ok and element is not None and src.id != dst.id and not pixels:  # a screenshot shows no elements
            self._leads(step, element)

    def _leads(self, step: Step, element: Element) -> None:
        """ETG edges: from the element acted on to each element the step's target screen shows that its source
        screen did not."""
        before = set(self.elements[step.source_state])
        for shown in self.elements[step.target_state].values():
            if shown.key in before:
                continue
            lk = (element.id, shown.id, step.action.type.value)
            lead = self.leads.setdefault(lk, {"source": element.id, "target": shown.id,
                                              "action": step.action.type.value, "observations": 0})
            lead["observations"] += 1

    def rows(self, first: bool) -> ChunkRows:
        trace = self.trace
        own = app_id(trace.package, trace.app_version)
        # a contribution's versionCode is its sender's word: it never reorders the versions crawls saw (refresh_stale)
        apps = {**self.apps, own: {"id": own, "package": trace.package, "version": trace.app_version,
                                   "version_code": trace.version_code if self.trusted else None}}
        return ChunkRows(
            apps=list(apps.values()), screens=list(self.screen_rows.values()), states=self.state_rows,
            elements=list(self.element_rows.values()),
            element_texts=[{"id": eid, "texts": list(v), "counts": list(v.values()), "contributor": trace.contributor}
                           for eid, v in self.texts.items()],
            transitions=[{**transition_row(t, trace.app_version), "trusted": self.trusted,
                          "contributor": trace.contributor, "variants": sorted(self.variants.get(t.key, ()))}
                         for t in self.transitions.values()],
            leads_to=[{**lead, "contributor": trace.contributor} for lead in self.leads.values()],
            # a contribution's are votes (ingest/contributions.count_votes)
            follows=follow_rows(trace, self.steps, self.screens, first) if self.trusted else [],
            entry_screen=self.entry_screen)
