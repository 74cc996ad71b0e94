"""CLI: `appmem run --task TEXT [--serial S] ...`: execute a task on a device with plans from the memory."""
from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import Any

from appmem.arguments import at_least, count, port
from appmem.errors import AppmemError, ConfigError, DeviceError, Interrupted
from appmem.output import emit
from appmem.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="execute a task on a device: plan, act, check, re-plan, contribute the trace")
    p.add_argument("--task", required=True)
    p.add_argument("--app", help="package or short app name (default: the planner chooses)")
    p.add_argument("--serial", help="adb serial of the device (default: the one device the adb server lists)")
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
    """Risky steps: confirmed by --yes, else asked on a terminal (on stderr: stdout carries the result), else denied."""
    def confirm(step: dict[str, Any]) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            return False
        label = (step.get("element") or {}).get("label") or step.get("action")
        print(f"risky step: {step['action']} {label!r}. Go ahead? [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    return confirm


class StopOnSignal:
    """SIGTERM or Ctrl-C during a run: the first stops it after its current device action (`check`, the runtime's
    progress hook, raises `Interrupted`), so its result and trace come out as usual; a second ends it at once."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self):
        self.signal: int | None = None
        self._before: dict[int, Any] = {}

    def __enter__(self) -> "StopOnSignal":
        self._before = {s: signal.signal(s, self._caught) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        self._restore()

    def _restore(self) -> None:
        for s, handler in self._before.items():
            signal.signal(s, handler)

    def _caught(self, signum: int, frame) -> None:
        self.signal = signum
        self._restore()

    def check(self, step: dict[str, Any]) -> None:
        if self.signal is not None:
            raise Interrupted(f"interrupted by {signal.Signals(self.signal).name} after step {step['index'] + 1}")


def contribute_locally(settings: Settings, memory, run: dict[str, Any]) -> str:
    from appmem.ingest.run import ingest_run, validate_run

    return ingest_run(memory.store, validate_run(run, "run"), "local", settings.ingest_chunk_steps,
                      settings.trust_quorum)[0]["trace_id"]


def sender(settings: Settings, memory, server: str | None):
    """How a trace is contributed: to the API server (its contribution id), else into the local graph."""
    if server:
        return lambda run: memory.contribute(run).trace_id
    return lambda run: contribute_locally(settings, memory, run)


def run_run(settings: Settings, args: argparse.Namespace) -> int:
    """The run's result JSON is printed whatever happens after the arguments are read: a device that does not
    answer, a signal, a trace that can be neither sent nor kept (then the result carries the trace itself). A device
    another run on this host holds is refused before anything is asked of it (device/lock.py)."""
    from appmem.device.driver import open_driver
    from appmem.device.lock import device_lock
    from appmem.agent.service import open_backend

    with contextlib.ExitStack() as held:
        try:
            serial = args.serial or only_serial(args.adb_host, args.adb_port, settings.device_timeout_s)
            held.enter_context(device_lock(settings.home, args.adb_host, args.adb_port, serial))
            memory = open_backend(settings, args.server, args.key)
        except AppmemError as exc:  # no device or several, the device in use by another run, no key, a bad store
            if not args.json:
                raise
            emit(args, {"status": "failed", "reason": f"{type(exc).__name__}: {exc}", "steps": []})
            return 2
        return _run_with(settings, args, open_driver(args.adb_host, args.adb_port, serial, settings.device_timeout_s),
                         memory)


def only_serial(host: str, port: int, timeout_s: float) -> str:
    """The serial of the one device the adb server lists, as `adb` takes it without -s; a DeviceError naming
    what it lists when that is no device or several."""
    from appmem.device.driver import AdbServer

    serials = AdbServer(host, port, timeout_s).serials()
    if len(serials) != 1:
        listed = ", ".join(serials) if serials else "no device"
        raise DeviceError(f"adb server {host}:{port} lists {listed}: pass --serial")
    return serials[0]


def _run_with(settings: Settings, args: argparse.Namespace, driver, memory) -> int:
    """The run on the held device: its result printed, its trace delivered; the exit status."""
    from appmem.runtime.runtime import Runtime
    from appmem.runtime.stepwise import make_llm_step
    from appmem.runtime.trace import describe

    with StopOnSignal() as stop:
        try:
            runtime = Runtime(driver, memory, confirmer(args.yes), max_steps=args.max_steps,
                              relaunches=args.relaunches, llm_step=make_llm_step(settings),
                              risky_words=settings.risky_words, progress=stop.check)
            result = runtime.run(args.task, args.app)
            deliver(settings, args, memory, result)
        finally:
            memory.close()
        emit(args, result, describe)
    if stop.signal is not None:
        return 128 + stop.signal
    return 0 if result["status"] == "done" else 1


def deliver(settings: Settings, args: argparse.Namespace, memory, result: dict[str, Any]) -> None:
    """Write the run's trace to --trace-out, send the outbox's kept traces, then this one (kept when that fails);
    how each went goes into `result`, with the trace itself when it could be neither sent nor kept."""
    from appmem.runtime.outbox import Outbox, malformed

    run = result.pop("run")
    result["trace_id"], result["contribution"] = None, "not sent (--no-contribute)" if args.no_contribute else ""
    if args.trace_out:
        try:
            args.trace_out.write_text(json.dumps(run, ensure_ascii=False))
        except OSError as exc:
            result["trace_out_error"] = f"{args.trace_out}: {exc}"
    if args.no_contribute:
        return
    server = args.server or settings.server
    send, outbox = sender(settings, memory, server), Outbox(settings.home)
    result["outbox"] = outbox.flush(server, send)  # earlier runs' kept traces first
    if not run["steps"]:
        result["contribution"] = "nothing to send: the run took no step"
        return
    try:
        result["trace_id"], result["contribution"] = send(run), "sent"
    except AppmemError as exc:  # refused or failed: kept, sent again by the next run or --flush
        try:
            kept = outbox.keep(server, run, str(exc), refusals=int(malformed(exc)))
        except ConfigError as unkept:
            result["contribution"], result["outbox_error"] = f"failed: {exc}; not kept (outbox_error)", str(unkept)
            if not args.trace_out or "trace_out_error" in result:
                result["run"] = run  # the one copy left
            return
        result["contribution"] = f"failed: {exc}; kept in {kept} (appmem contribute --flush)"


def register_contribute(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("contribute", help="send run traces again: those kept in the outbox (--flush)")
    p.add_argument("--flush", action="store_true", required=True,
                   help="send every trace kept in APPMEM_HOME/outbox for this --server (or the local memory)")
    p.add_argument("--server", help="API base URL (default: the local memory)")
    p.add_argument("--key", help="API key for --server (or APPMEM_API_KEY)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_contribute)


def run_contribute(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.runtime.outbox import Outbox
    from appmem.agent.service import open_backend

    memory = open_backend(settings, args.server, args.key)
    server = args.server or settings.server
    try:
        results = Outbox(settings.home).flush(server, sender(settings, memory, server))
    finally:
        memory.close()
    elsewhere = [r for r in results if r["status"] == "other_server"]
    ours = [r for r in results if r["status"] != "other_server"]
    summary = {"sent": sum(r["status"] == "sent" for r in ours),
               "kept": sum(r["status"] not in ("sent", "set_aside") for r in ours),
               "set_aside": sum(r["status"] == "set_aside" for r in ours),  # refused as malformed too often
               "traces": ours, "other_servers": len(elsewhere),  # not failures: they wait for their own server
               "other_server_urls": sorted({r["server"] or "local" for r in elsewhere})}
    emit(args, summary, describe_flush)
    return 0 if not summary["kept"] and not summary["set_aside"] else 1


def describe_flush(summary: dict[str, Any]) -> str:
    lines = [f"sent {summary['sent']}, kept {summary['kept']}"
             + (f", set aside {summary['set_aside']} (refused as malformed: outbox/refused)" if summary["set_aside"] else "")]
    lines += [f"  {r['status']}: {' '.join(filter(None, (r.get('trace_id'), r.get('error'))))}"
              for r in summary["traces"]]
    if summary["other_servers"]:
        where = ", ".join("the local memory (no --server)" if url == "local" else url
                          for url in summary["other_server_urls"])
        lines.append(f"{summary['other_servers']} trace(s) wait for another server, left in the outbox: {where} "
                     "(flush them with --server URL)")
    return "\n".join(lines)
