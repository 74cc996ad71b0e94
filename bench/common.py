"""What every benchmark needs: a private embedded stack (temporary home, free ports) and the shared data."""
from __future__ import annotations

import argparse
import os
import socket
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator


from appmem.settings import Settings
from appmem.stack import Stack

SHARED = Path(__file__).resolve().parents[2] / "shared"
DROIDBOT = SHARED / "datasets" / "droidbot"
DROIDTASK = SHARED / "datasets" / "droidtask"
DROIDTASK_APPS = ("applauncher", "calendar", "camera", "clock", "contacts", "notes")


class BenchParser(argparse.ArgumentParser):
    """A bench's arguments: a bad one is one line naming it and what is allowed, exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (--help lists the arguments)\n")


def shared_app_names() -> list[str]:
    """The shared DroidBot output folders' names (none when ../shared is not there)."""
    return sorted(p.name for p in DROIDBOT.iterdir() if (p / "utg.js").is_file()) if DROIDBOT.is_dir() else []


def shared_folders() -> list[Path]:
    return [DROIDBOT / name for name in shared_app_names()]


def droidbot_folder(text: str) -> Path:
    """An `--apps` value: a shared DroidBot folder's name, or the path of any DroidBot output folder."""
    if text in shared_app_names():
        return DROIDBOT / text
    path = Path(text)
    if (path / "utg.js").is_file():
        return path
    names = ", ".join(shared_app_names()) or f"none: {DROIDBOT} is missing"
    raise argparse.ArgumentTypeError(f"{text!r} is neither a DroidBot output folder (with utg.js) "
                                     f"nor a shared one's name ({names})")


def droidbot_folders(text: str) -> list[Path]:
    """A comma-separated `--apps` value: DroidBot folders (names of shared ones, or paths)."""
    return [droidbot_folder(name.strip()) for name in text.split(",") if name.strip()] or [droidbot_folder("")]


def app_count(text: str) -> int:
    """How many of the shared apps (the first N by name; 0: all)."""
    total = len(shared_app_names())
    if not text.isdigit() or int(text) > total:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of shared apps from 0 (all) to {total}")
    return int(text)


def whole_numbers(text: str, least: int = 1) -> list[int]:
    """A comma-separated list of whole numbers from `least` on."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < least:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers from {least} on")
    return values


def positive_ints(text: str) -> list[int]:
    """A comma-separated list of whole numbers above 0."""
    return whole_numbers(text, 1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def on_each(work: Callable[[object], object], items: Iterable) -> None:
    """`work(item)` for every item at once, a thread each (one per device of a fleet); the first
    error raised by any of them is raised here once all are done."""
    items = list(items)
    with ThreadPoolExecutor(max_workers=max(1, len(items))) as pool:
        list(pool.map(work, items))


@contextmanager
def private_stack(home: Path | None = None) -> Iterator[Settings]:
    """Settings of a freshly started embedded stack, stopped and deleted afterwards
    (with `home`: that folder, kept, so a later run reuses what it holds)."""
    with tempfile.TemporaryDirectory(prefix="appmem-bench-") as tmp:
        settings = Settings.from_env({**os.environ, "APPMEM_HOME": str(home or tmp),
                                      "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()),
                                      "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()),
                                      "APPMEM_REDIS_PORT": str(free_port())})
        stack = Stack(settings)
        stack.up()
        try:
            yield settings
        finally:
            stack.down()


@contextmanager
def commit_tree(repo: Path, rev: str) -> Iterator[Path]:
    """Commit `rev` of `repo` checked out into a temporary git worktree (a same-run baseline's code), removed
    afterwards."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="appmem-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(tree), rev],
                       check=True, capture_output=True, text=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)], capture_output=True)


def exploration_memory(store, vectors, embedder, settings: Settings) -> dict[str, str]:
    """The six DroidTask apps' AutoDroid exploration memory (utg.yaml only: no gold demonstration)
    imported and summarised (skipped when the graph already holds it) → {app: package}."""
    from appmem.ingest.autodroid import read_autodroid
    from appmem.ingest.pipeline import ingest_trace
    from appmem.semantic.pipeline import summarize
    from appmem.semantic.summaries import DeterministicSummarizer

    store.ensure_schema()
    packages = {}
    for app in DROIDTASK_APPS:
        imported = read_autodroid(DROIDTASK / app, app, None)
        packages[app] = imported.trace.package
        ingest_trace(store, imported.trace, settings.ingest_chunk_steps)  # a no-op when already written
    summarize(store, vectors, embedder, DeterministicSummarizer(settings.risky_words))  # incremental
    return packages


def load_scorer():
    """../shared/eval/droidtask_score.py as a module (its score_task is what the CLI scorer runs)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("droidtask_score", SHARED / "eval" / "droidtask_score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ingest_recordings(store, folders: Iterable[Path], chunk_steps: int) -> list[str]:
    """Each DroidBot recording in `folders` ingested into `store` (its schema ensured): their packages."""
    from appmem.ingest.droidbot import read_recording, recording_trace
    from appmem.ingest.pipeline import ingest_trace

    store.ensure_schema()
    packages = []
    for folder in folders:
        trace = recording_trace(read_recording(folder))
        ingest_trace(store, trace, chunk_steps)
        packages.append(trace.package)
    return packages


def servers_cpu() -> float:
    """CPU seconds (user + system) of this process's descendants so far (the private stack's servers)."""
    procs = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # it ended meanwhile
            continue
        procs[int(stat.parent.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))  # ppid, utime + stime
    mine, grown = {os.getpid()}, True
    while grown:
        grown = False
        for pid, (parent, _) in procs.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                grown = True
    return sum(procs[p][1] for p in mine - {os.getpid()}) / os.sysconf("SC_CLK_TCK")


RESULTS = Path(__file__).resolve().parent / "results"


def options_changed(values: Iterable[object], shipped: Iterable[object]) -> int:
    """How many options of a grid point differ from the shipped ones: a leave-one-app-out fold takes, of the
    points its other apps score alike, the one nearest the shipped options (never by the held-out app)."""
    return sum(a != b for a, b in zip(values, shipped))


def markdown_table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    """A GitHub/MkDocs markdown table; `|` in a cell is escaped."""
    def line(cells: Iterable[object]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    header = list(header)
    return "\n".join([line(header), line("---" for _ in header), *(line(r) for r in rows)]) + "\n"


def machine() -> dict:
    """Where a figure was measured: cores, CPU model, load average (a shared machine's figures move with it)."""
    import platform

    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {"cores": os.cpu_count(), "cpu": model or platform.processor() or platform.machine(),
            "load_average": [round(x, 2) for x in load], "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}"}


def commit() -> str:
    """The commit measured (with `+changes` when a tracked file other than a results file differs from it),
    or "" outside git."""
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
                              timeout=30)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ":(top)", ":(top,exclude)bench/results")
    return f"{head}+changes" if head and changed else head


def write_results(name: str, table: str, data: object, baseline: str, notes: str = "",
                  directory: Path | None = None) -> Path:
    """A bench's latest figures as `bench/results/<name>.json` and `.md`, which the docs include.

    `table` is markdown; `data` the figures behind it (anything JSON takes); `baseline` names what the
    figures were compared with in the same run ("none" for a bench that measures one thing); `notes`
    say what the figures depend on (a simulator, the load). The files are replaced: history is git's.
    """
    import datetime
    import json
    import sys

    directory = directory or RESULTS
    directory.mkdir(parents=True, exist_ok=True)
    record = {"bench": name, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "commit": commit(), "command": " ".join(["python -m appmem.bench." + name, *sys.argv[1:]]),
              "machine": machine(), "baseline": baseline, "notes": notes, "table": table, "data": data}
    (directory / f"{name}.json").write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    (directory / f"{name}.md").write_text(results_markdown(record), encoding="utf-8")
    print(f"results: {directory / name}.json, .md", file=sys.stderr)
    return directory / f"{name}.json"


def results_markdown(record: dict) -> str:
    """The docs' view of one results record: where and when it was measured, against what, then the table."""
    m = record["machine"]
    load = " / ".join(f"{x:.1f}" for x in m["load_average"])
    lines = [f"*Measured {record['date']} at commit `{record['commit'] or 'unknown'}` on {m['cpu']} "
             f"({m['cores']} cores, load average {load}), `{record['command']}`.*", "",
             f"Same-run baseline: {record['baseline']}.", ""]
    if record.get("notes"):
        lines += [record["notes"], ""]
    return "\n".join(lines) + "\n" + record["table"]
