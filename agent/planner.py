"""Plans for agents: a task and where the agent is → executable steps over the app memory, no LLM.

1. The start: the agent's screen located in memory (agent/locate.py: exact,
   similar), or where recorded runs entered the app.
2. Targets: the k elements that best match the task by meaning, ranked as
   semantic.ranking.search_elements ranks them. A list row showing an item the task
   names is an *anchor* (a slot to select on the way), never a target. Twins among the
   targets (one control on several screens) rank as the best of them (rule `twin_rank`).
3. Candidates: for every start and target, the most reliable route
   (agent/appgraph.py), the routes through a control the task names, through an
   anchor when the task names an item (agent/candidate_routes.py), with the screen work the
   task asks on the way (agent/compose.py); every candidate is scored as a whole
   plan and the best one is answered. It ends at its goal: nothing follows it.
4. No route from the start to any target: `route` "none", no steps, and the
   best targets with their screens as alternatives. Nothing is invented.
The app's UTG and element vectors are read once per package set and kept
(agent/appgraph.py, semantic/ranking.py; `forget` drops them after the memory changed).
"""
from __future__ import annotations

from typing import Any, Callable

from appmem.agent.appgraph import AppGraph, first_line, twin_key
from appmem.agent.crowd import borrow_from_lookalikes, lend
from appmem.agent.compose import Anchor, RouteCandidate, compose, score
from appmem.agent.locate import locate
from appmem.agent.candidate_routes import candidates, named_taps
from appmem.agent.screenwork import confirm, dialog_button, fields, label, role
from appmem.agent.taskparse import ParsedTask, parse_task
from appmem.errors import InvalidInput, NotFound
from appmem.formats.privacy import PLACEHOLDER
from appmem.formats.ui import UIState
from appmem.formats.uixml import variant_id
from appmem.graph.graphrows import GraphRows
from appmem.graph.model import Element, RoutePlan
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.vocabulary import BACK_WORDS, label_of
from appmem.graph.store import GraphStore
from appmem.semantic.embedder import Embedder
from appmem.semantic.layercache import LayerCache
from appmem.semantic.layers import Layer, Row, layer_digest, layer_rows, task_rows
from appmem.semantic.ranker import Ranker, installed
from appmem.planconfig import DEFAULT, PlannerConfig
from appmem.semantic.ranking import ElementIndex
from appmem.semantic.points import Hit
from appmem.semantic.vectors import VectorStore

CANDIDATES = 10
ENTRY_SCREENS = 3
ALTERNATIVES = 5
FORM_VALUES = 2


class PlanningError(NotFound):
    """No plan can be made: nothing in memory for the app, or a start screen it does not know."""


class Planner:
    """Plans over an injected graph store, vector store and embedder."""

    def __init__(self, store: GraphStore, vectors: VectorStore, embedder: Embedder, k: int = CANDIDATES,
                 ranker: Ranker | None = None, config: PlannerConfig = DEFAULT,
                 public: Callable[[], "Planner"] | None = None, layers: LayerCache | None = None):
        """`config`: the ranking and planning options (the settings' `planner`). `public`: for a tenant's view
        (its store's reader), the public's planner of the same memory: where it holds an app's graph rows and
        element index, the view lays its own layer over them (graph/graphrows.py, ElementIndex.with_rows).
        `layers`: where a tenant's view finds its own points as computed from the same graph, and keeps those it
        computes (semantic/layercache.py); None: computed at each load."""
        self.store = store
        self.config = config
        self.vectors = vectors
        self.embedder = embedder
        # The learned element ranker of this memory (`appmem ranker train`), when one was trained.
        self.ranker = ranker if ranker is not None else installed(getattr(embedder, "home", None))
        self.k = k
        self._public = public
        self.layers = layers
        self._graphs: dict[tuple[str, ...], AppGraph] = {}
        self._rows: dict[tuple[str, ...], GraphRows] = {}  # the public's graphs', that tenants' views lay theirs over
        self._indexes: dict[tuple[str, ...] | None, ElementIndex] = {}
        self._own: dict[tuple[str, tuple[str, ...] | None], list[Row]] = {}  # a tenant view's (`own`)
        self._forgotten = 0  # forget() calls: a load that began before one is not kept (it may be stale)

    def graph(self, packages: list[str]) -> AppGraph:
        """The graph of `packages` as the store's reader reads it (kept): for a tenant's view, its layer laid over
        the public's rows where the process holds them (a server preloads them), else its whole view read."""
        key = tuple(sorted(packages))
        if key not in self._graphs:
            return self._keep(self._graphs, key, lambda: borrow_from_lookalikes(self.store, AppGraph.build(
                self._rows_of(key))))
        return self._graphs[key]

    def _rows_of(self, key: tuple[str, ...]) -> GraphRows:
        if not self.store.viewer.tenant:
            return self._keep(self._rows, key, lambda: GraphRows.read(self.store, list(key)))
        shared = self._public().loaded_rows(key) if self._public is not None else None
        return shared.with_layer(self.store) if shared is not None else GraphRows.read(self.store, list(key))

    def loaded_rows(self, key: tuple[str, ...]) -> GraphRows | None:
        """The rows of the graph of the packages `key` (sorted) this planner holds, None if it loaded none."""
        return self._rows.get(key)

    def loaded_index(self, key: tuple[str, ...]) -> ElementIndex | None:
        """The element index of the packages `key` (sorted) this planner holds, None if it loaded none."""
        return self._indexes.get(key)

    def index(self, packages: list[str] | None) -> ElementIndex:
        """The element index of `packages`; None: of every app (app choice), kept until any app changes."""
        key = None if packages is None else tuple(sorted(packages))
        if key not in self._indexes:
            return self._keep(self._indexes, key, lambda: self._load_index(None if key is None else list(key)))
        return self._indexes[key]

    def _load_index(self, packages: list[str] | None) -> ElementIndex:
        """The shared points of `packages` (every app when None) with what other apps' look-alike screens lend
        them (agent/crowd.lend); a tenant's view adds its own elements (semantic/layers.py): of `packages`, or
        of every app its keys reported."""
        shared = self._public().loaded_index(tuple(sorted(packages))) \
            if self.store.viewer.tenant and packages and self._public is not None else None
        if shared is not None:  # the public's index of them, which the process holds, with the view's own elements
            indexed = {p.get("element_id") for p in shared.payloads}
            return shared.with_rows(self._layer(packages, indexed, set()).elements, self.vectors.dim)
        apps = self.vectors.packages("elements") if packages is None else packages
        rows = self.vectors.points("elements", apps)
        rows = rows if packages is None else lend(self.graph(packages), self.vectors, rows)
        if not self.store.viewer.tenant:
            return ElementIndex.from_rows(rows, self.vectors.dim, self.ranker, self.config.ranking)
        indexed = {p.get("element_id") for _, p in rows}
        groups = [packages] if packages else [[r["package"]] for r in self.store.read("layer_apps")]
        layer = [row for group in groups for row in self._layer(group, indexed, set()).elements]
        return ElementIndex.from_rows(rows + layer, self.vectors.dim, self.ranker, self.config.ranking)

    def _layer(self, packages: list[str], indexed: set[str], screens: set[str]) -> Layer:
        """A tenant view's own points of `packages`: the elements its graph holds that the shared points
        (`indexed`) lack, and the screens `screens` (ids) of those apps."""
        graph = self.graph(packages)
        own = {i for i, e in graph.elements.items() if i not in indexed and label_of(e).lower() not in BACK_WORDS
               and graph.screens.get(e.screen_id, {}).get("package") in packages}  # what summarize never embeds
        layer = self._points(graph, packages, own, screens)
        graph.risky.update(p["element_id"] for _, p in layer.elements if p.get("risky"))  # summarize never flagged them
        return layer

    def _points(self, graph: AppGraph, packages: list[str], own: set[str], screens: set[str]) -> Layer:
        """`layer_rows` of the view's graph of `packages`: as kept when they were computed from this very graph
        (the ingest worker computes them after each of the tenant's contributions), else computed and kept."""
        rows, tenant = graph.context_rows(), self.store.viewer.tenant
        if self.layers is None:
            return layer_rows(*rows, own, screens, self.embedder, tenant)
        scope = f"{'screens' if screens else 'elements'}:{','.join(sorted(packages))}"
        digest = layer_digest(*rows, own, screens, getattr(self.embedder, "model_id", ""))
        kept = self.layers.get(tenant, scope, digest)
        if kept is None:
            kept = layer_rows(*rows, own, screens, self.embedder, tenant)
            self.layers.put(tenant, scope, digest, kept, packages)
        return kept

    def own(self, kind: str, packages: list[str] | None) -> list[Row]:
        """A tenant view's own points of `kind` ("screens" or "tasks") in `packages` (every app when None),
        kept as the indexes are: the screens only its keys reported, the demonstrations they sent (none for
        the public's planner: the shared collections hold what it reads)."""
        if not self.store.viewer.tenant:
            return []
        key = (kind, None if packages is None else tuple(sorted(packages)))
        if key not in self._own:
            return self._keep(self._own, key, lambda: self._load_own(kind, packages))
        return self._own[key]

    def embed_layer(self, packages: list[str]) -> None:
        """A tenant view's own points of `packages` computed now (its elements, the screens only its keys
        reported, their demonstrations): their texts' vectors land in the embedder's cache under the
        tenant's namespace, where its plans' first loads then find them (semantic/layers.py)."""
        self.index(packages)
        self.own("screens", packages)
        self.own("tasks", packages)

    def _load_own(self, kind: str, packages: list[str] | None) -> list[Row]:
        if kind == "tasks":
            rows = (self.store.read("layer_tasks", packages=packages) if packages is not None
                    else self.store.read("layer_tasks_every"))
            return task_rows(rows, self.embedder, self.store.viewer.tenant)
        apps = packages or [r["package"] for r in self.store.read("layer_apps")]
        shared = set(self.vectors.values("screens", "object_id", apps))
        rows = []
        for app in apps:
            graph = self.graph([app])
            mine = {sid for sid, s in graph.screens.items() if s.get("package") == app and sid not in shared}
            rows += self._layer([app], set(graph.elements), mine).screens if mine else []
        return rows

    def _keep(self, cache: dict, key: Any, load: Callable[[], Any]) -> Any:
        forgotten = self._forgotten
        value = load()
        if forgotten == self._forgotten:
            cache[key] = value
        return value

    def forget(self, packages: list[str] | None = None) -> None:
        """Drop what was read of the memory (after an import or `summarize`): all of it, or what holds
        any of `packages` (the every-app index too)."""
        self._forgotten += 1
        changed = set(packages or ())
        for cache in (self._graphs, self._rows, self._indexes, self._own):
            for key in list(cache):
                apps = key[1] if cache is self._own else key
                if packages is None or apps is None or changed.intersection(apps):
                    cache.pop(key, None)

    def plan(self, task: str, packages: list[str], start: str | UIState | None = None, k: int | None = None,
             came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None,
             config: PlannerConfig | None = None) -> RoutePlan:
        """`came_from`: the agent's previous step ({screen_id, action, element_id, detail}): routes from its
        start weigh where actions landed after that step; `avoid`: steps (the same fields) that failed from their
        screens in the agent's run: routes leave them out (AppGraph.coming). `config`: other options than the
        planner's own for this plan (benches compare variants on one loaded memory)."""
        config = config or self.config
        if not task.strip():
            raise InvalidInput("task", "the task is empty")
        graph = self.graph(packages)
        parsed = parse_task(task, config).with_case_of(label(e) for e in graph.elements.values()).in_app(packages)
        # the hits the plan reads: the k best, or the whole pool when a form may take the task's values (`_forms`)
        wanted = config.pool if _fills_forms(parsed) else min(k or self.k, config.pool)
        ranked = self.index(packages).search(self.embedder.query(task), task, wanted, config.ranking)
        if not ranked or not graph.elements:
            raise PlanningError(f"no element memory for {', '.join(packages)}: run `appmem summarize` first")
        # the controls a quote names (`_named_controls`); None: the task quotes none, every target is a goal
        named_controls = _named_controls(graph, parsed) \
            if parsed.labels and config.quoted_label else None
        hits = ranked[:k or self.k] + self._forms(graph, parsed, ranked, config) + self._quoted(named_controls, ranked)
        starts, where = self._starts(graph, packages, start)
        graph = graph.coming(came_from, where["screen_id"], variant_id(start) if isinstance(start, UIState) else "",
                             avoid)
        anchors = self._anchors(graph, parsed, start, where)
        found = [(graph.elements[h.payload["element_id"]], h.score) for h in hits
                 if h.payload.get("element_id") in graph.elements]
        # recorded list rows are items, never targets by themselves: a named one is reached as a slot
        # an element acted on in vain from its screen in the agent's run (`avoid`) is no target either
        failed = {(a["screen_id"], a.get("element_id")) for a in avoid or () if a.get("element_id")}
        targets = [(e, s) for e, s in found if not any(a.same_rows(e, config) for a in anchors)
                   and not PLACEHOLDER.search(e.text + e.content_desc) and (e.screen_id, e.id) not in failed]
        targets = _as_twins(graph, targets) if config.twin_rank else targets
        finals = {a.row.id: s for e, s in found for a in anchors if a.same_rows(e, config)}
        named = named_taps(graph, parsed, config)
        best: RouteCandidate | None = None
        for origin in starts:
            for target, retrieval in self._goals(named_controls, targets):
                for candidate in candidates(graph, parsed, origin, target, retrieval, anchors, named, config):
                    candidate.score = score(candidate, parsed, config)
                    if best is None or candidate.score > best.score:
                        best = candidate
            for anchor in anchors:  # the task may be about the item itself ("open Diary.pdf")
                to_row = graph.route(origin, anchor.row.screen_id)
                if anchor.row.id in finals and to_row is not None:
                    candidate = compose(graph, parsed, None, finals[anchor.row.id], [to_row], anchor, config)
                    candidate.score = score(candidate, parsed, config)
                    if best is None or candidate.score > best.score:
                        best = candidate
        package = packages[0] if len(packages) == 1 else ",".join(packages)
        alternatives = [{"screen_id": t.screen_id, "screen": graph.screens.get(t.screen_id, {}).get("title", ""),
                         "label": t.label, "score": round(s, 4)}
                        for t, s in targets if best is None or t.id != best.target.id][:ALTERNATIVES]
        if best is None:
            return RoutePlan(task, package, [], source="none", route="none", start=where, alternatives=alternatives)
        known = graph.packages_of([s.to_screen for s in best.steps if s.to_screen])
        for step in best.steps:  # where memory saw a step go, when it left the app (the runtime's outcome)
            step.to_package = known.get(step.to_screen, "")
        return RoutePlan(task, package, best.steps, start=where, alternatives=alternatives)

    @staticmethod
    def _goals(named_controls: list[Element] | None, targets: list[tuple[Element, float]]
               ) -> list[tuple[Element, float]]:
        """The targets a plan may end on. A task that quotes a control after a verb of touching ("tap 'Sort by'")
        names it: only the controls it names are goals, and a plan that cannot reach one is no plan (another
        element ending it would be taken as the task done)."""
        if named_controls is None:
            return targets
        named = {e.id for e in named_controls}
        return [(e, s) for e, s in targets if e.id in named]

    @staticmethod
    def _quoted(named_controls: list[Element] | None, ranked: list[Hit]) -> list[Hit]:
        """The controls the task quotes after a verb of touching: the quote names the control, which the meaning
        ranking may place below look-alikes or leave out (a back button is no summarised target). Each joins the
        targets at the best retrieval score; the plan's score still weighs its route."""
        if not named_controls or not ranked:
            return []
        return [Hit("elements", ranked[0].score, {"element_id": e.id, "screen_id": e.screen_id, "label": label(e)})
                for e in named_controls]

    @staticmethod
    def _forms(graph: AppGraph, parsed: ParsedTask, ranked: list[Hit], config: PlannerConfig) -> list[Hit]:
        """Confirm buttons of the forms that take FORM_VALUES or more of the task's values (one for
        "from X to Y", which edits a field): a task that states values is done on the form that fits
        them. A confirm button's words say little, so the form scores as its best element or the
        best element that opens it."""
        needed = _form_values_needed(parsed)
        if len(parsed.values) < needed:
            return []
        by_id = {h.payload.get("element_id"): h for h in ranked}
        ways_in: dict[str, list[str]] = {}
        for edges in graph.edges.values():
            for edge in edges:
                ways_in.setdefault(edge.target, []).append(edge.element_id)
        out = []
        for screen in graph.on_screen:
            elements = graph.screen_elements(screen)
            ok = confirm(elements, set())
            if ok is None or ok.id not in by_id or len(fields(elements, parsed, set(), config)) < needed:
                continue
            related = [by_id[i].score for i in [e.id for e in elements] + ways_in.get(screen, []) if i in by_id]
            out.append(Hit(by_id[ok.id].kind, max(related), by_id[ok.id].payload))
        return out

    def _starts(self, graph: AppGraph, packages: list[str], start: str | UIState | None) -> tuple[list[str], dict]:
        if start is None:
            starts = [s for s in graph.entries[:ENTRY_SCREENS] if s in graph.screens]
            return starts, {"screen_id": starts[0] if starts else None, "match": "entry", "score": 1.0}
        try:
            found = locate(self.store, packages[0], start, graph)
        except NotFound as exc:
            raise PlanningError(f"unknown start screen: {exc}") from None
        if found["screen_id"] is not None:
            return [found["screen_id"]], {k: found[k] for k in ("screen_id", "match", "score")}
        # unknown: plan from the nearest screens, and say so in `start`
        nearest = [c["screen_id"] for c in found["candidates"][:ENTRY_SCREENS]]
        return nearest, {"screen_id": None, "match": "unknown", "score": found["score"]}

    def _anchors(self, graph: AppGraph, parsed: ParsedTask, start: str | UIState | None, where: dict) -> list[Anchor]:
        """List rows showing an item the task names, on the live screen or anywhere in memory."""
        if not parsed.entities:
            return []
        wanted = {e.lower(): e for e in parsed.entities}
        rows: list[Element] = graph.showing(wanted)
        if isinstance(start, UIState) and where.get("screen_id"):
            screen = screen_of(start, start.package, "")
            screen.id = where["screen_id"]
            rows += [e for e in elements_of(start, screen).values() if first_line(e) in wanted]
        out, seen = [], set()
        for row in rows:
            if row.content_desc or role(row) != "tap" or (row.screen_id, row.key) in seen:
                continue
            opens = graph.opens(row) or graph.sibling_opens(row)
            if opens:
                seen.add((row.screen_id, row.key))
                out.append(Anchor(row, wanted[first_line(row)], opens))
        return out


def _form_values_needed(parsed: ParsedTask) -> int:
    """How many values a task states for a form to take them (`Planner._forms`): one for "from X to Y", else
    FORM_VALUES."""
    return 1 if parsed.old else FORM_VALUES


def _fills_forms(parsed: ParsedTask) -> bool:
    """The task states values enough for a form to take."""
    return len(parsed.values) >= _form_values_needed(parsed)


def _as_twins(graph: AppGraph, targets: list[tuple[Element, float]]) -> list[tuple[Element, float]]:
    """Each target scored as the best of its twins among the targets (same label, resource id and role: one control
    shown on several screens, such as an item's Delete on its page and on its edit form), unless memory saw them
    do different things: which screen shows the control says how far it is, not what it does, so the route's cost
    chooses between them. A dialog's OK or Cancel is no such control (each closes its own dialog)."""
    groups: dict[tuple[str, str, str], list[tuple[Element, float]]] = {}
    for e, s in targets:
        if not dialog_button(e) and label(e):
            groups.setdefault(twin_key(e), []).append((e, s))
    out = []
    for e, s in targets:
        twins = groups.get(twin_key(e), ())
        mine = graph.opens(e)
        same = [x for t, x in twins if not (mine and (theirs := graph.opens(t)) and theirs != mine)]
        out.append((e, max([s, *same])))
    return out


def _named_controls(graph: AppGraph, parsed: ParsedTask) -> list[Element]:
    """The controls labelled word for word as the task quotes after a verb of touching; when memory has none so
    labelled, those whose label's words are the quote's or among them ("Settings…", a word less). A field showing
    the text is where the text goes, not what the task touches."""
    controls = [e for e in graph.elements.values() if role(e) != "input"]
    exact = [e for e in controls if parsed.quotes(label(e))]
    if exact:
        return exact
    return [e for e in controls if parsed.says(label(e))]

