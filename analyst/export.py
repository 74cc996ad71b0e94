"""`appmem export`: a package's memory (or all of it) as GraphML, neo4j-admin CSV or a Cypher script.

- GraphML (networkx writes it; Gephi, yEd and networkx read it): node attribute `labels`
  (":Screen", as APOC writes it), edge attribute `label` (the relationship type), a
  TRANSITION's `key` as the GraphML edge id; list properties as JSON text and datetimes as
  ISO-8601 text, named in the graph attributes `json_node_keys`/`json_edge_keys`/`datetime_keys`.
- CSV in the header format of `neo4j-admin database import full`: a nodes file per label
  (`id:ID`, `:LABEL`, typed properties like `observations:long`, `locators:string[]`) and a
  relationships file per type (`:START_ID`, `:END_ID`, `:TYPE`), plus `import.sh` with the
  command line (array delimiter U+001F, multi-line fields). Every value is quoted, so an
  empty field is an absent property and `""` an empty string (or an empty list).
- Cypher: the schema, then `UNWIND [...] AS r MERGE/CREATE` statements (cypher-shell -f).

`read_graphml` and `read_csv` read the files back into a Subgraph (the round trip).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import neo4j.time

from appmem.analyst.subgraph import Subgraph, cypher_statements, schema_statements
from appmem.errors import InvalidInput

FORMATS = ("graphml", "csv", "cypher")
ARRAY_DELIMITER = "\x1f"
_CSV_TYPES = {bool: "boolean", int: "long", float: "double", str: "string", neo4j.time.DateTime: "datetime"}
_PARSE = {"boolean": lambda s: s == "true", "long": int, "double": float, "string": str,
          "datetime": neo4j.time.DateTime.from_iso_format}


def export(sub: Subgraph, fmt: str, out: Path) -> dict[str, Any]:
    writers = {"graphml": write_graphml, "csv": write_csv, "cypher": write_cypher}
    if fmt not in writers:
        raise InvalidInput("--format", f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    files = writers[fmt](sub, Path(out))
    return {"format": fmt, "nodes": len(sub.nodes), "relationships": len(sub.relationships),
            "files": [str(f) for f in files]}


# -- Cypher ----------------------------------------------------------------------------------
def write_cypher(sub: Subgraph, out: Path) -> list[Path]:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        f.write("// appmem export: load into an empty Neo4j 5 database with `cypher-shell -f`.\n")
        for statement in schema_statements():
            f.write(statement + ";\n")
        for statement, _ in cypher_statements(sub, literals=True):
            f.write(statement + ";\n")
    return [out]


# -- GraphML ---------------------------------------------------------------------------------
def _scalar(value: Any) -> Any:
    return value.iso_format() if isinstance(value, (neo4j.time.DateTime, neo4j.time.Date)) else value


def _graphml_attrs(props: dict, attrs: dict, times: set, json_keys: set, skip: str = "") -> dict:
    """GraphML attributes of a node's or an edge's properties, added to `attrs`: lists and maps as JSON and
    datetimes as ISO text (their keys noted in `json_keys` and `times`, so read_graphml restores them)."""
    for k, v in props.items():
        if isinstance(v, neo4j.time.DateTime):
            times.add(k)
        if isinstance(v, (list, dict)):
            json_keys.add(k)
            v = json.dumps(v, default=_scalar)
        if v is not None and k != skip:
            attrs[k] = _scalar(v)
    return attrs


def write_graphml(sub: Subgraph, out: Path) -> list[Path]:
    import networkx as nx

    g = nx.MultiDiGraph()
    node_json, edge_json, times = set(), set(), set()
    for labels, props in sub.nodes:
        g.add_node(props["id"], **_graphml_attrs(props, {"labels": "".join(f":{x}" for x in labels)}, times,
                                                 node_json))
    keyed = set()
    for n, (rtype, start, _, end, _, props) in enumerate(sub.relationships):
        # networkx takes an edge's `key` attribute for its multigraph key (the GraphML edge id)
        if "key" in props:
            keyed.add(rtype)
        key = props.get("key", f"e{n}")
        g.add_edge(start, end, key=key, **_graphml_attrs(props, {"label": rtype}, times, edge_json, skip="key"))
    g.graph["keyed_edge_types"] = ",".join(sorted(keyed))
    g.graph["datetime_keys"] = ",".join(sorted(times))
    g.graph["json_node_keys"] = ",".join(sorted(node_json))
    g.graph["json_edge_keys"] = ",".join(sorted(edge_json))
    out.parent.mkdir(parents=True, exist_ok=True)
    nx.write_graphml(g, out)
    return [out]


def read_graphml(path: Path) -> Subgraph:
    import networkx as nx

    g = nx.read_graphml(path, force_multigraph=True)
    node_json = set(filter(None, g.graph.get("json_node_keys", "").split(",")))
    edge_json = set(filter(None, g.graph.get("json_edge_keys", "").split(",")))
    keyed = set(filter(None, g.graph.get("keyed_edge_types", "").split(",")))
    times = set(filter(None, g.graph.get("datetime_keys", "").split(",")))

    def value(k: str, v: Any, as_json: set[str]) -> Any:
        if k in as_json:
            return json.loads(v)
        return neo4j.time.DateTime.from_iso_format(v) if k in times and isinstance(v, str) else v

    labels_of = {n: tuple(filter(None, a["labels"].split(":"))) for n, a in g.nodes(data=True)}
    sub = Subgraph()
    for n, attrs in g.nodes(data=True):
        props = {k: value(k, v, node_json) for k, v in attrs.items() if k != "labels"}
        sub.nodes.append((labels_of[n], props))
    for s, e, key, attrs in g.edges(keys=True, data=True):
        props = {k: value(k, v, edge_json) for k, v in attrs.items() if k not in ("label", "id")}
        if attrs["label"] in keyed:
            props["key"] = key
        sub.relationships.append((attrs["label"], s, labels_of[s][0], e, labels_of[e][0], props))
    return sub


# -- neo4j-admin CSV -------------------------------------------------------------------------
def _column_types(rows: list[dict]) -> dict[str, str]:
    """The neo4j-admin type of each property over all rows (mixed numbers: double; else string)."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for k, v in row.items():
            if v is None:
                continue
            items = v if isinstance(v, list) else [v]
            kinds = seen.setdefault(k, set())
            kinds.update(_CSV_TYPES.get(type(x), "string") for x in items)
            if isinstance(v, list):
                kinds.add("[]")
    out = {}
    for k, kinds in seen.items():
        array = "[]" in kinds
        kinds = kinds - {"[]"}
        base = kinds.pop() if len(kinds) == 1 else ("double" if kinds <= {"long", "double"} else "string")
        out[k] = base + ("[]" if array else "")
    return out


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ARRAY_DELIMITER.join(_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_scalar(value))


def _line(cells: list[Any]) -> str:
    """A CSV record where every present value is quoted and an absent one is an empty field: so an
    empty string ("") stays a property and an absent one stays absent, for neo4j-admin as for us."""
    return ",".join("" if c is None else '"' + _text(c).replace('"', '""') + '"' for c in cells) + "\n"


def _write_table(path: Path, fixed: list[str], fixed_rows: list[list[str]], rows: list[dict]) -> None:
    types = _column_types(rows)
    keys = sorted(k for k in types if k != "id" or "id:ID" not in fixed)
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write(_line(fixed + [f"{k}:{types[k]}" for k in keys]))
        for head, row in zip(fixed_rows, rows):
            f.write(_line(head + [row.get(k) for k in keys]))


_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


def _records(text: str) -> Iterator[list[str | None]]:
    """The records _line writes: quoted values, empty fields for absent ones."""
    pos, end = 0, len(text)
    while pos < end:
        row: list[str | None] = []
        while True:
            m = _QUOTED.match(text, pos)
            row.append(m.group(1).replace('""', '"') if m else None)
            pos = m.end() if m else pos
            if pos < end and text[pos] == ",":
                pos += 1
                continue
            pos += 2 if text.startswith("\r\n", pos) else 1
            break
        yield row


def write_csv(sub: Subgraph, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    node_files, rel_files = [], []
    by_label: dict[tuple[str, ...], list[dict]] = {}
    for labels, props in sub.nodes:
        by_label.setdefault(labels, []).append(props)
    for labels, rows in sorted(by_label.items()):
        path = out / f"nodes_{'_'.join(labels)}.csv"
        _write_table(path, ["id:ID", ":LABEL"], [[r["id"], ";".join(labels)] for r in rows], rows)
        node_files.append(path)
    by_type: dict[str, list] = {}
    for rel in sub.relationships:
        by_type.setdefault(rel[0], []).append(rel)
    for rtype, rels in sorted(by_type.items()):
        path = out / f"relationships_{rtype}.csv"
        _write_table(path, [":START_ID", ":END_ID", ":TYPE"], [[r[1], r[3], rtype] for r in rels],
                     [r[5] for r in rels])
        rel_files.append(path)
    script = out / "import.sh"
    args = " \\\n  ".join([f"--nodes={p.name}" for p in node_files] + [f"--relationships={p.name}" for p in rel_files])
    script.write_text("#!/bin/sh\n# Bulk-load this export into a new, stopped Neo4j 5 database (then run cypher/schema.cypher).\n"
                      'cd "$(dirname "$0")"\n'
                      "exec neo4j-admin database import full ${DATABASE:-neo4j} --multiline-fields=true \\\n"
                      f"  --array-delimiter=U+001F \\\n  {args}\n")
    script.chmod(0o755)
    return node_files + rel_files + [script]


def _read_table(path: Path) -> tuple[list[str], list[tuple[list[str], dict]]]:
    records = _records(path.read_text(encoding="utf-8"))
    header = next(records)
    fixed = [h for h in header if h.startswith(":") or h.endswith(":ID")]
    typed = [(i, *h.split(":", 1)) for i, h in enumerate(header) if h not in fixed]
    rows = []
    for cells in records:
        props = {}
        for i, key, kind in typed:
            if cells[i] is None:
                continue
            parse = _PARSE[kind.removesuffix("[]")]
            if kind.endswith("[]"):  # "" is the empty list
                props[key] = [parse(x) for x in cells[i].split(ARRAY_DELIMITER)] if cells[i] else []
            else:
                props[key] = parse(cells[i])
        rows.append((cells[:len(fixed)], props))
    return fixed, rows


def read_csv(folder: Path) -> Subgraph:
    sub = Subgraph()
    for path in sorted(folder.glob("nodes_*.csv")):
        for (node_id, labels), props in _read_table(path)[1]:
            sub.nodes.append((tuple(labels.split(";")), {"id": node_id, **props}))
    label_of = sub.node_labels()
    for path in sorted(folder.glob("relationships_*.csv")):
        for (start, end, rtype), props in _read_table(path)[1]:
            sub.relationships.append((rtype, start, label_of[start], end, label_of[end], props))
    return sub
