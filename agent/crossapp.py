"""Plans that switch apps: stored edges across packages, the launcher, and launching an app.

Screens of other packages that an app reached (a browser, the settings, a
permission dialog) are ordinary screens of their own package, and the edges
into them ordinary transitions: the planner's paths already cross them. What
is added here is the way between apps that no run recorded as one path:
HOME (always possible on a device) to the launcher, then the launcher's
observed `start_app` edge into the target app, then that app's own path; and
where no launch was ever observed, a `start_app` step (a device launches any
installed app from any screen) to the app's entry. Every step names its package.
"""
from __future__ import annotations

from typing import Any

from appmem.errors import NotFound
from appmem.formats.ui import ActionType
from appmem.graph.model import RoutePlan, RouteStep
from appmem.graph.routes import load_routes
from appmem.graph.store import GraphStore, element_of
from appmem.graph.vocabulary import is_launcher

DEVICE_EXITS = {ActionType.HOME.value, ActionType.STOP_APP.value}  # ways out of any app, from any screen
WIDEN = 2  # app → launcher → app: the apps of both screens, then those their edges lead into, once more


def packages_of(store: GraphStore, screen_ids: list[str]) -> dict[str, str]:
    ids = sorted({s for s in screen_ids if s})
    return {r["id"]: r["package"] for r in store.read("recall_screens", ids=ids)} if ids else {}


def best_path(store: GraphStore, source: str, target: str) -> list[dict[str, Any]] | None:
    """The cheapest stored route between two screens as hops ([] when they are one), or None; the one
    route search and cost of graph/routes.py, over the transitions of the two screens' apps and of the
    apps their edges lead into (a launcher, a system dialog), widened WIDEN times at most."""
    if source == target:
        return []
    packages = set(packages_of(store, [source, target]).values())
    read: set[str] = set()
    for _ in range(WIDEN + 1):
        if not packages - read:
            break
        read |= packages
        routes, rows = load_routes(store, sorted(read))
        hops = routes.route(source, target)
        if hops is not None:
            return [h.hop() for h in hops]
        packages |= {r["target_package"] for r in rows if r["target_package"]}
    return None


def hop_steps(store: GraphStore, source: str, hops: list[dict[str, Any]]) -> list[RouteStep]:
    ids = sorted({h["element_id"] for h in hops if h.get("element_id")})
    elements = {r["id"]: (element_of(r), r["risky"]) for r in store.elements(ids=ids)} if ids else {}
    steps, screen = [], source
    for hop in hops:
        element, risky = elements.get(hop.get("element_id") or "", (None, False))
        action = ActionType(hop["action"])
        text = hop.get("input_template") or "" if action is ActionType.INPUT else hop.get("detail") or ""
        steps.append(RouteStep(action, element, screen, text, risky, to_screen=hop["target"], why="route"))
        screen = hop["target"]
    return steps


def switch_steps(store: GraphStore, source: str, target: str) -> list[RouteStep]:
    """Steps from screen `source` to screen `target`, across apps if need be: a stored
    path that stays on screen (an element of one app that opens the other); else HOME, the
    launcher's start_app edge into the target's app and that app's path; else a start_app
    step to the app's entry and its path from there. A stored path that leaves by the device
    (HOME, an app stopped: a crawler's moves) comes after those: it would act in the app in
    front only to reach where a crawler once left it, and a device can leave from anywhere."""
    path = best_path(store, source, target)
    if path is not None and not any(h["action"] in DEVICE_EXITS for h in path):
        return hop_steps(store, source, path)
    package = packages_of(store, [target]).get(target, "")
    # a launch from a launcher first, then the one whose screen is nearest the target (a route search per
    # entry screen, not per launch: launchers' screens start the same few entries)
    rows = store.read("crossapp_launches", package=package)
    insides = {entry: best_path(store, entry, target) for entry in dict.fromkeys(r["entry"] for r in rows)}
    launches = [(launch, insides[launch["entry"]]) for launch in rows if insides[launch["entry"]] is not None]
    for launch, inside in sorted(launches, key=lambda li: (not is_launcher(li[0]["source_package"]), len(li[1]))):
        home = [RouteStep(ActionType.HOME, None, source, to_screen=launch["source"], why="route")] \
            if launch["source"] != source else []
        start = RouteStep(ActionType.START_APP, None, launch["source"], package, to_screen=launch["entry"], why="route")
        return home + [start] + hop_steps(store, launch["entry"], inside)
    for row in store.read("planner_entry_screens", packages=[package]):
        inside = best_path(store, row["screen_id"], target)
        if inside is not None:
            start = RouteStep(ActionType.START_APP, None, source, package, to_screen=row["screen_id"], why="route")
            return [start] + hop_steps(store, row["screen_id"], inside)
    if path is not None:
        return hop_steps(store, source, path)
    return [RouteStep(ActionType.START_APP, None, source, package, to_screen=target, why="route")]


def connect(store: GraphStore, plan: RoutePlan, start_screen: str | None, known: dict[str, str] | None = None) -> RoutePlan:
    """The plan from the agent's screen: steps that get from `start_screen` to where the
    plan begins are put in front (across apps if need be), and every step names its package.
    `known`: screens' packages the caller holds (a loaded AppGraph's), read from the graph if not."""
    if start_screen and not packages_of(store, [start_screen]):
        raise NotFound(f"unknown start screen {start_screen!r}")
    if start_screen and plan.steps and plan.steps[0].screen_id != start_screen:
        plan.steps[:0] = switch_steps(store, start_screen, plan.steps[0].screen_id)
    name_packages(store, plan, known or {})
    return plan


def name_packages(store: GraphStore, plan: RoutePlan, known: dict[str, str] | None = None) -> RoutePlan:
    """Each step's package: the app of the screen it acts on (the launcher's for a launch from it)."""
    known = dict(known or {})
    missing = [s.screen_id for s in plan.steps if not s.package and s.screen_id not in known]
    known.update(packages_of(store, missing))
    for step in plan.steps:
        step.package = step.package or known.get(step.screen_id, "")
    apps = list(dict.fromkeys(s.package for s in plan.steps if s.package))
    if apps and not plan.package:
        plan.package = apps[-1]
    return plan
