"""`appmem export`: GraphML, neo4j-admin CSV and Cypher scripts of the shared data; each re-imported into
an empty graph gives the same `appmem stats`."""
from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

from appmem.analyst.export import read_csv, read_graphml
from appmem.analyst.subgraph import load, read
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from tests.conftest import DROIDBOT, REPO

APPS = ("de.szalkowski.activitylauncher", "anupam.acrylic", "bluepie.ad_silence")


def canon(items) -> list[str]:
    return sorted(json.dumps(x, sort_keys=True, default=lambda v: f"{type(v).__name__}:{v}") for x in items)


def empty(store):
    while store.write("delete_all")[0]["deleted"]:
        pass


def fill(store):
    empty(store)
    for name in APPS:
        ingest_trace(store, recording_trace(read_recording(DROIDBOT / name)), chunk_size=200)
    return store.stats()


def appmem(stack_env, *args):
    done = subprocess.run([sys.executable, "-m", "appmem.cli", *args], capture_output=True, text=True, cwd=REPO,
                          env=stack_env)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize("fmt", ["cypher", "csv", "graphml"])
def test_export_then_reimport_gives_the_same_stats(store, stack_env, tmp_path, fmt):
    before = fill(store)
    out = tmp_path / ("export" if fmt == "csv" else f"all.{fmt}")
    result = json.loads(appmem(stack_env, "export", "--all", "--format", fmt, "--out", str(out), "--json").stdout)
    assert result["nodes"] > 500 and result["relationships"] > result["nodes"]
    original = read(store, None)
    empty(store)
    if fmt == "cypher":
        text = out.read_text()
        with store.driver.session(database=store.database) as s:
            for statement in text.split(";\n"):
                body = "\n".join(ln for ln in statement.splitlines() if not ln.startswith("//")).strip()
                if body:
                    s.run(body).consume()
    else:
        sub = read_csv(out) if fmt == "csv" else read_graphml(out)
        assert canon(sub.nodes) == canon(original.nodes)
        assert canon(sub.relationships) == canon(original.relationships)
        load(store, sub)
    assert store.stats() == before
    again = read(store, None)
    assert canon(again.nodes) == canon(original.nodes)
    assert canon(again.relationships) == canon(original.relationships)


def test_one_app_exports_its_own_memory(store, stack_env, tmp_path):
    before = {r["package"]: r for r in fill(store)}
    out = tmp_path / "app.graphml"
    appmem(stack_env, "export", "--app", APPS[0], "--format", "graphml", "--out", str(out))
    g = nx.read_graphml(out)  # what Gephi, yEd and networkx read
    labels = {a["labels"] for _, a in g.nodes(data=True)}
    assert {":App", ":Screen", ":Element", ":State", ":Trace"} <= labels
    sub = read_graphml(out)
    empty(store)
    load(store, sub)
    assert store.stats() == [before[APPS[0]]]


def test_csv_headers_follow_neo4j_admin_import(store, stack_env, tmp_path):
    fill(store)
    appmem(stack_env, "export", "--app", APPS[1], "--format", "csv", "--out", str(tmp_path))
    header = (tmp_path / "nodes_Screen.csv").read_text().splitlines()[0]
    assert header.startswith('"id:ID",":LABEL",')
    assert '"first_seen:string"' in header or '"first_seen:datetime"' in header
    rel = (tmp_path / "relationships_TRANSITION.csv").read_text().splitlines()[0]
    assert rel.startswith('":START_ID",":END_ID",":TYPE",') and '"observations:long"' in rel
    assert '"devices:string[]"' in rel
    script = (tmp_path / "import.sh").read_text()
    assert "neo4j-admin database import full" in script and "--nodes=nodes_Screen.csv" in script


def test_unknown_app_is_a_clear_error(store, stack_env, tmp_path):
    empty(store)
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "export", "--app", "no.such.app", "--format",
                           "cypher", "--out", str(tmp_path / "x.cypher")], capture_output=True, text=True,
                          cwd=REPO, env=stack_env)
    assert done.returncode == 2 and "no app 'no.such.app'" in done.stderr and "Traceback" not in done.stderr


def test_an_export_holds_what_every_reader_reads_and_with_every_the_whole_graph(store, stack_env, tmp_path):
    """One key's run of an app no recording holds, showing words of its own: not in the export (it holds
    what the trust predicate admits, cypher/__init__.py), nor the key's id; `--every` holds both, and the
    recorded apps are in either."""
    import json as _json

    from appmem.ingest.run import ingest_run, validate_run
    from tests.api.test_hostile import shown_run

    before = fill(store)
    run = _json.loads(_json.dumps(shown_run(task="tap Quokka")).replace('text=\\"OK\\"', 'text=\\"Quokka lantern\\"'))
    assert "Quokka lantern" in run["steps"][0]["before_xml"]
    ingest_run(store, validate_run(run, "run"), "one-key-0123", 200, 3)
    public, whole = tmp_path / "public.graphml", tmp_path / "whole.graphml"
    appmem(stack_env, "export", "--all", "--format", "graphml", "--out", str(public))
    appmem(stack_env, "export", "--all", "--every", "--format", "graphml", "--out", str(whole))
    text, every = public.read_text(), whole.read_text()
    assert "Quokka" not in text and "one-key-0123" not in text and ">a.b<" not in text
    assert "Quokka" in every and "one-key-0123" in every and ">a.b<" in every
    for shown in (public, whole):
        sub = read_graphml(shown)
        empty(store)
        load(store, sub)
        assert [r for r in store.stats() if r["package"] in APPS] == before  # the recorded apps, whole
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "export", "--app", "a.b", "--format", "cypher",
                           "--out", str(tmp_path / "x.cypher")], capture_output=True, text=True, cwd=REPO,
                          env=stack_env)
    assert done.returncode == 2 and "no app 'a.b'" in done.stderr and "--every" in done.stderr
    appmem(stack_env, "export", "--app", "a.b", "--every", "--format", "cypher", "--out", str(tmp_path / "x.cypher"))
    assert "Quokka" in (tmp_path / "x.cypher").read_text()


def test_an_export_counts_no_tenants_runs_on_the_public_edges(store):
    """A tenant key's runs of a recorded route count on the public edges it took (its own view reads them: the
    edges' `tenant_counts`), but an export of what every reader reads holds the edges' counts and devices as
    they were before; the whole graph's (--every) holds them."""
    from dataclasses import replace

    empty(store)
    recorded = recording_trace(read_recording(DROIDBOT / "anupam.acrylic"))
    ingest_trace(store, recorded, chunk_size=200)

    def edges(every: bool = False) -> dict:
        return {(r[1], r[3], r[5].get("key")): r[5] for r in read(store, "anupam.acrylic", every).relationships
                if r[0] == "TRANSITION"}

    before = edges()
    for n in range(2):
        ingest_trace(store, replace(recorded, id=f"acme-run-{n}", contributor="acme/k1", device="acme-pseudonym",
                                    steps=recorded.steps[:3], history=[]), chunk_size=200)
    counted = [k for k, props in edges(every=True).items() if props.get("tenant_counts")]
    assert counted and all("acme-pseudonym" in edges(every=True)[k]["devices"] for k in counted)
    assert all(edges(every=True)[k]["observations"] > before[k]["observations"] for k in counted)
    # what the tenant's runs added, and their bookkeeping, is left out; edge_crowd's folded crowd counts stay (none)
    counts = ("observations", "successes", "failures", "contributed_successes", "contributed_failures", "devices")
    assert {k: [p.get(c, 0) for c in counts] for k, p in edges().items()} == \
           {k: [p.get(c, 0) for c in counts] for k, p in before.items()}
    assert "acme" not in json.dumps([r[5] for r in read(store, "anupam.acrylic").relationships], default=str)


def test_an_export_holds_no_tenants_reports_of_elements(store):
    """A tenant key that reports the recorded screens' buttons with other texts keeps its reports as Report nodes:
    an export of what every reader reads holds none of them, nor their texts; the whole graph's (--every) holds
    them, each with its relationship to its element."""
    import copy
    from dataclasses import replace

    empty(store)
    recorded = recording_trace(read_recording(DROIDBOT / "anupam.acrylic"))
    ingest_trace(store, recorded, chunk_size=200)
    states = copy.deepcopy(recorded.states)
    for state in states.values():
        for view in state.views:
            if view.text:
                view.text = "Quokka ledger 7741"
    ingest_trace(store, replace(recorded, id="acme-run", contributor="acme/k1", states=states, history=[]),
                 chunk_size=200)
    whole, public = read(store, "anupam.acrylic", every=True), read(store, "anupam.acrylic")
    reports = [props for labels, props in whole.nodes if "Report" in labels]
    assert all(p["contributor"] == "acme/k1" for p in reports)
    assert any(p["text"] == "Quokka ledger 7741" for p in reports)
    assert len([r for r in whole.relationships if r[0] == "OF"]) == len(reports)
    assert not any("Report" in labels for labels, _ in public.nodes)
    assert "Quokka" not in json.dumps([props for _, props in public.nodes], default=str)
