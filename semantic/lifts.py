"""The lifts of the one element scorer (semantic/ranking.py): rules that place an element right before
the elements it completes, whose own words say little. Each is a pairing of an element with the
elements whose best score it must beat (built here from the element payloads, by position), then one
vectorised pass per search (`lift`). Their switches (follow, commit, dialogs, named, entries) are
fields of RankingConfig (appmem/planconfig.py), which the benches vary with dataclasses.replace.

3. `FOLLOW` (on): a confirm button (OK, Save, Yes: graph/vocabulary.CONFIRM_WORDS) of a screen
   that an element opens ranks right before the best of its openers, when that is above its own
   score: the task that taps "Delete" is finished by the "Yes" of the dialog it opens, whose own
   words say little (payload `leads_to`, written by `summarize`). No constant to fit. Measured on
   the shared apps (bench/retrieval.py prints it off): strict R@5 70.1 -> 74.0 % (camera 73 -> 87,
   clock 67 -> 75, no app lower). It ranked right after its opener until session 5; before it is
   measured with NAMED below.

4. `COMMIT` (on): a confirm ranks right before the best entry of its own screen (ENTRIES: a
   field, a choice), when that is above its own score: a task that types or chooses on a form or
   dialog ends on its Save or OK ("rename the note", "change Bob's number"), whose own words say
   little. No constant to fit. Measured on the shared apps (bench/retrieval.py prints it off, on,
   and with fields only; same run, summaries at semantic/7): strict R@5 74.0 -> 75.3 %, R@1
   42.9 -> 51.9 % (fields only: 49.4 %). Every leave-one-app-out fold but notes' picks choices
   too on the other five apps (notes' ties). bench/plan.py --no-recall: unchanged (leave-one-app-out
   54.5 %) once a form is filled top to bottom (agent/compose.py); before that, a checklist plan
   chose the note's type before typing its name, the other order from the gold one (53.2 %).
   `DIALOGS` (on): a form's confirm also commits the entries of the dialogs that its screen's other
   elements open ("create an event with daily repetition and save it" ends on New Event's Save, not
   on "Daily" in the repetition list; a confirm's own way back opens no dialog of it). No constant.
   Same run (bench/retrieval.py prints it off): strict R@1 51.9 -> 55.8 % (calendar, camera,
   contacts +1 each, no task lower), R@5 unchanged (75.3 %); every leave-one-app-out fold gains on
   the other five apps. bench/plan.py --no-recall --no-loao: unchanged (58.4 %).

Before stages 4 and 3, `NAMED` (on): a choice (a toggle) whose whole label the task says ranks
right before the best of the elements that open its screen, when they are above it ("change the
font size to medium": "Medium", not the "Font size / Large" that opens the list); stages 4 and 3 then
place the confirms that commit it. No constant to fit. Measured on the shared apps, same run (session
5, bench/retrieval.py prints NAMED off): stage 3 before its opener and NAMED together, strict R@1
55.8 -> 58.4 % (calendar +1, contacts +1, camera +1 -1), R@5 unchanged 75.3 %; each alone 57.1 %
(stage 3 before: calendar's fold sees no gain on the other five apps; NAMED alone lifts clock's
"1 minute" only to below its dialog's OK); together every leave-one-app-out fold gains on the other
five. bench/plan.py --no-recall --no-loao: unchanged (58.4 %).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from appmem.graph.vocabulary import CONFIRM_WORDS
from appmem.semantic.lexical import terms

Pairs = list[tuple[int, np.ndarray]]  # (element, the elements it must beat), by element position
Flat = tuple[np.ndarray, np.ndarray, np.ndarray]


def confirm(payload: dict) -> bool:
    """A confirm button (OK, Save, Yes: graph/vocabulary.CONFIRM_WORDS)."""
    return payload.get("role") == "tap" and (payload.get("label") or "").strip().lower() in CONFIRM_WORDS


def openers(first: Sequence[dict]) -> dict[str, np.ndarray]:
    """Screen → the elements seen to open it (payload `leads_to`), by element position."""
    out: dict[str, list[int]] = {}
    for i, p in enumerate(first):
        for screen in p.get("leads_to") or ():
            out.setdefault(screen, []).append(i)
    return {screen: np.asarray(ids, dtype=np.int64) for screen, ids in out.items()}


def follow_pairs(first: Sequence[dict], opened_by: dict[str, np.ndarray]) -> Pairs:
    """Stage 3: (confirm button, the elements that open its screen)."""
    return [(i, opened_by[p["screen_id"]]) for i, p in enumerate(first)
            if confirm(p) and p.get("screen_id") in opened_by]


def choice_pairs(first: Sequence[dict], opened_by: dict[str, np.ndarray]) -> list[tuple[int, frozenset[str], np.ndarray]]:
    """NAMED: (choice, its label's stems, the elements that open its screen)."""
    out = []
    for i, p in enumerate(first):
        stems = frozenset(terms(p.get("label") or ""))
        if p.get("role") == "toggle" and stems and p.get("screen_id") in opened_by:
            out.append((i, stems, opened_by[p["screen_id"]]))
    return out


def commit_pairs(first: Sequence[dict], entries: tuple[str, ...], dialogs: bool) -> Flat:
    """Stage 4, flat: each confirm with the entries (roles `entries`) of its own screen and, with `dialogs`,
    of the screens its screen's other elements open (a form's Save commits the choice made in the dialog
    its "Repeat" or "Phone type" opens)."""
    own: dict[str, list[int]] = {}
    for i, p in enumerate(first):
        if p.get("role") in entries:
            own.setdefault(p.get("screen_id"), []).append(i)
    committed = {screen: list(ids) for screen, ids in own.items()}
    if dialogs:  # a confirm's way back (to the screen that opened its dialog) opens no dialog of it
        for p in first:
            for screen in [] if confirm(p) else p.get("leads_to") or ():
                if screen in own and screen != p.get("screen_id"):
                    committed.setdefault(p.get("screen_id"), []).extend(own[screen])
    return flat([(i, sorted(set(committed[p.get("screen_id")]))) for i, p in enumerate(first)
                 if confirm(p) and p.get("screen_id") in committed])


def flat(pairs) -> Flat:
    """(element, the elements it must beat) pairs flat, for one vectorised pass: the elements, all the
    ones they must beat one after the other, and where each element's ones start."""
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return (np.asarray([i for i, _ in pairs], dtype=np.int64),
            np.concatenate([np.asarray(e, dtype=np.int64) for _, e in pairs]),
            np.cumsum([0] + [len(e) for _, e in pairs][:-1]).astype(np.int64))


def lift(total: np.ndarray, pairs: Flat, offset: float) -> None:
    """In place: each element scores at least the best of the scores it must beat plus `offset`."""
    lifted, members, starts = pairs
    if len(lifted):
        total[lifted] = np.maximum(total[lifted], np.maximum.reduceat(total[members], starts) + offset)
