"""The benches' arguments: a bad `--apps` is one line naming it and what is allowed, exit 2, no traceback."""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from appmem.bench.common import droidbot_folders, shared_app_names

REPO = Path(__file__).resolve().parents[1]
BAD_APPS = {"runtime": "activitylauncher", "poison": "activitylauncher", "merge": "activitylauncher",
            "crawl": "activitylauncher", "capacity": "99", "serve": "10,many",
            "summarize_cores": "activitylauncher", "newplans": "activitylauncher",
            "serveheavy": "activitylauncher"}


@pytest.mark.parametrize("bench", sorted(BAD_APPS))
def test_a_bad_apps_value_is_one_clear_line_and_exit_2(bench):
    done = subprocess.run([sys.executable, "-m", f"appmem.bench.{bench}", "--apps", BAD_APPS[bench]],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "argument --apps:" in lines[0] and repr(BAD_APPS[bench]) in lines[0], done.stderr


@pytest.mark.skipif(not shared_app_names(), reason="the shared DroidBot set is not next to the repository")
def test_apps_are_shared_folder_names_or_droidbot_folder_paths(tmp_path):
    name = shared_app_names()[0]
    folder = tmp_path / "recording"
    folder.mkdir()
    (folder / "utg.js").write_text("var utg = {}")
    assert [p.name for p in droidbot_folders(f"{name}, {folder}")] == [name, "recording"]
    with pytest.raises(argparse.ArgumentTypeError, match=name):  # the message lists the names that are allowed
        droidbot_folders(str(tmp_path))


def test_buildcli_sizes_are_increasing_app_counts():
    from appmem.bench.buildcli import sizes

    assert sizes("6,30,120") == [6, 30, 120]
    for bad in ("30,6", "6,6", "", "0"):
        with pytest.raises(ValueError):
            sizes(bad)
