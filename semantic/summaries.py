"""What screens and elements do: the summary types and the deterministic (no-LLM) summarizer.

The unit of work is a screen in its UTG context (`ScreenContext`): its
elements, where acting on each element leads (destination titles and their
most distinctive texts), and which elements elsewhere lead to it. From that,
every screen gets a functionality summary and MobileGPT-style sub-tasks, and
every element a simulated task in AutoDroid's sense ("what acting on this
achieves"), a `risky` flag and, for inputs, a parameter.

`DeterministicSummarizer` builds them from labels, content descriptions,
resource ids (split on camelCase / snake_case), screen titles and the UTG; it
is what tests and the retrieval benchmark measure. The LLM summarizer
(semantic/llm.py) returns the same pydantic types and falls back to this one.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Protocol

from pydantic import BaseModel, Field


# -- input: a screen in its UTG context ---------------------------------------------------------
@dataclass
class ElementInfo:
    id: str
    screen_id: str
    class_name: str = ""
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    flags: list[str] = field(default_factory=list)


@dataclass
class Destination:
    """Where an action on an element was seen to lead."""

    screen_id: str
    title: str
    texts: list[str]  # the destination's most distinctive labels
    action: str = "tap"


@dataclass
class ScreenContext:
    id: str
    package: str
    app_version: str
    activity: str
    title: str
    elements: list[ElementInfo]
    destinations: dict[str, list[Destination]] = field(default_factory=dict)  # element id → where it leads
    arrivals: list[str] = field(default_factory=list)  # labels of the elements elsewhere that lead here
    # How the screen is reached (AutoDroid's "UI elements leading to U_i"): up to
    # PATHS label sequences, e.g. ["More options", "Settings", "Delete all events"].
    paths: list[list[str]] = field(default_factory=list)

    def content_hash(self) -> str:
        """Changes exactly when what a summary is made from changes."""
        body = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


# -- output: the summary schema (also the LLM's JSON schema) -------------------------------------
class Parameter(BaseModel):
    name: str = Field(min_length=1, max_length=60)
    description: str = Field(max_length=300)


class ElementSummary(BaseModel):
    element_id: str
    simulated_task: str = Field(min_length=1, max_length=400)
    risky: bool = False
    parameter: Parameter | None = None
    # Whole tasks that end with acting on this element (a dialog's OK after choosing
    # one of its options, a form's Save after filling it), each embedded on its own.
    completes: list[str] = Field(default_factory=list, max_length=40)


class SubTask(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    description: str = Field(max_length=400)
    parameters: list[Parameter] = Field(default_factory=list)
    elements: list[str] = Field(default_factory=list)  # element ids


class ScreenSummary(BaseModel):
    screen_id: str
    summary: str = Field(min_length=1, max_length=600)
    subtasks: list[SubTask] = Field(default_factory=list)
    elements: list[ElementSummary] = Field(default_factory=list)


@dataclass
class SummarizerStats:
    calls: int = 0
    cached: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class Summarizer(Protocol):
    kind: str  # what made a summary (part of its hash: another kind redoes it)
    stats: SummarizerStats

    def summarize(self, contexts: list[ScreenContext]) -> list[ScreenSummary]: ...


# -- words -------------------------------------------------------------------------------------
PLACEHOLDER_WORDS = {"<ITEM>": "an item", "<EMAIL>": "an e-mail address", "<PHONE>": "a phone number",
                     "<NUMBER>": "a number", "<URL>": "a link", "<CARD>": "a card number", "<IP>": "an address",
                     "<SECRET>": "a password"}
GENERIC_IDS = {"id", "btn", "button", "text", "txt", "view", "image", "img", "icon", "layout", "item", "title",
               "container", "content", "root", "main", "action", "menu", "android", "widget", "label", "value",
               "holder", "wrapper", "frame", "row", "et", "tv", "iv", "ib", "fab", "ll", "rl"}
RISKY_WORDS = ("delete", "remove", "erase", "wipe", "clear", "reset", "uninstall", "format", "send", "call",
               "dial", "pay", "purchase", "buy", "order", "transfer", "discard", "empty trash", "sign out",
               "log out", "logout", "block", "unsubscribe", "restore", "overwrite", "factory")
BACK_WORDS = {"go back", "back", "navigate up", "close", "cancel", "no", "dismiss", "not now", "later", "skip"}
# Buttons that only carry out what their screen was opened for: their meaning is the screen's purpose.
CONFIRM_WORDS = {"ok", "yes", "save", "done", "apply", "confirm", "allow", "accept", "continue", "got it",
                 "proceed", "set", "select", "submit", "finish", "next", "start"}
# Buttons that name an action and also carry out their dialog's purpose ("Delete" in "Delete note?").
ACTION_WORDS = {"delete", "remove", "send", "create", "add", "rename", "print", "export", "import", "move",
                "copy", "update", "overwrite", "share", "call", "clear", "reset", "discard"}
# Arrival labels that say nothing about the screen they open: look further back.
OPAQUE_ARRIVALS = CONFIRM_WORDS | {"an item", ""}
PATHS = 3  # breadcrumbs kept per screen
PATH_STEPS = 3  # labels per breadcrumb (the last ones before the screen)
HINT = re.compile(r"(…|\.\.\.)$|^(insert|enter|type|search|add|write|find|label|name|title|note|message)\b", re.I)
ON_OFF = re.compile(r"\s+(ON|OFF)$")


def humanize(raw: str) -> str:
    """UI text / ids → plain words: `<br>` joins, placeholders, whitespace."""
    text = re.sub(r"\s*(<br>|\n)\s*", " / ", raw.strip())
    for placeholder, words in PLACEHOLDER_WORDS.items():
        text = text.replace(placeholder, words)
    text = re.sub(r"\s+", " ", text)
    return text.strip(" /")


def id_words(resource_id: str) -> str:
    """`com.app:id/btnDeleteAll_events` → `delete all events` (generic parts dropped)."""
    name = resource_id.rsplit("/", 1)[-1]
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    words = [w.lower() for w in re.split(r"[\W_]+", name) if w]
    return " ".join(w for w in words if w not in GENERIC_IDS and not w.isdigit())


def label_of(e: ElementInfo) -> str:
    """The element's human label: its text, else its content description, else
    its id's words. An input's text is what was typed there unless it reads
    like a hint ("Search…", "Insert text here"), so for inputs the description,
    the id and a hint-like text come first, and typed content is never a label."""
    if role_of(e) == "input":
        text = humanize(e.text)
        candidates = (humanize(e.content_desc), id_words(e.resource_id), text if HINT.search(text) else "")
    else:
        candidates = (humanize(e.text), humanize(e.content_desc), id_words(e.resource_id))
    return next((c for c in candidates if c), "")


def head(label: str) -> str:
    """The name part of a label that shows a value too: 'Reminder sound / Default (Pixie)' → 'Reminder sound',
    'Use 24-hour time format OFF' → 'Use 24-hour time format'."""
    return ON_OFF.sub("", label.split(" / ", 1)[0]).strip()


def role_of(e: ElementInfo) -> str:
    """input | toggle | scroll | long_tap | tap."""
    cls = e.class_name.lower()
    flags = set(e.flags)
    if "editable" in flags or "edittext" in cls or cls.endswith("input") or "autocomplete" in cls:
        return "input"
    if "checkable" in flags or any(k in cls for k in ("checkbox", "switch", "radiobutton", "togglebutton",
                                                        "checkedtextview")):
        return "toggle"
    if ("scrollable" in flags and "clickable" not in flags) or any(
            k in cls for k in ("scroller", "scrollview", "recyclerview", "listview")):
        return "scroll"
    if "long_clickable" in flags and "clickable" not in flags:
        return "long_tap"
    return "tap"


def snake(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "_".join(words[:5]) or "value"


def is_risky(*texts: str, extra: tuple[str, ...] = ()) -> bool:
    hay = " ".join(t.lower() for t in texts if t)
    return any(re.search(rf"\b{re.escape(w)}", hay) for w in (*RISKY_WORDS, *extra))


def _join(items: list[str], limit: int) -> str:
    return ", ".join([i for i in dict.fromkeys(items) if i][:limit])


# -- from graph rows to contexts ---------------------------------------------------------------
@dataclass
class ScreenRow:
    id: str
    package: str
    app_version: str
    activity: str
    title: str


@dataclass
class TransitionRow:
    source: str
    target: str
    element_id: str
    action: str = "tap"


def build_contexts(screens: list[ScreenRow], elements: list[ElementInfo],
                   transitions: list[TransitionRow]) -> list[ScreenContext]:
    """Every screen in its UTG context: where its elements lead (titles and
    distinctive labels of the destinations), what leads to it (the labels
    of the elements acted on to get there; a generic 'OK' is resolved to
    what the screen it was on was for, up to three steps back; an 'OK' that
    returns to the screen that opened its dialog is no way in), and its
    breadcrumbs: the last PATH_STEPS labels of the ways in, those starting
    nearest an entry screen (one nothing leads to) first."""
    by_screen: dict[str, list[ElementInfo]] = {s.id: [] for s in screens}
    for e in elements:
        by_screen.setdefault(e.screen_id, []).append(e)
    by_id = {e.id: e for e in elements}
    labels = {sid: [label_of(e) for e in els] for sid, els in by_screen.items()}
    counts: Counter[str] = Counter(l for ls in labels.values() for l in set(ls))
    forward: dict[str, set[str]] = {}
    edges: list[tuple[str, str, str]] = []
    for t in transitions:
        e = by_id.get(t.element_id)
        # Choosing an option or typing returns to an earlier screen: that says nothing about it.
        if t.source != t.target and e is not None and role_of(e) in ("tap", "long_tap"):
            forward.setdefault(t.source, set()).add(t.target)
            edges.append((t.source, t.target, head(label_of(e))))

    def opens(a: str, b: str) -> bool:
        """Screen `a` leads to screen `b` in one or two taps."""
        near = forward.get(a, set())
        return b in near or any(b in forward.get(n, set()) for n in near)

    incoming: dict[str, list[tuple[str, str]]] = {}
    for source, target, label in edges:
        low = label.lower()
        if low in BACK_WORDS:
            continue  # going back shows an earlier screen; it says nothing about it
        if low in OPAQUE_ARRIVALS and opens(target, source):
            continue  # confirming a dialog returns to the screen that opened it
        incoming.setdefault(target, []).append((source, label))

    def purposes(screen_id: str, depth: int, seen: frozenset[str]) -> Counter[str]:
        direct: Counter[str] = Counter()
        opaque: list[str] = []
        for source, label in incoming.get(screen_id, []):
            if label.lower() in OPAQUE_ARRIVALS:
                opaque.append(source)
            else:
                direct[label] += 1
        if not direct and depth < 3:
            for source in opaque:
                if source not in seen:
                    direct.update(purposes(source, depth + 1, seen | {source}))
        return direct

    # Entry screens: nothing leads to them but going back (the app's start, a
    # screen opened from outside). A breadcrumb that starts nearer one is preferred,
    # as AutoDroid keeps the way from the initial UI.
    leads: dict[str, list[str]] = {}
    for target, sources in sorted(incoming.items()):
        for source, _ in sources:
            leads.setdefault(source, []).append(target)
    distance = {s.id: 0 for s in screens if s.id not in incoming}
    frontier = list(distance)
    while frontier:
        frontier = list(dict.fromkeys(b for a in frontier for b in leads.get(a, []) if b not in distance))
        for b in frontier:
            distance[b] = min(distance[a] for a, _ in incoming[b] if a in distance) + 1
    far = len(screens) + 1
    memo: dict[tuple[str, int], list[tuple[int, tuple[str, ...]]]] = {}

    def paths(screen_id: str, steps: int) -> list[tuple[int, tuple[str, ...]]]:
        """(distance from an entry screen, labels): the taps (at most `steps` labels)
        that lead to the screen, those that start nearest an entry screen first."""
        if steps == 0:
            return [(distance.get(screen_id, far), ())]
        if (screen_id, steps) not in memo:
            memo[(screen_id, steps)] = [(far, ())]  # a cycle back to this screen adds nothing
            found: dict[tuple[str, ...], int] = {}
            for source, label in dict.fromkeys(incoming.get(screen_id, [])):
                step = () if label.lower() in OPAQUE_ARRIVALS else (label,)
                for start, prefix in paths(source, steps - len(step)):
                    path = prefix + step
                    if path and len(set(path)) == len(path):
                        found[path] = min(found.get(path, far), start)
            ranked = sorted(found.items(), key=lambda kv: (kv[1] + len(kv[0]), len(kv[0])))
            memo[(screen_id, steps)] = [(start, path) for path, start in ranked[:PATHS]] or \
                [(distance.get(screen_id, far), ())]
        return memo[(screen_id, steps)]

    titles = {s.id: s.title for s in screens}
    crumbs = {s.id: [list(p) for _, p in paths(s.id, PATH_STEPS) if p] for s in screens}
    # Named by the way in from nearest an entry screen first, then by the most frequent.
    arrivals = {s.id: list(dict.fromkeys([p[-1] for p in crumbs[s.id]] + [
        l for l, _ in purposes(s.id, 0, frozenset({s.id})).most_common(3)]))[:3] for s in screens}
    out = []
    for s in screens:
        destinations: dict[str, list[Destination]] = {}
        for t in transitions:
            if t.source == s.id and t.target != s.id and t.element_id in by_id:
                dest = destinations.setdefault(t.element_id, [])
                if all(d.screen_id != t.target for d in dest):
                    name = (arrivals.get(t.target) or [titles.get(t.target, "")])[0]
                    dest.append(Destination(t.target, name, distinctive_texts(labels.get(t.target, []), counts),
                                            t.action))
        out.append(ScreenContext(s.id, s.package, s.app_version, s.activity, s.title,
                                 sorted(by_screen.get(s.id, []), key=lambda e: e.id),
                                 {k: sorted(v, key=lambda d: d.screen_id) for k, v in sorted(destinations.items())},
                                 arrivals[s.id], crumbs[s.id]))
    return out


def distinctive_texts(labels: list[str], app_counts: Counter[str], limit: int = 4) -> list[str]:
    """The labels of a screen that are rarest across the app (what sets it apart), in screen order."""
    usable = [l for l in dict.fromkeys(labels) if l and l.lower() not in BACK_WORDS]
    ranked = set(sorted(usable, key=lambda l: (app_counts[l], usable.index(l)))[:limit])
    return [l for l in usable if l in ranked]


# -- the deterministic summarizer --------------------------------------------------------------
class DeterministicSummarizer:
    """Summaries from labels, ids and the UTG, with no model. `risky_words` adds
    to the built-in list (Settings.risky_words)."""

    kind = "deterministic"

    def __init__(self, risky_words: tuple[str, ...] = ()):
        self.risky_words = tuple(risky_words)
        self.stats = SummarizerStats()

    def summarize(self, contexts: list[ScreenContext]) -> list[ScreenSummary]:
        return [self.screen(c) for c in contexts]

    @staticmethod
    def screen_name(ctx: ScreenContext) -> str:
        """What the screen is for: its title when it has a real one (a short text that
        is no element's label), else what leads to it, else its title or activity."""
        title = humanize(ctx.title)
        labels = {label_of(e).lower() for e in ctx.elements}
        if ctx.arrivals:
            return ctx.arrivals[0]
        if title and len(title) <= 40 and title.lower() not in labels:
            return title
        if title:
            return title
        return humanize(re.sub(r"(Activity|Fragment)$", "", ctx.activity.rsplit(".", 1)[-1])) or "screen"

    @staticmethod
    def _is_option_list(ctx: ScreenContext) -> bool:
        """A dialog of choices (sounds, sizes, views): most of its elements are toggles."""
        usable = [e for e in ctx.elements if label_of(e).lower() not in BACK_WORDS]
        toggles = [e for e in usable if role_of(e) == "toggle"]
        return bool(ctx.arrivals) and len(toggles) >= 2 and len(toggles) >= 0.6 * len(usable)

    @staticmethod
    def _confirmed(ctx: ScreenContext) -> bool:
        """The screen's choices take effect only with a confirming button (OK, Save)."""
        return any(label_of(e).lower() in CONFIRM_WORDS for e in ctx.elements)

    def element(self, ctx: ScreenContext, e: ElementInfo, options: bool | None = None) -> ElementSummary:
        label = label_of(e)
        role = role_of(e)
        name = self.screen_name(ctx)
        low = label.lower()
        parameter = None
        completes: list[str] = []
        if role == "input":
            what = label or f"{name} text"
            parameter = Parameter(name=snake(what), description=f"the text to type into '{what}' on {name}")
            task = f"{name}: enter the {what.lower()}"
        elif role == "toggle":
            options = self._is_option_list(ctx) if options is None else options
            if options and self._confirmed(ctx):
                task = f"select '{label}' in the {name} list, then confirm"  # the confirm button sets it
            elif options:
                task = f"set {name} to '{label}'"
            elif "checked" in e.flags or label.endswith(" ON"):
                task = f"turn off (disable) '{head(label)}' in {name}"
            else:
                task = f"turn on (enable) '{head(label)}' in {name}"
        elif role == "scroll":
            task = f"scroll {name} to see more"
        elif low in BACK_WORDS:
            task = f"{low}: leave {name} without changes"
        elif (ctx.arrivals or humanize(ctx.title)) and (low in CONFIRM_WORDS or low in ACTION_WORDS):
            details = _join([head(label_of(o)) for o in ctx.elements if o.id != e.id and role_of(o) != "scroll"
                             and label_of(o).lower() not in BACK_WORDS | CONFIRM_WORDS], 4)
            title = humanize(ctx.title)
            about = title if title and title.lower() not in (name.lower(), low) and len(title) > len(label) else ""
            verb = "confirm" if low in CONFIRM_WORDS else low
            task = f"{verb} {name}" + (f" ({about})" if about else "") + (f": {details}" if details else "") + \
                f" (tap '{label}')"
            # "save" reads as finishing a form or a choice, which is what these buttons do
            completes = self._completions(ctx, e, name, "save" if low in CONFIRM_WORDS else low)
        else:
            verb = "long press" if role == "long_tap" else "tap"
            task = f"{label or 'unlabeled ' + e.class_name.rsplit('.', 1)[-1]} ({verb} in {name})"
            destinations = [d for d in ctx.destinations.get(e.id, []) if d.screen_id != ctx.id]
            if destinations:
                d = destinations[0]
                shown = _join([head(t) for t in d.texts if head(t).lower() != low], 4)
                opened = head(d.title) if head(d.title).lower() != head(low) else ""
                task += "; opens " + (opened + (": " if opened and shown else "") + shown or "another screen")
        if role != "scroll" and low not in BACK_WORDS:
            step = f"enter {label or name}" if role == "input" else head(label) or task
            completes = [" › ".join([*path, step]) for path in ctx.paths] + completes

        risky = low not in BACK_WORDS and (
            is_risky(label, id_words(e.resource_id), extra=self.risky_words)
            or (low in CONFIRM_WORDS and any(is_risky(a, extra=self.risky_words) for a in ctx.arrivals)))
        return ElementSummary(element_id=e.id, simulated_task=task[:400], risky=risky, parameter=parameter,
                              completes=[t[:400] for t in dict.fromkeys(completes)][:40])

    def _completions(self, ctx: ScreenContext, button: ElementInfo, name: str, verb: str) -> list[str]:
        """The tasks a confirming button finishes: one per option or switch of its
        screen, one per input, and one for the screen's own question or title."""
        out = []
        title = humanize(ctx.title)
        if title and title.lower() not in {name.lower()} | {label_of(o).lower() for o in ctx.elements}:
            out.append(f"{title} ({name}): {verb}")
        for o in ctx.elements:
            label = label_of(o)
            if o.id == button.id or not label or label.lower() in BACK_WORDS:
                continue
            role = role_of(o)
            if role == "toggle":
                if self._is_option_list(ctx):
                    out.append(f"set {name} to '{head(label)}'")
                out.append(f"{name}: choose '{head(label)}' and {verb}")
            elif role == "tap" and " / " in label:  # a setting showing its value: "Theme / Light"
                out.append(f"{name}: set {head(label)} to '{label.split(' / ', 1)[1]}' and {verb}")
            elif role == "input":
                out.append(f"{name}: enter the {label.lower()} and {verb}")
        return [t[:400] for t in dict.fromkeys(out)][:40]

    def screen(self, ctx: ScreenContext) -> ScreenSummary:
        options = self._is_option_list(ctx)
        elements = [self.element(ctx, e, options) for e in ctx.elements]
        by_id = {e.id: e for e in ctx.elements}
        name = self.screen_name(ctx)
        subtasks: list[SubTask] = []
        inputs = [s for s in elements if s.parameter]
        if inputs:
            subtasks.append(SubTask(name="fill_" + snake(name), description=f"{name}: fill in " + _join(
                [label_of(by_id[s.element_id]) for s in inputs], 6),
                parameters=[s.parameter for s in inputs if s.parameter], elements=[s.element_id for s in inputs]))
        if options:
            choices = [s for s in elements if role_of(by_id[s.element_id]) == "toggle"]
            subtasks.append(SubTask(name="choose_" + snake(name), description=f"choose {name}",
                                    parameters=[Parameter(name="choice", description="one of " + _join(
                                        [label_of(by_id[s.element_id]) for s in choices], 8))],
                                    elements=[s.element_id for s in choices]))
        seen = {t.name for t in subtasks}
        for s in elements:
            e = by_id[s.element_id]
            label = label_of(e)
            if s.parameter or (options and role_of(e) == "toggle") or not label or label.lower() in BACK_WORDS:
                continue
            sub = snake(head(label))
            if sub not in seen:
                seen.add(sub)
                subtasks.append(SubTask(name=sub, description=s.simulated_task, elements=[s.element_id]))
        offers = _join([head(label_of(e)) for e in ctx.elements if label_of(e).lower() not in BACK_WORDS], 8)
        summary = name + (f" (title: {humanize(ctx.title)})" if humanize(ctx.title) and humanize(ctx.title) != name
                          else "") + (f": offers {offers}" if offers else "")
        return ScreenSummary(screen_id=ctx.id, summary=summary[:600], subtasks=subtasks[:20], elements=elements)
