"""The graph store: runs the named Cypher statements of `cypher/` over an injected neo4j driver.

The same code serves Neo4j 5 and the embedded ArcadeDB server. A trace is
written chunk by chunk, each chunk in one transaction together with its
marker on the Trace node, so a retried or repeated chunk is a no-op and a
failed one leaves nothing half-written.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, TypeVar

import neo4j
from neo4j.exceptions import ConstraintError, Neo4jError, ServiceUnavailable, SessionExpired, TransientError as NeoTransient

from appmem import cypher
from appmem.errors import Conflict, GraphError, TransientError
from appmem.formats.ui import Bounds
from appmem.graph.model import Element, Task, Trace
from appmem.graph.rows import ChunkRows, app_id, vote_rows

log = logging.getLogger(__name__)

# Rows per UNWIND statement: large enough to amortise round trips, small enough for server memory.
BATCH = 2000


@dataclass
class ChunkResult:
    trace_id: str
    chunk: int
    written: bool  # False: the chunk was already in the graph (a no-op)
    # What the chunk wrote (empty when it was a no-op): consecutive chunks repeat
    # states and transitions, so a load counts distinct ids over its chunks.
    state_ids: frozenset[str] = frozenset()
    element_ids: frozenset[str] = frozenset()
    transition_keys: frozenset[str] = frozenset()


@contextmanager
def translated_errors(what: str) -> Iterator[None]:
    """Driver errors as ours: lost connections and server-side conflicts are
    transient (worth a bounded retry), a write that breaks a uniqueness constraint
    contradicts what is stored, anything else the server refused is a graph error."""
    try:
        yield
    except (ServiceUnavailable, SessionExpired, NeoTransient) as exc:
        raise TransientError(f"{what}: {exc}") from exc
    except ConstraintError as exc:
        raise Conflict(f"{what}: {exc.message}") from exc
    except Neo4jError as exc:
        raise GraphError(f"{what} failed: {exc.message}") from exc


@dataclass(frozen=True)
class Viewer:
    """Whose reads a store answers: the public (tenant "") or a tenant's keys, which also see what the
    tenant's own keys reported once `quorum` of them back it (the statements' `$viewer`, `$viewer_quorum`)."""
    tenant: str = ""
    quorum: int = 1

    @property
    def prefix(self) -> str:
        """What the tenant's contributor ids start with (appmem/keys.py); "" for the public."""
        return self.tenant + "/" if self.tenant else ""


PUBLIC = Viewer()
T = TypeVar("T")


class Transaction:
    """Named statements run in one open write transaction (`GraphStore.atomic`): a step of several statements
    that commits whole or not at all. Reads and writes as a GraphStore does, so the functions that take a
    store take it too."""

    def __init__(self, tx: neo4j.ManagedTransaction, viewer: Viewer):
        self.tx, self.viewer = tx, viewer

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self.write(name, **params)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        query = cypher.load(name)
        if "$viewer" in query:
            params = {"viewer": self.viewer.prefix, "viewer_quorum": self.viewer.quorum, **params}
        return [r.data() for r in self.tx.run(query, params)]


class GraphStore:
    def __init__(self, driver: neo4j.Driver, database: str, viewer: Viewer = PUBLIC):
        self.driver = driver
        self.database = database
        self.viewer = viewer

    def viewing(self, tenant: str, quorum: int) -> "GraphStore":
        """The same graph (and driver) read as `tenant`'s keys read it."""
        return GraphStore(self.driver, self.database, Viewer(tenant, quorum) if tenant else PUBLIC)

    # -- generic access to named statements -----------------------------------------------
    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self._run(name, params, neo4j.READ_ACCESS)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self._run(name, params, neo4j.WRITE_ACCESS)

    def _run(self, name: str, params: dict[str, Any], mode: str) -> list[dict[str, Any]]:
        query = cypher.load(name)
        if "$viewer" in query:  # a read filtered for its reader (cypher/__init__.py)
            params = {"viewer": self.viewer.prefix, "viewer_quorum": self.viewer.quorum, **params}

        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            return [r.data() for r in tx.run(query, params)]

        with translated_errors(f"graph statement {name!r}"):
            with self.driver.session(database=self.database, default_access_mode=mode) as session:
                if mode == neo4j.READ_ACCESS:
                    return session.execute_read(work)
                return session.execute_write(work)

    def atomic(self, what: str, work: Callable[[Transaction], T]) -> T:
        """`work(tx)` in one write transaction: every statement it runs commits together, or none does
        (`what` names it in errors). `work` may be run again by the driver's retry: it must only write."""
        with translated_errors(what):
            with self.driver.session(database=self.database) as session:
                return session.execute_write(lambda tx: work(Transaction(tx, self.viewer)))

    def run_text(self, query: str, **params: Any) -> None:
        """One statement of a multi-statement file (`cypher.statements`), written."""
        with translated_errors("graph statement"):
            with self.driver.session(database=self.database) as session:
                session.execute_write(lambda tx: tx.run(query, params).consume())

    def ensure_schema(self) -> None:
        with translated_errors("creating the schema"):
            with self.driver.session(database=self.database) as session:
                for statement in cypher.statements("schema"):
                    session.run(statement).consume()

    def ping(self) -> None:
        """One real read, not retried (a health check): a server that is down fails at once, not after the
        driver's transaction-retry window."""
        with translated_errors("graph health check"):
            with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
                session.run(cypher.load("all_packages")).consume()

    # -- traces ----------------------------------------------------------------------------
    def write_chunk(self, trace: Trace, chunk: int, rows: ChunkRows, quorum: int = 3) -> ChunkResult:
        """Write one chunk of a trace atomically; a chunk already written is skipped (but for the texts its
        states showed, when an older appmem wrote them without: nothing is counted twice). A contribution's chunk
        also records its contributor's votes on the edges it counted, folded onto them (`quorum`:
        APPMEM_TRUST_QUORUM), in the same transaction: whatever befalls the rest of the contribution, a purge
        finds every count it added."""

        def work(tx: neo4j.ManagedTransaction) -> bool:
            if tx.run(cypher.load("chunk_seen"), trace_id=trace.id, chunk=chunk).single()["seen"]:
                # counted before: only what an older appmem did not keep is added (the texts states showed)
                tx.run(cypher.load("fill_state_texts"), rows=rows.states).consume()
                return False
            tx.run(cypher.load("merge_apps"), rows=rows.apps).consume()
            tx.run(cypher.load("merge_trace"), app_id=app_id(trace.package, trace.app_version), id=trace.id,
                   source=trace.source, device=trace.device, explorer=trace.explorer, package=trace.package,
                   app_version=trace.app_version, started=trace.started or None, ended=trace.ended or None,
                   contributor=trace.contributor,
                   entry_screen=rows.entry_screen).consume()
            for name, batch_rows in rows.batches():
                for i in range(0, len(batch_rows), BATCH):
                    tx.run(cypher.load(name), rows=batch_rows[i:i + BATCH], trace_id=trace.id).consume()
            if trace.contributor and rows.transitions:
                tx.run(cypher.load("merge_votes"), contributor=trace.contributor, weight=trace.weight,
                       rows=vote_rows(trace.contributor, rows.transitions)).consume()
                tx.run(cypher.load("edge_crowd"), rows=rows.transitions, quorum=quorum).consume()
            tx.run(cypher.load("refresh_stale"), package=trace.package).consume()
            tx.run(cypher.load("mark_chunk"), trace_id=trace.id, chunk=chunk).consume()
            return True

        with translated_errors(f"writing chunk {chunk} of trace {trace.id}"):
            with self.driver.session(database=self.database) as session:
                written = session.execute_write(work)
        if not written:
            return ChunkResult(trace.id, chunk, written)
        return ChunkResult(trace.id, chunk, written, frozenset(r["id"] for r in rows.states),
                           frozenset(r["id"] for r in rows.elements), frozenset(r["key"] for r in rows.transitions))

    def write_tasks(self, tasks: list[dict[str, Any]]) -> None:
        self.write("merge_tasks", rows=tasks)

    def elements(self, ids: Iterable[str] = (), screen_ids: Iterable[str] = ()) -> list[dict[str, Any]]:
        """The rows of cypher/elements.cypher: the elements with these ids or on these screens.
        `element_of` makes a row an Element; rows also carry `package`, `risky`, `simulated_task`."""
        return self.read("elements", ids=list(ids), screen_ids=list(screen_ids))

    def trusted_ids(self, screen_ids: Iterable[str] = (), element_ids: Iterable[str] = (),
                    task_ids: Iterable[str] = ()) -> set[str]:
        """Of these ids, those of nodes the graph holds and the one trust predicate admits (cypher/__init__.py):
        what a read that found ids elsewhere (a vector search) may return."""
        return set(self.read("trusted_ids", screen_ids=list(screen_ids), element_ids=list(element_ids),
                             task_ids=list(task_ids))[0]["ids"])

    def stats(self, package: str | None = None, every: bool = False) -> list[dict[str, Any]]:
        """Per app version, what memory holds: the versions any key may read (`every`: all, for the operator)."""
        return self.read("app_stats", package=package, every=every)


def aggregate(rows: list[dict[str, Any]], column: str) -> int:
    """An aggregate's value from a statement's rows: ArcadeDB may answer an aggregate over no match with no row
    (read as 0)."""
    return rows[0][column] if rows else 0


def element_of(row: dict[str, Any]) -> Element:
    """A row of the `elements` statement → the Element."""
    return Element(id=row["id"], screen_id=row["screen_id"], key=row["key"], class_name=row["class_name"],
                   resource_id=row["resource_id"], text=row["text"], content_desc=row["content_desc"],
                   bounds=Bounds(*(row["bounds"] or [0, 0, 0, 0])), flags=list(row["flags"]),
                   locators=list(row["locators"]))


def task_rows(tasks: list[Task], element_ids: dict[tuple[str, str], str], trace: Trace | None = None,
              seen: dict[tuple[str, str], dict] | None = None) -> list[dict[str, Any]]:
    """Tasks → merge_tasks rows; element_ids maps (state id, element key) → Element id;
    `trace` (the run that demonstrated them) is their provenance; `seen` what each
    step's element showed then (text, content_desc, locators)."""
    out = []
    for task in tasks:
        step_rows = []
        for i, step in enumerate(task.steps):
            element_id = element_ids.get((step.state_id, step.action.element_key))
            if element_id:
                shown = (seen or {}).get((step.state_id, step.action.element_key), {})
                step_rows.append({"index": i, "element_id": element_id, "action": step.action.type.value,
                                  "input": step.action.text, "text": shown.get("text"),
                                  "content_desc": shown.get("content_desc"), "locators": shown.get("locators")})
        out.append({"id": task.id, "description": task.description, "package": task.package,
                    "source": task.source, "steps": len(task.steps), "step_rows": step_rows,
                    "trace_id": trace.id if trace else None, "device": trace.device if trace else None,
                    "contributor": trace.contributor if trace else ""})
    return out
