"""Tasks built from an app's recorded graph: each recorded tap on an element whose label (as the memory
keeps it, scrubbed) no other tapped element of the app carries becomes the task "tap LABEL", with the
screen the tap led to as its target (the runtime tests and bench/serve.py use them). A recorded tap that
led to several screens at different times (an app is not deterministic: a browser page still loading, a
dialog's CANCEL back to whatever was under it) has them all as `targets`; `target` is the first; `home`:
one of them is a launcher screen (the tap left the app)."""
from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from appmem.runtime.grounding import ground, node_at
from appmem.formats.ui import Action, ActionType
from appmem.graph.model import stable_id
from appmem.graph.screens import screen_of
from appmem.graph.store import GraphStore
from appmem.graph.vocabulary import label_of
from appmem.twins.app import LAUNCHER_PACKAGE, LAUNCHER_STATE, TwinApp
from appmem.twins.device import TwinDevice
from appmem.formats.uixml import parse_hierarchy


def recorded_tasks(store: GraphStore, package: str, limit: int) -> list[dict]:
    entry = {r["screen_id"] for r in store.read("planner_entry_screens", packages=[package])}
    rows = store.read("serve_task_targets", package=package)
    labels = Counter(r["label"] for r in {r["element_id"]: r for r in rows}.values())
    out: dict[str, dict] = {}
    for r in rows:
        label = (r["label"] or "").strip()
        if 2 < len(label) <= 40 and "<" not in label and labels[r["label"]] == 1 and r["screen_id"] not in entry:
            task = out.setdefault(label, {"task": f"tap {label}", "label": label, "target": r["to_screen"],
                                          "screen": r["screen_id"], "targets": [], "home": False})
            if r["screen_id"] == task["screen"]:
                task["targets"].append(r["to_screen"])
                task["home"] = task["home"] or r["to_package"] == LAUNCHER_PACKAGE
    return list(out.values())[:limit]


def unseen_targets(store: GraphStore, app: TwinApp, limit: int) -> list[dict]:
    """The issue's targets: "tap 'LABEL' in PACKAGE" for each recorded task, started on an in-app twin
    state that is not the app's first screen, from which the recording reached the tap's screen. The
    start is the first such state in a hash order of their ids (no choice by outcome). A run is judged
    by the device's own dump afterwards (`dump_screen`)."""
    entry = {r["screen_id"] for r in store.read("planner_entry_screens", packages=[app.package])}
    screen_of_state = {sid: screen_of(s, app.package, app.version).id for sid, s in app.states.items()}
    nexts: dict[str, set[str]] = {}
    for (src, _), dsts in app.transitions.items():
        nexts.setdefault(src, set()).update(d for d in dsts if d in app.states)
    out = []
    for task in recorded_tasks(store, app.package, 10_000):
        tap_screen = task["screen"]
        starts = [sid for sid, state in app.states.items() if state.package == app.package
                  and screen_of_state[sid] not in entry and sid != app.entry
                  and screen_of_state[sid] not in task["targets"] and _reaches(nexts, sid, screen_of_state, tap_screen)]
        if not starts:
            continue
        start = min(starts, key=lambda sid: stable_id("start", task["label"], sid))
        out.append({**task, "task": f"tap '{task['label']}' in {app.package}", "start": start})
        if len(out) == limit:
            break
    return out


def _reaches(nexts: dict[str, set[str]], start: str, screen_of_state: dict[str, str], screen: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        sid = todo.pop()
        if screen_of_state.get(sid) == screen:
            return True
        for nxt in nexts.get(sid, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def reached(task: dict, package: str, activity: str, xml: str, version: str) -> bool:
    """Whether the device's dump (in the foreground `package`) is a recorded outcome of the task's tap: one
    of its screens, or the launcher when the recorded tap went home (a twin shows every recorded home
    screen as its one synthetic launcher, so no recorded launcher screen id can match its dump)."""
    if package == LAUNCHER_PACKAGE:
        return task["home"]
    return dump_screen(xml, activity, package, version) in task["targets"]


def named(view, label: str) -> bool:
    """Whether a twin view is the element the task names: its label as memory makes it, or a text it shows."""
    want = " ".join(label.lower().split())
    shown = SimpleNamespace(class_name=view.class_name, resource_id=view.resource_id, text=view.text,
                            content_desc=view.content_desc, flags=view.flags())
    return want in {" ".join(t.lower().split()) for t in (label_of(shown), view.text, view.content_desc)}


def from_state(app, taps: list[tuple[str, list]], label: str, ended: str, home: bool) -> bool:
    """The strictest judge: the run's last tap acted on the named view, and the device ended on an outcome
    the recording reached with a tap on that view FROM THE VERY STATE the run tapped in (the twin's `similar`
    mode may answer from a like state: such an outcome does not count)."""
    if not taps:
        return False
    state, views = taps[-1]
    keys = {pv.key for pv in views if named(pv.view, label)}
    if not keys or state not in app.states:
        return False
    outcomes = {t for key in keys for t in app.targets(state, Action(ActionType.TAP, key).signature)}
    screens = {screen_of(app.states[t], app.package, app.version).id for t in outcomes if t in app.states}
    return ended in screens or (home and LAUNCHER_STATE in outcomes and ended == LAUNCHER_STATE)


def dump_screen(xml: str, activity: str, package: str, version: str) -> str:
    """The memory's screen id of a device dump, computed from the dump alone."""
    return screen_of(parse_hierarchy(xml, package, activity), package, version).id


def state_of_screen(app: TwinApp, screen_id: str) -> str | None:
    """A recorded twin state of the app whose dump is the memory's screen `screen_id`."""
    return next((sid for sid, s in app.states.items() if screen_of(s, app.package, app.version).id == screen_id), None)


def screen_dump(device: TwinDevice, package: str, screen_id: str) -> tuple[str, str] | None:
    """The device's dump of memory's screen `screen_id` (the twin shown on a recorded state of it) and its
    activity; None when no recorded state is that screen."""
    app = device.apps[package]
    if (state := state_of_screen(app, screen_id)) is None:
        return None
    device.goto(package, state)
    return device.hierarchy(), app.states[state].activity


def forged_runs(device: TwinDevice, plan: dict, task: str, started: str, resent: bool = True) -> list[dict]:
    """What one dishonest key sends about a plan (bench/poison.py, tests/test_crowd.py), as valid run traces:
    a one-tap shortcut (the plan's first element said to lead straight to its last screen, skipping the
    real screens between), a run that claims every step of the real route failed, and the route's screens
    sent again as the key's own (their dumps without their activities, under a version of its own: a
    screen memory would locate agents' dumps on), unless `resent` is False."""
    app = device.apps[plan["package"]]
    steps = [s for s in plan["steps"] if s["element"] and s["screen_id"] and s["to_screen"]]
    dumps = {}
    for sid in {s["screen_id"] for s in steps} | {s["to_screen"] for s in steps}:
        if (dump := screen_dump(device, app.package, sid)) is not None:
            dumps[sid] = dump
    steps = [s for s in steps if s["screen_id"] in dumps and s["to_screen"] in dumps]
    if not steps:
        return []

    def run_step(i: int, step: dict, after: str, outcome: str) -> dict:
        found = ground(step["element"], dumps[step["screen_id"]][0])  # the view as the device dumps it
        element = node_at(dumps[step["screen_id"]][0], found[0]) if found else {}
        return {"index": i, "action": step["action"], "input": step.get("input") or "",
                "element": {k: element.get(k) or "" for k in ("text", "content_desc", "resource_id", "class_name")}
                | {"bounds": element.get("bounds") or [0, 0, 0, 0]},
                "before_xml": dumps[step["screen_id"]][0], "before_activity": dumps[step["screen_id"]][1],
                "after_xml": dumps[after][0], "after_activity": dumps[after][1],
                "expected_screen": step["to_screen"], "reached_screen": after, "outcome": outcome}

    head = {"format": "appmem-run/1", "task": task, "package": app.package, "app_version": app.version,
            "device": device.serial, "started": started, "ended": started}
    out = []
    if len(steps) > 1:  # the shortcut: the first tap "reaches" the last screen at once
        shortcut = run_step(0, steps[0], steps[-1]["to_screen"], "ok")
        shortcut["expected_screen"] = steps[-1]["to_screen"]
        out.append({**head, "status": "done", "steps": [shortcut]})
    out.append({**head, "status": "failed", "started": started.replace("Z", ".5Z"),
                "steps": [run_step(i, s, s["screen_id"], "no_effect") for i, s in enumerate(steps)]})
    if not resent:
        return out
    out.append({**head, "app_version": f"{app.version}-own", "status": "failed", "started": started.replace("Z", ".7Z"),
                "steps": [{"index": i, "action": "back", "before_xml": xml, "after_xml": xml}
                          for i, (xml, _) in enumerate(dumps[sid] for sid in sorted(dumps))]})
    return out
