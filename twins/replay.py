"""Which recorded outcome a twin replays for an input: the replay modes of a twin device.

A twin is a simulator: it only ever replays what its DroidBot recording did. The modes differ
in what they take for "the same input in the same state":

- `exact`: DroidBot's `state_str` (every text on the screen included) and the input's signature;
  any other input changes nothing. So a screen that differs from a recorded one only by a clock,
  a list's rows or a dialog's hidden background ignores a tap the recording made on it.
- `similar`: the same widget on a screen of the same activity. An input recorded from this
  very state is taken from there; otherwise from the recorded states of the same activity where
  the recording made this input on a view at the same place (the view path) with the same
  DroidBot view signature (class, resource id, text, enabled/checked/selected), the most
  similar first: the same DroidBot `structure_str`, then the most view signatures shared.

Both modes then choose among the input's recorded outcomes by the state the twin showed before
(`after_likest`): a dialog's CANCEL returns to what was under it, and a "navigate up" to where the
app came from, which DroidBot's dump of the state does not show, so one state can have many
recorded outcomes of one input. The outcomes recorded after the previous state most like the one
the twin showed before win: in `exact` only the very state (the same `state_str`), in `similar`
also a like one (`SimilarReplay.likeness`). When none was recorded after it, or the previous state
is unknown (after a jump, or the launcher, which stands for every recorded home screen and is no
recorded state), all win. The device replays the winners round-robin, in recorded order. Every
target is one the recording reached with that widget; none is invented.

The modes come from DroidBot's own recording (its structure string and view signatures), not
from appmem's screen identity, so the simulator does not agree with the system under test by
construction.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

from appmem.formats.ui import Action, ActionType, View
from appmem.twins.app import Occurrence, TwinApp
from appmem.twins.modes import SIMILAR

TEXT_MAX = 50  # DroidBot leaves longer texts out of a view's signature


def view_signature(view: View) -> str:
    """A view's signature as DroidBot writes it (`signature` in its state JSON)."""
    text = view.text if view.text and len(view.text) <= TEXT_MAX else "None"
    flags = ",".join(("enabled" if view.enabled else "", "checked" if view.checked else "",
                      "selected" if view.selected else ""))
    return f"[class]{view.class_name}[resource_id]{view.resource_id or 'None'}[text]{text}[{flags}]"


def mode_targets(mode: str, app: TwinApp, state: str, actions: tuple[Action, ...],
                 before: str | None) -> tuple[str, ...]:
    """The recorded targets a twin in replay `mode` replays (round-robin) for one physical input
    (`actions`: the views it acts on) from `state`, with `before` the state shown before it; () when
    none was recorded. In both modes only a recorded state of the app counts as a previous state: the
    twin's launcher stands for every recorded home screen, so it is no state of its own (else the few
    outcomes recorded right after a launch from home would be the only ones a launched twin replays)."""
    before = before if before in app.states else None
    if mode == SIMILAR:
        return similar_of(app).targets(state, actions, before)
    return exact_targets(app, state, actions, before)


def acted_views(mode: str, app: TwinApp, state: str, kind: ActionType) -> frozenset[str]:
    """The view paths of `state` that replay `mode` takes for a recorded `kind` input there."""
    if mode == SIMILAR:
        return similar_of(app).acted(state, kind)
    return app.acted.get((state, kind), frozenset())


def similar_of(app: TwinApp) -> SimilarReplay:
    """The app's `similar`-mode look-ups: built once per app, shared by every device of the fleet."""
    if SIMILAR not in app.lookups:
        app.lookups[SIMILAR] = SimilarReplay(app)
    return app.lookups[SIMILAR]  # type: ignore[return-value]


def after_likest(occurrences: Sequence[Occurrence], likeness: Callable[[str | None], object]) -> tuple[str, ...]:
    """The targets, in recorded order, of the outcomes recorded after the previous state that is most
    alike (by `likeness`, of an outcome's recorded previous state) to the one the twin showed before."""
    scores = [likeness(o.before) for o in occurrences]
    best = max(scores)  # type: ignore[type-var]
    return tuple(o.target for o, score in zip(occurrences, scores) if score == best)


def exact_targets(app: TwinApp, state: str, actions: tuple[Action, ...], before: str | None) -> tuple[str, ...]:
    """The `exact` mode's targets to replay (round-robin) for one physical input (`actions`: the views it
    acts on) from `state`, with `before` the recorded state shown before it (None: unknown); () when none
    was recorded there."""
    occurrences = [o for a in actions for o in app.occurrences.get((state, a.signature), ())]
    if not occurrences:
        return ()
    return after_likest(occurrences, lambda recorded: before is not None and recorded == before)


class SimilarReplay:
    """The `similar` mode's look-ups for one app, built on first use."""

    def __init__(self, app: TwinApp):
        self.app = app
        self._acted: dict[tuple[str, ActionType], frozenset[str]] = {}

    @cached_property
    def widgets(self) -> dict[str, dict[str, str]]:
        """State → view path → DroidBot view signature, for the visible views."""
        return {sid: {pv.key: view_signature(pv.view) for pv in placed} for sid, placed in self.app.placed.items()}

    @cached_property
    def recorded(self) -> dict[tuple[str, str, str], list[str]]:
        """(activity, input signature, widget signature) → the states the recording made it from."""
        out: dict[tuple[str, str, str], list[str]] = {}
        for sid, signature in self.app.occurrences:
            key = signature.split("|", 2)[1]
            if key and sid in self.app.states:
                widget = self.widgets[sid].get(key, "")
                out.setdefault((self.app.states[sid].activity, signature, widget), []).append(sid)
        return out

    def acted(self, state: str, kind: ActionType) -> frozenset[str]:
        """View paths of this state on which the recording made a `kind` input here, or on the same
        widget in a state of the same activity."""
        if (state, kind) not in self._acted:
            activity = self.app.states[state].activity
            here = self.app.acted.get((state, kind), frozenset())
            self._acted[state, kind] = here | frozenset(
                key for key, widget in self.widgets[state].items()
                if (activity, Action(kind, key).signature, widget) in self.recorded)
        return self._acted[state, kind]

    def targets(self, state: str, actions: tuple[Action, ...], before: str | None) -> tuple[str, ...]:
        """The recorded targets to replay (round-robin) for one physical input (`actions`: the views it
        acts on) from `state`, with `before` the recorded state shown before it (None: unknown); () when
        none was recorded."""
        occurrences = [o for a in actions for o in self.app.occurrences.get((state, a.signature), ())]
        if not occurrences:
            sources = self._sources(state, actions)
            occurrences = [o for sid, a in sources for o in self.app.occurrences[(sid, a.signature)]]
        if not occurrences:
            return ()
        return after_likest(occurrences, lambda recorded: self.likeness(recorded, before))

    def _sources(self, state: str, actions: tuple[Action, ...]) -> list[tuple[str, Action]]:
        """The most similar other states where the recording made this input on the same widget."""
        activity = self.app.states[state].activity
        found = [(sid, a) for a in actions if a.element_key
                 for sid in self.recorded.get((activity, a.signature, self.widgets[state].get(a.element_key, "")), ())]
        if not found:
            return []
        best = max(self.likeness(sid, state) for sid, _ in found)
        return [(sid, a) for sid, a in found if self.likeness(sid, state) == best]

    def likeness(self, a: str | None, b: str | None) -> tuple[int, int, float]:
        """How alike two recorded states are: the same state, the same DroidBot structure_str, then the
        share of view signatures they have in common (unknown states are alike in nothing)."""
        if a is None or b is None or a not in self.widgets or b not in self.widgets:
            return (int(a == b and a is not None), 0, 0.0)
        if a == b:
            return (1, 1, 1.0)
        x, y = self.bags[a], self.bags[b]
        return (0, int(self.app.structures.get(a) == self.app.structures.get(b)), len(x & y) / max(1, len(x | y)))

    @cached_property
    def bags(self) -> dict[str, frozenset[str]]:
        return {sid: frozenset(widgets.values()) for sid, widgets in self.widgets.items()}
