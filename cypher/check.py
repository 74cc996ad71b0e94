"""`appmem cypher check`: every statement read by Neo4j's own Cypher grammar, before a server sees it.

The parser and semantic analysis are those of Neo4j's editors (npm
`@neo4j-cypher/language-support`, installed into tools/js by scripts/setup and
run with node). A syntax or semantic error fails the check naming file, line
and message; so does a procedure or function that Neo4j 5 Community with APOC
lacks (Graph Data Science and Enterprise-only procedures are removed from the
package's Neo4j 5 catalogue). The check also derives the oldest Neo4j 5 release
that can run every statement, from the newest syntax the statements use; the
compose file pins a release at least that new (tests/cypher/test_check.py).

Parsing is slow (about 0.2 s a statement file), so each file's findings are kept in a cache folder
(`$XDG_CACHE_HOME/appmem/cypher-check`, else `~/.cache/...`), keyed by the file's text, the grammar's
installed version and the excluded catalogue: a file is parsed again only when one of them changes.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from appmem.cypher import expanded
from appmem.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools" / "js"

# Not in Neo4j 5 Community + APOC: the Graph Data Science plugin and Enterprise-only procedures
# (clustering, change data capture, database allocation, pools, the job scheduler, locks).
NOT_IN_COMMUNITY = (
    "gds.", "cdc.", "db.cdc.", "dbms.cluster.", "dbms.quarantineDatabase", "dbms.setDatabaseAllocator",
    "dbms.setDefaultAllocationNumbers", "dbms.setDefaultDatabase", "dbms.showTopologyGraphConfig",
    "dbms.listPools", "dbms.scheduler.", "dbms.listActiveLocks", "db.listLocks", "dbms.upgrade",
)

# Syntax newer than Neo4j 5.0, the release that introduced it (Cypher manual, "Deprecations, additions
# and compatibility"), and how to spot it in a statement with comments and strings removed.
FEATURES = (
    ((5, 3), "COUNT { } subquery", re.compile(r"\bCOUNT\s*\{", re.I)),
    ((5, 6), "COLLECT { } subquery", re.compile(r"\bCOLLECT\s*\{", re.I)),
    ((5, 9), "quantified path pattern", re.compile(r"\)\s*(\{\s*\d*\s*,?\s*\d*\s*\}|[+*])\s*(\(|-|<|$)", re.M)),
    ((5, 9), "type predicate expression (IS :: TYPE)", re.compile(r"\bIS\s*(NOT\s*)?::", re.I)),
    ((5, 19), "FINISH clause", re.compile(r"\bFINISH\b", re.I)),
    ((5, 21), "SHORTEST / ANY path selector", re.compile(r"\b(ALL|ANY)\s+SHORTEST\b|\bSHORTEST\s+\d", re.I)),
    ((5, 23), "CALL (variables) { } variable scope clause", re.compile(r"\bCALL\s*\(", re.I)),
    ((5, 24), "OFFSET as a synonym of SKIP", re.compile(r"\bOFFSET\b", re.I)),
    ((5, 26), "dynamic label or type ($(...))", re.compile(r":\s*\$\s*(any|all)?\s*\(", re.I)),
)
_STRINGS_AND_COMMENTS = re.compile(r"//[^\n]*|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")


@dataclass
class Finding:
    path: str
    line: int
    column: int
    severity: str  # "error" | "warning"
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"


@dataclass
class Report:
    files: int = 0
    findings: list[Finding] = field(default_factory=list)
    min_version: tuple[int, int] = (5, 0)
    min_version_because: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def as_dict(self) -> dict:
        return {"files": self.files, "errors": [str(f) for f in self.errors],
                "warnings": [str(f) for f in self.findings if f.severity == "warning"],
                "min_neo4j_version": "%d.%d" % self.min_version, "min_version_because": self.min_version_because}


def default_files() -> list[Path]:
    return sorted(Path(str(p)) for p in resources.files("appmem.cypher").iterdir() if p.name.endswith(".cypher"))


def required_version(path: Path, text: str) -> list[tuple[tuple[int, int], str]]:
    """The releases a statement file's syntax needs, each with what needs it."""
    code = _STRINGS_AND_COMMENTS.sub("''", text)
    return [(version, f"{what} in {path.name}") for version, what, pattern in FEATURES if pattern.search(code)]


def check(paths: list[Path] | None = None) -> Report:
    paths = [Path(p) for p in paths] if paths else default_files()
    texts = {}
    for p in paths:
        try:
            texts[str(p)] = expanded(p.read_text(encoding="utf-8"))  # as cypher.load reads it
        except OSError as exc:
            raise ConfigError(f"cannot read Cypher file {p}: {exc.strerror}") from None
    report = Report(files=len(paths))
    for path, diag in _lint(texts):
        report.findings.append(Finding(_shown(path), diag["line"], diag["column"], diag["severity"], diag["message"]))
    for p in paths:
        for version, because in required_version(p, texts[str(p)]):
            if version > report.min_version:
                report.min_version, report.min_version_because = version, [because]
            elif version == report.min_version:
                report.min_version_because.append(because)
    return report


def _shown(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def _lint(texts: dict[str, str]) -> list[tuple[str, dict]]:
    """(path, diagnostic) of every file: from the cache where the same text was parsed by the same grammar,
    the rest parsed now, in one node process, and cached."""
    grammar = _grammar_version()
    keys = {path: _cache_key(grammar, text) for path, text in texts.items()}
    found = {path: _cached(key) for path, key in keys.items()}
    missing = {path: texts[path] for path, diags in found.items() if diags is None}
    if missing:
        for path, diags in _parse(missing).items():
            found[path] = diags
            _store(keys[path], diags)
    return [(path, d) for path, diags in found.items() for d in diags]


def _grammar_version() -> str:
    package = TOOLS / "node_modules" / "@neo4j-cypher" / "language-support" / "package.json"
    if shutil.which("node") is None or not package.is_file():
        raise ConfigError("the Cypher grammar is not installed: run scripts/setup (needs node and npm)")
    return json.loads(package.read_text())["version"]


def _cache_key(grammar: str, text: str) -> str:
    material = json.dumps([grammar, NOT_IN_COMMUNITY, (TOOLS / "cypher_check.cjs").read_text(), text])
    return hashlib.sha256(material.encode()).hexdigest()


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "appmem" / "cypher-check"


def _cached(key: str) -> list[dict] | None:
    try:
        return json.loads((_cache_dir() / f"{key}.json").read_text())
    except (OSError, ValueError):  # not cached yet, or a file cut short by a concurrent writer
        return None


def _store(key: str, diagnostics: list[dict]) -> None:
    folder = _cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{key}.{os.getpid()}.tmp"
        partial.write_text(json.dumps(diagnostics))
        partial.replace(folder / f"{key}.json")
    except OSError:  # a read-only home: the check still answers, it only parses again next time
        pass


def _parse(texts: dict[str, str]) -> dict[str, list[dict]]:
    request = {"files": [{"path": p, "text": t} for p, t in texts.items()], "exclude_prefixes": NOT_IN_COMMUNITY}
    # bounded so that a wedged node cannot hang the CLI, generous for a loaded machine (0.2 s a file idle)
    done = subprocess.run([shutil.which("node"), str(TOOLS / "cypher_check.cjs")], input=json.dumps(request),
                          capture_output=True, text=True, cwd=TOOLS, timeout=60 + 30 * len(texts))
    if done.returncode != 0:
        raise ConfigError(f"the Cypher grammar check failed to run: {done.stderr.strip()[-500:]}")
    return {r["path"]: r["diagnostics"] for r in json.loads(done.stdout)["results"]}
