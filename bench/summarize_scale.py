"""Benchmark: summarize time per element on synthetic screens of 10 to 2,000 elements (flat = linear).

Each size is one synthetic app: an entry screen whose rows open one big screen of N elements (rows, some
opening detail screens, switches, a few inputs, a list of options, action and confirm buttons, a back
button; labels drawn from a fixed word list with a seed, none from any benchmark). For each size it times,
in CPU seconds of one process (best of `--repeat`, the label caches emptied before each):

- contexts: `build_contexts` (semantic/contexts.py);
- summaries: `DeterministicSummarizer.summarize` (semantic/summaries.py);
- meaning: every element's meaning parts (semantic/meaning.py), as `summarize` embeds them;

and prints microseconds per element. The baseline is another commit (`--baseline`, default main) checked
out into a temporary git worktree and measured in the same run, on the same screens, in a process of its
own; a digest of every context, summary and meaning says whether both give the same output. The old code
is quadratic, so the baseline stops at `--baseline-up-to` elements.

    python -m appmem.bench.summarize_scale [--sizes 10,30,100,300,1000,2000] [--baseline main]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

WORDS = ("account", "alarm", "archive", "backup", "battery", "bookmark", "calendar", "camera", "color", "contact",
         "download", "draft", "event", "export", "filter", "folder", "font", "history", "image", "language",
         "layout", "list", "location", "message", "music", "network", "note", "photo", "playlist", "privacy",
         "profile", "reminder", "ringtone", "schedule", "search", "sound", "storage", "sync", "task", "theme",
         "timer", "update", "video", "volume", "wallpaper", "widget")
ROOT = Path(__file__).resolve().parents[1]


def synthetic_app(n: int, seed: int = 0) -> tuple[list, list, list]:
    """(screens, elements, transitions) of an app with one screen of `n` elements."""
    from appmem.graph.model import Element
    from appmem.semantic.contexts import ScreenRow, TransitionRow

    rng = random.Random(f"{seed}|{n}")
    pkg = f"bench.summarize{n}"
    screens = [ScreenRow("home", pkg, "1", f"{pkg}.MainActivity", "Home"),
               ScreenRow("big", pkg, "1", f"{pkg}.ListActivity", "Everything"),
               ScreenRow("pick", pkg, "1", f"{pkg}.ListActivity", "Choose one")]
    elements = [Element("home/open", "home", class_name="android.widget.Button", text="Open all",
                        flags=["clickable"]),
                Element("big/back", "big", class_name="android.widget.ImageButton", content_desc="Navigate up",
                        flags=["clickable"]),
                Element("big/ok", "big", class_name="android.widget.Button", text="Save", flags=["clickable"]),
                Element("big/del", "big", class_name="android.widget.Button", text="Delete", flags=["clickable"])]
    transitions = [TransitionRow("home", "big", "home/open")]
    for i in range(n - 3):
        words = " ".join(rng.sample(WORDS, 2)).capitalize()
        eid = f"big/e{i:05d}"
        kind = rng.random()
        if kind < 0.6:  # a row; every tenth opens a detail screen of its own
            elements.append(Element(eid, "big", class_name="android.widget.TextView", text=f"{words} {i}",
                                    resource_id=f"{pkg}:id/row_{words.replace(' ', '_').lower()}",
                                    flags=["clickable"]))
            if i % 10 == 0:
                detail = f"detail{i}"
                screens.append(ScreenRow(detail, pkg, "1", f"{pkg}.DetailActivity", f"{words} {i}"))
                elements.append(Element(f"{detail}/x", detail, class_name="android.widget.TextView",
                                        text=f"{words} details", flags=["clickable"]))
                transitions.append(TransitionRow("big", detail, eid))
        elif kind < 0.8:  # a switch showing its state
            elements.append(Element(eid, "big", class_name="android.widget.Switch",
                                    text=f"{words} {'ON' if i % 2 else 'OFF'}", flags=["checkable", "clickable"]))
        elif kind < 0.9:  # a field named by its id
            elements.append(Element(eid, "big", class_name="android.widget.EditText",
                                    resource_id=f"{pkg}:id/{words.replace(' ', '_').lower()}_{i}",
                                    flags=["editable", "clickable"]))
        else:  # a row showing a value, which the confirm keeps
            elements.append(Element(eid, "big", class_name="android.widget.TextView",
                                    text=f"{words} {i}\n{rng.choice(WORDS)}", flags=["clickable"]))
    # a dialog of options, opened from the big screen
    elements.append(Element("big/pick", "big", class_name="android.widget.Button", text="Sound",
                            flags=["clickable"]))
    transitions.append(TransitionRow("big", "pick", "big/pick"))
    elements += [Element(f"pick/o{i}", "pick", class_name="android.widget.RadioButton", text=w.capitalize(),
                         flags=["checkable", "clickable"]) for i, w in enumerate(WORDS[:8])]
    elements.append(Element("pick/ok", "pick", class_name="android.widget.Button", text="OK", flags=["clickable"]))
    transitions.append(TransitionRow("pick", "big", "pick/ok"))
    return screens, elements, transitions


def _empty_label_caches() -> None:
    from appmem.graph import vocabulary

    for value in vars(vocabulary).values():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()


def measure(n: int, repeat: int) -> dict:
    """Best-of-`repeat` CPU seconds of each phase on the synthetic app of size `n`, and a digest of its output."""
    from appmem.semantic.contexts import build_contexts
    from appmem.semantic.meaning import meaning
    from appmem.semantic.summaries import DeterministicSummarizer

    app = synthetic_app(n)
    best = {"contexts": float("inf"), "summaries": float("inf"), "meaning": float("inf")}
    for _ in range(repeat):
        _empty_label_caches()
        t0 = time.process_time()
        contexts = build_contexts(*app)
        t1 = time.process_time()
        summaries = DeterministicSummarizer().summarize(contexts)
        t2 = time.process_time()
        parts = [meaning(c, e) for c in contexts for e in c.elements]
        t3 = time.process_time()
        for phase, seconds in (("contexts", t1 - t0), ("summaries", t2 - t1), ("meaning", t3 - t2)):
            best[phase] = min(best[phase], seconds)
    body = json.dumps([[asdict(c) for c in contexts], [s.model_dump() for s in summaries], parts], sort_keys=True)
    return {"n": n, "elements": len(app[1]), **best, "digest": hashlib.sha256(body.encode()).hexdigest()[:16]}


def run_tree(tree: Path, sizes: list[int], repeat: int) -> list[dict]:
    """`measure` of each size in a fresh process that imports appmem from `tree` (a checkout)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    rows = []
    for n in sizes:
        done = subprocess.run([sys.executable, "-P", str(Path(__file__).resolve()), "--measure", str(n),
                               "--repeat", str(repeat)], cwd=tree, env=env, capture_output=True, text=True,
                              timeout=3600)
        if done.returncode:
            raise RuntimeError(f"measuring {n} elements in {tree}: {done.stderr[-2000:]}")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return rows


def baseline_tree(ref: str, folder: Path) -> Path:
    tree = folder / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ref], check=True,
                   capture_output=True, text=True)
    return tree


def per_element(row: dict, phase: str) -> float:
    return 1e6 * row[phase] / row["elements"]


def table_rows(now: list[dict], base: dict[int, dict]) -> list[list[str]]:
    """Per size: µs per element of each phase (the baseline's in brackets), the total, its growth, same output."""
    phases = ("contexts", "summaries", "meaning")
    first = sum(per_element(now[0], p) for p in phases)
    rows = []
    for r in now:
        b = base.get(r["n"])
        cells = [f"{per_element(r, p):.1f}" + (f" ({per_element(b, p):.1f})" if b else "") for p in phases]
        total = sum(per_element(r, p) for p in phases)
        old = sum(per_element(b, p) for p in phases) if b else None
        rows.append([r["elements"], *cells, f"{total:.1f}" + (f" ({old:.1f}, {old / total:.1f}× faster)"
                                                               if old else " (not run)"),
                     f"×{total / first:.2f}", "yes" if b and b["digest"] == r["digest"] else "NO" if b else "-"])
    return rows


def main() -> None:
    from appmem.bench.common import BenchParser, positive_ints

    parser = BenchParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=positive_ints, default=[10, 30, 100, 300, 1000, 2000])
    parser.add_argument("--baseline", default="main", help="git commit or branch measured in the same run")
    parser.add_argument("--baseline-up-to", type=int, default=1000, help="largest size the baseline runs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.repeat)))
        return
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start; CPU time of one process, "
          f"best of {args.repeat}", flush=True)
    now = run_tree(ROOT, args.sizes, args.repeat)
    with tempfile.TemporaryDirectory(prefix="appmem-summarize-scale-") as tmp:
        tree = baseline_tree(args.baseline, Path(tmp))
        try:
            before = run_tree(tree, [n for n in args.sizes if n <= args.baseline_up_to], args.repeat)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
    from appmem.bench.common import markdown_table, write_results  # not in `--measure` runs: a baseline lacks them

    base = {r["n"]: r for r in before}
    rows = table_rows(now, base)
    table = markdown_table(["elements", "contexts", "summaries", "meaning", "total", "total × the smallest",
                            "same output"], rows)
    print(f"\nµs per element, this checkout ({args.baseline} in brackets, measured in the same run)\n")
    print(table)
    write_results("summarize_scale", table, {"now": now, "baseline": before},
                  f"the summarizer of {args.baseline} (a temporary git worktree) on the same synthetic screens, "
                  f"up to {args.baseline_up_to} elements",
                  f"µs of CPU per element, best of {args.repeat}; {args.baseline}'s figures in brackets")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
