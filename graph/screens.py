"""From a concrete UI state to its abstract Screen and its Elements.

The screen signature is content-free (DroidBot's `structure_str` idea): the
foreground activity plus the set of (class, resource id) of the visible views.
Texts are left out, so the same screen showing other data, at another time or on
another device, merges; a different layout does not. Elements are keyed by
their structural path in the tree, so they merge across observations too.
"""
from __future__ import annotations

from collections import Counter

from graph.model import Element, Screen, UIState, View, stable_id

# Packages that are the device, not an app: their screens carry no app version.
UNVERSIONED = ""


def screen_signature(state: UIState) -> str:
    if state.structure:
        return stable_id(state.activity, state.structure)
    parts = sorted({f"{v.class_name}|{v.resource_id}" for v in state.views if v.visible})
    return stable_id(state.activity, *parts)


def screen_of(state: UIState, app_package: str, app_version: str) -> Screen:
    """The abstract screen of a state. A screen of another package than the app
    under study belongs to *that* package (unversioned), shared by every app
    that reaches it."""
    version = app_version if state.package == app_package else UNVERSIONED
    signature = screen_signature(state)
    return Screen(
        id=stable_id("screen", state.package, version, signature),
        package=state.package,
        app_version=version,
        activity=state.activity,
        signature=signature,
        title=screen_title(state),
    )


def screen_title(state: UIState) -> str:
    """A human hint for the screen: the first visible short text near the top."""
    for v in sorted((v for v in state.views if v.visible and v.text), key=lambda v: (v.bounds.top, v.bounds.left)):
        text = v.text.strip()
        if 0 < len(text) <= 60:
            return text
    return state.activity.rsplit(".", 1)[-1]


def view_paths(views: list[View]) -> dict[int, str]:
    """Structural path of every view: class[resource-id]#n per level, where n
    counts earlier siblings with the same class and resource id."""
    return {index: key for index, (key, _) in view_locations(views).items()}


def view_locations(views: list[View]) -> dict[int, tuple[str, str]]:
    """Per view, in one walk of the tree: (structural key, absolute XPath).
    The absolute XPath is uiautomator's positional form, /hierarchy/class[k]/...
    with k counted 1-based among same-class siblings."""
    by_index = {v.index: v for v in views}
    out: dict[int, tuple[str, str]] = {}
    stack: list[tuple[View, str, str]] = [
        (root, f"/{root.short_class}[{root.resource_id}]#0", f"/hierarchy/{root.class_name}[{n + 1}]")
        for n, root in enumerate(v for v in views if v.parent < 0 or v.parent not in by_index)
    ]
    while stack:
        view, key, xpath = stack.pop()
        out[view.index] = (key, xpath)
        same_key: Counter[str] = Counter()
        same_class: Counter[str] = Counter()
        for child_index in view.children:
            child = by_index.get(child_index)
            if child is None or child.index in out:
                continue
            part = f"{child.short_class}[{child.resource_id}]"
            same_class[child.class_name] += 1
            stack.append((child, f"{key}/{part}#{same_key[part]}", f"{xpath}/{child.class_name}[{same_class[child.class_name]}]"))
            same_key[part] += 1
    return out


def xpath_literal(value: str) -> str:
    """Quote any string for XPath 1.0 (which has no escape character)."""
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    pieces = value.split("'")
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in pieces) + ")"


def locators(view: View, absolute: str) -> list[str]:
    """XPath locators, most precise first: id+text, id, content-desc, text, class+text, position."""
    out: list[str] = []
    rid, text, desc = view.resource_id, view.text, view.content_desc
    if rid and text:
        out.append(f"//*[@resource-id={xpath_literal(rid)} and @text={xpath_literal(text)}]")
    if rid:
        out.append(f"//*[@resource-id={xpath_literal(rid)}]")
    if desc:
        out.append(f"//*[@content-desc={xpath_literal(desc)}]")
    if text:
        out.append(f"//{view.class_name}[@text={xpath_literal(text)}]")
    out.append(absolute)
    return out


def elements_of(state: UIState, screen: Screen, acted_keys: frozenset[str] = frozenset()) -> dict[int, Element]:
    """Interactive views of a state, plus the views whose key is in
    `acted_keys` (a recorded action used them), as Elements of its screen, by view index."""
    located = view_locations(state.views)
    out: dict[int, Element] = {}
    for v in state.views:
        if v.index not in located:
            continue
        key, absolute = located[v.index]
        if not (v.interactive or key in acted_keys):
            continue
        out[v.index] = Element(
            id=stable_id("element", screen.id, key),
            screen_id=screen.id,
            key=key,
            class_name=v.class_name,
            resource_id=v.resource_id,
            text=v.text,
            content_desc=v.content_desc,
            bounds=v.bounds,
            flags=v.flags(),
            locators=locators(v, absolute),
        )
    return out
