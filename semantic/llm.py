"""LLM summaries: batched prompts, validated JSON, a content-hash cache.

`LLMSummarizer` sends several screens per request through the one endpoint client
(semantic/llmclient.py: a deadline per call, retries on transient errors only,
keyless errors) and asks for JSON matching `LLMBatch`; each screen's answer is
validated with pydantic and cached in SQLite under the screen's content hash and
the model, so the same screen from another device or run is never paid for twice.
A reply that is not a chat completion or not valid JSON of the schema is not
retried: those screens get the deterministic summary, with a warning, and are
asked again on the next run. Tokens and cost (at the prices given) are counted in
`stats`, missing or odd usage as 0. A reply never makes an element less risky than
the vocabulary says (`_no_less_risky`).
"""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
from pathlib import Path

import openai
from pydantic import BaseModel, ValidationError

from appmem.graph.vocabulary import clip, label_of, role_of
from appmem.semantic.contexts import ScreenContext
from appmem.semantic.llmclient import MalformedReply, Reply, chat, endpoint_error, redact, retrying
from appmem.semantic.summaries import DeterministicSummarizer, ScreenSummary, SummarizerStats

log = logging.getLogger(__name__)

PROMPT_VERSION = "appmem-summaries/1"
PROMPT_TEXT = 160  # characters of a label or title the model sees: a long label's start says what it is
SYSTEM = (
    "You describe Android app screens for a GUI agent's memory. For each screen you get its elements "
    "(id, role, label), where tapping them leads, and what leads to the screen. Answer JSON only: "
    '{"screens": [{"screen_id": str, "summary": str (one sentence: what the screen is for), '
    '"subtasks": [{"name": snake_case str, "description": str, "parameters": [{"name": str, "description": str}], '
    '"elements": [element ids]}], "elements": [{"element_id": str, "simulated_task": str (what acting on it '
    'achieves, as a user task), "risky": bool (deletes, sends, calls, pays or changes something irreversibly), '
    '"parameter": null or {"name": str, "description": str} for inputs}]}]}. '
    "Describe every element of every screen."
)


class LLMBatch(BaseModel):
    screens: list[ScreenSummary]


CACHE_FILE = "llm_cache.sqlite"  # under the memory's folder (settings.home)


class SummaryCache:
    """Validated screen summaries by (model, prompt version, content hash), in SQLite, each with its app:
    a purge forgets the summaries of the apps the purged key reported (they may repeat its words)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS apps (key TEXT PRIMARY KEY, package TEXT NOT NULL)")
            self._db.execute("CREATE INDEX IF NOT EXISTS apps_package ON apps (package)")

    @staticmethod
    def key(model: str, ctx: ScreenContext) -> str:
        return f"{model}|{PROMPT_VERSION}|{ctx.content_hash()}"

    def get(self, key: str) -> ScreenSummary | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM summaries WHERE key = ?", (key,)).fetchone()
        return ScreenSummary.model_validate_json(row[0]) if row else None

    def put(self, key: str, summary: ScreenSummary, package: str) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO summaries (key, body) VALUES (?, ?)",
                             (key, summary.model_dump_json()))
            self._db.execute("INSERT OR REPLACE INTO apps (key, package) VALUES (?, ?)", (key, package))

    def forget(self, packages: list[str]) -> int:
        """Delete the summaries of these apps' screens, and those of no known app (kept before each summary's
        app was); how many."""
        marks = ",".join("?" * len(packages))
        with self._lock, self._db:
            gone = self._db.execute(f"DELETE FROM summaries WHERE key IN (SELECT key FROM apps WHERE package IN "
                                    f"({marks})) OR key NOT IN (SELECT key FROM apps)", packages).rowcount
            self._db.execute(f"DELETE FROM apps WHERE package IN ({marks})", packages)
        return gone

    def close(self) -> None:
        self._db.close()


def forget_summaries(home: Path, packages: list[str]) -> int:
    """Delete the cached LLM summaries of these apps from `<home>/llm_cache.sqlite`; how many."""
    path = Path(home) / CACHE_FILE
    if not packages or not path.exists():
        return 0
    cache = SummaryCache(path)
    try:
        return cache.forget(packages)
    finally:
        cache.close()


def screen_prompt(ctx: ScreenContext) -> dict:
    """What the model sees of a screen (already privacy-scrubbed graph content), every text bounded."""
    return {
        "screen_id": ctx.id, "title": clip(ctx.title, PROMPT_TEXT),
        "reached_by": [clip(a, PROMPT_TEXT) for a in ctx.arrivals],
        "elements": [{"id": e.id, "role": role_of(e), "label": clip(label_of(e), PROMPT_TEXT),
                      "checked": "checked" in e.flags,
                      "leads_to": [{"title": clip(d.title, PROMPT_TEXT),
                                    "shows": [clip(t, PROMPT_TEXT) for t in d.texts]}
                                   for d in ctx.destinations.get(e.id, [])]}
                     for e in ctx.elements],
    }


class LLMSummarizer:
    def __init__(self, client: openai.OpenAI, model: str, cache: SummaryCache,
                 fallback: DeterministicSummarizer | None = None, batch_elements: int = 60, attempts: int = 4,
                 price_in_per_mtok: float = 0.0, price_out_per_mtok: float = 0.0, backoff_s: float = 0.5):
        self.client = client
        self.model = model
        self.cache = cache
        self.fallback = fallback or DeterministicSummarizer()
        self.batch_elements = batch_elements
        self.price_in = price_in_per_mtok
        self.price_out = price_out_per_mtok
        self.stats = SummarizerStats()
        self.kind = f"llm:{model}:{PROMPT_VERSION}"
        self._fell_back: set[str] = set()  # screens whose summary came from `fallback` (semantic/pipeline.py)
        self._complete = retrying(client, self._complete_once, attempts, backoff_s)

    def summarize(self, contexts: list[ScreenContext]) -> list[ScreenSummary]:
        out: dict[str, ScreenSummary] = {}
        todo = []
        for ctx in contexts:
            cached = self.cache.get(SummaryCache.key(self.model, ctx))
            if cached is not None:
                self.stats.cached += 1
                out[ctx.id] = cached
            else:
                todo.append(ctx)
        for batch in self._batches(todo):
            out.update(self._ask(batch))
        return [self._no_less_risky(c, out[c.id]) for c in contexts]

    def made(self, screen_id: str) -> str:
        return self.fallback.kind if screen_id in self._fell_back else self.kind

    def _no_less_risky(self, ctx: ScreenContext, summary: ScreenSummary) -> ScreenSummary:
        """The summary with every element the vocabulary finds risky marked so: a model (or a cached reply)
        that calls "Erase everything" safe must not let the runtime act on it unconfirmed."""
        elements = {e.id: e for e in ctx.elements}
        for es in summary.elements:
            e = elements.get(es.element_id)
            es.risky = es.risky or (e is not None and self.fallback.risky(ctx, e))
        return summary

    def _batches(self, contexts: list[ScreenContext]) -> list[list[ScreenContext]]:
        batches: list[list[ScreenContext]] = []
        size = 0
        for ctx in contexts:
            if batches and size + len(ctx.elements) <= self.batch_elements:
                batches[-1].append(ctx)
                size += len(ctx.elements)
            else:
                batches.append([ctx])
                size = len(ctx.elements)
        return batches

    def _complete_once(self, prompt: str) -> Reply:
        self.stats.calls += 1
        return chat(self.client, model=self.model, temperature=0, response_format={"type": "json_object"},
                    messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}])

    def _ask(self, batch: list[ScreenContext]) -> dict[str, ScreenSummary]:
        prompt = json.dumps({"screens": [screen_prompt(c) for c in batch]}, ensure_ascii=False)
        answer: dict[str, ScreenSummary] = {}
        try:
            reply = self._complete(prompt)
        except openai.OpenAIError as exc:
            raise endpoint_error(self.client, exc) from None  # the message is keyless; openai's error is not
        except MalformedReply as exc:
            log.warning("LLM reply for %d screens is not a chat completion (%s); using deterministic summaries",
                        len(batch), redact(self.client, str(exc)))
        else:
            self.stats.prompt_tokens += reply.prompt_tokens
            self.stats.completion_tokens += reply.completion_tokens
            self.stats.cost += (reply.prompt_tokens * self.price_in + reply.completion_tokens * self.price_out) / 1e6
            try:
                answer = {s.screen_id: s for s in LLMBatch.model_validate_json(reply.content).screens}
            except ValidationError as exc:
                log.warning("LLM reply for %d screens is not valid summary JSON (%s); using deterministic "
                            "summaries", len(batch), redact(self.client, str(exc).splitlines()[0]))
        out = {}
        for ctx in batch:
            summary = answer.get(ctx.id)
            ids = {e.id for e in ctx.elements}
            if summary is None or {e.element_id for e in summary.elements} != ids:
                if answer:
                    log.warning("LLM reply misses screen %s or some of its elements; using its deterministic summary",
                                ctx.id)
                self.stats.fallbacks += 1
                self._fell_back.add(ctx.id)
                out[ctx.id] = self.fallback.screen(ctx)
                continue
            self.cache.put(SummaryCache.key(self.model, ctx), summary, ctx.package)
            out[ctx.id] = summary
        return out
