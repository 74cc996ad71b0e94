"""Item 9 of issue 17 on the real stack (graph, Redis, the API on a socket, a Celery ingest worker process,
an app twin behind the adb protocol; twins are simulators): a DroidBot import names its version by the
APK's sha256; agents' devices then report `1.0`. `appmem stats` shows one row for the one real version:
the import's name until a quorum of keys reports 1.0, then 1.0 with the sha256 as an alias; a purge
that leaves fewer keys takes the name back, and the graph counts with it."""
from __future__ import annotations

import json

import pytest

from appmem.contract.client import ApiClient
from tests.api.conftest import ACRYLIC, api_with_ingest_worker, held_memory
from tests.api.test_crowd import cli, key, real_run


@pytest.fixture(scope="module")
def memory(store, settings):
    with held_memory(store, settings, ACRYLIC, as_device=False) as memory:
        yield memory


@pytest.fixture(scope="module")
def server(settings, memory, stack_env, tmp_path_factory):
    with api_with_ingest_worker(settings, memory, stack_env, tmp_path_factory.mktemp("celery")) as url:
        yield url


def stats(env: dict) -> list[tuple]:
    done = cli(["stats", "--app", ACRYLIC, "--json"], env)
    assert done.returncode == 0, done.stderr
    return [(r["version"], r["aliases"], r["traces"]) for r in json.loads(done.stdout)]


def test_an_imports_version_takes_the_name_a_quorum_of_devices_reports_and_gives_it_back_on_a_purge(
        server, twins, memory, keys, stack_env, settings):
    (alias, _, imported), = stats(stack_env)
    assert alias.startswith("sha256:") and imported == 1
    counts = memory.store.read("crowd_counts")[0]
    run = real_run(twins, memory, "tap About")["run"]
    assert run["app_version"] == "1.0" and run["status"] == "done"  # what the twin's device reports
    names = [f"device-{n}" for n in range(settings.trust_quorum)]
    for n, name in enumerate(names):
        with ApiClient(server, key(keys, "contribute", name)) as api:
            sent = {**run, "started": f"2026-05-0{n + 1}T00:00:00Z"}
            assert api.wait_trace(api.contribute(sent).trace_id, 120).model_dump()["status"] == "done"
        rows = stats(stack_env)
        if n + 1 < settings.trust_quorum:  # one row, the import's name: fewer keys than the quorum
            assert rows == [(alias, [], n + 2)]
    assert rows == [("1.0", [alias], len(names) + 1)]
    purged = cli(["keys", "purge", names[-1], "--json"], stack_env)
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["versions_judged"] == [{"package": ACRYLIC, "version": "1.0", "name": alias}]
    assert stats(stack_env) == [(alias, [], len(names))]
    for name in names[:-1]:
        assert cli(["keys", "purge", name, "--json"], stack_env).returncode == 0
    assert stats(stack_env) == [(alias, [], 1)] and memory.store.read("crowd_counts")[0] == counts


def test_one_keys_claimed_version_is_not_shown_to_other_keys_nor_moves_when_the_app_was_explored(
        server, twins, memory, keys, stack_env, settings):
    """A version one key's device reported is its word: `appmem stats` (the operator) lists the claim,
    other keys see it only once a quorum of keys claims it, and the sender's clock does not move the
    app's `explored` time (which orders its versions: graph/version_claims.py, refresh_stale)."""
    def explored():
        with memory.store.driver.session(database=memory.store.database) as session:
            return [r["explored"] for r in session.run("MATCH (a:App {package: $p}) RETURN a.explored AS explored "
                                                        "ORDER BY a.id", p=ACRYLIC)]
    before = explored()
    run = real_run(twins, memory, "tap About")["run"]
    name = "claims-alone"
    with ApiClient(server, key(keys, "contribute", name)) as api:
        sent = {**run, "app_version": "9.9-mine", "started": "2030-01-01T00:00:00Z", "ended": "2030-01-01T00:01:00Z"}
        assert api.wait_trace(api.contribute(sent).trace_id, 120).model_dump()["status"] == "done"
    done = cli(["stats", "--app", ACRYLIC, "--json"], stack_env)
    assert any("9.9-mine" in r["claimed"] for r in json.loads(done.stdout))
    with ApiClient(server, key(keys, "plan")) as api:
        listed = [r for r in api.http.get("/v1/apps").json()["apps"] if r["package"] == ACRYLIC]
    assert listed and all("9.9-mine" not in r["claimed"] for r in listed)
    assert explored() == before
    assert cli(["keys", "purge", name, "--json"], stack_env).returncode == 0


def test_stats_takes_an_apps_short_name_and_names_an_app_memory_lacks(memory, stack_env):
    short = cli(["stats", "--app", "acrylic", "--json"], stack_env)
    assert short.returncode == 0 and json.loads(short.stdout) == json.loads(
        cli(["stats", "--app", ACRYLIC, "--json"], stack_env).stdout) != []
    unknown = cli(["stats", "--app", "com.nobody.at.all"], stack_env)
    assert unknown.returncode != 0 and "com.nobody.at.all" in unknown.stderr and "Traceback" not in unknown.stderr
