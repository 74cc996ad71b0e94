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
    # A package split over layers (appmem: its CLI on top, its core at the bottom) names every module.
    named = {name.strip("() ") for layer in config()["contracts"][0]["layers"] for name in layer.replace(":", "|").split("|")}
    for split in sorted(packages - named):
        modules = {f"{split}.{p.stem}" for p in (REPO / split).glob("*.py") if p.stem != "__init__"}
        assert modules <= named, f"modules of {split} in no layer: {sorted(modules - named)}"
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


def imports_of(path: Path) -> set[str]:
    """Every absolute import of a module, at any depth (function-level imports too)."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_our_own_import_graph_points_down_without_cycles():
    """A second check that does not trust import-linter: an import graph read with `ast`, each module
    in the layer of its longest listed prefix; no module imports a higher layer or a sibling of an
    independent layer, and the graph of top-level packages (the CLI modules apart) has no cycle."""
    layers = [[n.strip("() ") for n in layer.replace(":", "|").split("|")] for layer in config()["contracts"][0]["layers"]]
    rank = {name: i for i, layer in enumerate(layers) for name in layer}

    def layer_of(module: str) -> str | None:
        parts = module.split(".")
        return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in rank), None)

    roots = set(config()["root_packages"])
    wrong, packages = [], {}
    for path in sorted(REPO.glob("*/*.py")) + sorted(REPO.glob("*/*/*.py")):
        if path.parts[len(REPO.parts)] not in roots:
            continue
        module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        mine = layer_of(module)
        for target in imports_of(path):
            theirs = layer_of(target)
            if mine is None or theirs is None or theirs == mine:
                continue
            if rank[theirs] < rank[mine] or (rank[theirs] == rank[mine] and "|" in config()["contracts"][0]["layers"][rank[mine]]):
                wrong.append(f"{module} -> {target}")
            if not module.endswith(".commands") and module != "appmem.cli":
                packages.setdefault(module.split(".")[0], set()).add(target.split(".")[0])
    assert not wrong, wrong

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        for nxt in sorted(packages.get(node, ()) - {node}):
            if nxt in path:
                return path[path.index(nxt):] + [nxt]
            found = cycle_from(nxt, path + [nxt])
            if found:
                return found
        return None

    cycles = [c for p in sorted(packages) if (c := cycle_from(p, [p]))]
    assert not cycles, cycles[0]
