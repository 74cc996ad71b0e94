"""Fixtures of the agent tests."""
from __future__ import annotations

from dataclasses import replace

import pytest

from appmem.planconfig import DEFAULT, PlannerConfig


@pytest.fixture(scope="session")
def every_rule_on() -> PlannerConfig:
    """The planner's options with every rule switched on (bench/plan.py measures each rule
    leave-one-app-out; tests of a rule's mechanics plan with it on)."""
    return replace(DEFAULT, **dict.fromkeys(PlannerConfig.rules(), True))
