"""Merge benchmark: one memory across device profiles and app versions. Prints figures.

For each shared DroidBot app (twins are simulators: every figure here depends on them):
1. import the recording; its app screens are the reference;
2. crawl the twins again under `recorded` (the baseline, same run), `small,dynamic` and
   `tablet,dynamic`: screens a crawl saw that the import did not have are splits
   (ratio = (imported + new) / imported; the new ones are listed);
3. conflicts, from the recordings themselves (DroidBot apps and the DroidTask/AutoDroid
   apps): the share of elements whose non-data texts conflict within one Screen, and
   the Screens holding dialogs with two different titles. Data here, independently of
   the identity code: empty, any digit, a privacy placeholder `<…>`, editable fields;
   switch states (ON/OFF) and web pages are reported apart (`…_incl_switch_states…`);
4. crawl `--twin-version 2`: of the v1 screens the crawl reached unchanged (the twin
   knows which recorded states the update changed), how many kept their node; of the
   edges it took between unchanged screens, how many were already in the memory (and
   of those taken by an action the memory knew from that screen, `known_action_*`; the
   rest by action type, `not_kept_by_action`); how many edges are stale afterwards, and
   whether the edge the update removed is.

    .venv/bin/python -m appmem.bench.merge [--budget 150] [--apps a,b] [--import-version V] [--json]
"""
from __future__ import annotations

import json
import threading
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field


from appmem.bench.common import (BenchParser, DROIDTASK, DROIDTASK_APPS, droidbot_folders, markdown_table, on_each,
                                  private_stack, shared_folders, write_results)
from appmem.graph.clients import open_graph
from appmem.stack import Stack
from appmem.graph.model import Step, Trace
from appmem.graph.screens import elements_of, screen_of
from appmem.graph.times import now_iso
from appmem.ingest.autodroid import read_autodroid
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace, scrub_trace
from appmem.twins.adb_server import TwinServer
from appmem.twins.device import build_fleet
from appmem.twins.profiles import Profile
from appmem.workers.devices import DeviceRecord, Heartbeat, acquire, key, open_redis
from appmem.device.driver import DeviceDriver
from appmem.workers.explorer import Explorer
from appmem.workers.jobspec import JobSpec, trace_id
from appmem.workers.knowledge import FleetKnowledge
from appmem.workers.sinks import GraphChunkSink
from appmem.workers.jobs import WorkerClients
from appmem.workers.policies import make_policy
from appmem.formats.uixml import shown_state_id

PROFILES = ("recorded", "small,dynamic", "tablet,dynamic")


def is_data(text: str, editable: bool) -> bool:
    return editable or not text or any(c.isdigit() for c in text) or ("<" in text and ">" in text)


def is_state(class_name: str) -> bool:
    """A switch's text is its ON/OFF state; a WebView's text is the page shown: counted apart."""
    return class_name.endswith(("Switch", "SwitchCompat", "ToggleButton", "WebView"))


def conflict_cell(c: dict) -> str:
    """One `conflicts` result in words, for the results table."""
    return (f"{c['conflicting']}/{c['elements_with_static_text']} ({c['conflicting_share']:.2%}); counting switch "
            f"states and web pages {c['conflicting_incl_switch_states_and_web_pages']}; screens with two dialog "
            f"titles {c['screens_with_two_dialog_titles']}")


def conflicts(traces: list[Trace]) -> dict:
    """Elements with conflicting non-data texts within one Screen; Screens with two dialog titles."""
    texts: dict[str, set[str]] = {}
    states: set[str] = set()  # elements whose text is a switch state or a web page
    titles: dict[str, set[str]] = {}
    for trace in traces:
        clean = scrub_trace(trace)
        for state in clean.states.values():
            screen = screen_of(state, clean.package, clean.app_version)
            by_index = {v.index: v for v in state.views}
            for index, element in elements_of(state, screen).items():
                view = by_index[index]
                for text in (element.text, element.content_desc):
                    if not is_data(text, view.editable):
                        texts.setdefault(element.id, set()).add(("t:" if text == element.text else "d:") + text)
                        if is_state(view.class_name):
                            states.add(element.id)
            for v in state.views:
                if v.visible and v.resource_id.endswith(":id/alertTitle") and v.text:
                    titles.setdefault(screen.id, set()).add(v.text)
    def kinds(variants: set[str], kind: str) -> int:
        return len({v for v in variants if v.startswith(kind)})
    conflicts = {e for e, v in texts.items() if kinds(v, "t:") > 1 or kinds(v, "d:") > 1}
    conflicting = len(conflicts - states)
    two_dialogs = {s: sorted(t) for s, t in titles.items() if len(t) > 1}
    return {"elements_with_static_text": len(texts), "conflicting": conflicting,
            "conflicting_share": round(conflicting / max(1, len(texts)), 4),
            "conflicting_incl_switch_states_and_web_pages": len(conflicts),
            "screens_with_two_dialog_titles": len(two_dialogs),
            "examples": [titles for titles in list(two_dialogs.values())[:5]]}


@dataclass
class CapturingSink(GraphChunkSink):
    """The graph sink, remembering the steps and states a crawl wrote (for edge keys)."""

    steps: list[Step] = field(default_factory=list)
    states: dict = field(default_factory=dict)
    version: str = ""

    def write(self, trace: Trace, index: int, steps: list[Step]) -> None:
        super().write(trace, index, steps)
        self.steps += steps
        self.states.update(trace.states)
        self.version = trace.app_version


def crawl(settings, folders, profile: Profile, version: int, budget: int, devices: int = 2) -> dict[str, dict]:
    """One in-process frontier job per app on twins of this profile/version: per package
    its trace id, the recorded states the twin showed, and the captured steps/states."""
    store = open_graph(settings)
    r = open_redis(Stack(settings).redis_url())
    fleet = build_fleet(folders, devices, profile=profile, version=version)
    server = TwinServer(fleet)
    port = server.start()
    clients = WorkerClients(store, r, settings.risky_words)
    todo, out, lock = deque(folders), {}, threading.Lock()

    def work(serial: str) -> None:
        device, twin = DeviceRecord(serial, "127.0.0.1", port), fleet[serial]
        while True:
            with lock:
                if not todo:
                    return
                folder = todo.popleft()
            package = read_recording(folder).package
            spec = JobSpec(job_id=f"merge-{uuid.uuid4().hex[:8]}", run_id=f"merge-{uuid.uuid4().hex[:8]}",
                           package=package, policy="frontier", max_actions=budget, max_seconds=900)
            lease = acquire(r, key("job", spec.job_id, "lease"), 900, "bench")
            driver = DeviceDriver(clients.adb("127.0.0.1", port, 10.0).device(serial), device.id)
            sink = CapturingSink(store, r, lease)
            knowledge = FleetKnowledge(store, r, spec.run_id, now_iso())
            twin.visited.clear()
            beat = Heartbeat([lease], 60, lambda: True, lambda: None)
            Explorer(driver, spec, make_policy("frontier", 0, knowledge), sink, settings.risky_words, beat.check,
                     expected=knowledge.expected).run()
            lease.release()
            visited = {sid for pkg, sid in twin.visited if pkg == package}
            with lock:
                out[package] = {"trace": trace_id(spec.job_id), "visited": visited, "sink": sink,
                                "app": twin.apps[package]}

    on_each(work, fleet)
    server.stop()
    r.close()
    store.driver.close()
    return out


def crawled_screens(sink: CapturingSink, package: str) -> set[str]:
    """The screen ids of what a crawl saw, as the identity code names them (a State node
    shown alike in two versions is one node, so the graph's OF_SCREEN would mix them)."""
    clean = scrub_trace(Trace("x", "explorer", package, sink.version, "", "", "", "", sink.states, []))
    return {screen_of(s, package, sink.version).id for s in clean.states.values()}


def edge_keys(sink: CapturingSink, package: str) -> dict[str, tuple[str, str, str, str]]:
    """Transition key → (source state, target state, source screen, action signature) of the
    steps a crawl took (crawled state ids)."""
    from appmem.graph.model import Transition

    clean = scrub_trace(Trace("x", "explorer", package, sink.version, "", "", "", "", sink.states, []))
    screens = {sid: screen_of(s, package, sink.version) for sid, s in clean.states.items()}
    out = {}
    for step in sink.steps:
        if step.ok and step.source_state in screens and step.target_state in screens:
            a, b = screens[step.source_state].id, screens[step.target_state].id
            out[Transition(a, b, step.action, "").key] = (step.source_state, step.target_state, a, step.action.signature)
    return out


def main() -> None:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=150, help="actions per app and crawl (default 150)")
    parser.add_argument("--apps", type=droidbot_folders, help="comma-separated DroidBot folder names (default: all 11)")
    parser.add_argument("--import-version", help="import the recordings as this version (default: their sha256 alias)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = sorted(args.apps or shared_folders())
    report: dict = {"budget": args.budget, "apps": {}}
    traces = [recording_trace(read_recording(f), app_version=args.import_version) for f in folders]
    autodroid = [t for app in DROIDTASK_APPS for t in (read_autodroid(DROIDTASK / app, app).trace,) if t]
    report["conflicts_droidbot"] = conflicts(traces)
    report["conflicts_droidtask"] = conflicts(autodroid)
    with private_stack() as settings:
        store = open_graph(settings)
        store.ensure_schema()
        imported: dict[str, dict[str, str]] = {}  # package → recorded state id → screen id
        for trace in traces:
            ingest_trace(store, trace, chunk_size=100)
            rows = store.read("bench_trace_screens", trace_id=trace.id)
            imported[trace.package] = {r["state_id"]: r["screen_id"] for r in rows if r["package"] == trace.package}
        for profile in PROFILES:
            runs = crawl(settings, folders, Profile.parse(profile), 1, args.budget)
            for package, run in runs.items():
                ref = set(imported[package].values())
                seen = {r["screen_id"]: r["title"] for r in store.read("bench_trace_screens", trace_id=run["trace"])
                        if r["package"] == package}
                new = {s: t for s, t in seen.items() if s not in ref}
                report["apps"].setdefault(package, {"imported_screens": len(ref)})[profile] = {
                    "seen": len(seen), "new": len(new), "ratio": round((len(ref) + len(new)) / max(1, len(ref)), 3),
                    "split_titles": sorted(set(new.values()))[:6]}
        before = {p: store.read("bench_app_edges", package=p) for p in imported}
        before_edges = {p: {e["key"] for e in rows} for p, rows in before.items()}
        before_actions = {p: {(e["source"], f"{e['action']}|{e['element_key'] or ''}|{e['detail'] or ''}")
                              for e in rows} for p, rows in before.items()}
        runs = crawl(settings, folders, Profile(), 2, args.budget)
        for package, run in runs.items():
            app, ref = run["app"], imported[package]
            changed = set().union(*(u.changed_states for u in app.updates))
            unchanged_screens = {ref[s] for s in run["visited"] if s in ref and s not in changed}
            unchanged_screens -= {ref[s] for s in changed if s in ref}
            seen = crawled_screens(run["sink"], package)
            recorded_of = {shown_state_id(st): sid for sid, st in app.states.items()}
            same = {sid for sid in ref if sid not in changed}
            taken = {k: ab for k, ab in edge_keys(run["sink"], package).items()
                     if recorded_of.get(ab[0]) in same and recorded_of.get(ab[1]) in same}
            # ... of those, the ones by an action the memory knew from their source screen
            known = {k for k, ab in taken.items() if (ab[2], ab[3]) in before_actions[package]}
            edges = store.read("bench_app_edges", package=package)
            removed = app.updates[0].removed
            removed_edges = [e for e in edges if removed and ref.get(removed[0]) == e["source"]
                             and f"{e['action']}|{e['element_key'] or ''}|{e['detail'] or ''}" == removed[1]]
            report["apps"][package]["update"] = {
                "crawled_version": run["sink"].version, "visited": len(run["visited"]),
                "unchanged_screens_reached": len(unchanged_screens),
                "kept_node": len(unchanged_screens & seen),
                "kept_node_share": round(len(unchanged_screens & seen) / max(1, len(unchanged_screens)), 3),
                "edges_taken_between_unchanged": len(taken),
                "kept_edges": len(set(taken) & before_edges[package]),
                "kept_edges_share": round(len(set(taken) & before_edges[package]) / max(1, len(taken)), 3),
                "not_kept_by_action": dict(Counter(ab[3].split("|", 1)[0] for k, ab in taken.items()
                                                   if k not in before_edges[package])),
                "known_action_edges": len(known), "known_action_kept": len(known & before_edges[package]),
                "changed_screens": len({ref[s] for s in changed if s in ref}),
                "edges": len(edges), "stale": sum(1 for e in edges if e["stale"]),
                "removed_edge_stale": [e["stale"] for e in removed_edges]}
        store.driver.close()
    totals = {}
    for profile in PROFILES:
        ref = sum(a["imported_screens"] for a in report["apps"].values())
        new = sum(a[profile]["new"] for a in report["apps"].values())
        totals[profile] = {"imported": ref, "new": new, "ratio": round((ref + new) / max(1, ref), 3)}
    upd = [a["update"] for a in report["apps"].values()]
    totals["update"] = {k: sum(u[k] for u in upd) for k in ("unchanged_screens_reached", "kept_node",
                                                             "edges_taken_between_unchanged", "kept_edges",
                                                             "changed_screens", "edges", "stale")}
    totals["update"]["kept_node_share"] = round(totals["update"]["kept_node"] /
                                                max(1, totals["update"]["unchanged_screens_reached"]), 3)
    totals["update"]["kept_edges_share"] = round(totals["update"]["kept_edges"] /
                                                 max(1, totals["update"]["edges_taken_between_unchanged"]), 3)
    report["totals"] = totals
    u = totals["update"]
    table = markdown_table(["figure", "value"], [
        *([f"extra screens after crawling `{p}`", f"{totals[p]['new']} on {totals[p]['imported']} imported "
           f"(x{totals[p]['ratio']})"] for p in PROFILES),
        *([f"elements with conflicting non-data texts in a screen, {name}", conflict_cell(report[key])]
          for name, key in (("DroidBot apps", "conflicts_droidbot"), ("DroidTask apps", "conflicts_droidtask"))),
        ["after an update: unchanged screens reached that kept their node",
         f"{u['kept_node']}/{u['unchanged_screens_reached']} ({u['kept_node_share']:.1%})"],
        ["after an update: edges between unchanged screens already in memory",
         f"{u['kept_edges']}/{u['edges_taken_between_unchanged']} ({u['kept_edges_share']:.1%})"],
        ["edges stale after the update's crawl", f"{u['stale']}/{u['edges']}"]])
    write_results("merge", table, report, "the recordings' own screens (the `recorded` profile crawl)",
                  f"TWINS ARE SIMULATORS: profiles and updates are derived from the recordings; {args.budget} actions "
                  "per app and crawl.")
    print(json.dumps(report, indent=2, sort_keys=True, default=sorted))


if __name__ == "__main__":
    main()
