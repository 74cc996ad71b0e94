"""Step-wise LLM fallback for the runtime: when memory has no route, an LLM picks the next action.

The prompt holds the task, the current screen's interactive elements (as
AutoDroid's HTML-like list) and appmem's hints (agent/hints via the memory),
and asks for one JSON action: {"index": n, "action": "tap|input|scroll|back",
"input": str} or {"done": true}. One call per step; the answer is validated.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from appmem.settings import Settings
from formats.ui import ActionType
from graph.vocabulary import is_risky
from formats.uixml import parse_hierarchy

SYSTEM = ("You operate an Android app for a user. Given the task, the screen's elements and hints from a memory "
          "of the app, answer one JSON object: {\"index\": element index, \"action\": \"tap\"|\"input\"|\"scroll\"|"
          "\"back\", \"input\": text to type or \"\"}, or {\"done\": true} when the task is complete.")


def make_llm_step(settings: Settings) -> Callable | None:
    """The runtime's `llm_step` when an LLM is configured, else None."""
    if not settings.llm_base_url or not settings.llm_model:
        return None
    from semantic.llm import open_llm

    client, model = open_llm(settings)

    def step(task: str, screen, hints: list[dict[str, Any]]) -> dict[str, Any] | None:
        state = parse_hierarchy(screen.xml, screen.package, screen.activity)
        views = [v for v in state.views if v.interactive]
        listing = [{"index": i, "class": v.short_class, "text": v.text, "desc": v.content_desc}
                   for i, v in enumerate(views)]
        answer = client.chat.completions.create(
            model=model, temperature=0, response_format={"type": "json_object"},
            messages=[{"role": "system", "content": SYSTEM},
                      {"role": "user", "content": json.dumps({"task": task, "elements": listing, "hints": hints})}])
        try:
            choice = json.loads(answer.choices[0].message.content or "{}")
        except json.JSONDecodeError:
            return None
        if choice.get("done") or not isinstance(choice.get("index"), int) or not 0 <= choice["index"] < len(views):
            return None
        action = choice.get("action") if choice.get("action") in ("tap", "input", "scroll", "back") else "tap"
        v = views[choice["index"]]
        element = {"text": v.text, "content_desc": v.content_desc, "resource_id": v.resource_id,
                   "class_name": v.class_name, "bounds": v.bounds.as_list(),
                   "locators": [f"//*[@bounds='[{v.bounds.left},{v.bounds.top}][{v.bounds.right},{v.bounds.bottom}]']"]}
        return {"action": ActionType(action).value, "element": None if action == "back" else element,
                "input": str(choice.get("input") or ""),
                "risky": is_risky(v.text, v.content_desc, extra=settings.risky_words)}

    return step
