"""`appmem ranker train` as a new user runs it (issue 16), each step its own `appmem` process on the real
stack: import two DroidBot recordings, summarise them, train; the ranker lands in the memory's folder with
its provenance, trained on synthetic tasks of the memory only."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import DROIDBOT, REPO

APPS = ("anupam.acrylic", "bluepie.ad_silence")


def appmem(env: dict, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "appmem.cli", *args, "--json"], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_ranker_command_trains_on_the_summarised_memory_and_records_its_provenance(store, stack_env):
    while store.write("delete_all")[0]["deleted"]:
        pass
    appmem(stack_env, "ingest", "droidbot", *(str(DROIDBOT / app) for app in APPS))
    appmem(stack_env, "summarize")
    folder = Path(stack_env["APPMEM_HOME"]) / "ranker"
    try:
        report = appmem(stack_env, "ranker", "train")
        assert report["trained"] and set(APPS) <= set(report["apps"]) and report["rows"] > 0
        assert report["synthetic_tasks"] > 0 and "synthetic" in report["training_data"] and report["commit"]
        assert (folder / "model.pkl").exists()
    finally:  # an installed ranker ranks every later plan of the session's memory (semantic/ranker.installed)
        shutil.rmtree(folder, ignore_errors=True)
