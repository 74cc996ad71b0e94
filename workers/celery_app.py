"""The Celery application: Redis as broker and result backend, reliable delivery, per-process clients.

`celery -A workers.celery_app worker` builds the Settings from the environment
(APPMEM_* / REDIS_URL / NEO4J_*) here, its one entry point. Delivery rules:
- late acknowledgement and `task_reject_on_worker_lost`: a job whose worker
  process dies is delivered again, and the new execution resumes its trace;
- prefetch 1: a worker holds no job it is not running;
- visibility timeout 1 h: an unacknowledged message (a whole worker killed) comes
  back after that at the latest; sooner, the job lease expiring lets the crawl
  driver re-enqueue it (workers/jobs.py `reap_orphans`), and a second delivery
  of a job that is running or done is a no-op; a contribution's owner lease
  expiring lets any ingest worker queue it again (workers/ingest_owner.py);
- retries only for TransientError (LeaseError: no device, lost device; graph
  lock or connection trouble), bounded, with backoff (workers/tasks.py).

Each worker *process* opens its graph driver and Redis client once, after the
fork (`worker_process_init`), and tasks use them (`clients()`).
"""
from __future__ import annotations

import logging

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown

from appmem.settings import Settings
from appmem.stack import Stack

log = logging.getLogger(__name__)

VISIBILITY_TIMEOUT_S = 3600


def create_app(settings: Settings) -> Celery:
    url = Stack(settings).redis_url()
    app = Celery("appmem", broker=url, backend=url, include=["appmem.workers.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue="explore",
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        # no caller reads a task's result (a contribution's status is its hash in Redis, whose report a purge
        # deletes; a crawl's is in the graph): kept, the ingest's would hold a purged key's reports for days
        task_ignore_result=True,
        result_expires=7 * 24 * 3600,
        result_backend_always_retry=True,
        result_backend_max_retries=10,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_S},
        result_backend_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_S},
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
    )
    return app


settings = Settings.from_env()
app = create_app(settings)
_clients = None


def clients():
    """The worker process's clients (opened at process start)."""
    if _clients is None:
        raise RuntimeError("worker clients are opened by worker_process_init; run tasks in a Celery worker")
    return _clients


@worker_process_init.connect
def _open_clients(**_: object) -> None:
    global _clients
    from appmem.graph.clients import open_graph
    from appmem.workers.devices import open_redis
    from appmem.workers.jobs import WorkerClients
    from appmem.workers.layers import LayerEmbedder

    store = open_graph(settings)
    _clients = WorkerClients(store, open_redis(Stack(settings).redis_url()), settings.risky_words,
                             prepare=LayerEmbedder(store, settings))


@worker_process_shutdown.connect
def _close_clients(**_: object) -> None:
    if _clients is not None:
        if _clients.prepare is not None:
            _clients.prepare.close()
        _clients.store.driver.close()
        _clients.r.close()
