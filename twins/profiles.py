"""Device profiles and app updates: a recorded app as another device, another user or a
later version would show it. Everything is seeded, so a profile or update is the same
on every run and every device.

Profiles (`--profile P`, a comma-separated combination):
- `recorded`: the recording as it is (the default);
- `small`: a 720x1280 display at 280 dpi, every bound scaled;
- `tablet`: a 1600x2560 display at 320 dpi, every bound scaled;
- `dynamic`: the same layout with another user's content: every digit shifted
  (dates, times, counters, sizes), and the dynamic rows of lists (what the privacy
  scrubber calls list items) reordered and given other item texts.

Updates (`--twin-version N`, N >= 2, each step applied in turn from the recording):
on a seeded ~20% of the screens (states grouped by their structure) a view is added
and an app resource id renamed, recorded actions on the renamed views follow the
new id, and one recorded move between two unchanged screens is gone. The app
reports versionName `N.0` and versionCode N (`dumpsys package`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from appmem.errors import InvalidInput
from appmem.formats.ui import ActionType, Bounds, stable_id, UIState, View
from appmem.graph.model import Step
from appmem.graph.screens import view_paths
from appmem.formats.privacy import dynamic_item_views

PROFILES = ("recorded", "small", "tablet", "dynamic")
SIZES = {"small": (720, 1280, 280), "tablet": (1600, 2560, 320)}
RECORDED_DENSITY = 420
UPDATE_SHARE = 0.2  # the share of screens an update changes
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po", "zu", "fe")


@dataclass(frozen=True)
class Profile:
    names: frozenset[str] = frozenset({"recorded"})
    seed: int = 0

    @classmethod
    def parse(cls, text: str | None, seed: int = 0) -> "Profile":
        names = frozenset(n.strip() for n in (text or "recorded").split(",") if n.strip()) or {"recorded"}
        unknown = sorted(names - set(PROFILES))
        if unknown:
            raise InvalidInput("--profile", f"unknown profile {', '.join(unknown)} (known: {', '.join(PROFILES)})")
        if {"small", "tablet"} <= names:
            raise InvalidInput("--profile", "small and tablet are two display sizes: choose one")
        return cls(frozenset(names), seed)

    @property
    def display(self) -> tuple[int, int, int] | None:
        """(width, height, density) of a resized display; None keeps the recorded one."""
        return next((SIZES[n] for n in ("small", "tablet") if n in self.names), None)

    @property
    def density(self) -> int:
        return self.display[2] if self.display else RECORDED_DENSITY

    def apply(self, states: dict[str, UIState], width: int, height: int) -> dict[str, UIState]:
        """The states as this profile shows them."""
        out = dict(states)
        if "dynamic" in self.names:
            out = {sid: other_content(s, self.seed) for sid, s in out.items()}
        if self.display:
            w, h, _ = self.display
            out = {sid: scaled(s, w / width, h / height) for sid, s in out.items()}
        return out


def scaled(state: UIState, sx: float, sy: float) -> UIState:
    def one(b: Bounds) -> Bounds:
        return Bounds(round(b.left * sx), round(b.top * sy), round(b.right * sx), round(b.bottom * sy))

    return replace(state, views=[replace(v, bounds=one(v.bounds), children=list(v.children)) for v in state.views],
                   width=round(state.width * sx), height=round(state.height * sy))


def other_content(state: UIState, seed: int) -> UIState:
    """Digits shifted; list-item texts rotated among their rows and replaced by other words."""
    shift = 1 + int(stable_id("digits", seed), 16) % 9
    items = sorted(dynamic_item_views(state))
    by_index = {v.index: v for v in state.views}
    texts = [(by_index[i].text, by_index[i].content_desc) for i in items]
    if texts:
        turn = 1 + int(stable_id("rows", seed, state.state_id), 16) % max(1, len(texts))
        texts = texts[turn % len(texts):] + texts[:turn % len(texts)]
    moved = {i: (other_words(t, seed), other_words(d, seed)) for i, (t, d) in zip(items, texts)}

    def digits(text: str) -> str:
        return "".join(str((int(c) + shift) % 10) if c.isdigit() and c.isascii() else c for c in text)

    views = []
    for v in state.views:
        text, desc = moved.get(v.index, (v.text, v.content_desc))
        views.append(replace(v, text=digits(text), content_desc=digits(desc), children=list(v.children)))
    return replace(state, views=views)


def other_words(text: str, seed: int) -> str:
    """Another user's text of the same shape: each word → a seeded pseudo-word."""
    if not text:
        return text
    out = []
    for word in text.split(" "):
        rng = random.Random(stable_id("word", seed, word))
        made = "".join(rng.choice(SYLLABLES) for _ in range(max(1, len(word) // 2)))
        out.append(made.capitalize() if word[:1].isupper() else made)
    return " ".join(out)


@dataclass
class Update:
    """What an update changed: screens by structure group, and the move it removed."""

    version: int
    changed_states: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)  # old resource id → new one
    removed: tuple[str, str] | None = None  # (source state id, action signature)


def update(package: str, states: dict[str, UIState], steps: list[Step], version: int,
           seed: int = 0) -> tuple[dict[str, UIState], list[Step], list[Update]]:
    """The app after updates 2..version (see module doc)."""
    reports = []
    for v in range(2, version + 1):
        states, steps, report = _one_update(package, states, steps, v, seed)
        reports.append(report)
    return states, steps, reports


def _group(state: UIState) -> str:
    return stable_id(state.package, state.activity, *sorted({f"{v.class_name}|{v.resource_id}" for v in state.views}))


def _one_update(package: str, states: dict[str, UIState], steps: list[Step], version: int,
                seed: int) -> tuple[dict[str, UIState], list[Step], Update]:
    report = Update(version)
    groups: dict[str, list[str]] = {}
    for sid in sorted(states):
        if states[sid].package == package:
            groups.setdefault(_group(states[sid]), []).append(sid)
    new_states = dict(states)
    key_maps: dict[str, dict[str, str]] = {}
    ranked = sorted(groups, key=lambda g: stable_id("update", seed, version, g))
    chosen = set(ranked[:max(1, round(len(ranked) * UPDATE_SHARE))])
    for group, members in sorted(groups.items()):
        if group not in chosen:
            continue
        h = int(stable_id("rename", seed, version, group), 16)
        common = set.intersection(*({v.resource_id for v in states[s].views
                                     if v.resource_id.startswith(f"{package}:id/")} for s in members))
        old_id = sorted(common)[h % len(common)] if common else ""
        new_id = f"{old_id}_v{version}" if old_id else ""
        if old_id:
            report.renamed[old_id] = new_id
        for sid in members:
            state = states[sid]
            before = view_paths(state.views)
            views = [replace(v, resource_id=new_id if old_id and v.resource_id == old_id else v.resource_id,
                             children=list(v.children)) for v in state.views]
            root = next((v for v in views if v.parent < 0), None)
            if root is not None:
                added = View(index=max(v.index for v in views) + 1, parent=root.index, children=[],
                             class_name="android.widget.TextView", package=package,
                             resource_id=f"{package}:id/appmem_update_v{version}", text=f"New in {version}.0",
                             bounds=Bounds(root.bounds.left, root.bounds.top, root.bounds.right,
                                           root.bounds.top + max(1, (root.bounds.bottom - root.bounds.top) // 24)))
                views.append(added)
                root.children = [*root.children, added.index]
            new_states[sid] = replace(state, views=views)
            after = view_paths(views)
            key_maps[sid] = {before[i]: after[i] for i in before if before[i] != after.get(i)}
            report.changed_states.add(sid)
    moved = []
    for step in steps:
        mapping = key_maps.get(step.source_state, {})
        if step.action.element_key in mapping:
            step = replace(step, action=replace(step.action, element_key=mapping[step.action.element_key]))
        moved.append(step)
    group_of = {sid: g for g, members in groups.items() for sid in members}
    candidates = sorted({(s.source_state, s.action.signature) for s in moved
                         if s.action.type is ActionType.TAP and s.source_state in group_of
                         and s.target_state in group_of and group_of[s.source_state] != group_of[s.target_state]
                         and s.source_state not in report.changed_states
                         and s.target_state not in report.changed_states})
    if candidates:
        report.removed = candidates[int(stable_id("removed", seed, version), 16) % len(candidates)]
        moved = [s for s in moved if (s.source_state, s.action.signature) != report.removed]
    return new_states, moved, report

