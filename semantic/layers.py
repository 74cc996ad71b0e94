"""A tenant's own elements in its element index, made when its view loads an app.

The shared vector collections hold what the public may read only (`summarize`
reads through the public's trust predicate), so no tenant's words are ever in
them and a tenant purge has no vector of its layer to find. A tenant's view
(agent/service.py `viewing`) loads the public points of an app and adds the
elements its own graph view holds that they lack: summarised from their UTG
context without a model (semantic/summaries.py DeterministicSummarizer) and
embedded as `summarize` embeds them (semantic/screenbatch.py `element_point`):
their simulated task and their label part only (`summarize` also embeds the
tasks an element completes and its screen and effect parts; a view embeds at
its first plan, so it keeps to the two that rank most, and the ranking reads an
element without some parts as it reads one that has none). The payloads carry
the summarizer's `risky`, which the view's plans flag. The work is proportional
to the tenant's layer, which is what its keys reported.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from appmem.graph.model import Element
from appmem.semantic.contexts import ScreenRow, TransitionRow, build_contexts
from appmem.semantic.embedder import Embedder
from appmem.graph.vocabulary import BACK_WORDS, label_of
from appmem.semantic.meaning import label_part
from appmem.semantic.screenbatch import element_point
from appmem.semantic.summaries import DeterministicSummarizer



def layer_rows(screens: list[ScreenRow], elements: list[Element], transitions: list[TransitionRow],
               own: set[str], embedder: Embedder) -> list[tuple[list[float], dict[str, Any]]]:
    """(vector, payload) rows, as the vector store gives them, of the elements `own` (ids) in their screens'
    contexts."""
    # each screen with the layer's elements alone: the summarizer's work is then the layer's, not the app's
    contexts = [replace(c, elements=[e for e in c.elements if e.id in own])
                for c in build_contexts(screens, elements, transitions) if any(e.id in own for e in c.elements)]
    if not contexts:
        return []
    items = []
    for ctx, summary in zip(contexts, DeterministicSummarizer().summarize(contexts)):
        infos = {e.id: e for e in ctx.elements}
        for es in summary.elements:
            if es.element_id in own and es.element_id in infos:
                e = infos[es.element_id]
                if label_of(e).lower() not in BACK_WORDS:
                    items += [(ctx, summary, e, es, 0, es.simulated_task), (ctx, summary, e, es, "label", label_part(e))]
    unique = list(dict.fromkeys(item[-1] for item in items))
    by_text = dict(zip(unique, embedder.embed(unique))) if unique else {}
    return [(list(by_text[text]), element_point(ctx, summary, e, by_text[text], text, es, variant).payload())
            for ctx, summary, e, es, variant, text in items]
