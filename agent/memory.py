"""The memory a service answers from: one graph store, one vector store, one embedder, opened once.

`Memory` is what the API, the local MCP server and the local runtime call:
`plan`, `locate`, `hints`, `apps`, `screen`. Plans, locating and hints come from
one `agent.answer.Answerer` (kept loaded: its per-app graphs and element indexes
are what make a new plan fast), dropped whenever the memory's generation changes.
"""
from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from appmem.errors import InputFormatError, NotFound
from appmem.settings import Settings
from formats.ui import UIState
from graph.store import GraphStore

SCREEN_CACHE_S = 30.0
PLAN_CACHE = 4096


def parse_screen(package: str | None, activity: str | None, xml: str | None, html: str | None) -> UIState:
    """The agent's current screen from a uiautomator dump (in the package its nodes name, else
    `package`) or AutoDroid HTML (in `package`)."""
    if xml:
        import xml.etree.ElementTree as ET

        from formats.uixml import parse_hierarchy

        try:
            node = next(ET.fromstring(xml).iter("node"), None)
        except ET.ParseError as exc:
            raise InputFormatError("screen_xml", f"malformed XML: {exc}") from None
        # The app the dump itself shows (a launcher, a permission page) wins over the app asked about.
        package = (node.get("package") if node is not None else None) or package
        if not package:
            raise InputFormatError("screen_xml", "no package: name the app or send a dump whose nodes name it")
        return parse_hierarchy(xml, package, activity or "", where="screen_xml")
    if html:
        from formats.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements

        if not package:
            raise InputFormatError("screen_html", "HTML screens need the app's package")
        try:
            return state_from_elements(parse_html(html), package, activity or "")
        except (HtmlSyntaxError, ValueError) as exc:
            raise InputFormatError("screen_html", str(exc)) from None
    raise InputFormatError("request", "send screen_xml or screen_html")


@dataclass
class Memory:
    """`generation()` names the memory's current contents (the API reads a counter in Redis that
    every ingested contribution bumps): plans are memoised per (request, generation), so agents
    asking the same task from the same screen get the stored answer until the memory changes."""

    store: GraphStore
    vectors: Any
    embedder: Any
    settings: Settings
    generation: Callable[[], str] = lambda: "0"
    _cache: dict[str, tuple[float, Any]] = field(default_factory=dict)
    _plans: OrderedDict = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _answerer: Any = None
    _answered_generation: str | None = None

    @classmethod
    def open(cls, settings: Settings) -> "Memory":
        from graph.clients import open_graph
        from semantic.embedder import Embedder
        from semantic.vectors import VectorStore, open_qdrant

        store = open_graph(settings)
        client = open_qdrant(settings)
        embedder = Embedder(settings.home)
        return cls(store, VectorStore(client, embedder.dim), embedder, settings)

    def close(self) -> None:
        self.vectors.client.close()
        self.store.driver.close()

    def _cached(self, key: str, load) -> Any:
        with self._lock:
            hit = self._cache.get(key)
        if hit and time.monotonic() - hit[0] < SCREEN_CACHE_S:
            return hit[1]
        value = load()
        with self._lock:
            self._cache[key] = (time.monotonic(), value)
        return value

    def forget(self) -> None:
        """Drop cached reads and plans (after the memory changed in this process)."""
        with self._lock:
            self._cache.clear()
            self._plans.clear()
            self._answerer = None

    def versions(self) -> dict[str, list[str]]:
        return self._cached("versions", lambda: {r["package"]: sorted(r["versions"])
                                                 for r in self.store.read("serve_app_versions", package=None)})

    def packages(self, app: str | None) -> list[str]:
        from semantic.commands import resolve_app

        known = sorted(self.versions())
        if not known:
            raise NotFound("the memory holds no app yet")
        return resolve_app(known, app) if app else known

    def plan(self, task: str, app: str | None = None, screen_id: str | None = None, screen_xml: str | None = None,
             screen_html: str | None = None, activity: str | None = None) -> dict[str, Any]:
        generation = self.generation()
        key = hashlib.sha256(json.dumps([task, app, screen_id, screen_xml, screen_html, activity,
                                         generation]).encode()).hexdigest()
        with self._lock:
            if key in self._plans:
                self._plans.move_to_end(key)
                return copy.deepcopy(self._plans[key])
        out = self._plan(task, app, screen_id, screen_xml, screen_html, activity)
        with self._lock:
            self._plans[key] = copy.deepcopy(out)
            while len(self._plans) > PLAN_CACHE:
                self._plans.popitem(last=False)
        return out

    def answers(self):
        """The Answerer for the memory's current generation (a new one after the memory changed)."""
        from agent.answer import Answerer

        generation = self.generation()
        with self._lock:
            if self._answerer is None or generation != self._answered_generation:
                self._answerer = Answerer(self.store, self.vectors, self.embedder)
                self._answered_generation = generation
            return self._answerer

    def _plan(self, task: str, app: str | None, screen_id: str | None, screen_xml: str | None,
              screen_html: str | None, activity: str | None) -> dict[str, Any]:
        start: str | UIState | None = screen_id
        if screen_xml or screen_html:
            start = parse_screen(self.packages(app)[0] if app else None, activity, screen_xml, screen_html)
            if app and start.package not in self.packages(app):  # another app's screen (a launcher, a permission page)
                start = self._elsewhere(start)
            app = app or start.package if isinstance(start, UIState) else app
        return self.answers().answer(task, app, start)

    def _elsewhere(self, state: UIState) -> str | None:
        """A screen of another app than the task's, as memory knows it: its id when located (the plan
        then starts with the observed way from there into the app), else None (the app's entry)."""
        try:
            located = self.answers().locate(state.package, state)
        except NotFound:  # memory holds no screen of that app
            return None
        return located["screen_id"] if located["match"] != "unknown" else None

    def locate(self, app: str | None, screen_xml: str | None, screen_html: str | None,
               activity: str | None = None) -> dict[str, Any]:
        try:
            package = self.packages(app)[0] if app else None
        except NotFound:
            if not app or "." not in app:
                raise
            # Not an app anybody explored, but maybe one an app's step led into (a file picker, the
            # dialer, a permission page): its screens are in memory under its full package name.
            package = app
        state = parse_screen(package, activity, screen_xml, screen_html)
        return {"package": state.package, **self.answers().locate(state.package, state)}

    def hints(self, task: str, app: str | None, screen_xml: str | None, screen_html: str | None,
              activity: str | None = None) -> list[dict[str, Any]]:
        package = self.packages(app)[0] if app else None
        state = parse_screen(package, activity, screen_xml, screen_html)
        return self.answers().hints(task, state.package, state)["hints"]

    def apps(self) -> list[dict[str, Any]]:
        return self.store.stats()

    def screen(self, package: str, screen_id: str) -> dict[str, Any] | None:
        rows = self.store.read("serve_screen", package=package, screen_id=screen_id)
        if not rows:
            return None
        return {**rows[0], "exits": self.store.read("serve_screen_exits", screen_id=screen_id)}
