"""The purge's options as the settings give them: its lock lease and the step it may wait after."""
from __future__ import annotations

import pytest

from appmem.errors import ConfigError
from appmem.ingest.purge import STEPS, PurgeOptions
from appmem.settings import Settings


def test_a_purge_waits_after_no_step_by_default_and_holds_a_thirty_second_lease(tmp_path):
    options = PurgeOptions.of(Settings.from_env({"APPMEM_HOME": str(tmp_path)}))
    assert options == PurgeOptions(lease_s=30, pause_after=None, pause_s=0)


def test_the_pause_names_one_of_the_purges_steps(tmp_path):
    env = {"APPMEM_HOME": str(tmp_path), "APPMEM_PURGE_PAUSE_AFTER": "votes", "APPMEM_PURGE_PAUSE_S": "5"}
    assert PurgeOptions.of(Settings.from_env(env)) == PurgeOptions(30, "votes", 5)
    with pytest.raises(ConfigError, match="APPMEM_PURGE_PAUSE_AFTER='votez': expected one of journal, votes"):
        PurgeOptions.of(Settings.from_env({**env, "APPMEM_PURGE_PAUSE_AFTER": "votez"}))
    assert STEPS[0] == "journal" and STEPS[-1] == "vectors"


def test_the_lease_and_the_pause_are_bounded(tmp_path):
    with pytest.raises(ConfigError, match="APPMEM_PURGE_LEASE_S must be between 1 and 3600"):
        Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_PURGE_LEASE_S": "0"})
    with pytest.raises(ConfigError, match="APPMEM_PURGE_PAUSE_S must be an integer"):
        Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_PURGE_PAUSE_S": "soon"})
