"""One BLAS thread where plans are answered (semantic/blas.py): the setting, the pool it sets, the same scores."""
from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from appmem.errors import ConfigError
from appmem.semantic.blas import limit_blas
from appmem.semantic.ranking import ElementIndex
from appmem.settings import Settings


def blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@pytest.fixture
def restored():
    """The process's BLAS pool as it was before the test (other tests in this process keep theirs)."""
    before = max(blas_threads())
    yield
    threadpool_limits(before, user_api="blas")


def test_a_planning_process_runs_one_blas_thread_unless_told_otherwise(tmp_path):
    assert Settings.from_env({"APPMEM_HOME": str(tmp_path)}).blas_threads == 1
    assert Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_BLAS_THREADS": "0"}).blas_threads == 0
    with pytest.raises(ConfigError, match="APPMEM_BLAS_THREADS"):
        Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_BLAS_THREADS": "-1"})


def test_limit_blas_sets_the_pool_and_zero_leaves_it(restored):
    threadpool_limits(2, user_api="blas")
    limit_blas(0)
    assert blas_threads() == {2}
    limit_blas(1)
    assert blas_threads() == {1}


def test_one_blas_thread_ranks_bitwise_as_the_default_pool(restored):
    """The element index's products give the same scores on one thread as on the library's pool (the rows are
    split between threads, each row's sum is the same), so a plan is the same whatever the setting."""
    rng = np.random.default_rng(7)
    rows = 4000  # above OpenBLAS's threshold for splitting a matrix-vector product
    payloads = [{"element_id": f"e{i // 3}", "text": f"task {i}", "terms": [f"w{i % 50}"]} for i in range(rows)]
    index = ElementIndex.from_rows(list(zip(rng.standard_normal((rows, 384)).tolist(), payloads)), 384)
    queries = rng.standard_normal((20, 384)).astype(np.float32)
    threadpool_limits(2, user_api="blas")  # a pool that splits the product, as on two cores by default
    pooled = [[(h.score, h.payload["element_id"]) for h in index.search(q.tolist(), "w3 w7", 20)] for q in queries]
    limit_blas(1)
    single = [[(h.score, h.payload["element_id"]) for h in index.search(q.tolist(), "w3 w7", 20)] for q in queries]
    assert single == pooled
