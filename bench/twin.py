"""Benchmark: app twin throughput, in-process and over the adb server protocol.

In-process: a seeded random walk over every shared DroidBot app (taps on
recorded elements, BACK, relaunches), through the device API and through the
shell interpreter. Over adb: `input tap` + `uiautomator dump` with the real
adbutils client from several threads (one device each), and raw protocol
requests (one connection per shell command, as adbutils opens them but without
its 10 ms close delay).

    .venv/bin/python -m appmem.bench.twin [--actions N] [--threads T] [--seconds S]
"""
from __future__ import annotations

import argparse
import random
import socket
import threading
import time
from pathlib import Path


import adbutils

from appmem.bench.common import markdown_table, write_results
from appmem.formats.ui import ActionType
from appmem.twins.adb_server import TwinServer
from appmem.twins.app import TwinApp
from appmem.twins.device import TwinDevice
from appmem.twins.shell import execute

DROIDBOT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "droidbot"


def walk_step(device: TwinDevice, rng: random.Random, via_shell: bool) -> None:
    """One exploration action: mostly a tap on a recorded element, sometimes BACK or a relaunch."""
    app = device.app
    roll = rng.random()
    if app is None or roll < 0.03:
        package = rng.choice(sorted(device.apps))
        if via_shell:
            execute(device, f"am start -n {package}/x")
        else:
            device.start_app(package)
    elif roll < 0.12:
        if via_shell:
            execute(device, "input keyevent KEYCODE_BACK")
        else:
            device.key("KEYCODE_BACK")
    else:
        state_id = device.foreground.state_id
        keys = sorted(app.acted.get((state_id, ActionType.TAP), ()))
        placed = {pv.key: pv for pv in app.placed[state_id]}
        targets = [placed[k].view.bounds.center for k in keys if k in placed]
        x, y = rng.choice(targets) if targets else (rng.randrange(device.width), rng.randrange(device.height))
        if via_shell:
            execute(device, f"input tap {x} {y}")
        else:
            device.tap(x, y)


def bench_in_process(apps: list[TwinApp], actions: int) -> list[list]:
    rows = []
    for via_shell in (False, True):
        device = TwinDevice("bench", apps)
        rng = random.Random(7)
        start = time.perf_counter()
        for _ in range(actions):
            walk_step(device, rng, via_shell)
        elapsed = time.perf_counter() - start
        total = sum(len(a.states) for a in apps)
        seen = sum(1 for pkg, _ in device.visited if pkg in device.apps)
        print(f"in-process {'shell ' if via_shell else 'API   '}: {actions / elapsed:9.0f} actions/s "
              f"({actions} actions, {seen}/{total} recorded states visited)")
        rows.append([f"in-process walk through the {'shell' if via_shell else 'device API'}",
                     f"{actions / elapsed:,.0f} actions/s", f"{actions} actions, {seen}/{total} recorded states visited"])
    device = TwinDevice("bench", apps)
    rng = random.Random(7)
    start = time.perf_counter()
    for _ in range(actions // 10):
        walk_step(device, rng, False)
        execute(device, "uiautomator dump /data/local/tmp/uidump.xml")
    elapsed = time.perf_counter() - start
    print(f"in-process tap+dump   : {actions // 10 / elapsed:9.0f} steps/s")
    rows.append(["in-process tap + uiautomator dump", f"{actions // 10 / elapsed:,.0f} steps/s", f"{actions // 10} steps"])
    return rows


def raw_shell(port: int, serial: str, command: str) -> bytes:
    """One shell command over the raw adb protocol (what adbutils sends, minus its close delay)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        for request in (f"host:transport:{serial}", f"shell:{command}"):
            data = request.encode()
            s.sendall(f"{len(data):04x}".encode() + data)
            if s.recv(4) != b"OKAY":
                raise RuntimeError(f"{request} refused")
        out = bytearray()
        while chunk := s.recv(65536):
            out += chunk
        return bytes(out)


def bench_adb(apps: list[TwinApp], threads: int, seconds: float) -> list[list]:
    rows = []
    fleet = {f"twin-{i:04d}": TwinDevice(f"twin-{i:04d}", apps) for i in range(1, threads + 1)}
    with TwinServer(fleet) as server:
        client = adbutils.AdbClient("127.0.0.1", server.port)

        def run(label: str, work) -> None:
            counts = [0] * threads
            deadline = time.perf_counter() + seconds

            def loop(i: int, serial: str) -> None:
                rng = random.Random(i)
                while time.perf_counter() < deadline:
                    work(serial, rng)
                    counts[i] += 1

            ts = [threading.Thread(target=loop, args=(i, s)) for i, s in enumerate(fleet)]
            start = time.perf_counter()
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            print(f"adb {label:<26}: {sum(counts) / (time.perf_counter() - start):9.0f} /s "
                  f"({threads} threads, {threads} devices)")
            rows.append([f"adb server protocol: {label}", f"{sum(counts) / (time.perf_counter() - start):,.0f} /s",
                         f"{threads} threads, {threads} devices, {seconds:g} s"])

        package = apps[0].package
        for serial in fleet:
            client.device(serial).app_start(package)
        run("adbutils click", lambda s, rng: client.device(s).click(rng.randrange(1080), rng.randrange(1920)))
        def click_and_dump(serial: str, rng: random.Random) -> None:
            device = client.device(serial)
            device.click(rng.randrange(1080), rng.randrange(1920))
            device.dump_hierarchy()

        run("adbutils click+dump", click_and_dump)
        run("raw protocol input tap", lambda s, rng: raw_shell(server.port, s,
                                                                f"input tap {rng.randrange(1080)} {rng.randrange(1920)}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    start = time.perf_counter()
    apps = [TwinApp.from_droidbot(folder) for folder in sorted(DROIDBOT.iterdir()) if folder.is_dir()]
    print(f"loaded {len(apps)} apps, {sum(len(a.states) for a in apps)} states in {time.perf_counter() - start:.1f}s")
    rows = bench_in_process(apps, args.actions) + bench_adb(apps, args.threads, args.seconds)
    write_results("twin", markdown_table(["what", "rate", "run"], rows),
                  {"apps": len(apps), "states": sum(len(a.states) for a in apps), "rows": rows},
                  "none (throughput of the simulator itself)",
                  "App twins are simulators replaying DroidBot recordings; this measures the simulator, not an app.")


if __name__ == "__main__":
    main()
