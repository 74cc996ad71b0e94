"""Capacity estimate for 100,000 apps, from the shared data on a private embedded stack.

Measures, per shared DroidBot app: screens, elements, transitions (and all nodes and
relationships its memory holds); on the embedded stack: ArcadeDB bytes on disk per
node+relationship, Qdrant (local folder) bytes per vector, ingest rows/s, embedding
texts/s. Models Neo4j 5's store from its record sizes (node 15 B, relationship 34 B,
property record 41 B with 4 blocks of 8 B, strings/arrays over the inline limit in
128 B dynamic records, ~64 B per unique-index entry) over the *actual* properties, and a
Qdrant server from 384 float32 + HNSW links (m=16) + the measured payload bytes. Then
scales both to 100,000 apps. The twins are not used: these are recorded apps.

    .venv/bin/python -m appmem.bench.capacity [--apps N] [--json]
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path


from appmem.bench.common import BenchParser, app_count, markdown_table, private_stack, shared_folders, write_results

from appmem.analyst.subgraph import read
from appmem.graph.clients import open_graph
from appmem.stack import Stack
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace

APPS = 100_000
DIM = 384
HNSW_M = 16
NEO4J = {"node": 15, "rel": 34, "prop_record": 41, "blocks": 4, "dynamic": 128, "dynamic_payload": 120,
         "inline_string": 7, "index_entry": 64}


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def property_blocks(value) -> tuple[int, int]:
    """(8-byte property blocks, dynamic-record bytes) Neo4j's record format spends on one value."""
    if isinstance(value, str):
        n = len(value.encode("utf-8"))
        return (1, 0) if n <= NEO4J["inline_string"] else (1, -(-n // NEO4J["dynamic_payload"]) * NEO4J["dynamic"])
    if isinstance(value, list):
        n = sum(len(str(v).encode("utf-8")) + 4 for v in value)
        return (1, -(-n // NEO4J["dynamic_payload"]) * NEO4J["dynamic"] if n > 24 else 0)
    return (1 if not isinstance(value, float) else 2, 0)


def neo4j_bytes(props_list: list[dict], record: int) -> int:
    total = 0
    for props in props_list:
        blocks, dynamic = 0, 0
        for value in props.values():
            b, d = property_blocks(value)
            blocks, dynamic = blocks + b, dynamic + d
        total += record + -(-blocks // NEO4J["blocks"]) * NEO4J["prop_record"] + dynamic
    return total


def main() -> None:
    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=app_count, default=0, help="only the first N shared apps (default all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = shared_folders()[: args.apps or None]
    traces = [recording_trace(read_recording(f)) for f in folders]
    out: dict = {"apps": len(traces)}
    with private_stack() as settings:
        db_dir = settings.home / "arcadedb" / "databases"
        store = open_graph(settings)
        store.ensure_schema()
        empty_bytes = folder_bytes(db_dir)
        started = time.perf_counter()
        for trace in traces:
            ingest_trace(store, trace, chunk_size=200)
        ingest_s = time.perf_counter() - started
        per_app = []
        for row in store.stats():
            sub = read(store, row["package"], every=True)
            per_app.append({"package": row["package"], "screens": row["screens"], "elements": row["elements"],
                            "transitions": row["transitions"], "states": row["states"],
                            "nodes": len(sub.nodes), "relationships": len(sub.relationships)})
        everything = read(store, None, every=True)
        nodes, rels = len(everything.nodes), len(everything.relationships)
        neo_nodes = neo4j_bytes([p for _, p in everything.nodes], NEO4J["node"])
        neo_rels = neo4j_bytes([p for *_, p in everything.relationships], NEO4J["rel"])
        neo_index = nodes * NEO4J["index_entry"]

        from appmem.semantic.embedder import Embedder
        from appmem.semantic.pipeline import summarize
        from appmem.semantic.vectors import VectorStore, open_qdrant

        client = open_qdrant(settings)
        embedder = Embedder(settings.home)
        report = summarize(store, VectorStore(client, embedder.dim), embedder)
        vectors = VectorStore(client, embedder.dim)
        points = sum(vectors.count(c) for c in ("elements", "screens", "tasks"))
        payload = sum(len(json.dumps(p)) for c in ("elements", "screens")
                      for _, p in vectors.points(c, vectors.packages(c)))
        client.close()
        store.driver.close()
        Stack(settings).down()  # flush, then measure what is on disk
        arcade_bytes = folder_bytes(db_dir) - empty_bytes
        qdrant_bytes = folder_bytes(settings.qdrant_path)

    mean = {k: statistics.mean(a[k] for a in per_app) for k in ("screens", "elements", "transitions", "states",
                                                                   "nodes", "relationships")}
    vectors_per_app = points / len(per_app)
    qdrant_server_per_vector = DIM * 4 + 2 * HNSW_M * 4 * 1.1 + payload / max(points, 1)
    neo_per_app = (neo_nodes + neo_rels + neo_index) / len(per_app)
    out.update({
        "per_app": per_app, "mean_per_app": {k: round(v, 1) for k, v in mean.items()},
        "median_per_app": {k: statistics.median(a[k] for a in per_app) for k in mean},
        "graph": {"nodes": nodes, "relationships": rels,
                  "arcadedb_bytes_per_node_or_rel": round(arcade_bytes / (nodes + rels), 1),
                  "neo4j_model_bytes_per_node": round(neo_nodes / nodes, 1),
                  "neo4j_model_bytes_per_rel": round(neo_rels / rels, 1),
                  "ingest_rows_per_s": round((nodes + rels) / ingest_s), "ingest_s": round(ingest_s, 2)},
        "vectors": {"points": points, "embedded_texts_per_s": round(report.texts_per_second),
                    "qdrant_local_bytes_per_vector": round(qdrant_bytes / max(points, 1)),
                    "qdrant_server_model_bytes_per_vector": round(qdrant_server_per_vector),
                    "payload_bytes_per_vector": round(payload / max(points, 1))},
        "at_100k_apps": {
            "nodes": round(mean["nodes"] * APPS), "relationships": round(mean["relationships"] * APPS),
            "neo4j_store_gb": round(neo_per_app * APPS / 1e9, 1),
            "arcadedb_gb": round(arcade_bytes / len(per_app) * APPS / 1e9, 1),
            "vectors": round(vectors_per_app * APPS),
            "qdrant_server_gb": round(vectors_per_app * APPS * qdrant_server_per_vector / 1e9, 1),
            "qdrant_ram_gb_vectors_in_memory": round(vectors_per_app * APPS * (DIM * 4 + 2 * HNSW_M * 4) / 1e9, 1),
            "write_rows_per_s_to_load_in_30_days": round((mean["nodes"] + mean["relationships"]) * APPS / (30 * 86400), 1),
            "days_to_load_at_measured_rate": round((mean["nodes"] + mean["relationships"]) * APPS
                                                   / ((nodes + rels) / ingest_s) / 86400, 2),
            "days_to_embed_at_measured_rate_one_process": round(vectors_per_app * APPS / report.texts_per_second
                                                                 / 86400, 2),
        },
    })
    rows = [[a["package"], a["screens"], a["elements"], a["transitions"], a["nodes"], a["relationships"]] for a in per_app]
    mean = out["mean_per_app"]
    rows.append(["**mean**", *(mean[k] for k in ("screens", "elements", "transitions", "nodes", "relationships"))])
    table = markdown_table(["app", "screens", "elements", "transitions", "nodes", "relationships"], rows)
    table += "\n" + markdown_table(["at 100,000 apps", "value"], [[k.replace("_", " "), v]
                                                                   for k, v in out["at_100k_apps"].items()])
    table += "\n" + markdown_table(["measured", "value"], [[f"graph: {k.replace('_', ' ')}", v] for k, v in out["graph"].items()]
                                   + [[f"vectors: {k.replace('_', ' ')}", v] for k, v in out["vectors"].items()])
    write_results("capacity", table, out, "none (sizes and rates measured, then scaled to 100,000 apps)",
                  "The shared DroidBot recordings (a few hundred steps per app) on a private embedded stack; Neo4j "
                  "and Qdrant-server sizes are modelled from record sizes over the real properties.")
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{'app':40} {'screens':>8} {'elements':>9} {'transitions':>12} {'nodes':>7} {'rels':>7}")
    for a in per_app:
        print(f"{a['package'][:40]:40} {a['screens']:>8} {a['elements']:>9} {a['transitions']:>12} "
              f"{a['nodes']:>7} {a['relationships']:>7}")
    print("mean per app:", out["mean_per_app"])
    print("graph:", out["graph"])
    print("vectors:", out["vectors"])
    print("at 100,000 apps:", out["at_100k_apps"])


if __name__ == "__main__":
    main()
