"""CLI: `appmem twins serve DIR... [--devices N] [--profile P] [--twin-version N] [--twin-replay M]
[--host H] [--port P] [--json]`.

Serves twin devices of recorded DroidBot folders on an adb server port until
Ctrl-C or SIGTERM. Point any adb client at it: `ANDROID_ADB_SERVER_PORT=P adb devices`,
or `adbutils.AdbClient("127.0.0.1", P)`. Registered through `appmem/cli.py` COMMAND_MODULES.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from appmem.arguments import count, port_or_free
from appmem.output import emit
from appmem.settings import Settings
from appmem.twins.modes import EXACT, MODES


def register(subparsers: argparse._SubParsersAction) -> None:
    twins = subparsers.add_parser("twins", help="app twins: recorded apps served as adb devices")
    actions = twins.add_subparsers(dest="twins_command", required=True)
    serve = actions.add_parser("serve", help="serve twin devices over the adb server protocol until Ctrl-C")
    serve.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="DroidBot output folders, one per app")
    serve.add_argument("--devices", type=count, default=1, metavar="N", help="number of devices (default 1)")
    add_twin_options(serve, prefix="")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=port_or_free, default=0, metavar="P", help="port (default: a free one)")
    serve.add_argument("--json", action="store_true")
    serve.set_defaults(handler=run_serve)
    crawl = subparsers.choices.get("crawl")  # `appmem crawl --twins` gets the twins' options when twins ship
    if crawl is not None:
        add_twin_options(crawl, prefix="twin-")


def add_twin_options(parser: argparse.ArgumentParser, prefix: str) -> None:
    """--profile/--twin-version (serve) or --twin-profile/--twin-version (crawl)."""
    parser.add_argument(f"--{prefix}profile", default="recorded", metavar="P",
                        help="device profile, comma-separated: recorded (default), small, tablet, dynamic")
    parser.add_argument("--twin-version", type=count, default=1, metavar="N",
                        help="serve a derived update N of each recorded app (default 1: the recording)")
    parser.add_argument("--twin-seed", type=int, default=0, help="seed of profiles and updates (default 0)")
    parser.add_argument("--twin-replay", default=EXACT, choices=MODES,
                        help="what counts as a recorded input (twins/replay.py): exact (default: DroidBot's "
                             "state), similar (the same widget on a like screen of the same activity)")


def twin_fleet(folders: list[Path], devices: int, profile: str, version: int, seed: int,
               replay: str = EXACT) -> dict:
    """The twin devices the options describe (errors name the bad option)."""
    from appmem.errors import InvalidInput
    from appmem.twins.device import build_fleet
    from appmem.twins.profiles import Profile

    if version < 1:
        raise InvalidInput("--twin-version", "must be at least 1")
    return build_fleet(folders, devices, profile=Profile.parse(profile, seed), version=version, replay=replay)


def run_serve(settings: Settings, args: argparse.Namespace) -> int:
    from appmem.twins.adb_server import TwinServer

    if args.devices < 1:
        print("appmem: --devices must be at least 1", file=sys.stderr)
        return 2
    fleet = twin_fleet(args.folders, args.devices, args.profile, args.twin_version, args.twin_seed, args.twin_replay)
    server = TwinServer(fleet, host=args.host, port=args.port)
    port = server.start()
    first = next(iter(fleet.values()))
    payload = {"host": args.host, "port": port, "serials": list(fleet),
               "apps": {a.package: a.version for a in first.apps.values()}, "profile": args.profile,
               "replay": args.twin_replay, "display": f"{first.width}x{first.height}", "density": first.density}
    emit(args, payload, lambda p: (f"serving {len(p['serials'])} twin devices on {p['host']}:{p['port']} "
                                   f"(ANDROID_ADB_SERVER_PORT={p['port']})\n" + "\n".join(p["serials"])))
    sys.stdout.flush()
    stopped = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: stopped.set())
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
