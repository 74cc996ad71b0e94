"""CLI: `appmem summarize` (summaries + embeddings, incremental; retrains the element ranker, when one
was trained, after the memory changed), `appmem ranker train` and `appmem search` (semantic retrieval).

`--app` takes a package or a short app name (semantic/search.py `resolve_app`).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from appmem import generations
from appmem.arguments import app_name, count, task_text
from appmem.errors import AppmemError, InvalidInput
from appmem.output import emit
from appmem.settings import Settings
from appmem.semantic.search import resolve_app


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summarize", help="summarise screens and elements and embed them (only what changed)")
    p.add_argument("--app", help="package or short app name (default: every app)")
    p.add_argument("--llm", choices=("none", "openai"), default="none",
                   help="none: deterministic summaries; openai: an OpenAI-compatible endpoint (APPMEM_LLM_*)")
    p.add_argument("--no-ranker", action="store_true", help="do not retrain the element ranker afterwards")
    p.add_argument("--reembed", action="store_true",
                   help="drop every app's vectors and embed the whole memory again with APPMEM_EMBED_MODEL "
                        "(after a change of model; nothing in the graph is lost)")
    p.add_argument("--processes", type=count,
                   help="processes that summarise and embed apps in parallel (default: APPMEM_SUMMARIZE_PROCESSES, "
                        "1; 0 there: one per core; an LLM summarizer uses one)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_summarize)

    r = sub.add_parser("ranker", help="the learned element ranker (trained on synthetic tasks from the memory)")
    rsub = r.add_subparsers(dest="ranker_command", required=True)
    t = rsub.add_parser("train", help="train it over every summarised app; writes <home>/ranker/ with provenance")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--json", action="store_true")
    t.set_defaults(handler=run_ranker_train)

    s = sub.add_parser("search", help="semantic search over element, screen or task memory")
    s.add_argument("text", type=task_text)
    s.add_argument("--app", type=app_name, help="package or short app name (default: every app)")
    s.add_argument("--kind", choices=("element", "screen", "task"), default="element")
    s.add_argument("--k", type=count, default=5)
    s.add_argument("--json", action="store_true")
    s.set_defaults(handler=run_search)


class _Progress:
    """The progress line on stderr, redrawn in place until its phase is done; `end` closes a line left open
    (by a run that failed midway) so that the error gets a line of its own."""

    open = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        self.open = done < total
        print(f"\rsummarize {phase}: {done}/{total}", end="" if self.open else "\n", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.open:
            print(file=sys.stderr, flush=True)


def run_summarize(settings: Settings, args: argparse.Namespace) -> int:
    """Summarise; when it fails midway (the LLM endpoint refused, a store went away), the screens done so far
    are published and their apps' cached plans retired as after a whole run, the report of what was done
    printed (with `error`), then the error raised: one line on stderr, exit 2. The vectors are opened first: a
    memory of another embedding model than APPMEM_EMBED_MODEL stops it before anything is read (ConfigError),
    unless `--reembed` drops them to embed everything again."""
    from appmem.graph.clients import open_graph
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.apppool import processes_for
    from appmem.semantic.pipeline import SummarizeReport, summarize
    from appmem.semantic.summaries import DeterministicSummarizer
    from appmem.semantic.vectors import open_vectors

    summarizer: Any = DeterministicSummarizer(settings.risky_words)
    llm_client = None
    if args.llm == "openai":
        from appmem.semantic.llm import CACHE_FILE, LLMSummarizer, SummaryCache
        from appmem.semantic.llmclient import open_llm

        llm_client, model = open_llm(settings)
        summarizer = LLMSummarizer(llm_client, model, SummaryCache(settings.home / CACHE_FILE),
                                   fallback=summarizer)
    if args.reembed and args.app:
        raise InvalidInput("--reembed", "it embeds every app again: leave out --app")
    embedder = Embedder(settings.home, model=settings.embed_model)
    vectors = open_vectors(settings, embedder.dim, reembed=args.reembed)
    try:
        store = open_graph(settings)
    except BaseException:
        vectors.client.close()
        raise
    report = SummarizeReport(packages=[])
    progress = _Progress()
    failure: AppmemError | None = None
    ranker = None
    try:
        packages = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app) if args.app else None
        changed = packages or [r["package"] for r in store.read("semantic_packages")]
        try:
            summarize(store, vectors, embedder, summarizer, packages, progress, report=report,
                      processes=processes_for(args.processes or settings.summarize_processes))
        except AppmemError as exc:  # summarize published what it did: retire the plans below, then report it
            failure = exc
        # The memory grew or changed: so does the ranker, when one was trained (`appmem ranker train`: it is
        # opt-in, since on the shared apps it does not yet beat the base ranking, see bench/retrieval.py).
        if failure is None and report.screens_done and not args.no_ranker \
                and (settings.home / "ranker" / "model.pkl").exists():
            from appmem.semantic.training import train

            ranker = train(store, vectors, embedder, settings.home)
    finally:
        vectors.client.close()
        store.driver.close()
        if llm_client is not None:
            llm_client.close()
            summarizer.cache.close()
    generations.bump_from(settings, changed)  # servers retire the apps' cached plans
    error = f"{type(failure).__name__}: {failure}" if failure else None
    emit(args, {**report.as_dict(), "ranker": ranker, "error": error}, lambda r: (
        f"{r['screens_done']} screens summarised ({r['screens_unchanged']} unchanged), "
        f"{r['elements_done']} elements, {r['tasks_done']} tasks embedded, "
        f"{r['embedded_texts']} texts at {r['texts_per_second']}/s ({r['model_texts']} through the model, "
        f"{r['cached_texts']} from the vector cache) in {r['seconds']}s ({r['processes']} process"
        f"{'es' if r['processes'] > 1 else ''}; " + ", ".join(f"{k.replace('_', ' ')} {v}s"
                                                         for k, v in r["phase_seconds"].items()) + ")"
        + (f"\nranker: {_ranker_line(r['ranker'])}" if r["ranker"] else "")
        + "".join(f"\n  left out: {e}" for e in r["errors"])
        + ("\nstopped by the error below; the rest is done by the next run" if r["error"] else "")))
    if failure is not None:
        progress.end()
        raise failure
    return 1 if report.errors else 0


def _ranker_line(r: dict) -> str:
    if not r.get("trained"):
        return f"not trained: {r.get('reason')}"
    return (f"trained on {r['synthetic_tasks']} synthetic tasks of {len(r['apps'])} apps "
            f"({r['rows']} pairs, {r['model']}, seed {r['seed']}, commit {r['commit'][:10]})")


def run_ranker_train(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.training import train
    from appmem.semantic.vectors import open_vectors

    embedder = Embedder(settings.home, model=settings.embed_model)
    vectors = open_vectors(settings, embedder.dim)
    try:
        store = open_graph(settings)
        try:
            out = train(store, vectors, embedder, settings.home, seed=args.seed)
        finally:
            store.driver.close()
    finally:
        vectors.client.close()
    emit(args, out, _ranker_line)
    return 0 if out.get("trained") else 1


def run_search(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.graph.clients import open_graph
    from appmem.semantic.embedder import Embedder
    from appmem.semantic.search import search
    from appmem.semantic.snapshots import open_reader

    embedder = Embedder(settings.home, model=settings.embed_model)
    vectors = open_reader(settings, embedder.dim)  # checks the memory's model first
    store = open_graph(settings)
    try:
        packages = resolve_app([r["package"] for r in store.read("semantic_packages")], args.app) if args.app else None
        hits = search(vectors, embedder, store, args.text, args.kind, packages, args.k)
    finally:
        store.driver.close()
        vectors.close()

    def human(rows: list[dict[str, Any]]) -> str:
        lines = []
        for i, h in enumerate(rows, 1):
            what = h.get("simulated_task") or h.get("summary") or h.get("description")
            lines.append(f"{i}. {h['score']:.3f} {h['package']} {h['element_id'] or h['screen_id']}"
                         f"{' [risky]' if h['risky'] else ''}\n   {what}")
        return "\n".join(lines) or "no hits"
    emit(args, hits, human)
    return 0
