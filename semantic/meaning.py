"""What an element means, from the graph alone: its label, its role, its screen and above all its effect.

An element's description has four parts, each a short text:
  label   its text, content description and resource-id words split
          (`btn_add_contact` → "add contact"): what it says;
  role    what kind of control it is (button, switch, text field, ...);
  screen  the name and title of the screen it is on;
  effect  what acting on it was seen to lead to in the UTG: the destination
          screens' titles and their most distinctive labels. A menu button
          "means" the entries it opens ("More options → Settings, Help,
          About"); an icon-only button means its resource id and its effect.
`summarize` embeds the label, screen and effect parts as rows of their own
(payload `part`), so the ranker (semantic/ranker.py) can weigh them apart;
bench/retrieval.py measures each part's contribution.
"""
from __future__ import annotations

from appmem.graph.model import Element
from appmem.graph.vocabulary import head, humanize, id_words, label_of, role_of
from appmem.semantic.contexts import ScreenContext

PARTS = ("label", "role", "screen", "effect")
EMBEDDED = ("label", "screen", "effect")  # the parts summarize embeds on their own (a role is a category)
ROLES = {"input": "text field", "toggle": "option switch", "scroll": "scrollable list",
         "long_tap": "item to long press", "tap": "button"}
EFFECT_TEXTS = 6  # distinctive labels of a destination kept in the effect
EFFECT_SCREENS = 2  # destinations kept (the most often seen first)


def label_part(e: Element) -> str:
    names = [label_of(e), humanize(e.text), humanize(e.content_desc), id_words(e.resource_id)]
    seen: dict[str, None] = {}
    for n in names:
        if n and n.lower() not in {s.lower() for s in seen}:
            seen[n] = None
    return " / ".join(seen)


def screen_part(ctx: ScreenContext) -> str:
    name, title = ctx.facts.name, ctx.facts.title
    return name if not title or title.lower() == name.lower() else f"{name} ({title})"


def effect_part(ctx: ScreenContext, e: Element) -> str:
    own = head(label_of(e)).lower()
    out = []
    for d in [d for d in ctx.destinations.get(e.id, []) if d.screen_id != ctx.id][:EFFECT_SCREENS]:
        title = head(humanize(d.title))
        shown = [head(t) for t in d.texts if head(t) and head(t).lower() not in (own, title.lower())]
        shown = list(dict.fromkeys(shown))[:EFFECT_TEXTS]
        out.append((title + (": " if title and shown else "") + ", ".join(shown)).strip())
    return "; ".join(o for o in out if o)


def meaning(ctx: ScreenContext, e: Element) -> dict[str, str]:
    """The element's four parts (an empty effect when it was never seen to lead anywhere)."""
    return {"label": label_part(e), "role": ROLES.get(role_of(e), "button"), "screen": screen_part(ctx),
            "effect": effect_part(ctx, e)}


def describe(parts: dict[str, str], use: tuple[str, ...] = PARTS) -> str:
    """One text of the parts in `use`: "Sort by (button) on Notes; opens Sort by: Title, Date"."""
    text = parts["label"] if "label" in use else ""
    if "role" in use:
        text += f" ({parts['role']})"
    if "screen" in use and parts["screen"]:
        text += f" on {parts['screen']}"
    if "effect" in use and parts["effect"]:
        text += f"; opens {parts['effect']}"
    return text.strip(" ;") or parts["role"]


def depth(ctx: ScreenContext) -> int:
    """Steps from the app's entry to the element's screen (its shortest breadcrumb; 0 at an entry)."""
    return min((len(p) for p in ctx.paths), default=0)
