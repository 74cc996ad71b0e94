"""Versions on the real graph: an import of unknown version (an alias) and the version devices report are
one row in `stats`; a contribution's reported version is a claim that names the import only once a quorum
of contributors reports it, and a crawl, an import or one's own run settles it (graph/versions.py)."""
from __future__ import annotations

from appmem.commands import format_stats
from appmem.formats.ui import Action, ActionType
from appmem.graph.model import Step, Trace
from appmem.graph.version_claims import rejudge_after_purge
from appmem.ingest.pipeline import ingest_trace
from tests.graph.test_identity import cypher_rows, tiny_state, two_button_states

PKG = "org.example.app"
ALIAS = "sha256:feedbeef"
TAP_Y = Action(ActionType.TAP, "/FrameLayout[]#0/Button[org.example.app:id/y]#0")


def trace(trace_id: str, version: str, contributor: str = "", suffix: str = "") -> Trace:
    a, b = two_button_states(suffix)
    source = "droidbot" if version == ALIAS else "agent"
    return Trace(trace_id, source, PKG, version, "dev", source, "2026-03-01T00:00:00Z", "",
                 {a.state_id: a, b.state_id: b}, [Step(0, a.state_id, TAP_Y, b.state_id)], contributor=contributor)


def rows(store) -> list[tuple]:
    return [(r["version"], r["aliases"], r["traces"]) for r in store.stats(PKG, every=True)]


def test_contributions_name_an_imports_version_only_once_a_quorum_of_keys_reports_it(empty_graph):
    ingest_trace(empty_graph, trace("imp", ALIAS), chunk_size=10, quorum=3)
    # one key's device reports 1.0: one row, the import's name, the claim kept
    ingest_trace(empty_graph, trace("k0-run", "1.0", "k0", "1"), chunk_size=10, quorum=3)
    ingest_trace(empty_graph, trace("k0-again", "1.0", "k0", "2"), chunk_size=10, quorum=3)
    ingest_trace(empty_graph, trace("k1-forged", "9.9", "k1", "3"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [(ALIAS, [], 4)]
    ingest_trace(empty_graph, trace("k1-run", "1.0", "k1", "4"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [(ALIAS, [], 5)]
    (row,) = empty_graph.stats(PKG)
    assert sorted(row["claimed"]) == ["1.0", "1.0", "9.9"]  # one per key and version: what stats shows
    assert format_stats([row]).endswith("claimed 1.0 by 2 key(s), 9.9 by 1 key(s)")
    # a third key: three distinct contributors report 1.0, and the version takes that name
    ingest_trace(empty_graph, trace("k2-run", "1.0", "k2", "5"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [("1.0", [ALIAS], 6)]
    screens = cypher_rows(empty_graph, "MATCH (s:Screen {package: $p}) RETURN s.versions AS v", p=PKG)
    assert screens and all(r["v"] == ["1.0"] for r in screens)
    assert {r["v"] for r in cypher_rows(empty_graph, "MATCH (t:Trace) RETURN t.app_version AS v")} == {"1.0"}
    # a later import under the alias attaches at once
    ingest_trace(empty_graph, trace("imp2", ALIAS, suffix="6"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [("1.0", [ALIAS], 7)]
    # one of the three is purged: two claimants are no quorum, the import's name comes back
    assert rejudge_after_purge(empty_graph, "k2", 3) == [{"package": PKG, "version": "1.0", "name": ALIAS}]
    assert rows(empty_graph) == [(ALIAS, [], 7)]
    assert {r["v"] for r in cypher_rows(empty_graph, "MATCH (t:Trace) RETURN t.app_version AS v")} == {ALIAS}
    # a trusted device (one's own run) reports 1.0: the version is 1.0 whatever the claims
    ingest_trace(empty_graph, trace("own-run", "1.0", suffix="7"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [("1.0", [ALIAS], 8)]
    rejudge_after_purge(empty_graph, "k1", 3)
    assert rows(empty_graph) == [("1.0", [ALIAS], 8)]


def test_a_version_only_contributions_named_joins_the_import_made_after_it(empty_graph):
    ingest_trace(empty_graph, trace("k0-run", "1.0", "k0", "1"), chunk_size=10, quorum=2)
    assert rows(empty_graph) == [("1.0", [], 1)]
    ingest_trace(empty_graph, trace("imp", ALIAS), chunk_size=10, quorum=2)
    assert rows(empty_graph) == [(ALIAS, [], 2)]  # one key does not name what the import recorded
    ingest_trace(empty_graph, trace("k1-run", "1.0", "k1", "2"), chunk_size=10, quorum=2)
    assert rows(empty_graph) == [("1.0", [ALIAS], 3)]


def test_another_apps_trace_gives_no_empty_alias(empty_graph):
    """A trace of another app that reached this app's screens makes an App of version "" (a foreign
    package): it is no import, so a device's version folds nothing of it and lists no "" alias."""
    home, (a, b) = tiny_state("home", "org.other:id/open", package="org.other"), two_button_states()
    other = Trace("other", "agent", "org.other", "2.0", "dev", "agent", "2026-03-01T00:00:00Z", "",
                  {"home": home, "a": a, "b": b},
                  [Step(0, "home", Action(ActionType.TAP, "/FrameLayout[]#0/Button[org.other:id/open]#0"), "a"),
                   Step(1, "a", TAP_Y, "b")])
    ingest_trace(empty_graph, other, chunk_size=10)
    ingest_trace(empty_graph, trace("own-run", "1.0"), chunk_size=10)
    assert rows(empty_graph) == [("1.0", [], 1)]


def test_a_crawl_folds_an_import_of_unknown_version_into_the_version_its_device_reports(
        empty_graph, redis_client, settings):
    from appmem.ingest.droidbot import read_recording, recording_trace
    from tests.conftest import DROIDBOT
    from appmem.twins.adb_server import TwinServer
    from appmem.twins.device import build_fleet
    from appmem.workers.devices import DevicePool, DeviceRecord
    from appmem.workers.jobspec import JobSpec
    from appmem.workers.jobs import WorkerClients, run_job

    folder = DROIDBOT / "anupam.acrylic"
    ingest_trace(empty_graph, recording_trace(read_recording(folder)), chunk_size=200)
    (alias,) = [r["version"] for r in empty_graph.stats("anupam.acrylic")]
    assert alias.startswith("sha256:")
    with TwinServer(build_fleet([folder], 1)) as server:
        DevicePool(redis_client).register(DeviceRecord("twin-0001", "127.0.0.1", server.port))
        result = run_job(WorkerClients(empty_graph, redis_client, settings.risky_words),
                         JobSpec(job_id="fold", run_id="fold-run", package="anupam.acrylic", policy="frontier",
                                 max_actions=30, chunk_steps=10, lease_ttl_s=30.0, adb_timeout_s=5.0,
                                 device_wait_s=10.0))
    assert result["status"] == "done"
    assert [(r["version"], r["aliases"], r["traces"]) for r in empty_graph.stats("anupam.acrylic")] == \
        [("1.0", [alias], 2)]


def test_migrate_joins_a_version_only_contributions_named_to_the_import_that_holds_its_screens(empty_graph):
    from appmem.graph.migrate import migrate
    from appmem.ingest.pipeline import write_chunk

    ingest_trace(empty_graph, trace("imp", ALIAS), chunk_size=10)
    legacy = trace("k0-run", "1.0", "k0", "1")  # written as before: under its own version
    write_chunk(empty_graph, legacy, 0, legacy.steps)
    cypher_rows(empty_graph, "MATCH (a:App {version: $v}) SET a.aliases = ['']", v=ALIAS)  # folded "" before
    assert rows(empty_graph) == [("1.0", [], 1), (ALIAS, [""], 1)]
    assert migrate(empty_graph, quorum=3)["versions"] == {"joined": 1, "empty_aliases": 1}
    assert rows(empty_graph) == [(ALIAS, [], 2)]
    assert migrate(empty_graph, quorum=3)["versions"] == {"joined": 0, "empty_aliases": 0}


def test_an_alias_a_contribution_used_is_never_recorded_however_many_keys_use_it(empty_graph):
    """Three keys' runs under an alias (an APK hash their devices' tools gave) match the screens of a
    version a crawl reported: each is written under that version, and the alias is recorded nowhere, not
    even once a quorum used it (an alias names no version: each run is matched by its screens again). An
    import under the alias records it."""
    ingest_trace(empty_graph, trace("own-run", "1.0"), chunk_size=10, quorum=3)
    for n in range(3):
        ingest_trace(empty_graph, trace(f"k{n}-run", ALIAS, f"k{n}", str(n)), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [("1.0", [], 4)]
    ingest_trace(empty_graph, trace("imp", ALIAS, suffix="9"), chunk_size=10, quorum=3)
    assert rows(empty_graph) == [("1.0", [ALIAS], 5)]
