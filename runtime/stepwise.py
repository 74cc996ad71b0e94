"""Step-wise LLM fallback for the runtime: when memory has no route, an LLM picks the next action.

The prompt holds the task, the current screen's interactive elements (each with
what it shows: its text, else the texts inside it, as a menu row's; and its id's
words) and appmem's hints (agent/hints via the memory),
and asks for one JSON action: {"index": n, "action": "tap|input|scroll|back",
"input": str} or {"done": true}. One call per step; the answer is validated: a
reply that is not that JSON, or names no element of the screen, raises
LlmReplyError (the runtime records it as a failed step with the reason, never as
"the task is done"); only an explicit {"done": true} ends the run as done (the step is None).
The call is semantic/llmclient.py's `chat` (an overall deadline): a transient failure
(timeout, lost connection, 429, 5xx) is tried again, at most ATTEMPTS times with
backoff that honours Retry-After, then raises TransientError; a refusal (401,
403, 400, 404) raises ConfigError at once. Either ends the run failed with that
reason (runtime/runtime.py), never an "invalid reply". No message holds the API key.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import openai

from appmem.errors import AppmemError
from appmem.settings import Settings
from appmem.formats.ui import ActionType
from appmem.graph.vocabulary import id_words, is_risky
from appmem.runtime.grounding import shows, view_words
from appmem.runtime.move import Move
from appmem.formats.uixml import parse_hierarchy

SYSTEM = ("You operate an Android app for a user. Given the task, the screen's elements and hints from a memory "
          "of the app, answer one JSON object: {\"index\": element index, \"action\": \"tap\"|\"input\"|\"scroll\"|"
          "\"back\", \"input\": text to type or \"\"}, or {\"done\": true} when the task is complete.")


DONE = {"done": True}
ATTEMPTS = 3  # tries of one step's call on transient errors
BACKOFF_S = 0.5  # the first wait between them (doubling; a longer Retry-After wins, capped)


class LlmReplyError(AppmemError):
    """The LLM's reply is not a valid choice of action; the message says what is wrong with it."""


LlmStep = Callable[[str, Any, list[dict[str, Any]]], Move | None]


def make_llm_step(settings: Settings) -> LlmStep | None:
    """The runtime's `llm_step` when an LLM is configured, else None. The step it gives: the LLM's next move
    on the screen, or None when the LLM judged the task done."""
    if not settings.llm_base_url or not settings.llm_model:
        return None
    from appmem.semantic.llmclient import MalformedReply, chat, endpoint_error, open_llm, redact, retrying

    client, model = open_llm(settings)
    call = retrying(client, lambda **request: chat(client, **request), ATTEMPTS, BACKOFF_S)

    def step(task: str, screen, hints: list[dict[str, Any]]) -> Move | None:
        state = parse_hierarchy(screen.xml, screen.package, screen.activity)
        views = [v for v in state.views if v.interactive]
        shown = [shows(state.views, v) for v in views]
        listing = [{"index": i, "class": v.short_class, "text": text, "desc": v.content_desc,
                    "id": id_words(v.resource_id)} for i, (v, text) in enumerate(zip(views, shown))]
        try:
            content = call(model=model, temperature=0, response_format={"type": "json_object"},
                           messages=[{"role": "system", "content": SYSTEM},
                                     {"role": "user", "content": json.dumps({"task": task, "elements": listing,
                                                                             "hints": hints})}]).content
            choice = parse_choice(content, len(views))
        except openai.OpenAIError as exc:
            raise endpoint_error(client, exc) from None
        except (MalformedReply, LlmReplyError) as exc:  # the reply may quote the key the server was sent
            raise LlmReplyError(redact(client, str(exc))) from None
        if choice is DONE:
            return None
        if choice["action"] == "back":
            return Move.back()
        action, v, text = choice["action"], views[choice["index"]], shown[choice["index"]]
        element = {"text": v.text, "content_desc": v.content_desc, "resource_id": v.resource_id,
                   "class_name": v.class_name, "bounds": v.bounds.as_list(), "label": text or v.content_desc,
                   "locators": [f"//*[@bounds='[{v.bounds.left},{v.bounds.top}][{v.bounds.right},{v.bounds.bottom}]']"]}
        return Move(ActionType(action).value, element, choice["input"],
                    risky=is_risky(view_words(state.views, v), extra=settings.risky_words))

    return step


def parse_choice(content: str, n_views: int) -> dict[str, Any]:
    """The reply as {"index", "action", "input"}, or DONE; LlmReplyError naming what is wrong otherwise."""
    try:
        choice = json.loads(content)
    except (json.JSONDecodeError, RecursionError):
        raise LlmReplyError(f"the LLM's reply is not JSON: {content[:120]!r}") from None
    if not isinstance(choice, dict):
        raise LlmReplyError(f"the LLM's reply is not a JSON object: {content[:120]!r}")
    if choice.get("done") is True:
        return DONE
    action = choice.get("action", "tap")
    if action not in ("tap", "input", "scroll", "back"):
        raise LlmReplyError(f"the LLM chose an unknown action {str(action)[:40]!r}")
    index = choice.get("index")
    if action != "back" and (not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n_views):
        raise LlmReplyError(f"the LLM chose element {str(index)[:40]!r}, not one of the screen's {n_views} elements")
    return {"index": index, "action": action, "input": str(choice.get("input") or "")[:5000]}
