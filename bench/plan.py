"""Benchmark: shortcut plans for the DroidTask gold tasks, scored by ../shared/eval/droidtask_score.py.

For each gold task of the six shared apps, `Planner.plan` (what `appmem plan`
runs) plans from where recorded runs entered the app, with no LLM; the plans
are written as `<app>/<task_id>.json` and scored by the shared scorer
(success: the gold steps occur in order; target: the last gold element is in
the plan; rrr: gold length / plan length on successes).

Two memories, built on a private embedded stack:
  exploration  AutoDroid's exploration memory (utg.yaml) only: the honest setting
  +demos       plus the gold demonstrations themselves (an upper bound: the
               gold paths are then in the UTG)

    .venv/bin/python bench/plan.py [--memory exploration|all] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DROIDTASK, DROIDTASK_APPS, SHARED, private_stack  # noqa: E402

from agent.planner import Planner, PlanningError, plan_to_dict  # noqa: E402
from appmem.clients import open_graph  # noqa: E402
from ingest.autodroid import read_autodroid  # noqa: E402
from ingest.pipeline import ingest_tasks, ingest_trace  # noqa: E402
from semantic.embedder import Embedder  # noqa: E402
from semantic.pipeline import summarize  # noqa: E402
from semantic.summaries import DeterministicSummarizer  # noqa: E402
from semantic.vectors import VectorStore, open_qdrant  # noqa: E402


def run(memory: str, out: Path) -> dict:
    with private_stack() as settings:
        store = open_graph(settings)
        client = open_qdrant(settings)
        try:
            store.ensure_schema()
            packages = {}
            for app in DROIDTASK_APPS:
                imported = read_autodroid(DROIDTASK / app, app, None)
                packages[app] = imported.trace.package
                ingest_trace(store, imported.trace, settings.ingest_chunk_steps)
                if memory == "all":
                    ingest_trace(store, imported.demo_trace, settings.ingest_chunk_steps)
                    ingest_tasks(store, imported.tasks, imported.demo_trace)
            embedder = Embedder(settings.home)
            vectors = VectorStore(client, embedder.dim)
            summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words))
            planner = Planner(store, vectors, embedder)
            started, planned, failed = time.perf_counter(), 0, 0
            for app in DROIDTASK_APPS:
                (out / app).mkdir(parents=True, exist_ok=True)
                for task in json.loads((DROIDTASK / app / "tasks.json").read_text()):
                    try:
                        plan = plan_to_dict(planner.plan(task["task"], [packages[app]]))
                        planned += 1
                    except PlanningError as exc:
                        plan = {"steps": [], "llm_calls": 0, "error": str(exc)}
                        failed += 1
                    (out / app / f"{task['task_id']}.json").write_text(json.dumps(plan))
            seconds = time.perf_counter() - started
        finally:
            client.close()
            store.driver.close()
    scored = subprocess.run([sys.executable, str(SHARED / "eval" / "droidtask_score.py"), str(DROIDTASK), str(out),
                             "--json"], capture_output=True, text=True, check=True)
    summary = json.loads(scored.stdout)["summary"]
    summary.update(planned=planned, refused=failed, ms_per_plan=round(1000 * seconds / max(1, planned), 1))
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", choices=("exploration", "all", "both"), default="both")
    parser.add_argument("--keep", type=Path, help="keep the plan files in this folder")
    args = parser.parse_args()
    memories = ("exploration", "all") if args.memory == "both" else (args.memory,)
    for memory in memories:
        with tempfile.TemporaryDirectory(prefix="appmem-plans-") as tmp:
            out = args.keep / memory if args.keep else Path(tmp)
            s = run(memory, out)
        label = "exploration memory" if memory == "exploration" else "exploration + gold demonstrations"
        print(f"{label}: success {s['success_rate']:.1%}, target {s['target_rate']:.1%}, "
              f"rrr {s['mean_rrr_on_success']}, tasks {s['tasks']}, llm calls {s['llm_calls']}, "
              f"{s['ms_per_plan']} ms/plan, refused {s['refused']}")
        print("  per app: " + ", ".join(f"{app} {rate:.0%}" for app, rate in s["per_app"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
