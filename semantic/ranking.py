"""The one scorer of elements: search, plan, hints, app choice and recall all rank through `ElementIndex`.

An index holds the element vectors of some apps in memory (read once, like
the UTG in agent/appgraph.py). A task is scored in stages:

1. Base score, for every element: cosine(task, best task text of the element)
   + lexical_weight * overlap (RankingConfig, appmem/planconfig.py, holds every option named here). The task texts are the element's simulated task
   and the tasks it completes (semantic/summaries.py); `overlap` is the
   IDF-weighted share of the task's known stems (semantic/lexical.py) the element has,
   sum(idf(t) for t in task ∩ element) / sum(idf(t) for t in task ∩ vocabulary),
   idf(t) = ln(1 + N / df(t)) over the index's N elements. A word every element
   carries weighs little; a word one element carries weighs most. A task of
   several steps ("open the dialpad and call 911") ends on what its last clause
   names: goal_weight * the share of the task's IDF weight that the clause's
   words (semantic/lexical.last_clause) carry and the element says is added.
2. When a learned ranker is given (semantic/ranker.py, trained on synthetic
   tasks generated from the memory itself), the `rerank` best by base score are
   re-ordered by the ranker's probability, over features that include the
   element's meaning parts (semantic/meaning.py: label, screen, effect rows).
   The scores keep the base scale (the re-ordered head takes the head's base
   scores, best first), so the planner's costs read them as before. Without a
   model, the base order stands.

3. `follow` (on): a confirm of a screen that an element opens ranks right before the best of its
   openers. 4. `commit` (on), with `dialogs` (on): a confirm ranks right before the best entry of its
   own screen and of the dialogs that screen opens. Before stages 4 and 3, `named` (on): a choice
   whose label the task says ranks right before the best of what opens its screen. With `twins` (on),
   an element never seen to open anything opens what its twins opened; with `evidence` (on), stage 4
   lifts only the confirms the memory shows needed, and elsewhere the best choice ranks right before
   its confirm (the choice closes the screen). These lifts, their reasons and measurements are
   semantic/confirm_order.py; their switches are RankingConfig's. Last, with `twin_next` (on), a control ranks
   right after the best of its twins on screens of the same title.

A lexical weight of 0.1 keeps cosine the main signal. No query or element text is
special-cased.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Protocol

import numpy as np

from appmem.planconfig import RankingConfig
from appmem.semantic.lexical import holders, idf, last_clause, terms
from appmem.semantic.confirm_order import (choice_pairs, close_pairs, commit_pairs, effects, flat, follow_pairs, lift,
                                           lift_best, openers, said, twin_pairs)
from appmem.semantic.points import Hit
from appmem.semantic.vectors import VectorStore

FOLLOW_GAP = 1e-4  # right before what it is lifted over, after anything that beats that by more
PARTS = ("label", "screen", "effect")


class Ranker(Protocol):
    """What re-orders the base ranking's head (semantic/ranker.py's learned model)."""

    def score(self, index: "ElementIndex", query: np.ndarray, text: str, head: np.ndarray, best: np.ndarray,
              total: np.ndarray) -> np.ndarray: ...


class ElementIndex:
    """Task rows grouped by element (`starts[i]` is element i's first row), plus its meaning rows."""

    def __init__(self, matrix: np.ndarray, payloads: list[dict], starts: np.ndarray,
                 parts: dict[str, tuple[np.ndarray, np.ndarray, list[str]]] | None = None,
                 ranker: Ranker | None = None, config: RankingConfig = RankingConfig()):
        self.matrix = matrix
        self.config = config
        self.payloads = payloads
        self.starts = starts
        self.ranker = ranker
        self._cache: dict[tuple, Any] = {}  # the lifts' pairs, per setting of the options they read (`_memo`)
        # part → (element positions, unit vectors, texts): each element's label / screen / effect row
        self.parts = parts or {}
        self.docs = [set(payloads[r].get("terms") or ()) for r in starts]
        # Row i belongs to element segment[i]: each element's best row is found in one pass over the rows.
        self.segment = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(payloads))))
        self.idf = idf(self.docs)
        self.holders = holders(self.docs)
        self.part_terms = {p: self._part_docs(p) for p in PARTS}
        self.part_idf = {p: idf(d) for p, d in self.part_terms.items()}
        self.part_holders = {p: holders(d) for p, d in self.part_terms.items()}

    @cached_property
    def _first(self) -> list[dict]:
        """Each element's first row's payload, by element position."""
        return [self.payloads[r] for r in self.starts.tolist()]

    def _memo(self, key: tuple, build: Callable[[], Any]) -> Any:
        """What `build` returns, built once per `key` (a lift's pairs per setting of the options it reads), on
        the first search that needs it: an index that is never searched need not pay for it."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _effects(self, twins: bool) -> list[list[str]]:
        """By element position, the screens each opens (semantic/confirm_order.effects)."""
        return self._memo(("effects", twins), lambda: effects(self._first, twins))

    def _openers(self, twins: bool) -> dict[str, np.ndarray]:
        """Screen → the elements that open it, by element position."""
        return self._memo(("openers", twins), lambda: openers(self._first, self._effects(twins)))

    @property
    def follows(self) -> list[tuple[int, np.ndarray]]:
        """(confirm button, the elements that open its screen), by element position (stage 3), with the index's
        options."""
        return self._follows(self.config.twins)

    def _follows(self, twins: bool) -> list[tuple[int, np.ndarray]]:
        return self._memo(("follows", twins), lambda: follow_pairs(self._first, self._openers(twins)))

    def _follow_arrays(self, twins: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 3's pairs flat (semantic/confirm_order.flat), for one vectorised pass per search."""
        return self._memo(("follow arrays", twins), lambda: flat(self._follows(twins)))

    @property
    def _choices(self) -> list[tuple[int, frozenset[str], np.ndarray]]:
        """(choice, its label's stems, the elements that open its screen), by element position (`named`), with
        the index's options."""
        return self._choices_for(self.config.twins)

    def _choices_for(self, twins: bool) -> list[tuple[int, frozenset[str], np.ndarray]]:
        return self._memo(("choices", twins), lambda: choice_pairs(self._first, self._openers(twins)))

    @cached_property
    def _closes(self) -> list[tuple[int, np.ndarray]]:
        """(confirm, its screen's choices) where the choice closes the screen (semantic/confirm_order.close_pairs)."""
        return close_pairs(self._first)

    def _commit_arrays(self, config: RankingConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 4's pairs, flat (semantic/confirm_order.commit_pairs), built once per setting of its options."""
        key = ("commit", config.entries, config.dialogs, config.twins, config.evidence)
        return self._memo(key, lambda: commit_pairs(self._first, self._effects(config.twins), config.entries,
                                                    config.dialogs, config.evidence))

    @cached_property
    def _twin_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`twin_next`'s pairs, flat (semantic/confirm_order.twin_pairs)."""
        return flat(twin_pairs(self._first))

    def _part_docs(self, part: str) -> list[set[str]]:
        docs: list[set[str]] = [set() for _ in self.starts]
        if part in self.parts:
            for i, text in zip(self.parts[part][0].tolist(), self.parts[part][2]):
                docs[i] = set(terms(text))
        return docs

    @classmethod
    def load(cls, vectors: VectorStore, packages: list[str] | None, ranker: Ranker | None = None,
             config: RankingConfig = RankingConfig()) -> "ElementIndex":
        """The element rows of `packages` (every app when None), read from those apps' own collections
        or snapshots only (semantic/vectors.py, semantic/snapshots.py)."""
        rows = vectors.points("elements", vectors.packages("elements") if packages is None else list(packages))
        return cls.from_rows(rows, vectors.dim, ranker, config)

    @classmethod
    def from_rows(cls, rows: list[tuple[list[float], dict]], dim: int, ranker: Ranker | None = None,
                  config: RankingConfig = RankingConfig()) -> "ElementIndex":
        key = lambda p: str(p.get("element_id") or p.get("object_id"))  # noqa: E731
        tasks = sorted([r for r in rows if not r[1].get("part")], key=lambda r: key(r[1]))
        keys = [key(p) for _, p in tasks]
        starts = np.asarray([i for i, k in enumerate(keys) if i == 0 or k != keys[i - 1]], dtype=np.int64)
        position = {keys[s]: i for i, s in enumerate(starts.tolist())}
        parts = {}
        for part in PARTS:
            mine = [(position[key(p)], v, p.get("text") or "") for v, p in rows
                    if p.get("part") == part and key(p) in position]
            if mine:
                parts[part] = (np.asarray([m[0] for m in mine], dtype=np.int64), _unit([m[1] for m in mine], dim),
                               [m[2] for m in mine])
        return cls(_unit([v for v, _ in tasks], dim), [p for _, p in tasks], starts, parts, ranker, config)

    def with_rows(self, rows: list[tuple[list[float], dict]], dim: int) -> "ElementIndex":
        """The index `from_rows` builds of this index's rows and `rows` (points of elements none of this index's
        points is of: a tenant's own, semantic/layers.py), without this index's vectors read or normalised again:
        its rows keep their order, the new elements join in key order."""
        if not rows:
            return self
        added = ElementIndex.from_rows(rows, dim)
        ours, theirs = self._keys(), added._keys()
        if not set(ours).isdisjoint(theirs):
            raise ValueError("with_rows: rows of elements the index holds already")
        order = sorted([(k, 0, i) for i, k in enumerate(ours)] + [(k, 1, i) for i, k in enumerate(theirs)])
        where = {(side, i): n for n, (_, side, i) in enumerate(order)}  # element → its position in the union
        bounds = [np.append(ix.starts, len(ix.payloads)) for ix in (self, added)]
        rows_of = [np.arange(bounds[side][i], bounds[side][i + 1]) + (0 if side == 0 else len(self.payloads))
                   for _, side, i in order]
        taken = np.concatenate(rows_of)
        payloads = self.payloads + added.payloads
        starts = np.cumsum([0] + [len(r) for r in rows_of[:-1]]).astype(np.int64)
        parts = {}
        for part in PARTS:
            mine = [(np.asarray([where[(side, i)] for i in ix.parts[part][0].tolist()], dtype=np.int64),
                     ix.parts[part][1], ix.parts[part][2]) for side, ix in enumerate((self, added)) if part in ix.parts]
            if mine:
                parts[part] = (np.concatenate([m[0] for m in mine]), np.concatenate([m[1] for m in mine]),
                               [t for m in mine for t in m[2]])
        return ElementIndex(np.concatenate([self.matrix, added.matrix])[taken], [payloads[r] for r in taken.tolist()],
                            starts, parts, self.ranker, self.config)

    def _keys(self) -> list[str]:
        """Each element's key (its id), by element position."""
        return [str(p.get("element_id") or p.get("object_id")) for p in self._first]

    def __len__(self) -> int:
        return len(self.starts)

    def overlap(self, text: str, part: str | None = None, of: str | None = None) -> np.ndarray:
        """Per element: the IDF-weighted share of the task's known stems that its texts (or one part) say; with
        `of` (a part of the task), of those stems only the ones `of` says count, still as a share of the whole
        task's: a clause's generic word weighs as little as it does in the task."""
        idf, holders = (self.idf, self.holders) if part is None else (self.part_idf[part], self.part_holders[part])
        query = [t for t in terms(text) if t in idf]
        said = None if of is None else set(terms(of))
        counted = query if said is None else [t for t in query if t in said]
        out = np.zeros(len(self.starts))
        for t in counted:
            out[holders[t]] += idf[t]
        norm = sum(idf[t] for t in query)
        return out / norm if norm else out

    def cosines(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per element: the best task row's cosine, and that row."""
        scores = self.matrix @ query
        best = np.maximum.reduceat(scores, self.starts)
        # each element's best row, the first of ties: of the rows scoring their element's best, the first per
        # element (linear in the rows, where a sort was not)
        at_best = np.flatnonzero(scores == best[self.segment])
        owner = self.segment[at_best]
        rows = at_best[np.concatenate(([True], owner[1:] != owner[:-1]))]
        return best, rows

    def part_cosines(self, query: np.ndarray, part: str) -> np.ndarray:
        """Per element: the cosine of its `part` row (0 without one)."""
        out = np.zeros(len(self.starts), dtype=np.float32)
        if part in self.parts:
            where, matrix, _ = self.parts[part]
            out[where] = matrix @ query
        return out

    def base(self, query: np.ndarray, text: str, config: RankingConfig | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Stages 1, `named`, 4 and 3 for a unit `query` (options: `config`, else the index's): per element its
        best row's cosine, that row and its score; and the elements in score order. The learned ranker trains
        on this order too."""
        config = config or self.config
        best, rows = self.cosines(query)
        total = best + config.lexical_weight * self.overlap(text)
        if config.goal_weight and (goal := last_clause(text)):  # a task of several steps ends on its last
            total = total + config.goal_weight * self.overlap(text, of=goal)
        if config.named:  # each choice whose label the task says at least its best opener plus FOLLOW_GAP
            task = set(terms(text))
            lift(total, flat([(i, by) for i, stems, by in self._choices_for(config.twins)
                              if said(stems, task, config.named_share)]), FOLLOW_GAP)
        if config.evidence:  # where a choice closes its screen, the best choice at least its confirm plus FOLLOW_GAP
            lift_best(total, self._closes, FOLLOW_GAP)  # (before stage 4, so that a form's confirm beats it too)
        if config.commit:  # stage 4: each confirm at least its screen's best entry plus FOLLOW_GAP; twice, so that
            for _ in range(2):  # a form's confirm beats its dialogs' confirms as lifted over their own entries
                lift(total, self._commit_arrays(config), FOLLOW_GAP)
        if config.follow:  # stage 3: each confirm at least its best opener plus FOLLOW_GAP
            lift(total, self._follow_arrays(config.twins), FOLLOW_GAP)
        if config.evidence:  # and again after stage 3, which may have lifted the confirm over its opener
            lift_best(total, self._closes, FOLLOW_GAP)
        if config.twin_next:  # each twin at least its best twin minus FOLLOW_GAP: right after it
            lift(total, self._twin_arrays, -FOLLOW_GAP)
        return best, rows, total, np.lexsort((-best, -np.round(total, 6)))  # ties: the better cosine first

    def search(self, vector: list[float], text: str, k: int, config: RankingConfig | None = None) -> list[Hit]:
        """The k best elements for `text` (embedded as `vector`), each with its best task row's payload;
        ranked with `config`, else with the index's options."""
        if not self.payloads:
            return []
        config = config or self.config
        query = np.asarray(vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        best, rows, total, order = self.base(query, text, config)
        if self.ranker is not None:
            # The head in the ranker's order, keeping the base scores' scale (the planner's costs
            # and thresholds read them): the i-th of the new order gets the i-th best base score.
            head = order[:config.rerank]
            probability = self.ranker.score(self, query, text, head, best, total)
            order = np.concatenate([head[np.argsort(-probability, kind="stable")], order[config.rerank:]])
        scores = np.concatenate([np.sort(total[order[:config.rerank]])[::-1], total[order[config.rerank:]]])
        return [Hit("elements", s, self.payloads[r]) for s, r in zip(scores[:k].tolist(), rows[order[:k]].tolist())]


def _unit(vectors: list, dim: int) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), dim)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def search_elements(vectors: VectorStore, vector: list[float], text: str, k: int = 5,
                    packages: list[str] | None = None, ranker: Ranker | None = None,
                    config: RankingConfig = RankingConfig()) -> list[Hit]:
    """The k elements that best match task `text` (embedded as `vector`) in `packages` (all when None)."""
    return ElementIndex.load(vectors, packages, ranker, config).search(vector, text, k)
