"""The twins' replay modes (twins/replay.py) on the shared DroidBot recordings: `exact` replays an input
only from the very state DroidBot recorded it in; `similar` also answers it on the same widget of a like
state of the same activity. Both prefer the outcomes recorded after the previous state the twin showed
(`exact`: that very state; `similar`: the most similar one), round-robin among them. Neither invents a
transition. Twins are simulators of the recorded apps."""
from __future__ import annotations

from pathlib import Path

import pytest

from appmem.errors import InvalidInput
from appmem.formats.ui import Action, ActionType
from appmem.twins.app import LAUNCHER_STATE, TwinApp
from appmem.twins.device import TwinDevice
from appmem.twins.modes import EXACT, SIMILAR
from appmem.twins.replay import SimilarReplay, similar_of

DROIDBOT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "droidbot"


@pytest.fixture(scope="module")
def ajsha() -> TwinApp:
    return TwinApp.from_droidbot(DROIDBOT / "org.ligi.ajsha")


@pytest.fixture(scope="module")
def launcher() -> TwinApp:
    return TwinApp.from_droidbot(DROIDBOT / "de.szalkowski.activitylauncher")


def centre(app: TwinApp, state: str, key: str) -> tuple[int, int]:
    return next(pv.view.bounds.center for pv in app.placed[state] if pv.key == key)


def dialog_answers(app: TwinApp) -> list[tuple[str, str, str, str, str]]:
    """(editor, tap that opens the dialog, dialog, its CANCEL, where CANCEL was recorded to lead) for the
    recorded input with the most recorded targets: ajsha's save dialog, whose dump does not show the
    editor under it."""
    (dialog, cancel), occurrences = max(app.occurrences.items(), key=lambda kv: len({o.target for o in kv[1]}))
    out = []
    for o in occurrences:
        opener = next((sig for (src, sig), targets in app.transitions.items()
                       if src == o.before and dialog in targets and sig.startswith("tap|")), None)
        if opener and all(x[0] != o.before for x in out):
            out.append((o.before, opener, dialog, cancel, o.target))
    return out


def test_the_recorded_walk_is_read_in_time_order(ajsha):
    answers = dialog_answers(ajsha)
    assert len(answers) >= 10
    # DroidBot's events/ in time order: each recorded CANCEL of the dialog went back to the editor it
    # was opened over (utg.js's event ids alone put some answers before their dialog)
    assert all(editor == back for editor, _, _, _, back in answers)


def test_both_replay_modes_answer_a_dialog_with_the_screen_it_was_opened_over(ajsha):
    answers = dialog_answers(ajsha)[2::-1]  # not in recorded order: round-robin would not return them
    cancel_targets = ajsha.transitions[(answers[0][2], answers[0][3])]
    assert len(set(cancel_targets)) >= 3  # one dialog state, one CANCEL, several recorded outcomes
    for mode in (EXACT, SIMILAR):
        device = TwinDevice("local", [ajsha], replay=mode)
        ends = []
        for editor, opener, dialog, cancel, _ in answers:
            device.goto(ajsha.package, editor)
            device.tap(*centre(ajsha, editor, opener.split("|")[1]))
            assert device.foreground.state_id == dialog
            device.tap(*centre(ajsha, dialog, cancel.split("|")[1]))
            ends.append(device.foreground.state_id)
        # the outcome recorded after the very editor the device came from, not the next in recorded order
        assert ends == [editor for editor, *_ in answers], mode
        assert ends != list(cancel_targets[:3])


def test_exact_replay_walks_every_recorded_outcome_when_the_previous_state_is_unknown(ajsha):
    """After a jump (`goto`: the previous state is unknown) the dialog's CANCEL replays all its recorded
    outcomes round-robin, in recorded order."""
    _, _, dialog, cancel, _ = dialog_answers(ajsha)[0]
    targets = ajsha.transitions[(dialog, cancel)]
    device = TwinDevice("local", [ajsha], replay=EXACT)
    ends = []
    for _ in range(3):
        device.goto(ajsha.package, dialog)
        device.tap(*centre(ajsha, dialog, cancel.split("|")[1]))
        ends.append(device.foreground.state_id)
    assert ends == list(targets[:3])


def test_similar_replay_answers_a_tap_on_a_widget_recorded_in_a_like_state_and_nothing_else(launcher):
    similar = SimilarReplay(launcher)
    unrecorded = [(sid, key) for sid in launcher.states for key in similar.acted(sid, ActionType.TAP)
                  if (sid, Action(ActionType.TAP, key).signature) not in launcher.transitions]
    assert len(unrecorded) >= 10  # the recording walked through many languages: few taps per state
    for mode in (EXACT, SIMILAR):
        device = TwinDevice("local", [launcher], replay=mode)
        for sid, key in unrecorded[:10]:
            device.goto(launcher.package, sid)
            device.tap(*centre(launcher, sid, key))
            now = device.foreground.state_id
            if mode == EXACT:
                assert now == sid  # a tap the recording never made in this very state changes nothing
                continue
            signature = Action(ActionType.TAP, key).signature
            widget = similar.widgets[sid][key]
            recorded = {o.target for (src, sig), occurrences in launcher.occurrences.items() if sig == signature
                        and launcher.states[src].activity == launcher.states[sid].activity
                        and similar.widgets[src].get(key) == widget for o in occurrences}
            assert now in recorded  # one of the outcomes the recording had for that widget: none invented


def test_a_replay_mode_that_does_not_exist_is_refused(ajsha):
    with pytest.raises(InvalidInput, match="replay"):
        TwinDevice("local", [ajsha], replay="fuzzy")


def test_a_fleet_builds_an_apps_similar_lookups_once(ajsha):
    first, second = TwinDevice("one", [ajsha], replay=SIMILAR), TwinDevice("two", [ajsha], replay=SIMILAR)
    answers = dialog_answers(ajsha)[:1]
    for device in (first, second):
        editor, opener, dialog, _, _ = answers[0]
        device.goto(ajsha.package, editor)
        device.tap(*centre(ajsha, editor, opener.split("|")[1]))
        assert device.foreground.state_id == dialog
    # the app is shared by the fleet, and so are its look-ups (the widgets of every state, built once)
    assert similar_of(ajsha) is ajsha.lookups[SIMILAR]
    assert isinstance(ajsha.lookups[SIMILAR], SimilarReplay)


def test_the_strictest_judge_takes_only_outcomes_recorded_from_the_state_tapped_in(ajsha):
    """bench/runtime.py's `from_state` judge (tests/twin_tasks.py), on ajsha's save dialog and its CANCEL
    (the input with the most recorded outcomes): an outcome recorded from the very state tapped in counts,
    a screen never recorded from it does not, nor a tap on another view, nor a run with no tap."""
    from appmem.graph.screens import screen_of
    from tests.twin_tasks import from_state, named

    (dialog, cancel), _ = max(ajsha.occurrences.items(), key=lambda kv: len({o.target for o in kv[1]}))
    key = cancel.split("|")[1]
    view = next(pv for pv in ajsha.placed[dialog] if pv.key == key)
    label = view.view.text
    assert named(view.view, label) and not named(view.view, "OK")
    screen = {t: screen_of(ajsha.states[t], ajsha.package, ajsha.version).id
              for t in ajsha.targets(dialog, cancel) if t in ajsha.states}
    recorded_here = set(screen.values())
    elsewhere = next(screen_of(s, ajsha.package, ajsha.version).id for sid, s in ajsha.states.items()
                     if screen_of(s, ajsha.package, ajsha.version).id not in recorded_here)
    taps = [(dialog, [view])]
    assert all(from_state(ajsha, taps, label, ended, False) for ended in recorded_here)
    assert not from_state(ajsha, taps, label, elsewhere, False)
    assert not from_state(ajsha, [(dialog, [view])], "OK", next(iter(recorded_here)), False)  # not the named view
    assert not from_state(ajsha, [], label, next(iter(recorded_here)), False)


@pytest.mark.parametrize("mode", [EXACT, SIMILAR])
def test_replay_takes_the_launcher_for_no_previous_state(mode):
    """The twin's launcher stands for every recorded home screen: after a launch from it, both modes replay
    all of an input's recorded outcomes, not only the few DroidBot recorded right after a home screen
    (accapp: its entry's BACK, recorded 64 times, went home once right after one). `similar` took the
    launcher for a previous state like itself until session 6."""
    accapp = TwinApp.from_droidbot(DROIDBOT / "mattecarra.accapp")
    device = TwinDevice("local", [accapp], replay=mode)
    device.start_app(accapp.package)
    entry = device.foreground.state_id
    back = Action(ActionType.BACK)
    recorded = accapp.occurrences[(entry, back.signature)]
    assert any(o.before == LAUNCHER_STATE for o in recorded) and len({o.target for o in recorded}) > 2
    assert device.recorded_targets(back) == tuple(o.target for o in recorded)
