"""LLM summaries: an OpenAI-compatible endpoint, batched prompts, validated JSON, a content-hash cache.

`open_llm(settings)` creates the one `openai` client (base URL, key, timeout
from Settings; the client's own retries off, ours are below). `chat` makes one
call within an overall deadline (the timeout: headers and the whole body, not
each read, so a server that trickles bytes is cut off), reads at most
MAX_REPLY_BYTES and checks that the reply is a chat completion (else
`MalformedReply`); the summarizer and the runtime's step-wise fallback both call
it, through `retrying` and with `endpoint_error` for what is left. `LLMSummarizer`
sends several screens per request and asks for JSON matching `LLMBatch`; each
screen's answer is validated with pydantic and cached in SQLite under the
screen's content hash and the model, so the same screen from another device or
run is never paid for twice. Retries: only for named transient errors
(timeouts, connection errors, 429, 5xx), at most `attempts` tries with
exponential backoff, longer when the server's Retry-After asks (capped), each
logged. A reply that is not a chat completion or not valid JSON of the schema
is not retried: those screens get the deterministic summary, with a warning.
Tokens and cost (at the prices given) are counted in `stats`, missing or odd
usage as 0. The API key never reaches a message (`redact`): a server may echo it.
"""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import httpx2  # openai's transport: what reading a streamed body raises
import openai
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from appmem.errors import AppmemError, ConfigError, TransientError
from appmem.settings import Settings
from graph.vocabulary import clip, label_of, role_of
from semantic.contexts import ScreenContext
from semantic.summaries import DeterministicSummarizer, ScreenSummary, SummarizerStats

log = logging.getLogger(__name__)

PROMPT_VERSION = "appmem-summaries/1"
PROMPT_TEXT = 160  # characters of a label or title the model sees: a long label's start says what it is
TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
MAX_REPLY_BYTES = 4 * 1024 * 1024  # a reply for a batch of 60 elements is tens of KB: more is a broken server
MAX_RETRY_AFTER_S = 10.0  # a server's Retry-After is honoured up to this: longer, and the run had better fail
NO_KEY = "none"  # the key the client sends when none is configured (openai requires one)
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


class MalformedReply(AppmemError):
    """The endpoint answered 200 with something that is not a chat completion (HTML, no choices, too long)."""


@dataclass
class Reply:
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def open_llm(settings: Settings) -> tuple[openai.OpenAI, str]:
    """The process's OpenAI-compatible client and model name; the caller closes the client. Its timeout is
    each call's overall deadline (`chat`)."""
    if not settings.llm_base_url or not settings.llm_model:
        raise ConfigError("--llm openai needs APPMEM_LLM_BASE_URL and APPMEM_LLM_MODEL")
    client = openai.OpenAI(base_url=settings.llm_base_url, api_key=settings.llm_api_key or NO_KEY,
                           timeout=settings.llm_timeout_s, max_retries=0)
    return client, settings.llm_model


def chat(client: openai.OpenAI, **request: Any) -> Reply:
    """One chat completion, done within `client.timeout` seconds from the request to the body's last byte.

    httpx's timeout bounds each read: a server that sends a byte a second would hold the call forever.
    An overrun is a timeout (transient); a body over MAX_REPLY_BYTES or not a chat completion is a
    MalformedReply; an error status raises openai's error for it, as `create` does."""
    started = time.monotonic()
    with client.chat.completions.with_streaming_response.create(**request) as response:
        body = bytearray()
        try:
            for chunk in response.iter_bytes():
                if time.monotonic() - started > client.timeout:
                    raise openai.APITimeoutError(request=response.http_request)
                body += chunk
                if len(body) > MAX_REPLY_BYTES:
                    raise MalformedReply(f"the reply is over {MAX_REPLY_BYTES} bytes")
        except httpx2.TimeoutException:
            raise openai.APITimeoutError(request=response.http_request) from None
        except httpx2.RequestError as exc:  # the connection broke mid-body
            raise openai.APIConnectionError(request=response.http_request) from exc
    if time.monotonic() - started > client.timeout:  # the headers alone took too long
        raise openai.APITimeoutError(request=response.http_request)
    return parse_reply(bytes(body))


def parse_reply(body: bytes) -> Reply:
    """The first choice's text and the token counts of a chat completion's body; MalformedReply when
    it is not one (an HTML page, `"choices": []`). Usage that is missing or odd counts 0."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise MalformedReply(f"the reply is not JSON: {body[:80]!r}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(content, (str, type(None))):
        raise MalformedReply("the reply is not a chat completion (no choices[0].message.content)")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(content or "", _tokens(usage.get("prompt_tokens")), _tokens(usage.get("completion_tokens")))


def _tokens(n: Any) -> int:
    return n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 10**12 else 0


def redact(client: openai.OpenAI, text: str) -> str:
    """`text` without the client's API key: an endpoint may echo the Authorization header in an error."""
    key = client.api_key
    return text.replace(key, "[API key]") if key and key != NO_KEY else text


def retry_after(exc: BaseException | None) -> float:
    """The seconds a 429/503 reply's Retry-After asks for (capped at MAX_RETRY_AFTER_S); 0 when none."""
    response = getattr(exc, "response", None)
    try:
        seconds = float(response.headers.get("retry-after", "")) if response is not None else 0.0
    except ValueError:  # an HTTP date, or nonsense: the exponential backoff alone
        return 0.0
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def retrying(client: openai.OpenAI, call: Callable, attempts: int, backoff_s: float) -> Callable:
    """`call` tried again on transient errors only, at most `attempts` times, with exponential backoff
    (from `backoff_s`, at most 8 s) or the server's Retry-After when longer; each retry is logged, keyless."""
    exponential = wait_exponential(multiplier=backoff_s, max=8)

    def wait(state: RetryCallState) -> float:
        return max(exponential(state), retry_after(state.outcome.exception()))

    def logged(state: RetryCallState) -> None:
        exc = state.outcome.exception()
        log.warning("Retrying the LLM call in %.1f s (try %d of %d failed: %s)", state.next_action.sleep,
                    state.attempt_number, attempts, redact(client, f"{type(exc).__name__}: {exc}"))

    return retry(retry=retry_if_exception_type(TRANSIENT), stop=stop_after_attempt(attempts), wait=wait,
                 reraise=True, before_sleep=logged)(call)


def endpoint_error(client: openai.OpenAI, exc: openai.OpenAIError) -> AppmemError:
    """What an LLM call that failed for good raises: TransientError for a timeout, a lost connection, 429
    or 5xx (after the retries), ConfigError for a refusal (401, 403, 400, 404: the key, the model or the
    URL is wrong); the message keyless."""
    if isinstance(exc, TRANSIENT):
        return TransientError(redact(client, f"LLM endpoint {client.base_url}: {exc}"))
    return ConfigError(redact(client, f"LLM endpoint {client.base_url} refused the request: {exc}"))


class SummaryCache:
    """Validated screen summaries by (model, prompt version, content hash), in SQLite."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, body TEXT NOT NULL)")

    @staticmethod
    def key(model: str, ctx: ScreenContext) -> str:
        return f"{model}|{PROMPT_VERSION}|{ctx.content_hash()}"

    def get(self, key: str) -> ScreenSummary | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM summaries WHERE key = ?", (key,)).fetchone()
        return ScreenSummary.model_validate_json(row[0]) if row else None

    def put(self, key: str, summary: ScreenSummary) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO summaries (key, body) VALUES (?, ?)",
                             (key, summary.model_dump_json()))

    def close(self) -> None:
        self._db.close()


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
            self.cache.put(SummaryCache.key(self.model, ctx), summary)
            out[ctx.id] = summary
        return out
