"""Fixtures of the agent tests."""
from __future__ import annotations

import pytest


@pytest.fixture
def every_rule_on(monkeypatch):
    """Every special rule switched on. By default the rules that helped one app only are off
    (bench/plan.py measures each leave-one-app-out; README "Rules that fit one task")."""
    import agent.compose
    import agent.screenwork
    import agent.taskparse

    for module in (agent.taskparse, agent.screenwork, agent.compose):
        monkeypatch.setattr(module, "RULES", dict.fromkeys(module.RULES, True))
