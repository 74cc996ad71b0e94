"""CLI: `appmem run --task TEXT --serial S ...`: execute a task on a device with plans from the memory."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="execute a task on a device: plan, act, check, re-plan, contribute the trace")
    p.add_argument("--task", required=True)
    p.add_argument("--app", help="package or short app name (default: the planner chooses)")
    p.add_argument("--serial", required=True, help="adb serial of the device")
    p.add_argument("--adb-host", default="127.0.0.1")
    p.add_argument("--adb-port", type=int, default=5037)
    p.add_argument("--server", help="API base URL (default: plan from the local stores)")
    p.add_argument("--key", help="API key for --server (or APPMEM_KEY)")
    p.add_argument("--yes", action="store_true", help="confirm risky steps without asking")
    p.add_argument("--max-steps", type=int, default=30)
    p.add_argument("--trace-out", type=Path, help="also write the run trace JSON (appmem-run/1) here")
    p.add_argument("--no-contribute", action="store_true", help="do not send the trace to the memory")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_run)


def confirmer(yes: bool):
    """Risky steps: confirmed by --yes, else asked on a terminal, else denied."""
    def confirm(step: dict[str, Any]) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            return False
        label = (step.get("element") or {}).get("label") or step.get("action")
        return input(f"risky step: {step['action']} {label!r}. Go ahead? [y/N] ").strip().lower() in ("y", "yes")
    return confirm


def contribute_locally(settings: Settings, memory, run: dict[str, Any]) -> str:
    from ingest.run import ingest_run, validate_run

    return ingest_run(memory.store, validate_run(run, "run"), "local", settings.ingest_chunk_steps)[0]["trace_id"]


def run_run(settings: Settings, args: argparse.Namespace) -> int:
    import adbutils

    from runtime.runtime import Runtime, describe
    from runtime.stepwise import make_llm_step
    from device.driver import DeviceDriver

    device = adbutils.AdbClient(args.adb_host, args.adb_port).device(args.serial)
    driver = DeviceDriver(device, args.serial)
    from agent.service import open_backend

    memory = open_backend(settings, args.server, args.key)
    try:
        runtime = Runtime(driver, memory, confirmer(args.yes), max_steps=args.max_steps,
                          llm_step=make_llm_step(settings))
        result = runtime.run(args.task, args.app)
        run = result.pop("run")
        if args.trace_out:
            args.trace_out.write_text(json.dumps(run, ensure_ascii=False))
        result["trace_id"] = None
        if not args.no_contribute and run["steps"]:
            result["trace_id"] = (memory.contribute(run).trace_id if args.server or settings.server
                                  else contribute_locally(settings, memory, run))
    finally:
        memory.close()
    emit(args, result, describe)
    return 0 if result["status"] == "done" else 1
