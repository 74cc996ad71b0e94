"""Where confirms rank: the one element scorer's rules (semantic/ranking.py) that place an element right
before the elements it completes, because its own words say little. Each rule pairs an element with the
elements whose best score it must beat (built here from the element payloads, by position), then one
vectorised pass per search (`lift`) raises it just above them. Their switches (follow, commit, dialogs,
named, entries) are fields of RankingConfig (appmem/planconfig.py); bench/retrieval.py measures each off.

- follow: a confirm button (OK, Save, Yes: graph/vocabulary.CONFIRM_WORDS) of a screen that an element
  opens ranks right before the best of its openers: the task that taps "Delete" is finished by the "Yes"
  of the dialog it opens (payload `leads_to`, written by `summarize`).
- commit: a confirm ranks right before the best entry of its own screen (entries: a field, a choice): a
  task that types or chooses on a form or dialog ends on its Save or OK.
- dialogs: a form's confirm also commits the entries of the dialogs that its screen's other elements open
  ("... with daily repetition and save it" ends on the form's Save, not on "Daily" in the list).
- named: a choice (a toggle) whose label the task says (at least `named_share` of its stems; the whole
  label by default) ranks right before the best of the elements that open its screen ("change the font
  size to medium": "Medium", not the "Font size" row that opens the list); commit and follow then place
  the confirms that commit it.
- twins: an element never seen to open anything opens what its twins (same label, resource id and role, in
  its own app) were seen to open: one control on look-alike screens (a photo viewer before and after an edit,
  a contact's page and its editor) does the same, and the exploration may have tried one of them only. A
  confirm (OK, Yes) has no twin: it means its own screen's purpose, and the OK of another dialog another.
- twin_next: a control ranks right after the best of its twins on screens of the same title (the Shutter of
  the front camera's Video screen after the back camera's): which of two look-alike screens shows it says
  how far it is, not what it does, and a task's words rarely tell them apart. Twins the memory saw open
  different screens are not lifted; a confirm has no twin.
- evidence: commit applies only where the memory shows that a change holds only with the confirm
  (graph/vocabulary.confirm_needed: a field, a choice seen to leave the screen open, a dismiss); on a list
  of choices without such evidence the choice closes it, so the best choice ranks right before its confirm
  (`closes`). The planner confirms by the same evidence (agent/compose.py).
Only `named_share` is a constant; bench/retrieval.py chooses it leave-one-app-out.
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


def needs_confirm(payload: dict) -> bool:
    """Whether the element's screen keeps a change only with its confirm (payload `needs_confirm`, written by
    `summarize`; a point written before it was read as needing one)."""
    return bool(payload.get("needs_confirm", True))


def effects(first: Sequence[dict], twins: bool) -> list[list[str]]:
    """By element position, the screens acting on it was seen to open (payload `leads_to`); with `twins`, an
    element never seen to open anything opens what its twins (same app, label, resource id and role) opened."""
    seen = [list(p.get("leads_to") or ()) for p in first]
    if not twins:
        return seen
    lent: dict[tuple, list[str]] = {}
    for p, screens in zip(first, seen):
        if screens and p.get("label") and not confirm(p):  # a confirm means its screen's purpose: no twin elsewhere
            lent.setdefault(twin_key(p), []).extend(screens)
    return [screens or [s for s in dict.fromkeys(lent.get(twin_key(p), ())) if s != p.get("screen_id")]
            for p, screens in zip(first, seen)]


def twin_key(payload: dict) -> tuple[str, str, str, str]:
    """What makes elements twins, one control shown on several screens: app, label, resource id and role."""
    return (payload.get("package") or "", payload.get("label") or "", payload.get("resource_id") or "",
            payload.get("role") or "")


def twin_pairs(first: Sequence[dict]) -> Pairs:
    """TWIN_NEXT: (element, its twins on screens of the same title) for each labelled element that is no
    confirm, leaving out a twin that the memory saw do something else (each opened a screen, not the same one)."""
    groups: dict[tuple, list[int]] = {}
    for i, p in enumerate(first):
        if p.get("label") and not confirm(p):
            groups.setdefault((*twin_key(p), p.get("screen_title") or p.get("screen_id")), []).append(i)
    out = []
    for members in groups.values():
        for i in members if len(members) > 1 else ():
            mine = set(first[i].get("leads_to") or ())
            same = [j for j in members if j != i and not (mine and (theirs := set(first[j].get("leads_to") or ()))
                                                          and not mine & theirs)]
            if same:
                out.append((i, np.asarray(same, dtype=np.int64)))
    return out


def openers(first: Sequence[dict], opened: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
    """Screen → the elements that open it (`opened`: by element position, the screens each opens)."""
    out: dict[str, list[int]] = {}
    for i, screens in enumerate(opened):
        for screen in screens:
            out.setdefault(screen, []).append(i)
    return {screen: np.asarray(ids, dtype=np.int64) for screen, ids in out.items()}


def follow_pairs(first: Sequence[dict], opened_by: dict[str, np.ndarray]) -> Pairs:
    """Stage 3: (confirm button, the elements that open its screen)."""
    return [(i, opened_by[p["screen_id"]]) for i, p in enumerate(first)
            if confirm(p) and p.get("screen_id") in opened_by]


def said(stems: frozenset[str], task: set[str], share: float) -> bool:
    """The task says at least `share` of a label's stems."""
    return len(stems & task) >= share * len(stems)


def choice_pairs(first: Sequence[dict], opened_by: dict[str, np.ndarray]) -> list[tuple[int, frozenset[str], np.ndarray]]:
    """NAMED: (choice, its label's stems, the elements that open its screen)."""
    out = []
    for i, p in enumerate(first):
        stems = frozenset(terms(p.get("label") or ""))
        if p.get("role") == "toggle" and stems and p.get("screen_id") in opened_by:
            out.append((i, stems, opened_by[p["screen_id"]]))
    return out


def commit_pairs(first: Sequence[dict], opened: Sequence[Sequence[str]], entries: tuple[str, ...], dialogs: bool,
                 evidence: bool) -> Flat:
    """Stage 4, flat: each confirm with the entries (roles `entries`) of its own screen and, with `dialogs`,
    of the screens its screen's other elements open (`opened`; a form's Save commits the choice made in the
    dialog its "Repeat" or "Phone type" opens, and the dialog's own confirm only takes it back to the form);
    with `evidence`, only the confirms of screens that keep a change only with them (`needs_confirm`)."""
    own: dict[str, list[int]] = {}
    confirms: dict[str, list[int]] = {}
    for i, p in enumerate(first):
        if p.get("role") in entries:
            own.setdefault(p.get("screen_id"), []).append(i)
        elif confirm(p):
            confirms.setdefault(p.get("screen_id"), []).append(i)
    committed = {screen: list(ids) for screen, ids in own.items()}
    if dialogs:  # a confirm's way back (to the screen that opened its dialog) opens no dialog of it
        for p, screens in zip(first, opened):
            for screen in [] if confirm(p) else screens:
                if screen in own and screen != p.get("screen_id"):
                    committed.setdefault(p.get("screen_id"), []).extend(own[screen] + confirms.get(screen, []))
    return flat([(i, sorted(set(committed[p.get("screen_id")]))) for i, p in enumerate(first)
                 if confirm(p) and p.get("screen_id") in committed and (not evidence or needs_confirm(p))])


def close_pairs(first: Sequence[dict]) -> list[tuple[int, np.ndarray]]:
    """EVIDENCE: (confirm, the choices of its screen) for each confirm of a screen that keeps no change for it
    (`needs_confirm` false): the choice closes the screen, so the best of them ranks right before the confirm."""
    choices: dict[str, list[int]] = {}
    for i, p in enumerate(first):
        if p.get("role") == "toggle":
            choices.setdefault(p.get("screen_id"), []).append(i)
    return [(i, np.asarray(choices[p.get("screen_id")], dtype=np.int64)) for i, p in enumerate(first)
            if confirm(p) and not needs_confirm(p) and p.get("screen_id") in choices]


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


def lift_best(total: np.ndarray, pairs: list[tuple[int, np.ndarray]], offset: float) -> None:
    """In place: for each (element, group), the group's best scores at least the element's score plus `offset`."""
    for i, group in pairs:
        best = group[int(np.argmax(total[group]))]
        total[best] = max(total[best], total[i] + offset)
