"""Benchmark: ingest every shared DroidBot app into an empty graph, batched vs. per-row.

The baseline writes the same rows the way AppAgentX writes its Neo4j memory:
one MERGE per statement, one transaction (and session) per statement. Both runs
use a private embedded stack (temporary state folder, free ports).

    .venv/bin/python -m appmem.bench.ingest [--baseline-apps N]
"""
from __future__ import annotations

import argparse
import time


from appmem.bench.common import DROIDBOT, markdown_table, private_stack, write_results

from appmem import cypher
from appmem.graph.clients import open_graph
from appmem.graph.rows import build_rows, chunk_states, chunk_steps
from appmem.graph.store import GraphStore
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace, scrub_trace


def wipe(store: GraphStore) -> None:
    while store.write("delete_all")[0]["deleted"]:
        pass


def per_row_baseline(store: GraphStore, traces) -> tuple[float, int]:
    """Write every row with its own statement in its own transaction, opening a
    session per write as AppAgentX's Neo4j memory does (`with driver.session() as
    session: session.execute_write(...)` for each node or edge)."""

    def one(name: str, **params) -> None:
        query = cypher.load(name)
        with store.driver.session(database=store.database) as session:
            session.execute_write(lambda tx: tx.run(query, params).consume())

    rows_written = 0
    started = time.perf_counter()
    for trace in map(scrub_trace, traces):
        for index, steps in enumerate(chunk_steps(trace, 10**9)):
            rows = build_rows(trace, steps, chunk_states(trace, steps, first=index == 0), first=index == 0)
            for row in rows.apps:
                one("merge_apps", rows=[row])
            one("merge_trace", app_id=rows.apps[-1]["id"], id=trace.id, source=trace.source, device=trace.device,
                explorer=trace.explorer, package=trace.package, app_version=trace.app_version,
                started=trace.started or None, ended=trace.ended or None, contributor=trace.contributor,
                entry_screen=rows.entry_screen)
            for name, batch in rows.batches():
                for row in batch:
                    one(name, rows=[row], trace_id=trace.id)
                    rows_written += 1
    return time.perf_counter() - started, rows_written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-apps", type=int, default=0,
                        help="run the per-row baseline on the first N apps only (0: all)")
    args = parser.parse_args()
    with private_stack() as settings:
        store = open_graph(settings)
        try:
            store.ensure_schema()
            folders = sorted(p for p in DROIDBOT.iterdir() if p.is_dir())
            t0 = time.perf_counter()
            traces = [recording_trace(read_recording(f)) for f in folders]
            parse_s = time.perf_counter() - t0
            subset = traces[: args.baseline_apps or len(traces)]

            def batched(selection) -> float:
                wipe(store)
                t0 = time.perf_counter()
                for trace in selection:
                    ingest_trace(store, trace, settings.ingest_chunk_steps)
                return time.perf_counter() - t0

            batched(traces)  # warm-up: the server's JIT compiles the write path on first use
            write_s = batched(traces)
            stats = store.stats()
            states = sum(r["states"] for r in stats)
            elements = sum(r["elements"] for r in stats)
            transitions = sum(r["transitions"] for r in stats)
            subset_batched_s = write_s if len(subset) == len(traces) else batched(subset)
            wipe(store)
            base_s, base_rows = per_row_baseline(store, subset)
        finally:
            store.driver.close()

    total_s = parse_s + write_s
    print(f"apps: {len(traces)}  parse: {parse_s:.2f}s  scrub + write: {write_s:.2f}s  total: {total_s:.2f}s")
    print(f"graph: {states} states, {elements} elements, {transitions} transitions")
    print(f"batched: {states / total_s:.0f} states/s, {elements / total_s:.0f} elements/s, "
          f"{transitions / total_s:.0f} transitions/s")
    print(f"per-row baseline on {len(subset)} apps: {base_rows} rows in {base_s:.2f}s "
          f"({base_rows / base_s:.0f} rows/s); batched on the same apps: {subset_batched_s:.2f}s")
    print(f"speed-up batched vs per-row: {base_s / subset_batched_s:.1f}x")
    table = markdown_table(["figure", "value"], [
        ["apps, graph", f"{len(traces)} apps: {states} states, {elements} elements, {transitions} transitions"],
        ["parse / scrub + write / total", f"{parse_s:.2f} s / {write_s:.2f} s / {total_s:.2f} s"],
        ["batched rate", f"{states / total_s:.0f} states/s, {transitions / total_s:.0f} transitions/s"],
        [f"per-row baseline on {len(subset)} apps", f"{base_rows} rows in {base_s:.2f} s; batched {subset_batched_s:.2f} s"],
        ["speed-up batched vs per-row", f"{base_s / subset_batched_s:.1f}x"]])
    write_results("ingest", table, {"apps": len(traces), "states": states, "elements": elements,
                                    "transitions": transitions, "parse_s": parse_s, "write_s": write_s,
                                    "baseline_apps": len(subset), "baseline_rows": base_rows, "baseline_s": base_s,
                                    "batched_same_apps_s": subset_batched_s},
                  "the same recordings written one statement per row")


if __name__ == "__main__":
    main()
