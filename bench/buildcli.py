"""Benchmark: build memory through the CLI as a new user would, apps/min from the first distinct apps to many copies.

Six shared recordings (the four heaviest, activitylauncher, achie, onelist and accapp, then ajsha and
just24hoursplus) are copied under new package names (tests/shared_data.copy_recording, in a temporary folder),
then further renamed copies of them, up to each of `--sizes` apps. Each step runs `appmem ingest droidbot`
on its new folders, then `appmem summarize --llm none`, as separate processes against a stack started with
`appmem up` in a fresh home (empty vector cache). Per step: wall seconds and apps/min (the machine's cores are
shared: other work slows it), the CPU seconds of the CLI processes (the embedding model's threads included)
and of the stack's servers (ArcadeDB, redis: read from their pid files), which other work does not change. The
same steps run with another commit's code
(`--baseline`, default main, a temporary git worktree) in the same run, on its own stack.

    python -m appmem.bench.buildcli [--sizes 6,30] [--baseline main]
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("de.szalkowski.activitylauncher", "ru.ikkui.achie", "com.lolo.io.onelist", "mattecarra.accapp",
           "org.ligi.ajsha", "com.chancehorizon.just24hoursplus")


def sizes(text: str) -> list[int]:
    out = [int(s) for s in text.split(",") if s.strip()]
    if not out or any(b <= a for a, b in zip([0, *out], out)):
        raise ValueError(f"--sizes {text!r}: increasing app counts expected, e.g. 6,30")
    return out


class Cli:
    """`appmem` subcommands run with `tree`'s code against one stack in `home`."""

    def __init__(self, tree: Path, home: Path):
        from appmem.bench.common import free_port

        self.home = home
        self.env = {**os.environ, "PYTHONPATH": str(tree), "APPMEM_HOME": str(home),
                    "APPMEM_ARCADEDB_BOLT_PORT": str(free_port()), "APPMEM_ARCADEDB_HTTP_PORT": str(free_port()),
                    "APPMEM_REDIS_PORT": str(free_port())}

    def run(self, *args: str) -> tuple[float, float]:
        """Wall and CPU seconds of one `appmem` command."""
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run([sys.executable, "-P", "-m", "appmem.cli", *args], env=self.env, capture_output=True,
                              text=True, timeout=3600)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise RuntimeError(f"appmem {' '.join(args[:2])}: {done.stderr[-2000:]}")
        return time.perf_counter() - started, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime

    def servers_cpu(self) -> float:
        """CPU seconds so far of the stack's servers (`appmem up` leaves their pid files in <home>/run)."""
        total = 0
        for pid_file in (self.home / "run").glob("*.pid"):
            try:
                fields = Path(f"/proc/{pid_file.read_text().strip()}/stat").read_text().rpartition(")")[2].split()
            except (OSError, ValueError):  # not running
                continue
            total += int(fields[11]) + int(fields[12])  # utime + stime
        return total / os.sysconf("SC_CLK_TCK")


def build(tree: Path, steps: list[list[Path]], home: Path) -> list[dict]:
    cli = Cli(tree, home)
    cli.run("up")
    out = []
    try:
        for folders in steps:
            servers = cli.servers_cpu()
            ingest = cli.run("ingest", "droidbot", *map(str, folders), "--json")
            summarize = cli.run("summarize", "--llm", "none")
            servers = cli.servers_cpu() - servers
            wall = ingest[0] + summarize[0]
            out.append({"apps": len(folders), "ingest_wall_s": round(ingest[0], 1), "ingest_cpu_s": round(ingest[1], 1),
                        "summarize_wall_s": round(summarize[0], 1), "summarize_cpu_s": round(summarize[1], 1),
                        "servers_cpu_s": round(servers, 1),
                        "cpu_s_per_app": round((ingest[1] + summarize[1] + servers) / len(folders), 2),
                        "apps_per_min": round(60 * len(folders) / wall, 1), "load": round(os.getloadavg()[0], 1)})
    finally:
        cli.run("down")
    return out


def main() -> None:
    from appmem.bench.common import BenchParser, DROIDBOT, commit_tree, markdown_table, write_results
    from tests.shared_data import copy_recording

    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=sizes, default=[6, 30], help="apps after each step (default 6,30)")
    parser.add_argument("--baseline", default="main")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="appmem-buildcli-") as tmp:
        steps, made = [], 0
        for size in args.sizes:
            step = []
            for i in range(made, size):
                source = DROIDBOT / SOURCES[i % len(SOURCES)]
                step.append(copy_recording(source, Path(tmp) / f"copy{i}", f"buildcli{i:03d}.{source.name}"))
            steps.append(step)
            made = size
        now = build(ROOT, steps, Path(tmp) / "now")
        with commit_tree(ROOT, args.baseline) as tree:
            before = build(tree, steps, Path(tmp) / "baseline")
    rows = []
    for size, a, b in zip(args.sizes, now, before):
        rows.append([f"{size - a['apps'] + 1}–{size}", a["apps"],
                     f"{a['ingest_wall_s']} + {a['summarize_wall_s']}", f"{b['ingest_wall_s']} + {b['summarize_wall_s']}",
                     f"{a['ingest_cpu_s']} + {a['summarize_cpu_s']}", f"{b['ingest_cpu_s']} + {b['summarize_cpu_s']}",
                     f"{a['servers_cpu_s']} ({a['cpu_s_per_app']})", f"{b['servers_cpu_s']} ({b['cpu_s_per_app']})",
                     f"**{a['apps_per_min']}**", b["apps_per_min"], f"{a['load']} / {b['load']}"])
    out = markdown_table(["apps", "new apps", "wall s: ingest + summarize", f"{args.baseline}: wall s",
                          "CLI CPU s: ingest + summarize", f"{args.baseline}: CLI CPU s",
                          "servers CPU s (all CPU s per app)", f"{args.baseline}: servers CPU s (per app)", "apps/min",
                          f"{args.baseline}: apps/min", "load average (now / baseline)"], rows)
    print(out)
    write_results("buildcli", out, {"sizes": args.sizes, "now": now, "baseline": before},
                  f"the CLI of {args.baseline} (a temporary git worktree) on the same copies, its own stack",
                  f"Renamed copies of {', '.join(SOURCES)} (taken in turn); the first six are the distinct "
                  "recordings (every text new to the model), the others copies of them. Each step: `appmem ingest "
                  "droidbot` of its new folders, then `appmem summarize --llm none`, on a fresh home. The machine's 2 "
                  "cores are shared with other work: wall figures move with the load, CPU figures do not; CLI CPU is "
                  "the CLI processes' (the embedding model's threads included), servers CPU the stack's (ArcadeDB, "
                  "redis).")


if __name__ == "__main__":
    main()
