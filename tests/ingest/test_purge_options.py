"""The purge's options as the settings give them: its lock lease and the step it may wait after."""
from __future__ import annotations

import time

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


def test_a_purge_renews_its_lease_while_it_runs_and_lets_it_go_at_the_end(empty_graph, redis_client):
    """A purge whose step takes three leases long (APPMEM_PURGE_LEASE_S=1) still holds its key's lock
    then (a second purge of the key would wait), and holds it no longer once done."""
    from appmem.ingest.contributions import PREFIX
    from appmem.ingest.purge import purge_contributor
    from appmem.keys import KeyStore

    key = KeyStore(redis_client).create("slow-purge", "contribute")[0]
    lock = PREFIX + "purge:" + key.id
    held = []

    def slow(step: str) -> None:
        if step == "votes":
            time.sleep(3)
            held.append(redis_client.exists(lock) and 0 < redis_client.pttl(lock) <= 1000)

    purge_contributor(empty_graph, redis_client, key.id, 3, after_step=slow, options=PurgeOptions(lease_s=1))
    assert held == [True] and not redis_client.exists(lock)
