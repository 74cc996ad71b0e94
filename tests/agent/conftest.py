"""Fixtures of the agent tests."""
from __future__ import annotations

import pytest


@pytest.fixture
def every_rule_on(monkeypatch):
    """Every special rule switched on. By default the rules that helped one app only are off
    (bench/plan.py measures each leave-one-app-out; README "Rules that fit one task")."""
    import appmem.agent.compose
    import appmem.agent.screenwork
    import appmem.agent.taskparse

    for module in (appmem.agent.taskparse, appmem.agent.screenwork, appmem.agent.compose):
        monkeypatch.setattr(module, "RULES", dict.fromkeys(module.RULES, True))
