"""What a contribution (a run trace, a DroidBot tarball, a correction) gets back: its id, then its status."""
from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field


Status = Literal["pending", "done", "failed", "dead"]
STATUSES: tuple[str, ...] = get_args(Status)


class Accepted(BaseModel):
    trace_id: str = Field(description="the contribution's id")
    status_url: str = Field(description="where to poll its status")


class ContributionStatus(BaseModel):
    trace_id: str = Field(description="the contribution's id")
    status: Status = Field(
        description="pending, done, failed with a reason (what it holds cannot be ingested), or dead: the memory "
                    "could not ingest it (its stores stayed away through every retry); it is kept, and the "
                    "operator queues it again")
    kind: str = Field(description="run, droidbot or correction")
    reason: str = Field("", description="why it failed or is held")
    report: dict[str, Any] | None = Field(None, description="what the ingest stored")
