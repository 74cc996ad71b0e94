"""The one front door: plan, locate, hints, doc, search, apps and maps, for the CLI, the API and the MCP server alike.

`Service` holds the memory's clients (graph store, vector store, embedder,
opened once and injected) and one `Planner` with its `Recall`, kept loaded: their
per-app graphs and element indexes are what make a new plan fast. Every answer
is a `contract` model. The task is checked, the package it names read and the app
resolved once, here, and so is the agent's screen (`agent.locate.agent_screen`).

A plan request goes:
1. which app: the one named (or named in the task), else the one a fitting stored task
   or the best element names (agent/apps.py);
2. where the agent is: a screen id, or a dumped screen located in memory (agent/locate.py);
3. recall: a stored task that fits, adapted to the new parameters (agent/recall.py);
4. else the planner over the memory (agent/planner.py);
5. steps that switch apps go in front where the agent is in another app (agent/crossapp.py);
6. the plan as agents read it (`contract.Plan`, agent/planjson.py), with hints for the agent's
   current screen where it said where it is (agent/hints.py).

Plans are cached per request and per generation of the apps the request touches
(`appmem.generations`; `agent.plancache`): in process,
and in Redis when one is given, so that every server worker shares them and a
change to an app (an ingest, a contribution, a purge) retires its plans at once;
each within APPMEM_PLAN_CACHE_MB.
What a worker loaded follows the generations too: when the memory-wide counter
moved (one Redis read per planned request), the apps whose counters moved are
dropped (their graphs, their indexes, the every-app index of app choice) and
read again on their next request; the other apps stay loaded.
"""
from __future__ import annotations

import gc
import hashlib
import json
import threading
import time
from collections import OrderedDict
from typing import Any

from appmem.agent.apps import app_for_screen, choose_app, named_package
from appmem.agent.crossapp import connect, packages_of
from appmem.agent.hints import hints
from appmem.agent.locate import agent_screen, html_reader, locate, state_from_xml
from appmem.agent.pixels import with_taps
from appmem.agent.plancache import PlanCache
from appmem.agent.planjson import agent_plan
from appmem.agent.planner import Planner, PlanningError
from appmem.agent.recall import Recall
from appmem import generations
from appmem.errors import ConfigError, InvalidInput, NotFound
from appmem.formats.image import from_base64
from appmem.settings import Settings
from appmem.tracing import span
from appmem.contract import HintsAnswer, LocateAnswer, Plan
from appmem.graph.model import RoutePlan, UIState
from appmem.graph.store import GraphStore
from appmem.semantic.layercache import LayerCache
from appmem.semantic.search import one_app, resolve_app, search
from appmem.graph.votes import shown_counts

APPS_CACHE_S = 30.0  # how long the list of apps in memory is reused (a new app shows up within this)
VIEWS = 32  # tenants' views kept loaded (each holds the graphs and indexes its keys read)


class Service:
    def __init__(self, store: GraphStore, vectors: Any, embedder: Any, settings: Settings, redis: Any = None,
                 layers: LayerCache | None = None):
        """`layers`: where tenants' views find their own points as last computed (semantic/layercache.py),
        shared by every view of the service; None: each view computes them when it loads an app."""
        self.store, self.vectors, self.embedder, self.settings = store, vectors, embedder, settings
        self.layers = layers
        self._lock = threading.Lock()
        self._plans = PlanCache(budget=settings.plan_cache_mb << 20)
        self.redis = redis  # None: no shared plan cache and no generations (a one-off CLI call)
        self._apps: tuple[float, list[str]] | None = None
        self._planner: Planner | None = None
        self._recall: Recall | None = None
        self._followed: str | None = None  # the memory-wide generation that `_loaded` was read at
        self._loaded: dict[str, str] = {}  # package -> its generation then
        self.tenant = ""  # whose view this is: "" the public's, else a tenant's (`viewing`)
        self._public: Service | None = None  # a tenant's view: the public's service, whose graphs' rows it shares
        self._views: OrderedDict[str, Service] = OrderedDict()
        self._frozen = False  # what this service loaded is out of the collector's sight (`freeze`)

    def viewing(self, tenant: str) -> "Service":
        """The service as `tenant`'s keys read the memory: the shared base and the tenant's own layer (its
        store's reads admit both: graph/store.py Viewer), with loaded graphs, indexes and cached plans of its
        own; the public's view for no tenant. The newest VIEWS views are kept."""
        if not tenant:
            return self
        with self._lock:
            view = self._views.pop(tenant, None)
            if view is None:
                view = Service(self.store.viewing(tenant, self.settings.tenant_quorum), self.vectors, self.embedder,
                               self.settings, self.redis, self.layers)
                view.tenant, view._public = tenant, self
            self._views[tenant] = view
            while len(self._views) > VIEWS:
                self._views.popitem(last=False)
        return view

    def embed_layer(self, tenant: str, packages: list[str]) -> int:
        """Embed `tenant`'s own points of `packages` into the embedder's cache, under its namespace, on a view
        that keeps nothing loaded, and keep the points (`layers`): what the ingest worker runs after each of the
        tenant's contributions, so that its keys' first plan of an app reads its layer's points and computes
        none. How many texts the model ran (the cache holds the rest)."""
        view = Service(self.store.viewing(tenant, self.settings.tenant_quorum), self.vectors, self.embedder,
                       self.settings, layers=self.layers)
        view.tenant = tenant
        before = self.embedder.computed
        view.planner().embed_layer(packages)
        return self.embedder.computed - before

    def drop_view(self, tenant: str) -> None:
        """Forget `tenant`'s view (its loaded layer), as after its purge."""
        with self._lock:
            self._views.pop(tenant, None)

    @property
    def redis(self) -> Any:
        return self._plans.redis

    @redis.setter
    def redis(self, redis: Any) -> None:
        """The server gives its Redis after the service is opened: the plan cache shares it from then on."""
        self._plans.redis = redis

    @classmethod
    def open(cls, settings: Settings, redis: Any = None, vectors: bool = True, read_only: bool = False,
             threads: int | None = None) -> "Service":
        """The service over the configured stores. `vectors=False`: the graph alone (enough for `doc`, and
        it leaves the local Qdrant folder to its owner). `read_only`: vectors a serve worker may share with
        other processes (`reader_vectors`). `threads`: the model's ONNX threads (default: the cores). The
        process's BLAS threads are set to `settings.blas_threads` (semantic/blas.py)."""
        from appmem.graph.clients import open_graph
        from appmem.semantic.blas import limit_blas
        from appmem.semantic.embedder import Embedder
        from appmem.semantic.vectors import open_vectors

        store = open_graph(settings)
        if not vectors:
            return cls(store, None, None, settings, redis)
        limit_blas(settings.blas_threads)
        try:  # either checks that the memory's vectors are settings.embed_model's (semantic/modelrecord.py)
            embedder = Embedder(settings.home, threads=threads, model=settings.embed_model)
            found = reader_vectors(settings, embedder.dim) if read_only else open_vectors(settings, embedder.dim)
        except BaseException:
            store.driver.close()
            raise
        return cls(store, found, embedder, settings, redis, LayerCache.at(settings.home))

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.close()
        if self.layers is not None:
            self.layers.close()
        self.store.driver.close()

    # -- what memory holds ---------------------------------------------------------------------
    def known(self) -> list[str]:
        """The apps in memory (re-read every APPS_CACHE_S)."""
        with self._lock:
            if self._apps and time.monotonic() - self._apps[0] < APPS_CACHE_S:
                return self._apps[1]
        apps = [r["package"] for r in self.store.read("semantic_packages")]
        with self._lock:
            self._apps = (time.monotonic(), apps)
        return apps

    def packages(self, app: str) -> list[str]:
        """The packages `app` (a package or a short name) designates."""
        return resolve_app(self._known_some(), app)

    def package(self, app: str) -> str:
        """The one package `app` designates (a short name that designates several is refused, naming them)."""
        return one_app(self._known_some(), app)

    def _known_some(self) -> list[str]:
        if not (known := self.known()):
            raise PlanningError("the memory holds no app yet: import or crawl one, then `appmem summarize`")
        return known

    def generation(self, packages: list[str] = ()) -> str:
        return generations.current(self.redis, packages) if self.redis is not None else "0"

    def planner(self) -> Planner:
        """The Planner, holding nothing of an app older than the app's current generation."""
        return self._loaded_memory()[0]

    def _loaded_memory(self) -> tuple[Planner, Recall]:
        with self._lock:
            if self._planner is None or self._recall is None:
                self._planner = Planner(self.store, self.vectors, self.embedder, config=self.settings.planner,
                                        public=self._public.planner if self._public is not None else None,
                                        layers=self.layers)
                self._recall = Recall(self.store, self.vectors, self.embedder, self._planner)
            loaded = self._planner, self._recall
        if self.redis is not None:
            self._follow(loaded[0])
        return loaded

    def _follow(self, planner: Planner) -> None:
        """Drop what `planner` loaded of the apps whose generation moved since the last look. Nothing moved:
        one Redis read. The memory-wide counter is read first: an app bumped after it is seen next time."""
        memory = generations.current(self.redis)
        if memory == self._followed:
            return
        self._apps = None  # a new app shows up at once
        known = self.known()
        now = dict(generations.counters(self.redis, known)) if known else {}
        with self._lock:
            changed = [p for p in set(now) | set(self._loaded) if now.get(p) != self._loaded.get(p)]
            self._loaded, self._followed = now, memory
        if changed:
            planner.forget(changed)
            self.thaw()

    def forget(self) -> None:
        """Drop what was read of the memory (after it changed in this process, with no Redis to say so)."""
        with self._lock:
            self._plans.clear()
            self._apps = None
            self._planner = self._recall = None
            self._followed = None
        self.thaw()

    def preload(self, packages: list[str] | None = None, stop: threading.Event | None = None) -> list[str]:
        """Load each app's graph and element index now, and search its routes from every screen, so that its first
        plan is a warm one and new plans search no route; `stop` set ends it between two apps (the server is
        shutting down)."""
        planner = self.planner()
        done = []
        for package in packages or self.known():
            if stop is not None and stop.is_set():
                break
            planner.graph([package]).search_routes()
            planner.index([package])
            done.append(package)
        return done

    def freeze(self) -> None:
        """Keep what the process holds now (the preloaded apps' graphs and indexes) out of the garbage collector's
        full collections (gc.freeze), for a server once it has preloaded: each full collection walked every
        loaded object while every request waited (the four heaviest shared apps: 312,000 objects, 133 ms, about
        once in 120 new plans: ≈ 1.1 ms of CPU a plan). What the process frees stays freed (reference counts);
        only cycles among the frozen objects would wait, so a change that drops loaded memory thaws them
        (`thaw`), and the collector sees everything again from then on."""
        gc.collect()
        gc.freeze()
        self._frozen = True

    def thaw(self) -> None:
        """What `freeze` kept from the collector is in its sight again (loaded memory was dropped, or the server
        stops): it may hold cycles only the collector frees."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    # -- the answers -----------------------------------------------------------------------------
    def plan(self, task: str, app: str | None = None, screen_id: str | None = None, screen_xml: str | None = None,
             screen_html: str | None = None, activity: str | None = None, k: int | None = None,
             came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None,
             screenshot: str | None = None) -> Plan:
        """The plan from the agent's screen (a dump, a screenshot, an id) or the app's entry; the app is found when
        not named (a screenshot's must be). `came_from`: the agent's previous step ({screen_id, action, element_id,
        detail}), when it took one (its plan's first hop is weighed after it: graph/routes.py); `avoid`: steps (the same fields) that failed from their screens in the agent's
        run (routes leave them out). From a screenshot (base64 PNG or JPEG), each step's element also has its tap point in its pixels."""
        with span("appmem.plan", task=task, app=app or ""):
            if not task.strip():
                raise InvalidInput("task", "the task is empty")
            avoid = avoid or None  # no steps to avoid, however sent: one cache key
            # a package the task names ("tap 'X' in org.example.app") is where to plan, not the screen's package
            # (a system overlay, a dialog of another app); the task is planned without it
            named, bare = named_package(self.known(), task)
            app = app or named
            if screen_html and not (app or screen_xml):  # an HTML screen names no app: choose it first
                app = self._app_for_html(task, screen_html, activity)
            packages = self.packages(app) if app else []
            screen = agent_screen(packages[0] if packages else None, screen_xml, screen_html, activity) \
                if screen_xml or screen_html else None
            if screen is not None and packages:
                screen = self._drawn_over(packages[0], screen, screen_xml, activity) or screen
            touched = packages + ([screen.package] if screen is not None else [])
            key = hashlib.sha256(json.dumps([task, app, screen_id, screen_xml, screen_html, activity, k, came_from, avoid,
                                             self.generation(touched), screenshot, self.tenant]).encode()).hexdigest()
            cached = self._plans.get(key)
            if cached is None:
                with self._plans.computing(key) as flight:
                    cached = flight.plan_json  # planned by another thread while this one waited
                    if cached is None:
                        plan = self._planned(task, bare, app, packages, screen_id, screen, activity, k, came_from,
                                             avoid, screenshot)
                        flight.plan_json = plan.model_dump_json()
                        self._plans.put(key, flight.plan_json)
                        return plan
            return Plan.model_validate_json(cached)

    def _planned(self, task: str, bare: str, app: str | None, packages: list[str], screen_id: str | None,
                 screen: UIState | None, activity: str | None, k: int | None, came_from: dict[str, str] | None,
                 avoid: list[dict[str, str]] | None, screenshot: str | None) -> Plan:
        """`plan`'s answer computed (no kept plan)."""
        if screenshot is not None:  # read once the plan is not cached: OCR is the costly part
            screen = agent_screen(packages[0] if packages else None, activity=activity,
                                  screenshot=from_base64(screenshot))
        start: str | UIState | None = screen_id
        if screen is not None:
            start = screen if not packages or screen.package in packages else self._elsewhere(screen)
        if screen is not None and not app:
            plan = self._from_dump(task, screen, k, came_from, avoid)
        else:
            plan = self._answer(task, bare, packages, start, k, came_from, avoid)
        if screenshot is not None:
            plan = with_taps(plan, self.store, self.planner().graph([screen.package]), screen)
        return plan

    def plan_afresh(self, task: str, app: str, start: UIState | None = None) -> Plan:
        """A plan computed now from `start` (else the app's entry), never taken from the plan cache: what the
        planner costs and answers (bench/serve.py, bench/pixels.py)."""
        return self._answer(task, named_package(self.known(), task)[1], self.packages(app), start)

    def _answer(self, task: str, bare: str, packages: list[str], start: str | UIState | None, k: int | None = None,
                came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None) -> Plan:
        """The plan as agents read it: planned for `bare` (the task without a package it names) in `packages`
        (chosen for the task when empty), with how the app was chosen and, when `start` says where the agent
        is, hints for its screen."""
        choice = None
        if not packages:
            choice = choose_app(self._loaded_memory()[1], bare)
            if choice is None:
                raise PlanningError("no element memory at all: run `appmem summarize` first")
            packages = [choice.package]
        plan = self._route(bare, packages, start, k, came_from, avoid)
        hinted = None
        if start is not None:
            # Hints lead to the task's targets, which live in the plan's app: on another app's screen
            # (a launcher, a permission page) there are none to give.
            package = start.package if isinstance(start, UIState) else packages_of(self.store, [start]).get(start)
            hinted = self._hints(task, package, start)["hints"] if package == plan.package else []
        return agent_plan(plan, choice, hinted)

    def _route(self, task: str, packages: list[str], start: str | UIState | None, k: int | None,
               came_from: dict[str, str] | None, avoid: list[dict[str, str]] | None) -> RoutePlan:
        """A stored task recalled for the task, else the planner's route; from another app's screen, the way
        into the app in front (an observed cross-app path, else the launcher)."""
        planner, recall = self._loaded_memory()
        start_id = start if isinstance(start, str) or start is None else self._locate(packages[0], start)["screen_id"]
        plan = recall.recall(task, packages, start_id)
        if plan is not None:
            return plan
        here = packages_of(self.store, [start]).get(start) if isinstance(start, str) else None
        elsewhere = here is not None and here not in packages
        plan = planner.plan(task, packages, None if elsewhere else start, k, came_from, avoid)
        if elsewhere and plan.route == "none":  # the app has no entry of its own: go from the start's app
            plan = planner.plan(task, packages + [here], start, k)
        return connect(self.store, plan, start_id, planner.graph(packages).packages_of([s.screen_id for s in plan.steps]))

    def _from_dump(self, task: str, screen: UIState, k: int | None,
                   came_from: dict[str, str] | None = None, avoid: list[dict[str, str]] | None = None) -> Plan:
        """A plan from a dump when no app is named: in the app the dump shows, from where memory locates it;
        where memory knows no way to the task from there, or cannot place the dump (a launcher's home screen,
        another app the agent stands in), in the task's own app (agent/apps.py `choose_app`), from the dump
        as from elsewhere (the observed way into it)."""
        try:
            plan = self._answer(task, task, self.packages(screen.package), screen, k, came_from, avoid)
        except NotFound:  # memory holds no such app, or none of its elements (a launcher never summarised)
            plan = None
        if plan is not None and plan.route != "none" and (plan.start is None or plan.start.match != "unknown"):
            return plan
        chosen = self._answer(task, task, [], self._elsewhere(screen), k)
        return chosen if plan is None or chosen.route != "none" else plan

    def _app_for_html(self, task: str, html: str, activity: str | None) -> str:
        """The app of a task asked from an HTML screen: of the task's best apps, the first in which the
        screen is located (agent/apps.py `app_for_screen`), else the best app for the task."""
        choice = app_for_screen(self._loaded_memory()[1], self._locate, task, html_reader(html, activity), activity)
        if choice is None:
            raise NotFound("no element memory at all: run `appmem summarize` first")
        return choice.package

    def _drawn_over(self, package: str | None, state: UIState, xml: str | None, activity: str | None) -> UIState | None:
        """A dump whose nodes another package draws over `package`, the app in front (the notification shade,
        a system dialog), when memory holds no screen of the drawing package but holds this very screen
        (an exact match) under the app: a recording (DroidBot) keeps such a window as a screen of the app
        in front. The dump read as that app's screen, else None (a launcher's or another app's own screen
        never matches an app's screen exactly)."""
        if not package or not xml or state.package == package or state.package in self.known():
            return None
        own = state_from_xml(xml, package, activity=activity)
        try:
            located = self._locate(package, own)
        except NotFound:
            return None
        return own if located["match"] == "exact" else None

    def _elsewhere(self, state: UIState) -> str | None:
        """A screen of another app than the task's (a launcher, a permission page), as memory knows it: its
        id when located (the plan then starts with the observed way into the app), else None (the app's entry)."""
        try:
            located = self._locate(state.package, state)
        except NotFound:  # memory holds no screen of that app
            return None
        return located["screen_id"] if located["match"] != "unknown" else None

    def locate(self, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
               activity: str | None = None, screenshot: str | None = None) -> LocateAnswer:
        """Which remembered screen the agent's screen is: exact, similar or unknown."""
        with span("appmem.locate", app=app or ""):
            try:
                package = self.package(app) if app else None
            except NotFound:
                if not app or "." not in app:
                    raise
                # Not an app anybody explored, but maybe one an app's step led into (a file picker, the
                # dialer, a permission page): its screens are in memory under its full package name.
                package = app
            state = agent_screen(package, screen_xml, screen_html, activity,
                                 screenshot=from_base64(screenshot) if screenshot is not None else None)
            state = self._drawn_over(package, state, screen_xml, activity) or state
            return LocateAnswer(package=state.package, **self._locate(state.package, state))

    def hints(self, task: str, app: str | None, screen_xml: str | None = None, screen_html: str | None = None,
              activity: str | None = None, screenshot: str | None = None) -> HintsAnswer:
        """Which elements of the agent's screen lead towards the task, where to and in how many steps."""
        package = self.package(app) if app else None
        state = agent_screen(package, screen_xml, screen_html, activity,
                             screenshot=from_base64(screenshot) if screenshot is not None else None)
        state = self._drawn_over(package, state, screen_xml, activity) or state
        return HintsAnswer.model_validate(self._hints(task, state.package, state))

    def _locate(self, package: str, state: UIState | str) -> dict[str, Any]:
        return locate(self.store, package, state, self.planner().graph([package]))

    def _hints(self, task: str, package: str, state: UIState | str) -> dict[str, Any]:
        planner = self.planner()
        return hints(self.store, self.vectors, self.embedder, task, package, state, planner.graph([package]),
                     planner.index([package]))

    def doc(self, app: str, budget: int | None = None) -> dict[str, Any]:
        """The app document: screens, elements, effects, locators, ways in (agent/appdoc.py)."""
        from appmem.agent.appdoc import BUDGET, app_doc, token_counter

        return app_doc(self.store, self.package(app), token_counter(self.settings.home), budget or BUDGET)

    def search(self, text: str, kind: str = "element", app: str | None = None, k: int = 5) -> list[dict[str, Any]]:
        """Scored hits from the element, screen or task memory."""
        packages = self.packages(app) if app else None
        planner = self.planner()
        index = planner.index(packages) if kind == "element" else None
        own = planner.own({"screen": "screens", "task": "tasks"}[kind], packages) if kind != "element" else None
        return search(self.vectors, self.embedder, self.store, text, kind, packages, k, index, own)

    def app_map(self, app: str) -> dict[str, Any]:
        """The app's map: screens with thumbnails, transitions with reliability (agent/appmap.py)."""
        from appmem.agent.appmap import app_map

        return app_map(self.store, self.package(app))

    def apps(self) -> list[dict[str, Any]]:
        """Counts per app version for any key: a version contributors' devices claimed is named only once a
        quorum of keys claims it (one key's free text is not shown to others; `appmem stats` shows all)."""
        quorum = self.settings.trust_quorum
        return [{**row, "claimed": [v for v in row["claimed"] if row["claimed"].count(v) >= quorum]}
                for row in self.store.stats()]

    def screen(self, package: str, screen_id: str) -> dict[str, Any] | None:
        rows = self.store.read("serve_screen", package=package, screen_id=screen_id)
        if not rows:
            return None
        exits = self.store.read("serve_screen_exits", screen_id=screen_id)
        return {**rows[0], "exits": [{**{k: v for k, v in e.items() if k != "counts"}, **shown_counts(e["counts"])}
                                     for e in exits]}


def reader_vectors(settings: Settings, dim: int):
    """Vectors that many processes read at once: a Qdrant server (QDRANT_URL), else the per-app read-only
    snapshots that `summarize` publishes (semantic/snapshots.py), never the single-owner local folder."""
    from appmem.semantic.snapshots import open_reader

    return open_reader(settings, dim)


def open_backend(settings: Settings, server: str | None = None, key: str | None = None):
    """What the CLI, the MCP server and the runtime answer from: a running API server (a
    `contract.client.ApiClient`, when `server` or APPMEM_SERVER is set), else the local stores (a `Service`).
    Both answer plan, locate, hints, doc and search with the same `contract` models. The local stores'
    vectors are the read-only snapshots (`reader_vectors`): a one-off call neither imports the Qdrant
    client nor waits for the folder that a running server or worker owns."""
    server = server or settings.server
    if server:
        from appmem.contract.client import ApiClient

        key = key or settings.server_key
        if not key:
            raise ConfigError(f"the server {server} needs an API key: --key or APPMEM_KEY")
        return ApiClient(server, key)
    return Service.open(settings, read_only=True)
