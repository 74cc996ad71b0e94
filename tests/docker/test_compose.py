"""The compose files validate against the Compose Specification's JSON schema, as vendored by the PyPI
package check-jsonschema (`builtin_schemas/vendor/compose-spec.json`, with its sha256 and licence),
after the variable interpolation that compose itself does before validating."""
from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
# What a user sets in docker/.env (.env.example lists them); the rest takes the files' defaults.
ENV = {"NEO4J_PASSWORD": "secret-pass", "QDRANT_API_KEY": "qdrant-key", "FLOWER_PASSWORD": "flower-pass", "NEO4J_URI": "bolt://central:7687",
       "REDIS_URL": "redis://central:6379/0", "QDRANT_URL": "http://central:6333",
       "APPMEM_HOST_QUEUE": "host-10-0-0-5", "APPMEM_WORKER_REPLICAS": "3"}
_VAR = re.compile(r"\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value, env: dict[str, str], typed: bool = False):
    """Compose's variable substitution: ${V}, ${V:-default}, ${V-default}, ${V:?error}, $$. A mapping's
    value that is one whole variable takes the type YAML reads in it (replicas: ${N} is a number);
    list items (command words) stay strings."""
    if isinstance(value, dict):
        return {k: interpolate(v, env, typed=True) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name, op, arg = m.groups()
        got = env.get(name)
        if op in (":-", "-"):
            return got if got or (op == "-" and got is not None) else arg
        if op == ":?" and not got:
            raise KeyError(f"{name}: {arg}")
        return got or ""

    whole = _VAR.fullmatch(value)
    out = _VAR.sub(sub, value)
    return yaml.safe_load(out) if typed and whole and out.strip() else out


def schema_validator() -> jsonschema.protocols.Validator:
    text = resources.files("check_jsonschema.builtin_schemas.vendor").joinpath("compose-spec.json").read_text()
    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.mark.parametrize("name", ["docker-compose.yml", "worker-host.yml", "databases.yml"])
def test_compose_file_validates_against_the_compose_specification(name):
    raw = yaml.safe_load((REPO / "docker" / name).read_text())
    config = interpolate({k: v for k, v in raw.items() if not k.startswith("x-")}, ENV)
    errors = sorted(schema_validator().iter_errors(config), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_central_stack_has_every_service_with_health_checks_and_ordered_start():
    config = interpolate(yaml.safe_load((REPO / "docker" / "docker-compose.yml").read_text()), ENV)
    services = config["services"]
    assert {"neo4j", "qdrant", "redis", "worker", "api", "flower"} <= set(services)
    for name in ("neo4j", "qdrant", "redis", "worker", "api", "flower"):
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no health check"
    assert services["worker"]["deploy"]["replicas"] == 3
    assert services["api"]["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert services["api"]["depends_on"]["schema"]["condition"] == "service_completed_successfully"
    assert "--appendonly" in services["redis"]["command"]
    assert "apoc" in services["neo4j"]["environment"]["NEO4J_PLUGINS"]
    assert services["neo4j"]["environment"]["NEO4J_AUTH"] == "neo4j/secret-pass"
    # No database is published (docker/databases.yml does it, on APPMEM_DB_BIND); Qdrant requires the API key
    # the appmem containers send.
    assert not [name for name in ("neo4j", "redis", "qdrant") if "ports" in services[name]]
    published = interpolate(yaml.safe_load((REPO / "docker" / "databases.yml").read_text()), ENV)["services"]
    assert {p.split(":")[0] for s in published.values() for p in s["ports"]} == {"127.0.0.1"}
    assert set(published["neo4j"]["ports"]) | set(published["redis"]["ports"]) == {
        "127.0.0.1:7474:7474", "127.0.0.1:7687:7687", "127.0.0.1:6379:6379"}
    assert services["qdrant"]["environment"]["QDRANT__SERVICE__API_KEY"] == "qdrant-key"
    assert services["api"]["environment"]["QDRANT_API_KEY"] == "qdrant-key"
    with pytest.raises(KeyError, match="QDRANT_API_KEY"):
        interpolate(yaml.safe_load((REPO / "docker" / "docker-compose.yml").read_text()),
                    {k: v for k, v in ENV.items() if k != "QDRANT_API_KEY"})
    # A required secret left unset is an error, as compose reports it.
    with pytest.raises(KeyError, match="NEO4J_PASSWORD"):
        interpolate(yaml.safe_load((REPO / "docker" / "docker-compose.yml").read_text()), {})


def test_a_broken_compose_file_fails_the_schema():
    config = {"services": {"api": {"image": "appmem", "depends_on": {"neo4j": {"condition": "when_ready"}},
                                   "healthcheck": {"interval": 10}}}}
    assert len(list(schema_validator().iter_errors(config))) >= 1


def test_env_example_documents_every_variable_the_compose_files_read():
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (REPO / ".env.example").read_text(), re.M))
    for name in ("docker-compose.yml", "worker-host.yml", "databases.yml"):
        text = (REPO / "docker" / name).read_text()
        used = {m.group(1) for m in _VAR.finditer(text) if m.group(1)}
        assert used <= documented, f"{name} reads undocumented {sorted(used - documented)}"
    assert "ANDROID_ADB_SERVER_HOST" not in (REPO / "docker" / "docker-compose.yml").read_text()


def test_the_image_content_runs_the_cli_without_twins_tests_or_benchmarks(tmp_path):
    """What docker/Dockerfile copies (the repository less .dockerignore) runs every production command."""
    import fnmatch
    import shutil
    import subprocess
    import sys

    patterns = [p.strip() for p in (REPO / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]

    def ignored(rel: str) -> bool:
        parts = Path(rel).parts
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        return any(fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(p, pat.removeprefix("**/")) or
                   fnmatch.fnmatch(Path(p).name, pat.removeprefix("**/")) for p in prefixes for pat in patterns)

    image = tmp_path / "image"

    def skip(folder: str, names: list[str]) -> list[str]:
        rel = Path(folder).relative_to(REPO)
        return [n for n in names if ignored(str(rel / n)) or n == "test-output"]

    shutil.copytree(REPO, image, ignore=skip, symlinks=True)
    assert not (image / "twins").exists() and not (image / "tests").exists()
    assert (image / "scripts" / "setup").exists() and (image / "tools" / "js" / "package-lock.json").exists()
    # Only the copy's packages: drop the development checkout's editable-install finder.
    run_cli = ("import sys, runpy; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in "
               "getattr(f, '__module__', '')]; sys.argv[0] = 'appmem'; runpy.run_module('appmem.cli', "
               "run_name='__main__')")
    for command in (["--help"], ["worker", "--help"], ["export", "--help"], ["cypher", "check", "--help"],
                    ["up", "--help"], ["devices", "--help"]):
        done = subprocess.run([sys.executable, "-c", run_cli, *command], cwd=image, capture_output=True,
                              text=True, env={"PYTHONPATH": str(image), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, (command, done.stderr[-2000:])
        if command == ["--help"]:
            assert "twins" not in done.stdout.split("positional")[0], done.stdout
