"""A piece of the memory as plain rows: read from the graph (one package, or all), written back as Cypher.

`Subgraph` holds nodes (labels, properties) and relationships (type, end node ids and
labels, properties), what every export format is made from. `cypher_statements`
renders it as `UNWIND` statements, with the rows as literals (a script for
cypher-shell or Neo4j Browser) or as a `$rows` parameter (`load`, which writes a
subgraph into a graph through the driver, as the round-trip test does). These are the
only statements not kept in cypher/: their labels and types come from the data (checked
against a strict name pattern); values are parameters or escaped literals.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import neo4j.time

from appmem import cypher
from appmem.errors import InputFormatError, InvalidInput, NotFound
from appmem.graph.store import GraphStore, translated_errors

# Rows per UNWIND statement in scripts and loads.
BATCH = 500
# Properties that name contributors (their key ids: the version claims too), or hold what tenants' keys alone observed (their text
# variants, their counts on an edge, their reports of an element, what they typed on an edge and their titles of a
# screen: the layers, cypher/merge_elements.cypher, merge_transitions.cypher and merge_screens.cypher), or whose an
# element's texts or a screen's title are: written only in an export of the whole graph (--every). An element's
# layer lists (`layer_keys` ... `layer_locator_sets`, and the flat `layer_flags`, `layer_flag_keys`, `layer_locators`,
# `layer_locator_keys`) are those of a graph not yet migrated: tenant keys' reports of elements are Report nodes
# now, which no export of what every reader reads holds (the trust predicate admits none).
LAYER = frozenset({"layer_keys", "layer_texts", "layer_descs", "layer_labels", "layer_bounds", "layer_flag_sets",
                   "layer_locator_sets", "layer_flags", "layer_flag_keys", "layer_locators", "layer_locator_keys",
                   "layer_input_keys", "layer_inputs", "layer_title_keys", "layer_titles"})
CROWD_BOOKKEEPING = frozenset({"crowd_keys", "claims", "crowd_versions", "crowd_texts", "crowd_text_counts", "tenant_counts",
                               "text_owner", "title_owner"}) | LAYER
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Subgraph:
    nodes: list[tuple[tuple[str, ...], dict[str, Any]]] = field(default_factory=list)
    relationships: list[tuple[str, str, str, str, str, dict[str, Any]]] = field(default_factory=list)
    # (type, start id, start label, end id, end label, properties)

    def node_labels(self) -> dict[str, str]:
        return {props["id"]: labels[0] for labels, props in self.nodes}


def read(store: GraphStore, package: str | None, every: bool = False) -> Subgraph:
    """One package's memory (see cypher/export_app_nodes.cypher), or all of it: what the trust predicate admits
    (what every reader may read, without the contributors' key ids: CROWD_BOOKKEEPING), or `every` node and
    relationship with the crowd's bookkeeping (the operator's whole graph)."""
    if package is None:
        nodes = store.read("export_all_nodes", every=every)
        rels = store.read("export_all_relationships", every=every)
    else:
        nodes = store.read("export_app_nodes", package=package, every=every)
        if not nodes:
            raise NotFound(f"--app: no app {package!r} in the graph" + ("" if every else " that every reader reads "
                                                                          "(--every: the whole graph)"))
        rels = store.read("export_relationships_among", ids=[n["props"]["id"] for n in nodes], every=every)
    sub = Subgraph()
    for n in nodes:
        if "id" not in n["props"] or not n["labels"]:
            raise InputFormatError("graph", f"a node without an id or label cannot be exported: {n['labels']}")
        props = n["props"] if every else public_props(n["props"])
        sub.nodes.append((tuple(n["labels"]), props))
    exported = {(props["id"], labels[0]) for labels, props in sub.nodes}
    devices = set() if every else set(store.read("export_tenant_devices")[0]["devices"])
    for r in rels:
        if (r["start"], r["start_labels"][0]) in exported and (r["end"], r["end_labels"][0]) in exported:
            props = r["props"] if every else public_edge_props(r["props"], devices)
            sub.relationships.append((r["type"], r["start"], r["start_labels"][0], r["end"], r["end_labels"][0],
                                      props))
    sub.nodes.sort(key=lambda n: (n[0], n[1]["id"]))
    sub.relationships.sort(key=lambda r: (r[0], r[1], r[3], json.dumps(r[5], sort_keys=True, default=str)))
    return sub


def public_props(props: dict[str, Any]) -> dict[str, Any]:
    """A node's properties as every reader may read them: no CROWD_BOOKKEEPING (an element's layer, its tenant keys'
    reports, included: a shared one too, which the element's own texts replace once the public reports it), and an
    element's text variants (`texts`, `text_counts`) less what tenants' keys showed (their "TENANT/key|text" entries
    in `crowd_texts`: a tenant's observations are its own)."""
    out = {k: v for k, v in props.items() if k not in CROWD_BOOKKEEPING}
    if "texts" in props and props.get("crowd_texts"):
        private: dict[str, int] = {}
        for entry, count in zip(props["crowd_texts"], props.get("crowd_text_counts") or []):
            key, _, text = entry.partition("|")
            if "/" in key:  # a tenant's key (appmem/keys.py)
                private[text] = private.get(text, 0) + count
        left = [(t, c - private.get(t, 0)) for t, c in zip(props["texts"], props.get("text_counts") or [])]
        out["texts"], out["text_counts"] = [t for t, c in left if c > 0], [c for _, c in left if c > 0]
    if props.get("title") and "title_owner" not in props and props.get("crowd_only") and "/" in (
            (props.get("crowd_keys") or [""])[0]):  # a tenant key's title, in a graph not migrated since
        out["title"] = None
    if "/" in (props.get("text_owner") or ""):  # a tenant key's, in a graph not migrated since (cypher FIELDS)
        out.update(text="", content_desc="", label="", locators=[
            x for x in props.get("locators") or [] if "@text" not in x and "@content-desc" not in x])
    return out


def public_edge_props(props: dict[str, Any], tenant_devices: set[str]) -> dict[str, Any]:
    """A relationship's properties as every reader may read them: no CROWD_BOOKKEEPING, and a transition's
    counts less what tenants' keys added (their "TENANT/ successes failures" entries in `tenant_counts`, which its
    raw and contributed counts hold: edge_crowd.cypher) and its devices less theirs (`tenant_devices`). What a
    tenant shared counts in the crowd's counts, as one public contributor's."""
    out = {k: v for k, v in props.items() if k not in CROWD_BOOKKEEPING}
    entries = [entry.split(" ") for entry in props.get("tenant_counts") or ()]
    if entries:
        successes, failures = (sum(int(float(e[i])) for e in entries) for i in (1, 2))
        for key, less in (("successes", successes), ("failures", failures), ("observations", successes + failures),
                          ("contributed_successes", successes), ("contributed_failures", failures)):
            if key in out:
                out[key] -= less
    if "devices" in out:
        out["devices"] = [d for d in out["devices"] if d not in tenant_devices]
    return out


def _name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidInput("export", f"not a label or relationship type appmem writes: {name!r}")
    return f"`{name}`"


def literal(value: Any) -> str:
    """A Cypher literal for a property value (strings escaped as the Cypher grammar reads them)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + "".join(_ESCAPES.get(c, c if c >= " " else f"\\u{ord(c):04x}") for c in value) + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_name(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, neo4j.time.DateTime):
        return f"datetime({literal(value.iso_format())})"
    if isinstance(value, neo4j.time.Date):
        return f"date({literal(value.iso_format())})"
    raise InputFormatError("export", f"cannot write a {type(value).__name__} property")


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def cypher_statements(sub: Subgraph, literals: bool = True) -> Iterator[tuple[str, list[dict]]]:
    """(statement, rows): with literals the rows are inside the statement (and the list is empty)."""
    def rows_of(rows: list[dict]) -> tuple[str, list[dict]]:
        return (literal(rows), []) if literals else ("$rows", rows)

    by_label: dict[tuple[str, ...], list[dict]] = {}
    for labels, props in sub.nodes:
        by_label.setdefault(labels, []).append(props)
    for labels, rows in by_label.items():
        first, rest = _name(labels[0]), "".join(f":{_name(x)}" for x in labels[1:])
        for i in range(0, len(rows), BATCH):
            text, params = rows_of(rows[i:i + BATCH])
            yield f"UNWIND {text} AS r\nMERGE (n:{first} {{id: r.id}})\nSET n = r{' SET n' + rest if rest else ''}", params
    by_type: dict[tuple[str, str, str], list[dict]] = {}
    for rtype, start, slabel, end, elabel, props in sub.relationships:
        by_type.setdefault((rtype, slabel, elabel), []).append({"s": start, "e": end, "p": props})
    for (rtype, slabel, elabel), rows in by_type.items():
        for i in range(0, len(rows), BATCH):
            text, params = rows_of(rows[i:i + BATCH])
            yield (f"UNWIND {text} AS r\nMATCH (a:{_name(slabel)} {{id: r.s}}), (b:{_name(elabel)} {{id: r.e}})\n"
                   f"CREATE (a)-[x:{_name(rtype)}]->(b)\nSET x = r.p"), params


def schema_statements() -> list[str]:
    return cypher.statements("schema")


def load(store: GraphStore, sub: Subgraph) -> None:
    """Write a subgraph into a graph: schema first, then nodes (merged by id), then relationships
    (created: load into a graph that does not hold them yet)."""
    store.ensure_schema()
    with translated_errors("loading an export"), store.driver.session(database=store.database) as session:
        for statement, rows in cypher_statements(sub, literals=False):
            session.execute_write(lambda tx: tx.run(statement, rows=rows).consume())
