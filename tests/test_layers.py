"""The layers point down: `lint-imports` checks the contract in pyproject.toml (no server needed),
and the contract names every top-level package of the project."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]


def test_lint_imports_keeps_every_contract():
    done = subprocess.run([str(LINT), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_layers_name_every_top_level_package():
    packages = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"tests"}
    layered = {name.strip("() ").split(".")[0] for layer in config()["contracts"][0]["layers"]
               for name in layer.replace(":", "|").split("|")}
    assert packages <= layered, f"packages in no layer: {sorted(packages - layered)}"
    assert packages <= set(config()["root_packages"]), "add new packages to root_packages too"


def test_a_broken_layer_is_reported(tmp_path):
    """The check is live: an upward import in a copy of the tree breaks the contract, naming the import."""
    import shutil

    for pkg in config()["root_packages"]:
        shutil.copytree(REPO / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    store = tmp_path / "graph" / "store.py"
    store.write_text(store.read_text() + "\nimport agent.planner  # upward\n")
    done = subprocess.run([str(LINT), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1
    assert "graph.store -> agent.planner" in done.stdout
