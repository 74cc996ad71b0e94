"""Celery tasks: thin wrappers that take ids and parameters; the logic is in workers/jobs.py and below.

`explore(job_id, package, policy, budget, **options)` runs one exploration job
(see workers/jobs.py for ownership, leases, resume). Retried on TransientError
only (LeaseError included), at most `MAX_RETRIES` times with exponential backoff;
a job that fails for good is marked failed on the job board with its error.
`ingest_contribution(contribution_id)` ingests one contribution the API parked
(queue `ingest`), owning it while it runs (a run's screenshots located by agent/pixelruns.py,
the OCR models loaded once per worker process); a worker consuming `ingest` re-queues
contributions whose owner died (workers/ingest_owner.py). It is retried on
TransientError for as long as the contribution is younger than
`ingest_retry_max_age_s`, each wait longer, up to `ingest_retry_max_delay_s`
(ingest/backlog.py `retry_delay`): an outage of the graph holds the backlog, never
fails it. Past that age, or after an error nobody expected, the contribution is held
dead with its body, with a reason naming the kind of failure, not the error's text
(`failure_reason`), for the operator to queue again (`appmem contributions requeue`).
"""
from __future__ import annotations

import functools
import logging
import time

from celery import Task
from celery.signals import worker_ready

from appmem.agent.pixelruns import PixelFinder
from appmem.errors import TransientError
from appmem.ingest import backlog, contributions
from appmem.ingest.contributions import INGEST_QUEUE, INGEST_TASK
from appmem.ingest.purge import PurgeOptions, purge_contributor
from appmem.workers.celery_app import app, clients, settings
from appmem.workers.devices import JobBoard
from appmem.workers.crawl import EXPLORE_TASK
from appmem.workers.jobspec import JobSpec
from appmem.workers.jobs import run_job
from appmem.workers.ingest_owner import owned, start_reaper

log = logging.getLogger(__name__)

MAX_RETRIES = 6


class ExploreTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        job_id = kwargs.get("job_id") or (args[0] if args else "")
        log.error("job %s failed: %s", job_id, exc)
        JobBoard(clients().r).fail(job_id, f"{type(exc).__name__}: {exc}")


@app.task(bind=True, base=ExploreTask, name=EXPLORE_TASK, autoretry_for=(TransientError,),
          max_retries=MAX_RETRIES, retry_backoff=1, retry_backoff_max=15, retry_jitter=True)
def explore(self, job_id: str, package: str, policy: str, budget: int, **options) -> dict:
    spec = JobSpec.from_dict({**options, "job_id": job_id, "package": package, "policy": policy,
                              "max_actions": budget})
    return run_job(clients(), spec)


class IngestTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        """An error nobody expected: the contribution is held dead with its body, never stays pending."""
        cid = kwargs.get("contribution_id") or (args[0] if args else "")
        if cid:
            log.error("contribution %s held: %s: %s", cid, type(exc).__name__, exc)
            contributions.Contributions(clients().r).hold(cid, failure_reason(exc))


def failure_reason(exc: BaseException, max_age_s: int = settings.ingest_retry_max_age_s) -> str:
    """What the contributor reads of an ingest held dead: the kind of failure, never the error's text (a driver's
    message names the server's host and port; the worker's log keeps it)."""
    if isinstance(exc, TransientError):
        return (f"held: the memory's stores stayed unreachable through {_span(max_age_s)} of retries; "
                "it is kept, and queued again by the operator")
    return f"held: internal error ({type(exc).__name__}); it is kept, and queued again by the operator"


def _span(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


@app.task(bind=True, name=INGEST_TASK, base=IngestTask, max_retries=None)
def ingest_contribution(self, contribution_id: str) -> dict:
    """A contribution parked by the API (ingest/contributions.py): ingest it, record its status; retried
    through store outages until it is `ingest_retry_max_age_s` old, then held dead."""
    c = clients()
    purge = functools.partial(purge_contributor, c.store, c.r, quorum=settings.trust_quorum,
                              options=PurgeOptions.of(settings))
    try:
        return owned(c.r, c.holder, contribution_id, functools.partial(
            contributions.ingest_contribution, c.store, c.r, contribution_id, purge, settings.ingest_chunk_steps,
            settings.trust_quorum, retry=bool(self.request.retries), find=PixelFinder(c.store), prepare=c.prepare))
    except TransientError as exc:
        delay = backlog.retry_delay(self.request.retries, backlog.age(c.r, contribution_id),
                                    settings.ingest_retry_max_age_s, settings.ingest_retry_max_delay_s)
        if delay is None:
            reason = failure_reason(exc)
            log.error("contribution %s held after %s retries: %s", contribution_id, self.request.retries, exc)
            contributions.Contributions(c.r).hold(contribution_id, reason)
            return {"status": "dead", "reason": reason}
        log.warning("contribution %s: retry %s in %.1f s: %s", contribution_id, self.request.retries + 1, delay, exc)
        backlog.mark_sent(c.r, contribution_id, time.time() + delay)  # the reaper waits from when it is due
        raise self.retry(exc=exc, countdown=delay)


@worker_ready.connect
def _reap_contributions(sender, **_: object) -> None:
    """A worker consuming `ingest` re-queues, from its main process, contributions whose worker died."""
    if INGEST_QUEUE in sender.app.amqp.queues.consume_from:
        from appmem.stack import Stack
        from appmem.workers.devices import open_redis

        start_reaper(open_redis(Stack(settings).redis_url()), backlog.sender(app), settings.ingest_resend_s,
                     settings.ingest_retry_max_age_s)
