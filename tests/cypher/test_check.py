"""`appmem cypher check`: Neo4j's own grammar reads every statement in cypher/, and a bad one fails."""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
import sys
from pathlib import Path

import yaml

from appmem.cypher.check import check

REPO = Path(__file__).resolve().parents[2]


def appmem(*args: str, cwd: Path = Path(tempfile.gettempdir())) -> subprocess.CompletedProcess:
    """The CLI as installed: run outside the repository, so no code folder is importable by its bare name."""
    return subprocess.run([sys.executable, "-m", "appmem.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/local/bin:/usr/bin:/bin"})  # appmem as installed: no repository path


def test_every_statement_parses_and_needs_at_most_the_pinned_neo4j():
    done = appmem("cypher", "check", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["files"] == len(list((REPO / "cypher").glob("*.cypher")))
    assert report["errors"] == []
    # app_stats uses CALL (a) { ... }: Neo4j 5.23 or newer.
    needed = tuple(int(x) for x in report["min_neo4j_version"].split("."))
    assert needed >= (5, 23)
    compose = yaml.safe_load((REPO / "docker" / "docker-compose.yml").read_text())
    image = compose["services"]["neo4j"]["image"]
    pinned = tuple(int(x) for x in re.match(r"neo4j:(\d+)\.(\d+)", image).groups())
    assert pinned >= needed, f"compose pins {image}, statements need {needed}"


def test_a_syntax_error_fails_naming_file_line_and_message(tmp_path):
    bad = tmp_path / "bad.cypher"
    bad.write_text("// a planted error on line 3\nMATCH (s:Screen {id: $id})\nRETRUN s.title\n")
    done = appmem("cypher", "check", str(bad), cwd=tmp_path)
    assert done.returncode == 1
    assert re.search(r"bad\.cypher:3:\d+: error: Invalid input 'RETRUN'", done.stdout), done.stdout


def test_procedures_and_functions_missing_from_community_with_apoc_are_flagged(tmp_path):
    f = tmp_path / "calls.cypher"
    f.write_text("CALL gds.pageRank.stream('g') YIELD nodeId RETURN nodeId;\n"
                 "RETURN apoc.text.join(['a', 'b'], '-') AS ok, no.such.fn(1) AS nope\n")
    report = check([f])
    errors = [(e.line, e.message) for e in report.errors]
    assert any(line == 1 and "gds.pageRank.stream" in m for line, m in errors), errors
    assert any(line == 2 and "no.such.fn" in m for line, m in errors), errors
    assert not any("apoc.text.join" in m for _, m in errors), errors


def test_findings_are_cached_by_text_so_an_edited_file_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    f = tmp_path / "edited.cypher"
    f.write_text("MATCH (s:Screen {id: $id})\nRETURN s.title\n")
    assert check([f]).errors == []
    cached = list((tmp_path / "cache" / "appmem" / "cypher-check").glob("*.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text()) == []
    f.write_text("MATCH (s:Screen {id: $id})\nRETRUN s.title\n")
    first = check([f]).errors[0]
    assert first.line == 2 and "Invalid input 'RETRUN'" in first.message, first
    assert check([f]).errors and len(list(cached[0].parent.glob("*.json"))) == 2
