"""The LLM endpoint: one OpenAI-compatible client, one call within a deadline, retries, keyless errors.

`open_llm(settings)` creates the one `openai` client (base URL, key, timeout
from Settings; the client's own retries off, ours are `retrying`). `chat` makes
one call within an overall deadline (the timeout: headers and the whole body, not
each read, so a server that trickles bytes is cut off), reads at most
MAX_REPLY_BYTES and checks that the reply is a chat completion (else
`MalformedReply`). `retrying` tries again on named transient errors only (timeouts,
connection errors, 429, 5xx), with exponential backoff, longer when the server's
Retry-After asks (capped), each logged. `endpoint_error` is what a call that failed
for good raises. The API key never reaches a message (`redact`): a server may echo it.
The summarizer (semantic/llm.py) and the runtime's step-wise fallback both call it.
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

import httpx2  # openai's transport: what reading a streamed body raises
import openai
from tenacity import RetryCallState, retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from appmem.errors import AppmemError, ConfigError, TransientError
from appmem.retry_after import retry_after_s
from appmem.settings import Settings

log = logging.getLogger("appmem.semantic.llm")  # one logger for what the LLM did, as operators filter it

TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
MAX_REPLY_BYTES = 4 * 1024 * 1024  # a reply for a batch of 60 elements is tens of KB: more is a broken server
MAX_RETRY_AFTER_S = 10.0  # a server's Retry-After is honoured up to this: longer, and the run had better fail
NO_KEY = "none"  # the key the client sends when none is configured (openai requires one)


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
    return retry_after_s(response.headers.get("retry-after") if response is not None else None, MAX_RETRY_AFTER_S)


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
