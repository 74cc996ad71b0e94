"""Fixtures of the agent tests."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Iterator

import pytest
import yaml

from appmem.agent.planner import Planner
from appmem.ingest.autodroid import read_autodroid
from appmem.ingest.pipeline import ingest_trace
from appmem.planconfig import DEFAULT, PlannerConfig
from tests.shared_data import summarized


@pytest.fixture(scope="session")
def every_rule_on() -> PlannerConfig:
    """The planner's options with every rule switched on (bench/plan.py measures each rule
    leave-one-app-out; tests of a rule's mechanics plan with it on)."""
    return replace(DEFAULT, **dict.fromkeys(PlannerConfig.rules(), True))


@contextmanager
def explored_planner(store, settings, folder, package: str, exploration: list) -> Iterator[Planner]:
    """A planner over one synthetic app alone: its AutoDroid exploration memory (records of (state HTML, choice,
    typed text or None), each action leading to the next record's state) written to `folder`, ingested into the
    emptied graph and summarised."""
    while store.write("delete_all")[0]["deleted"]:
        pass
    records = [{"State": s, "Choice": c, "Input": "null" if t is None else t} for s, c, t in exploration]
    (folder / "utg.yaml").write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    ingest_trace(store, read_autodroid(folder, package).trace, 50)
    with summarized(store, settings, [package]) as (vectors, embedder):
        yield Planner(store, vectors, embedder, config=settings.planner)
