"""Hybrid element ranking: dense cosine plus a lexical overlap score, computed over the app's candidates.

Dense similarity alone (all-MiniLM-L6-v2 on short UI texts) blurs names that a
task states outright: "Sort by … *descending*", "*favorite*", "*properties*".
So an element's score is

    cosine(task, best text of the element) + LEXICAL_WEIGHT * overlap(task, element terms)

where the element's terms are the word stems of every text embedded for it
(simulated task, completions, breadcrumbs: label, screen name, how the screen
is reached), stored with each point (`terms`), and `overlap` is the
IDF-weighted share of the task's known stems that the element has:
sum(idf(t) for t in task ∩ element) / sum(idf(t) for t in task ∩ vocabulary),
with idf(t) = ln(1 + N / df(t)) over the N candidate elements. A word every
element carries (the app's name, "settings" on a settings-heavy app) weighs
little; a word one element carries weighs most.

Candidates are the POOL best elements by cosine within the filter (the whole
app for apps of up to POOL elements: Qdrant's local mode scans anyway).
LEXICAL_WEIGHT is fixed: 0.1 keeps cosine the main signal (a perfect lexical
match is worth a tenth of the cosine range) and only reorders close
candidates. No query or element text is special-cased.
"""
from __future__ import annotations

import math
import re

from semantic.vectors import Hit, VectorStore

LEXICAL_WEIGHT = 0.1
POOL = 2000
# Function words and words that name the kind of thing, not which one.
STOPWORDS = frozenset(
    "a an the to of in on for and or with my me i it its this that these those from by as at be is are was "
    "all your app apps then than into out up".split())
SUFFIXES = ("ing", "es", "s", "ed")
WORD = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A light stemmer: drops one of -ing/-es/-s/-ed when at least three letters stay."""
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def terms(*texts: str) -> list[str]:
    """The distinct stems of `texts` (lower case, stopwords and one-letter words left out), sorted."""
    out = {stem(w) for text in texts for w in WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS}
    return sorted(out)


def rerank(hits: list[Hit], text: str, k: int, weight: float = LEXICAL_WEIGHT) -> list[Hit]:
    """The k best of `hits` (one per element, with payload `terms`) by cosine + weight × overlap."""
    docs = [set(h.payload.get("terms") or ()) for h in hits]
    df: dict[str, int] = {}
    for doc in docs:
        for t in doc:
            df[t] = df.get(t, 0) + 1
    idf = {t: math.log(1 + len(docs) / n) for t, n in df.items()}
    query = [t for t in terms(text) if t in idf]
    norm = sum(idf[t] for t in query)
    scored = []
    for hit, doc in zip(hits, docs):
        overlap = sum(idf[t] for t in query if t in doc) / norm if norm else 0.0
        scored.append(Hit(hit.kind, hit.score + weight * overlap, {**hit.payload, "cosine": hit.score,
                                                                   "overlap": round(overlap, 4)}))
    return sorted(scored, key=lambda h: -h.score)[:k]


def search_elements(vectors: VectorStore, vector: list[float], text: str, k: int = 5,
                    packages: list[str] | None = None, weight: float = LEXICAL_WEIGHT) -> list[Hit]:
    """The k elements that best match task `text` (embedded as `vector`), one hit per element."""
    pool = vectors.search("elements", vector, k=max(k, POOL), packages=packages, distinct="element_id")
    return rerank(pool, text, k, weight)
