"""From a concrete UI state to its abstract Screen and its Elements.

Screen identity (the signature) is the foreground activity, the set of (class,
resource id) of the visible views (DroidBot's `structure_str` idea: layout, not
content) and the set of the screen's *naming texts*: the static text that says
what the screen is. A naming text is the text (or content description) of
- a dialog title (`…:id/alertTitle`) or a view directly in a toolbar/action bar;
- a row of a framework menu or choice dialog, or a preference title
  (`android:id/title`, `android:id/text1`: the app's fixed options);
- an interactive view that is not editable (buttons, options, checkboxes: fixed labels),
  the last two only outside scrolling containers (what a scrolled list shows depends on
  where it is scrolled) and not a switch's text (its ON/OFF state),
unless it is data: empty, with a digit (dates, times, counters, sizes), longer
than `LABEL_MAX`, changed by the privacy scrubber (e-mail, URL with a query,
placeholders), or a dynamic list item (`formats.privacy.dynamic_item_views`).
So the same screen on another display size, with another user's content, or seen
before and after an update that did not touch it, merges; two dialogs sharing a
layout but titled or optioned differently do not. The version is not part of a
screen's id: an unchanged screen is one node across versions (its `versions`).
Formats without resource ids (AutoDroid's HTML) bring their own content-free
structure string (with its static labels), which replaces the layout part.

Elements are keyed by their structural path in the tree, so they merge across
observations; their id adds their naming text (`element_names`), so a fixed label
and a data row at one path (CANCEL vs "Android 3 items") never share an element.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from appmem.formats.privacy import MENU_TEXT_IDS, PLACEHOLDER, dynamic_item_views, scrub_text
from appmem.formats.ui import Bounds, stable_id, UIState, View
from appmem.formats.uixml import shown_views

from appmem.graph.model import Element, Screen

# Packages that are the device, not an app: their screens carry no app version.
UNVERSIONED = ""
LABEL_MAX = 40  # a fixed label is short; longer texts are content (messages, descriptions)
TITLE_ENTRY = "alertTitle"  # dialog titles: android:id/alertTitle, and AppCompat's <app>:id/alertTitle
BAR_CLASSES = ("Toolbar", "ActionBar")
SWITCH_CLASSES = ("Switch", "SwitchCompat", "SwitchMaterial", "ToggleButton")
SHOWN_MAX = 40  # characters of a shown text kept: its start tells what it is (a screenshot's line starts alike)


def is_title_id(resource_id: str) -> bool:
    return resource_id.rsplit("/", 1)[-1] == TITLE_ENTRY


def is_data_text(text: str) -> bool:
    """Text that is content, not a fixed label (see module doc)."""
    label = text.strip()
    return (not label or len(label) > LABEL_MAX or any(c.isdigit() for c in label)
            or ("<" in label and ">" in label) or scrub_text(label) != label)


def naming_texts(state: UIState, scrolled: bool = False) -> dict[int, str]:
    """View index → its naming text, for the views that name the screen (module doc);
    with `scrolled`, the labels inside scrolling containers too (they name elements)."""
    if state.structure:
        return {}
    shown = shown_views(state.views)
    by_index = {v.index: v for v in shown}
    # List rows are told apart on what is shown, as a uiautomator dump has it (no invisible subtrees).
    items = dynamic_item_views(replace(state, views=shown))
    out: dict[int, str] = {}
    for v in shown:
        # Editable by class, as a uiautomator dump can tell it (formats/uixml.py): DroidBot
        # also marks some TextViews editable, and the same screen must name itself alike.
        if "EditText" in v.class_name or v.password or v.index in items:
            continue
        parent = by_index.get(v.parent)
        title = is_title_id(v.resource_id) or (parent is not None and parent.short_class.endswith(BAR_CLASSES))
        label = v.resource_id in MENU_TEXT_IDS or v.clickable or v.long_clickable or v.checkable
        # What a scrolling container shows depends on where it is scrolled (the screen is the same,
        # its rows are other elements: `scrolled`); a switch's text is its state.
        if not (title or (label and (scrolled or not in_scroller(v, by_index))
                          and not v.short_class.endswith(SWITCH_CLASSES))):
            continue
        text = next((t.strip() for t in (v.text, v.content_desc) if t and not is_data_text(t)), "")
        if text:
            out[v.index] = text
    return out


def element_names(state: UIState) -> dict[int, str]:
    """What an element's id adds to its path: its naming text, also inside scrolling containers
    (a row scrolled into another option's place is another element). Formats with their own
    structure (AutoDroid's HTML) have no list structure to tell items from labels, and their
    paths count positions in document order: there every interactive view's non-data text
    (its label) is added, so a button that moved does not merge with another label."""
    if not state.structure:
        return naming_texts(state, scrolled=True)
    out: dict[int, str] = {}
    for v in state.views:
        label = next((t.strip() for t in (v.text, v.content_desc) if t and not is_data_text(t)), "")
        if label and (v.clickable or v.checkable) and not v.editable:  # HTML inputs are editable, exactly
            out[v.index] = label
    return out


def in_scroller(view: View, by_index: dict[int, View]) -> bool:
    parent = by_index.get(view.parent)
    while parent is not None:
        if parent.scrollable:
            return True
        parent = by_index.get(parent.parent)
    return False


def signature_parts(state: UIState) -> tuple[str, ...]:
    """What a screen's signature hashes beside its activity: nothing of its package."""
    if state.structure:
        return (state.structure,)
    parts = sorted({f"{v.class_name}|{v.resource_id}" for v in state.views if v.visible})
    names = sorted({f"text|{t}" for t in naming_texts(state).values()})
    return (*parts, *names)


def signature_of(activity: str, parts: tuple[str, ...]) -> str:
    return stable_id(activity, *parts)


def screen_signature(state: UIState) -> str:
    return signature_of(state.activity, signature_parts(state))


def id_of(package: str, signature: str) -> str:
    """A screen's id: its package and signature (no version: an unchanged screen is one node across updates)."""
    return stable_id("screen", package, signature)


def screen_id(package: str, activity: str, parts: tuple[str, ...]) -> str:
    """The id `screen_of` gives a state of `package`, shown in `activity`, whose signature parts are `parts`:
    one screen read once gets its id in each app by two hashes (app choice from an HTML screen)."""
    return id_of(package, signature_of(activity, parts))


def screen_of(state: UIState, app_package: str, app_version: str) -> Screen:
    """The abstract screen of a state. A screen of another package than the app
    under study belongs to *that* package (unversioned), shared by every app
    that reaches it. `app_version` is the version this observation was made in;
    it is not part of the id."""
    version = app_version if state.package == app_package else UNVERSIONED
    signature = screen_signature(state)
    return Screen(
        id=id_of(state.package, signature),
        package=state.package,
        app_version=version,
        activity=state.activity,
        signature=signature,
        title=screen_title(state),
    )


def screen_title(state: UIState) -> str:
    """A human hint for the screen: its dialog or toolbar title, else the first visible
    short text near the top that is no field's content (what was typed into an input names
    the item being edited, not the screen)."""
    by_index = {v.index: v for v in state.views}
    for v in state.views:
        parent = by_index.get(v.parent)
        if v.visible and v.text and not is_data_text(v.text) and (
                is_title_id(v.resource_id) or (parent is not None and parent.short_class.endswith(BAR_CLASSES))):
            return v.text.strip()
    for v in sorted((v for v in state.views if v.visible and v.text and not v.editable),
                    key=lambda v: (v.bounds.top, v.bounds.left)):
        text = v.text.strip()
        if 0 < len(text) <= 60:
            return text
    return state.activity.rsplit(".", 1)[-1]


def shown_texts(state: UIState) -> list[tuple[str, Bounds]]:
    """What a person reads on a (scrubbed) state, with where: the text of each shown view (a title, a static
    label, a button's, a caption in a button's child, a list row's template words, a message's start), its first
    line cut at SHOWN_MAX, in screen order. Texts that are data are not kept: a field's (what was typed), a
    password's, one the privacy scrubber replaced (a list row's contents, an address, a long number). What
    varies between visits is told by how many of a screen's states show a text (agent/pixels.py), not here:
    an element's too (its text one row of a list on one visit, another on the next)."""
    out: dict[tuple[str, Bounds], None] = {}
    for v in sorted(shown_views(state.views), key=lambda v: (v.bounds.top, v.bounds.left)):
        first = v.text.strip().split("\n", 1)[0].strip()
        if (not first or v.editable or v.password or not v.bounds.area
                or PLACEHOLDER.search(v.text)):
            continue
        out.setdefault((first[:SHOWN_MAX].strip(), v.bounds), None)
    return list(out)


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
    names = element_names(state)
    out: dict[int, Element] = {}
    for v in state.views:
        if v.index not in located:
            continue
        key, absolute = located[v.index]
        if not (v.interactive or key in acted_keys):
            continue
        out[v.index] = Element(
            id=stable_id("element", screen.id, key, names.get(v.index, "")),
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
