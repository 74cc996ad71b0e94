"""The documentation: the site builds with --strict, its generated parts come from the code and the benches'
results files, and the README stays a front page."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from appmem import contract
from appmem.bench.common import markdown_table, write_results

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
BENCHES = sorted(p.stem for p in (REPO / "bench").glob("*.py") if p.stem not in ("__init__", "common"))


def test_the_site_builds_strict_with_the_generated_parts(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    page = (site / "contract" / "index.html").read_text(encoding="utf-8")
    for model in (contract.PlanRequest, contract.Plan, contract.PlanStep, contract.RunTrace, contract.CorrectionRequest):
        assert f"<strong>{model.__name__}</strong>" in page
        assert all(f"<code>{field}</code>" in page for field in model.model_fields)
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("appmem plan", "appmem keys purge", "appmem ingest droidbot", "appmem run"):
        assert command in cli, command
    assert "<!-- cli-reference -->" not in cli and "--screen-xml" in cli
    operations = (site / "operations" / "index.html").read_text(encoding="utf-8")
    settings = re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (REPO / ".env.example").read_text(), flags=re.M)
    assert settings and all(name in operations for name in settings)
    benchmarks = (site / "benchmarks" / "index.html").read_text(encoding="utf-8")
    for name in BENCHES:
        measured = (REPO / "bench" / "results" / f"{name}.json").is_file()
        shown = f"python -m appmem.bench.{name}" in benchmarks
        assert shown, f"the benchmarks page shows nothing of bench/{name}.py"
        if measured:
            record = json.loads((REPO / "bench" / "results" / f"{name}.json").read_text())
            assert record["date"] in benchmarks, f"bench/results/{name} is not on the page"
    assert benchmarks.count("Not yet measured") == sum(
        not (REPO / "bench" / "results" / f"{name}.json").is_file() for name in BENCHES)


def test_every_bench_has_its_place_on_the_benchmarks_page_and_no_figure_is_hand_written():
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    named = re.findall(r"<!-- bench-results: ([a-z_]+) -->", page)
    assert sorted(named) == BENCHES
    prose = re.sub(r"```.*?```", "", page, flags=re.S)
    assert not re.search(r"\d+(\.\d+)? ?(%|req/s|texts/s|ms\b|apps/min)", prose), \
        "a figure written by hand on the benchmarks page: figures come from bench/results/"


def test_the_readme_is_a_front_page():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for command in ("scripts/demo", "scripts/test", "scripts/docs"):
        assert command in readme
    for page in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (REPO / page).is_file(), f"README links to {page}, which does not exist"


def test_docs_tell_what_and_why_not_history():
    for path in [REPO / "README.md", *DOCS.glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"\b(?:[Ss]ession \d+|issue \d+|issue-\d+|pass \d+)\b", text)
        assert not found, f"{path.name} tells history: {found[:3]}"


def test_a_results_file_says_when_where_against_what(tmp_path):
    table = markdown_table(["app", "figure"], [["calendar", "a|b"]])
    path = write_results("plan", table, {"success": 0.5}, "top-1 target + cheapest route", "notes", directory=tmp_path)
    record = json.loads(path.read_text())
    assert record["bench"] == "plan" and record["baseline"] == "top-1 target + cheapest route"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["date"])
    assert record["machine"]["cores"] >= 1 and len(record["machine"]["load_average"]) == 3
    assert record["data"] == {"success": 0.5} and record["command"].startswith("python -m appmem.bench.plan")
    shown = (tmp_path / "plan.md").read_text()
    assert record["date"] in shown and "Same-run baseline: top-1 target + cheapest route." in shown
    assert "| calendar | a\\|b |" in shown


def load_hooks():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "tools" / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hooks_show_a_results_file_or_say_not_yet_measured_and_refuse_an_unknown_bench(tmp_path, monkeypatch):
    hooks = load_hooks()
    monkeypatch.setattr(hooks, "RESULTS", tmp_path)
    assert "Not yet measured" in hooks.render_page("<!-- bench-results: twin -->", "benchmarks.md")
    (tmp_path / "twin.md").write_text("| what | rate |\n| --- | --- |\n")
    assert hooks.render_page("<!-- bench-results: twin -->", "benchmarks.md") == "| what | rate |\n| --- | --- |\n"
    with pytest.raises(ValueError, match="nosuch"):
        hooks.render_page("<!-- bench-results: nosuch -->", "benchmarks.md")


def test_the_contract_hook_renders_the_models_between_the_markers():
    from appmem.contract.doc import BEGIN, END, render

    hooks = load_hooks()
    page = hooks.render_page(f"intro\n\n{BEGIN}\nan old table\n{END}\n\nafter\n", "contract.md")
    assert page == f"intro\n\n{render().rstrip()}\n\nafter\n" and "an old table" not in page
