"""What one exploration job is asked to do (`JobSpec`, the message a worker receives) and what it
answers (`ExploreResult`). A job's trace id is a function of its job id only, so a retried job
resumes its own trace (workers/explorer.py)."""
from __future__ import annotations

from dataclasses import dataclass

from appmem.formats.ui import stable_id


def trace_id(job_id: str) -> str:
    return stable_id("trace", "explorer", job_id)


@dataclass(frozen=True)
class JobSpec:
    """What one exploration job is asked to do; the message a worker receives."""

    job_id: str
    run_id: str
    package: str
    policy: str
    max_actions: int
    max_seconds: float = 600.0
    seed: int = 0
    chunk_steps: int = 50
    queue: str = "explore"
    run_started: str = ""  # ISO time the run was planned; "" = now (frontier: knowledge from before it)
    lease_ttl_s: float = 30.0
    adb_timeout_s: float = 10.0
    device_wait_s: float = 120.0
    foreign_patience: int = 5
    stuck_patience: int = 30
    lock_wait_s: float = 60.0

    @classmethod
    def from_dict(cls, raw: dict) -> "JobSpec":
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class ExploreResult:
    job_id: str
    trace_id: str
    package: str
    app_version: str
    device: str
    actions: int  # steps in the graph for this job, all executions together
    new_actions: int  # taken by this execution
    chunks: int  # chunks in the graph
    states: int  # distinct states (home screen aside) this execution saw
    restarts: int
    seconds: float
    stopped: str  # "actions" | "seconds"

    def as_dict(self) -> dict:
        return dict(self.__dict__)
