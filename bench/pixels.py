"""Benchmark: locate, plan and read from screenshots alone, against the dump path in the same run.

The memory is the shared DroidBot recordings (each app's utg.js and states), imported into a private
stack. Each recorded state comes with the device's screenshot of the same moment (`screen_<time>.jpg`
beside `state_<time>.json`), so for a sample of each app's states:
  locate   the screenshot, read by formats/screenshot.py and located by agent/pixels.py, is the same
           remembered screen as its view tree read as a uiautomator dump (the shown views, no activity)
           is located on: the dump path is the baseline, and its own answer is the truth here;
  scaled   the same at 720 pixels wide (the screenshot resized), the memory's coordinates scaled (each
           app's first sample);
  plan     for a tap DroidBot recorded on that state, the plan asked from the screenshot with the tapped
           view's label as the task starts with a step on that view (same class, resource id and label);
           the same asked from the dump is the baseline;
  read     the share of labelled controls (interactive views whose own or first descendant's text is shown)
           whose text an OCR line reads with its centre inside the text's box;
  latency  POST /v1/locate with the screenshot through the API (the whole app in a test client: auth,
           JSON, base64, reading, locating), p50/p99 wall and CPU seconds (the app runs in this process, so
           its CPU time is what a request costs whatever else the machine runs), against the same moment's view tree
           sent as a uiautomator dump (rendered by twins/render.py); and in process, reading plus locating
           one screenshot (wall and CPU seconds; the machine's other load shows in the wall figure).
agent/pixels.py's weights (PixelMatch) are then chosen leave-one-app-out over a small grid, the readings
reused, and each app's agreement is given with the weights the other apps chose. Locate agreement is
also given by kind of screen: dialogs (the root is not the whole screen), lists
(a scrolling view), forms (an editable view), little text (at most two labelled controls), other.

The states of each app are sampled evenly (--per-app N of the app's screenshots, in time order), so a
run on a busy machine stays short; --scales measures text detection's input size instead (found text
against time), which is how formats/screenshot.py's ReaderOptions.detect_side was chosen.

    .venv/bin/python -m appmem.bench.pixels [--apps a,b] [--per-app 8] [--no-plans] [--scales 640,960,1280]
"""
from __future__ import annotations

import io
import json
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from appmem.bench.common import (BenchParser, droidbot_folders, markdown_table, options_changed, positive_ints,
                                 private_stack, shared_folders, write_results)

TOUCHED = re.compile(r"^TouchEvent\(state=\w+, view=(\w+)")
KINDS = ("dialog", "list", "form", "little text", "other")
SCALED_WIDTH = 720
GRID_KEYS = ("layout_w", "cover_w", "data_w", "empty", "seen_w")  # agent/pixels.py's PixelMatch


def point(weights) -> tuple:
    """A PixelMatch's grid options, in GRID_KEYS order."""
    return tuple(getattr(weights, k) for k in GRID_KEYS)


@dataclass
class Sample:
    """One recorded state: its view tree (as a dump shows it) and its screenshot's bytes."""

    package: str
    name: str
    dump: Any  # UIState of the shown views, no activity (what a uiautomator dump gives)
    state: Any  # the recorded UIState
    jpeg: bytes
    taps: list[Any]  # the views DroidBot tapped on this state


def samples(folder: Path, per_app: int) -> list[Sample]:
    from appmem.formats.uixml import shown_views
    from appmem.ingest.droidbot import read_json, read_recording, state_from_droidbot

    rec = read_recording(folder)
    tapped = taps_by_state(rec)
    states: list[tuple[Path, Any]] = []
    for shot in sorted((folder / "states").glob("screen_*.jpg")):
        path = shot.with_name(shot.name.replace("screen_", "state_")).with_suffix(".json")
        if path.is_file():
            state, _ = state_from_droidbot(read_json(path), str(path))
            if state.package == rec.package:  # the app's own screens (not the launcher's, a permission page's)
                states.append((shot, state))
    step = max(1, len(states) // per_app)
    out = []
    for shot, state in states[::step][:per_app]:
        dump = replace(state, views=shown_views(state.views), activity="", state_id="")
        out.append(Sample(state.package, shot.name, dump, state, shot.read_bytes(), tapped.get(state.state_id, [])))
    return out


def taps_by_state(rec) -> dict[str, list[Any]]:
    """state_str → the views DroidBot tapped there (one per distinct view)."""
    out: dict[str, dict[int, Any]] = {}
    for edge in rec.edges:
        src = edge.get("from")
        state = rec.states.get(src)
        for event in edge.get("events") or ():
            found = TOUCHED.search(str(event.get("event_str", ""))) if isinstance(event, dict) else None
            index = rec.view_strs.get(src, {}).get(found.group(1)) if found else None
            if state is not None and index is not None and event.get("event_type") == "touch":
                out.setdefault(src, {})[index] = next(v for v in state.views if v.index == index)
    return {k: list(v.values()) for k, v in out.items()}


def kind_of(state) -> str:
    root = next((v for v in state.views if v.parent < 0), None)
    if root is not None and (root.bounds.left > 0 or root.bounds.top > 0):
        return "dialog"
    if any(v.editable for v in state.views if v.visible):
        return "form"
    if any(v.scrollable for v in state.views if v.visible):
        return "list"
    if len(labelled_controls(state)) <= 2:
        return "little text"
    return "other"


def labelled_controls(state) -> list[tuple[str, Any]]:
    """(text, box) of each interactive shown view's own text, else its first descendant's."""
    from appmem.formats.uixml import shown_views

    views = shown_views(state.views)
    by_index = {v.index: v for v in views}
    out = []
    for view in views:
        if not view.interactive:
            continue
        todo, text = [view], None
        while todo and text is None:
            v = todo.pop(0)
            text = v if v.text.strip() else None
            todo.extend(by_index[c] for c in v.children if c in by_index)
        if text is not None and text.bounds.area:
            out.append((text.text, text.bounds))
    return out


def read_share(reading, state) -> tuple[int, int]:
    """(found, labelled): labelled controls of the app's area whose text a line reads inside its box."""
    from appmem.formats.screenshot import same_text, text_views

    lines = text_views(reading)
    top = min((v.bounds.top for v in lines), default=0)
    truth = [(t, b) for t, b in labelled_controls(state) if b.center[1] >= top or not lines]
    found = sum(any(same_text(v.text, t) and b.contains(*v.bounds.center) for v in lines) for t, b in truth)
    return found, len(truth)


def resized(jpeg: bytes, width: int) -> bytes:
    from PIL import Image

    image = Image.open(io.BytesIO(jpeg))
    out = io.BytesIO()
    image.resize((width, round(image.height * width / image.width))).save(out, "PNG")
    return out.getvalue()


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3) if values else 0.0


def measure(service, app_samples: list[Sample], plans: bool) -> dict[str, Any]:
    """One app's figures."""
    from appmem.agent.locate import locate
    from appmem.formats.screenshot import ReaderOptions, screen_reader

    reader = screen_reader(ReaderOptions())
    out: dict[str, Any] = {"states": 0, "located": 0, "scaled": 0, "scaled_of": 0, "dump_known": 0, "taps": 0, "plans": 0,
                           "dump_plans": 0, "found": 0, "labelled": 0, "wall": [], "cpu": [], "dump_s": [],
                           "records": [], "kinds": {k: [0, 0] for k in KINDS}}
    for s in app_samples:
        graph = service.planner().graph([s.package])
        t = time.perf_counter()
        dump_at = locate(service.store, s.package, s.dump, graph)
        out["dump_s"].append(time.perf_counter() - t)
        t, c = time.perf_counter(), time.process_time()
        reading = reader.read(s.jpeg, s.package)
        pixel_at = locate(service.store, s.package, reading, graph)
        out["wall"].append(time.perf_counter() - t)
        out["cpu"].append(time.process_time() - c)
        same = pixel_at["screen_id"] == dump_at["screen_id"] and dump_at["screen_id"] is not None
        if not out["states"]:  # the app's first sample only: a second reading of each would double the run
            small = locate(service.store, s.package, reader.read(resized(s.jpeg, SCALED_WIDTH), s.package), graph)
            out["scaled"] += small["screen_id"] == dump_at["screen_id"] and dump_at["screen_id"] is not None
            out["scaled_of"] += dump_at["screen_id"] is not None
        out["states"] += 1
        out["records"].append((service.store, graph, s.package, reading, dump_at["screen_id"]))
        out["dump_known"] += dump_at["screen_id"] is not None
        out["located"] += same
        kind = out["kinds"][kind_of(s.state)]
        kind[0], kind[1] = kind[0] + same, kind[1] + 1
        found, labelled = read_share(reading, s.state)
        out["found"] += found
        out["labelled"] += labelled
        if plans:
            for view in s.taps:
                task = view.text.strip() or view.content_desc.strip()
                if not task:
                    continue
                out["taps"] += 1
                out["plans"] += first_step_on(service.plan_afresh(task, s.package, reading).model_dump(), view)
                out["dump_plans"] += first_step_on(service.plan_afresh(task, s.package, s.dump).model_dump(), view)
    return out


def loao(per_app: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """agent/pixels.py's weights chosen leave-one-app-out: for each app, the grid point that agrees best with
    the dump path on the other apps, scored on it. Readings are reused: only the matching is redone."""
    from appmem.agent.pixels import PixelMatch, locate_pixels

    # the defaults first; on a tie the point nearest them is chosen (bench/common.options_changed). Two
    # values a weight: with eleven apps, most located in full whatever the weights, a finer grid lets the
    # other apps' ties choose points that the held-out app pays for
    grid = list(dict.fromkeys([PixelMatch()] + [
        PixelMatch(layout_w=w, cover_w=c, data_w=d, empty=e, seen_w=s)
        for w in (0.25, 0.5) for c in (0.25, 0.5) for d in (0.3, 1.0) for e in (0.0, 1.0) for s in (0.0, 0.05)]))
    agree = {app: [sum(locate_pixels(store, g, pkg, reading, weights)["screen_id"] == dump for store, g, pkg, reading,
                       dump in r["records"] if dump is not None) for weights in grid] for app, r in per_app.items()}
    out = {}
    for app in per_app:
        best = max(range(len(grid)), key=lambda i: (sum(agree[a][i] for a in per_app if a != app),
                                                    -options_changed(point(grid[i]), point(grid[0])), -i))
        out[app] = {**{k: getattr(grid[best], k) for k in GRID_KEYS}, "located": agree[app][best]}
    return out


def first_step_on(plan: dict[str, Any], view) -> bool:
    """Whether the plan's first step acts on the view (same class, resource id, text and description)."""
    element = (plan["steps"][0].get("element") if plan["steps"] else None) or {}
    return (element.get("class_name"), element.get("resource_id"), element.get("text"),
            element.get("content_desc")) == (view.class_name, view.resource_id, view.text, view.content_desc)


def ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.2f}" if b else "-"


def kinds_line(kinds: dict[str, list[int]]) -> str:
    return "locate by kind of screen: " + "; ".join(f"{k} {ratio(*kinds[k])}" for k in KINDS)


def report(per_app: dict[str, dict[str, Any]], plans: bool) -> dict[str, Any]:
    total: dict[str, Any] = {}
    print(f"{'app':36} {'locate':>16} {'720 wide':>16} {'plan (pixels)':>16} {'plan (dump)':>16} {'read':>18}")
    for app, r in per_app.items():
        print(f"{app:36} {ratio(r['located'], r['dump_known']):>16} {ratio(r['scaled'], r['scaled_of']):>16} "
              f"{ratio(r['plans'], r['taps']) if plans else '-':>16} {ratio(r['dump_plans'], r['taps']) if plans else '-':>16} "
              f"{ratio(r['found'], r['labelled']):>18}")
        for key, value in r.items():
            if isinstance(value, list):
                total.setdefault(key, []).extend(value)
            elif isinstance(value, int):
                total[key] = total.get(key, 0) + value
    kinds = {k: [sum(r["kinds"][k][i] for r in per_app.values()) for i in (0, 1)] for k in KINDS}
    print(f"{'all':36} {ratio(total['located'], total['dump_known']):>16} {ratio(total['scaled'], total['scaled_of']):>16} "
          f"{ratio(total['plans'], total['taps']) if plans else '-':>16} {ratio(total['dump_plans'], total['taps']) if plans else '-':>16} "
          f"{ratio(total['found'], total['labelled']):>18}")
    print(kinds_line(kinds))
    chosen = loao(per_app)
    print("locate with agent/pixels.py's weights chosen leave-one-app-out: " + "; ".join(
        f"{app} {ratio(c['located'], per_app[app]['dump_known'])} ("
        + ", ".join(f"{k} {c[k]}" for k in GRID_KEYS) + ")" for app, c in chosen.items())
        + f"; all {ratio(sum(c['located'] for c in chosen.values()), total['dump_known'])}")
    latency = {"pixels_wall_p50": percentile(total["wall"], .5), "pixels_wall_p99": percentile(total["wall"], .99),
               "pixels_cpu_p50": percentile(total["cpu"], .5), "pixels_cpu_p99": percentile(total["cpu"], .99),
               "dump_p50": percentile(total["dump_s"], .5), "dump_p99": percentile(total["dump_s"], .99)}
    print("latency, read + locate one screenshot (s): wall p50 {pixels_wall_p50} p99 {pixels_wall_p99}; CPU p50 "
          "{pixels_cpu_p50} p99 {pixels_cpu_p99}; the dump path (baseline): p50 {dump_p50} p99 {dump_p99}".format(**latency))
    return {"per_app": {a: {k: v for k, v in r.items() if not isinstance(v, list)} for a, r in per_app.items()},
            "kinds": kinds, "latency": latency, "loao": chosen}


def api_latency(settings, service, all_samples: list[Sample]) -> dict[str, float]:
    """Wall seconds of POST /v1/locate through the API: each sample's screenshot, and its view tree as a dump."""
    import base64
    import logging

    from fastapi.testclient import TestClient

    from appmem.api.app import create_app
    from appmem.keys import KeyStore
    from appmem.stack import Stack
    from appmem.twins.render import hierarchy_xml
    from appmem.workers.devices import open_redis

    _, secret = KeyStore(open_redis(Stack(settings).redis_url())).create("bench-pixels", "plan", 0)
    auth = {"Authorization": f"Bearer {secret}"}
    shots, dumps, cpu = [], [], []
    with TestClient(create_app(settings, service)) as client:
        logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would bury the figures
        for s in all_samples:
            bodies = ((shots, {"app": s.package, "screenshot": base64.b64encode(s.jpeg).decode("ascii")}),
                      (dumps, {"app": s.package, "screen_xml": hierarchy_xml(s.dump)}))
            for times, body in bodies:
                t, c = time.perf_counter(), time.process_time()
                answer = client.post("/v1/locate", headers=auth, json=body)
                times.append(time.perf_counter() - t)
                if times is shots:  # the app runs in this process (a thread of the test client): its CPU counts here
                    cpu.append(time.process_time() - c)
                if answer.status_code != 200:
                    raise RuntimeError(f"/v1/locate answered {answer.status_code}: {answer.text[:300]}")
    return {"api_p50": percentile(shots, .5), "api_p99": percentile(shots, .99),
            "api_cpu_p50": percentile(cpu, .5), "api_cpu_p99": percentile(cpu, .99),
            "api_dump_p50": percentile(dumps, .5), "api_dump_p99": percentile(dumps, .99)}


def results_table(result: dict[str, Any], plans: bool) -> str:
    """Per app: locate (full size, 720 wide), plans from pixels and from the dump, text read, and locate with
    the weights the other apps chose."""
    rows = [[app, ratio(r["located"], r["dump_known"]), ratio(r["scaled"], r["scaled_of"]),
             ratio(r["plans"], r["taps"]) if plans else "-", ratio(r["dump_plans"], r["taps"]) if plans else "-",
             ratio(r["found"], r["labelled"]), ratio(result["loao"][app]["located"], r["dump_known"])]
            for app, r in result["per_app"].items()]
    return markdown_table(["app", "locate (pixels vs dump)", "720 wide", "plan (pixels)", "plan (dump)",
                           "text read", "locate, weights chosen leave-one-app-out"], rows)


def scales(folders: list[Path], per_app: int, sides: list[int]) -> None:
    """Text found and CPU time per screenshot at each detection size."""
    from appmem.formats.screenshot import ReaderOptions, ScreenReader

    all_samples = [s for f in folders for s in samples(f, per_app)]
    for side in sides:
        reader = ScreenReader(ReaderOptions(detect_side=side))
        reader.read(all_samples[0].jpeg, "warm.up")
        found = labelled = 0
        cpu = []
        for s in all_samples:
            c = time.process_time()
            reading = reader.read(s.jpeg, s.package)
            cpu.append(time.process_time() - c)
            f, n = read_share(reading, s.state)
            found, labelled = found + f, labelled + n
        print(f"detect at {side:5} px: found {ratio(found, labelled)}, CPU p50 {percentile(cpu, .5)} s "
              f"p90 {percentile(cpu, .9)} s ({len(all_samples)} screenshots)", flush=True)


def main() -> int:
    parser = BenchParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=droidbot_folders, default=None, help="comma-separated shared app names")
    parser.add_argument("--per-app", type=int, default=8, help="screenshots sampled per app (evenly, in time order)")
    parser.add_argument("--no-plans", action="store_true", help="locate and read only")
    parser.add_argument("--scales", type=positive_ints, default=None, help="measure detection sizes instead")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON at the end")
    args = parser.parse_args()
    folders = args.apps or shared_folders()
    if args.scales:
        scales(folders, args.per_app, args.scales)
        return 0
    from appmem.agent.service import Service
    from appmem.ingest.droidbot import read_recording, recording_trace
    from appmem.ingest.pipeline import ingest_trace
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer

    with private_stack() as settings:
        service = Service.open(settings)
        try:
            service.store.ensure_schema()
            for folder in folders:
                ingest_trace(service.store, recording_trace(read_recording(folder)), settings.ingest_chunk_steps)
            if not args.no_plans:
                summarize(service.store, service.vectors, service.embedder, DeterministicSummarizer(settings.risky_words))
            per_app, taken = {}, []
            for folder in folders:
                taken.extend(app_samples := samples(folder, args.per_app))
                per_app[folder.name] = measure(service, app_samples, not args.no_plans)
                print(f"  {folder.name}: done", flush=True)
            result = report(per_app, not args.no_plans)
            result["latency"].update(api_latency(settings, service, taken))
            print("latency through the API, POST /v1/locate (s): screenshot wall p50 {api_p50} p99 {api_p99}, CPU "
                  "p50 {api_cpu_p50} p99 {api_cpu_p99}; the dump (baseline) wall p50 {api_dump_p50} p99 "
                  "{api_dump_p99}".format(**result["latency"]), flush=True)
        finally:
            service.close()
    write_results("pixels", results_table(result, not args.no_plans), result,
                  "the same screens located and planned from their view trees read as uiautomator dumps",
                  f"{args.per_app} screenshots sampled per app; the recordings' screenshots (no twin); latency of "
                  f"POST /v1/locate through the API (s, wall p50/p99): a screenshot "
                  f"{result['latency']['api_p50']}/{result['latency']['api_p99']} (CPU "
                  f"{result['latency']['api_cpu_p50']}/{result['latency']['api_cpu_p99']}), the dump "
                  f"{result['latency']['api_dump_p50']}/{result['latency']['api_dump_p99']}; in process, reading and "
                  f"locating (s, CPU p50/p99) {result['latency']['pixels_cpu_p50']}/{result['latency']['pixels_cpu_p99']}"
                  f"; {kinds_line(result['kinds'])}")
    if args.json:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
