"""The layers point down: `lint-imports` checks the contract in pyproject.toml (no server needed), the
contract names every package of the one import namespace, `appmem`, and nothing imports outside it."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")
PACKAGES = sorted(p.name for p in (REPO / "appmem").iterdir() if (p / "__init__.py").exists())


def config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]


def layer_names() -> list[list[str]]:
    return [[n.strip("() ") for n in layer.split("|")] for layer in config()["contracts"][0]["layers"]]


def test_lint_imports_keeps_every_contract():
    done = subprocess.run([str(LINT), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_every_code_folder_is_a_package_of_the_namespace():
    """Each top-level code folder is linked into appmem/ (the one import name), and nothing else is."""
    folders = {p.parent.name for p in REPO.glob("*/__init__.py")} - {"tests", "appmem"}
    assert set(PACKAGES) == folders
    for name in PACKAGES:
        link = REPO / "appmem" / name
        assert link.is_symlink() and os.readlink(link) == f"../{name}", f"appmem/{name} must link to ../{name}"


def test_the_layers_name_every_package():
    named = {n for layer in layer_names() for n in layer}
    assert {f"appmem.{p}" for p in PACKAGES} <= named, "a package in no layer"
    # appmem's own modules are split over layers (its CLI on top, its core at the bottom): each is named.
    modules = {f"appmem.{p.stem}" for p in (REPO / "appmem").glob("*.py") if p.stem != "__init__"}
    assert modules <= named, f"modules of appmem in no layer: {sorted(modules - named)}"
    assert config()["root_packages"] == ["appmem"]


def test_a_broken_layer_is_reported(tmp_path):
    """The check is live: an upward import in a copy of the tree breaks the contract, naming the import."""
    copy_tree(tmp_path)
    store = tmp_path / "graph" / "store.py"
    store.write_text(store.read_text() + "\nimport appmem.agent.planner  # upward\n")
    done = subprocess.run([str(LINT), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1
    assert "appmem.graph.store -> appmem.agent.planner" in done.stdout


def copy_tree(target: Path) -> None:
    """The namespace as the repository holds it: the code folders, appmem/ with its links, pyproject."""
    for name in ["appmem", *PACKAGES]:
        shutil.copytree(REPO / name, target / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, target)


def test_the_wheel_installs_one_import_name(tmp_path):
    """`pip wheel .` gives one top-level name, appmem, with the packages as real files (not links)."""
    copy_tree(tmp_path / "src")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path / "wheel"), str(tmp_path / "src")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "wheel").glob("appmem-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"appmem"}, tops
    for name in PACKAGES:
        assert f"appmem/{name}/__init__.py" in names
    assert "appmem/cypher/plan_route.cypher" in names or any(n.startswith("appmem/cypher/") and n.endswith(".cypher")
                                                               for n in names)


def modules() -> dict[str, Path]:
    """Every module of the namespace by its dotted name, read through appmem/'s links."""
    found = {}
    for folder, _, files in os.walk(REPO / "appmem", followlinks=True):
        if "__pycache__" in folder:
            continue
        for file in files:
            if file.endswith(".py"):
                rel = (Path(folder) / file).relative_to(REPO).with_suffix("")
                found[".".join(rel.parts).removesuffix(".__init__")] = Path(folder) / file
    return found


def imports_of(path: Path) -> set[str]:
    """Every absolute import of a module, at any depth (function-level imports too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_nothing_imports_a_folder_by_its_bare_name():
    """`import graph` works only inside the repository by accident of sys.path: every import, the tests'
    and the benches' too, goes through appmem (a wheel has nothing else)."""
    bare = set(PACKAGES)
    wrong = [f"{path.relative_to(REPO)}: {target}" for path in sorted(REPO.glob("tests/**/*.py")) + list(modules().values())
             for target in imports_of(path) if target.split(".")[0] in bare]
    assert not wrong, wrong


def test_our_own_import_graph_points_down_without_cycles():
    """A second check that does not trust import-linter: an import graph read with `ast`, each module
    in the layer of its longest listed prefix; no module imports a higher layer or a sibling of an
    independent layer, and the graph of packages (the CLI modules apart) has no cycle."""
    layers = layer_names()
    rank = {name: i for i, layer in enumerate(layers) for name in layer}

    def layer_of(module: str) -> str | None:
        parts = module.split(".")
        return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in rank), None)

    def package_of(module: str) -> str:
        return ".".join(module.split(".")[:2])

    wrong, packages = [], {}
    for module, path in sorted(modules().items()):
        mine = layer_of(module)
        for target in imports_of(path):
            theirs = layer_of(target)
            if mine is None or theirs is None or theirs == mine:
                continue
            if rank[theirs] < rank[mine] or (rank[theirs] == rank[mine] and len(layers[rank[mine]]) > 1):
                wrong.append(f"{module} -> {target}")
            if not module.endswith(".commands") and module != "appmem.cli":
                packages.setdefault(package_of(module), set()).add(package_of(target))
    assert not wrong, wrong

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        for nxt in sorted(packages.get(node, set()) - {node}):
            if nxt in path:
                return path[path.index(nxt):] + [nxt]
            found = cycle_from(nxt, path + [nxt])
            if found:
                return found
        return None

    cycles = [c for p in sorted(packages) if (c := cycle_from(p, [p]))]
    assert not cycles, cycles[0]
