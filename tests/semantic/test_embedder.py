"""The embedder's ONNX session: its threads sleep when idle (no spinning), and it computes the vectors
fastembed's own session computes. Real pinned model."""
from __future__ import annotations

import numpy as np
from fastembed import TextEmbedding

from appmem.semantic.embedder import MODEL_NAME, Embedder

TEXTS = ["Delete all events", "OK", "Open the settings and turn on the dark theme", "Brush size"]


def test_the_onnx_threads_never_spin_and_the_vectors_are_fastembeds(tmp_path):
    embedder = Embedder(tmp_path, threads=2, cache=False)
    options = embedder._model.model.model.get_session_options()
    assert options.intra_op_num_threads == 2
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    theirs = np.asarray(list(TextEmbedding(MODEL_NAME, specific_model_path=str(embedder.folder), threads=1)
                             .embed(TEXTS)))
    assert np.allclose(np.asarray(embedder.embed(TEXTS)), theirs, atol=1e-5)
    assert np.allclose(np.asarray(embedder.query(TEXTS[2])), theirs[2], atol=1e-5)
