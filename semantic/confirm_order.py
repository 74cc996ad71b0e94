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
- named: a choice (a toggle) whose whole label the task says ranks right before the best of the elements
  that open its screen ("change the font size to medium": "Medium", not the "Font size" row that opens
  the list); commit and follow then place the confirms that commit it.
None has a constant to fit.
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
