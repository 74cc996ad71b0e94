"""The BLAS thread pool of a process that answers plans: numpy's matrix products (semantic/ranking.py) run on it.

The ranking's products are matrix-vector ones over an app's element rows (a few thousand rows of 384): OpenBLAS
splits each over its threads, which then spin waiting for the next one, so on a serving process (which runs
requests side by side on its own threads) a second BLAS thread burns more CPU than it saves. On 2 cores,
de.szalkowski.activitylauncher's 3,255 rows cost 4.4 ms CPU per search at OpenBLAS's default (2 threads) against
0.24 ms at 1 thread, and a new plan served 28-33 ms CPU against 13-17 ms, with bitwise the same scores
(2026-11-27). The pool is set once per process, when it opens the memory to answer plans (`Service.open`).
"""
from __future__ import annotations


def limit_blas(threads: int) -> None:
    """At most `threads` BLAS threads in this process from now on; 0 leaves the library's default (one per core)."""
    if threads > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads, user_api="blas")
