"""CLI: `appmem run --task TEXT --serial S ...`: execute a task on a device with plans from the memory."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from appmem.arguments import at_least, count, port
from appmem.errors import AppmemError
from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="execute a task on a device: plan, act, check, re-plan, contribute the trace")
    p.add_argument("--task", required=True)
    p.add_argument("--app", help="package or short app name (default: the planner chooses)")
    p.add_argument("--serial", required=True, help="adb serial of the device")
    p.add_argument("--adb-host", default="127.0.0.1")
    p.add_argument("--adb-port", type=port, default=5037)
    p.add_argument("--server", help="API base URL (default: plan from the local stores)")
    p.add_argument("--key", help="API key for --server (or APPMEM_KEY)")
    p.add_argument("--yes", action="store_true", help="confirm risky steps without asking")
    p.add_argument("--max-steps", type=count, default=30)
    p.add_argument("--relaunches", type=at_least(0), default=1,
                   help="times a stuck run restarts the app and goes on from its launch screen (default 1; 0: never)")
    p.add_argument("--trace-out", type=Path, help="also write the run trace JSON (appmem-run/1) here")
    p.add_argument("--no-contribute", action="store_true", help="do not send the trace to the memory")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_run)
    register_contribute(sub)


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

    return ingest_run(memory.store, validate_run(run, "run"), "local", settings.ingest_chunk_steps,
                      settings.trust_quorum)[0]["trace_id"]


def sender(settings: Settings, memory, server: str | None):
    """How a trace is contributed: to the API server (its contribution id), else into the local graph."""
    if server:
        return lambda run: memory.contribute(run).trace_id
    return lambda run: contribute_locally(settings, memory, run)


def run_run(settings: Settings, args: argparse.Namespace) -> int:
    import adbutils

    from device.driver import DeviceDriver
    from agent.service import open_backend
    from runtime.outbox import Outbox
    from runtime.runtime import Runtime
    from runtime.trace import describe
    from runtime.stepwise import make_llm_step

    device = adbutils.AdbClient(args.adb_host, args.adb_port).device(args.serial)
    driver = DeviceDriver(device, args.serial)
    memory = open_backend(settings, args.server, args.key)
    outbox = Outbox(settings.home)
    try:
        runtime = Runtime(driver, memory, confirmer(args.yes), max_steps=args.max_steps, relaunches=args.relaunches,
                          llm_step=make_llm_step(settings), risky_words=settings.risky_words)
        result = runtime.run(args.task, args.app)
        run = result.pop("run")
        result["trace_id"], result["contribution"] = None, "not sent (--no-contribute)" if args.no_contribute else ""
        if args.trace_out:
            try:
                args.trace_out.write_text(json.dumps(run, ensure_ascii=False))
            except OSError as exc:
                result["trace_out_error"] = f"{args.trace_out}: {exc}"
        if not args.no_contribute:
            server = args.server or settings.server
            send = sender(settings, memory, server)
            result["outbox"] = outbox.flush(server, send)  # earlier runs' kept traces first
            if not run["steps"]:
                result["contribution"] = "nothing to send: the run took no step"
            else:
                try:
                    result["trace_id"], result["contribution"] = send(run), "sent"
                except AppmemError as exc:  # refused or failed: kept, sent again by the next run or --flush
                    kept = outbox.keep(server, run, str(exc))
                    result["contribution"] = f"failed: {exc}; kept in {kept} (appmem contribute --flush)"
    finally:
        memory.close()
    emit(args, result, describe)
    return 0 if result["status"] == "done" else 1


def register_contribute(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("contribute", help="send run traces again: those kept in the outbox (--flush)")
    p.add_argument("--flush", action="store_true", required=True,
                   help="send every trace kept in APPMEM_HOME/outbox for this --server (or the local memory)")
    p.add_argument("--server", help="API base URL (default: the local memory)")
    p.add_argument("--key", help="API key for --server (or APPMEM_API_KEY)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_contribute)


def run_contribute(settings: Settings, args: argparse.Namespace) -> int:
    from runtime.outbox import Outbox
    from agent.service import open_backend

    memory = open_backend(settings, args.server, args.key)
    server = args.server or settings.server
    try:
        results = Outbox(settings.home).flush(server, sender(settings, memory, server))
    finally:
        memory.close()
    elsewhere = [r for r in results if r["status"] == "other_server"]
    ours = [r for r in results if r["status"] != "other_server"]
    summary = {"sent": sum(r["status"] == "sent" for r in ours), "kept": sum(r["status"] != "sent" for r in ours),
               "traces": ours, "other_servers": len(elsewhere),  # not failures: they wait for their own server
               "other_server_urls": sorted({r["server"] or "local" for r in elsewhere})}
    emit(args, summary, describe_flush)
    return 0 if not summary["kept"] else 1


def describe_flush(summary: dict[str, Any]) -> str:
    lines = [f"sent {summary['sent']}, kept {summary['kept']}"]
    lines += [f"  {r['status']}: {r.get('trace_id') or r.get('error')}" for r in summary["traces"]]
    if summary["other_servers"]:
        where = ", ".join("the local memory (no --server)" if url == "local" else url
                          for url in summary["other_server_urls"])
        lines.append(f"{summary['other_servers']} trace(s) wait for another server, left in the outbox: {where} "
                     "(flush them with --server URL)")
    return "\n".join(lines)
