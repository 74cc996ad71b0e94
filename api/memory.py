"""The memory a service answers from: one graph store, one vector store, one embedder, opened once.

`Memory` is what the API, the local MCP server and the local runtime call:
`plan`, `locate`, `hints`, `apps`, `screen`. Locating and hints are two small
functions here (`locate_screen`, `screen_hints`) so that the planning and
recall branches' `agent/locate.py` and `agent/hints.py` replace them in one
place; until then a dumped screen is located by its exact screen id, else by
the overlap of its element keys with the screens in memory.
"""
from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from appmem.errors import ConfigError, InputFormatError
from appmem.settings import Settings
from graph.model import UIState
from graph.screens import elements_of, screen_of
from graph.store import GraphStore
from ingest.contributions import GENERATION_KEY  # noqa: F401  (re-exported for the API)

# A dumped screen whose elements overlap a remembered screen's this much is "similar".
SIMILAR = 0.5
SCREEN_CACHE_S = 30.0
PLAN_CACHE = 4096


def parse_screen(package: str | None, activity: str | None, xml: str | None, html: str | None) -> UIState:
    """The agent's current screen from a uiautomator dump or AutoDroid HTML."""
    if xml:
        import xml.etree.ElementTree as ET

        from workers.uixml import parse_hierarchy

        if not package:
            try:
                node = next(ET.fromstring(xml).iter("node"), None)
            except ET.ParseError as exc:
                raise InputFormatError("screen_xml", f"malformed XML: {exc}") from None
            package = node.get("package") if node is not None else None
        if not package:
            raise InputFormatError("screen_xml", "no package: name the app or send a dump whose nodes name it")
        return parse_hierarchy(xml, package, activity or "", where="screen_xml")
    if html:
        from ingest.autodroid_html import HtmlSyntaxError, parse_html, state_from_elements

        if not package:
            raise InputFormatError("screen_html", "HTML screens need the app's package")
        try:
            return state_from_elements(parse_html(html), package, activity or "")
        except (HtmlSyntaxError, ValueError) as exc:
            raise InputFormatError("screen_html", str(exc)) from None
    raise InputFormatError("request", "send screen_xml or screen_html")


def locate_screen(memory: "Memory", package: str, state: UIState) -> dict[str, Any]:
    """{"screen_id","match","score","candidates"} for a dumped screen (contract §4's locate)."""
    versions = memory.versions().get(package, [])
    known = memory.screen_keys(package)
    # A dump without its activity could be any of the app's activities: the signature includes it.
    activities = [state.activity] if state.activity else sorted({a for a, _ in known.values()})
    for version in versions:
        for activity in activities:
            sid = screen_of(replace(state, activity=activity), package, version).id
            if sid in known:
                return {"screen_id": sid, "match": "exact", "score": 1.0,
                        "candidates": [{"screen_id": sid, "score": 1.0}]}
    keys = {e.key for e in elements_of(state, screen_of(state, package, versions[0] if versions else "")).values()}
    scored = sorted(((len(keys & k) / max(1, len(keys | k)), sid) for sid, (_, k) in known.items()),
                    reverse=True)[:5]
    candidates = [{"screen_id": sid, "score": round(score, 3)} for score, sid in scored]
    if scored and scored[0][0] >= SIMILAR:
        return {"screen_id": scored[0][1], "match": "similar", "score": round(scored[0][0], 3),
                "candidates": candidates}
    return {"screen_id": None, "match": "unknown", "score": round(scored[0][0], 3) if scored else 0.0,
            "candidates": candidates}


def screen_hints(memory: "Memory", task: str, package: str, state: UIState) -> list[dict[str, Any]]:
    """Hints for a step-wise agent: the elements of its screen that start the memory's route."""
    located = locate_screen(memory, package, state)
    plan = memory.plan(task, package, screen_id=located["screen_id"])
    steps = plan["steps"]
    if not steps or steps[0]["element"] is None:
        return []
    first = steps[0]
    return [{"element": first["element"]["label"], "locators": first["element"]["locators"],
             "action": first["action"], "leads_to": steps[1]["screen_id"] if len(steps) > 1 else None,
             "steps_to_target": len(steps), "screen_id": located["screen_id"]}]


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

    @classmethod
    def open(cls, settings: Settings) -> "Memory":
        from appmem.clients import open_graph
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

    def versions(self) -> dict[str, list[str]]:
        return self._cached("versions", lambda: {r["package"]: sorted(r["versions"])
                                                 for r in self.store.read("serve_app_versions", package=None)})

    def screen_keys(self, package: str) -> dict[str, tuple[str, set[str]]]:
        """Screen id → (activity, element keys) of a package's screens."""
        return self._cached("keys:" + package, lambda: {r["screen_id"]: (r["activity"], set(r["keys"])) for r in
                                                        self.store.read("serve_screen_keys", packages=[package])})

    def packages(self, app: str | None) -> list[str]:
        from semantic.commands import resolve_app

        known = sorted(self.versions())
        if not known:
            raise ConfigError("the memory holds no app yet")
        return resolve_app(known, app) if app else known

    def plan(self, task: str, app: str | None = None, screen_id: str | None = None, screen_xml: str | None = None,
             screen_html: str | None = None, activity: str | None = None) -> dict[str, Any]:
        key = hashlib.sha256(json.dumps([task, app, screen_id, screen_xml, screen_html, activity,
                                         self.generation()]).encode()).hexdigest()
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

    def _plan(self, task: str, app: str | None, screen_id: str | None, screen_xml: str | None,
              screen_html: str | None, activity: str | None) -> dict[str, Any]:
        from agent.planner import Planner, plan_to_dict

        packages = self.packages(app)
        start = {"screen_id": screen_id, "match": "exact" if screen_id else "entry", "score": 1.0 if screen_id else 0.0}
        if screen_xml or screen_html:
            state = parse_screen(packages[0] if app else None, activity, screen_xml, screen_html)
            located = locate_screen(self, state.package, state)
            start = {k: located[k] for k in ("screen_id", "match", "score")}
            if located["match"] == "unknown":
                start = {**start, "match": "unknown"}
        out = plan_to_dict(Planner(self.store, self.vectors, self.embedder).plan(task, packages, start["screen_id"]))
        if "," in out["package"] and out["steps"]:  # planned over every app: name the one the target is in
            rows = self.store.read("planner_screen", screen_id=out["steps"][-1]["screen_id"])
            out["package"] = rows[0]["package"] if rows else out["package"]
        last = out["steps"][-1] if out["steps"] else None
        if last and last.get("element") and "to_screen" not in last:  # until the plan JSON names it (§4)
            rows = self.store.read("serve_step_target", screen_id=last["screen_id"],
                                   element_id=last["element"].get("id"), action=last["action"])
            last["to_screen"] = rows[0]["screen_id"] if rows else None
        out.setdefault("source", "memory")
        out.setdefault("route", "found" if out["steps"] else "none")
        out.setdefault("start", start)
        return out

    def locate(self, app: str | None, screen_xml: str | None, screen_html: str | None,
               activity: str | None = None) -> dict[str, Any]:
        package = self.packages(app)[0] if app else None
        state = parse_screen(package, activity, screen_xml, screen_html)
        return {"package": state.package, **locate_screen(self, state.package, state)}

    def hints(self, task: str, app: str | None, screen_xml: str | None, screen_html: str | None,
              activity: str | None = None) -> list[dict[str, Any]]:
        package = self.packages(app)[0] if app else None
        state = parse_screen(package, activity, screen_xml, screen_html)
        return screen_hints(self, task, state.package, state)

    def apps(self) -> list[dict[str, Any]]:
        return self.store.stats()

    def screen(self, package: str, screen_id: str) -> dict[str, Any] | None:
        rows = self.store.read("serve_screen", package=package, screen_id=screen_id)
        if not rows:
            return None
        return {**rows[0], "exits": self.store.read("serve_screen_exits", screen_id=screen_id)}
