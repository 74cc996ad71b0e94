"""Tasks built from an app's recorded graph: each recorded tap on an element whose label (as the memory
keeps it, scrubbed) no other tapped element of the app carries becomes the task "tap LABEL", with the
screen the tap led to as its target (the runtime tests and bench/serve.py use them)."""
from __future__ import annotations

from collections import Counter

from graph.store import GraphStore


def recorded_tasks(store: GraphStore, package: str, limit: int) -> list[dict]:
    entry = {r["screen_id"] for r in store.read("planner_entry_screens", packages=[package])}
    rows = store.read("serve_task_targets", package=package)
    labels = Counter(r["label"] for r in {r["element_id"]: r for r in rows}.values())
    out: dict[str, dict] = {}
    for r in rows:
        label = (r["label"] or "").strip()
        if 2 < len(label) <= 40 and "<" not in label and labels[r["label"]] == 1 and r["screen_id"] not in entry:
            out.setdefault(label, {"task": f"tap {label}", "label": label, "target": r["to_screen"]})
    return list(out.values())[:limit]
