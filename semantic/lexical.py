"""The lexical side of the one element scorer (semantic/ranking.py): a text's stems, their IDF weights,
and which elements say a term. Planning (agent/params.py, agent/taskparse.py, agent/compose.py) reads a
task's words through the same stems and stopwords, so the planner and the scorer agree on what a word is.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np
from py_rust_stemmers import SnowballStemmer

# Function words and words that name the kind of thing, not which one.
STOPWORDS = frozenset(
    "a an the to of in on for and or with my me i it its this that these those from by as at be is are was "
    "all your app apps then than into out up".split())
WORD = re.compile(r"[a-z0-9]+")
# Where an instruction of several steps joins them: a comma, "and", "then" (with what quotes hold left whole).
CLAUSE = re.compile(r"\s*,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+", re.I)
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_SNOWBALL = SnowballStemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """English Snowball stem of a lower-case word ("notes", "noted" → "note"; "created", "creating" →
    "creat"). The earlier suffix-dropper made "notes" "not" and "favorites" "favorit" but "favorite"
    itself, so a task's singular missed a label's plural."""
    return _SNOWBALL.stem_word(word)


def terms(*texts: str) -> list[str]:
    """The distinct stems of `texts` (lower case, stopwords and one-letter words left out), sorted."""
    out = {stem(w) for text in texts for w in WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS}
    return sorted(out)


def idf(docs: list[set[str]]) -> dict[str, float]:
    """Term → ln(1 + N / df(term)) over the N `docs` (each an element's terms)."""
    df: dict[str, int] = {}
    for doc in docs:
        for t in doc:
            df[t] = df.get(t, 0) + 1
    return {t: math.log(1 + len(docs) / n) for t, n in df.items()}


def holders(docs: list[set[str]]) -> dict[str, np.ndarray]:
    """Term → the positions of the `docs` (elements) that say it."""
    out: dict[str, list[int]] = {}
    for i, doc in enumerate(docs):
        for t in doc:
            out.setdefault(t, []).append(i)
    return {t: np.asarray(ids, dtype=np.int64) for t, ids in out.items()}


def last_clause(task: str) -> str:
    """The last of a task's clauses joined by a comma, "and" or "then" ("create a note called 'a, b' and type
    'x'" → "type 'x'"), where the task ends; "" when it has one clause. Quoted text is never split."""
    masked = QUOTED.sub(lambda m: "\0" * len(m.group()), task)
    cuts = [m.end() for m in CLAUSE.finditer(masked) if masked[m.end():].strip()]
    return task[cuts[-1]:].strip() if cuts else ""
