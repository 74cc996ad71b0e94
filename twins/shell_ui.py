"""The twin shell's UI commands: `uiautomator dump`, `input` (tap, swipe, text, keyevent), `am` (start,
force-stop, broadcast), `monkey -p` and `screencap`: the commands that read or move the screen."""
from __future__ import annotations

from appmem.twins.device import TwinDevice
from appmem.twins.shell_result import ShellResult

DEFAULT_DUMP = "/sdcard/window_dump.xml"
INPUT_SOURCES = {"touchscreen", "touchpad", "mouse", "keyboard", "dpad", "gamepad", "stylus", "trackball",
                 "joystick", "touchnavigation", "rotaryencoder", "keypad"}


def uiautomator(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if not args or args[0] != "dump":
        return ShellResult.error("Usage: uiautomator dump [--compressed] [FILE]\n(the twin supports dump only)")
    files = [a for a in args[1:] if not a.startswith("--")]
    path = files[0] if files else DEFAULT_DUMP
    if path == "/dev/tty":
        return ShellResult.ok(device.hierarchy() + "\n")
    device.files.write(path, device.hierarchy().encode("utf-8"))
    return ShellResult.ok(f"UI hierchary dumped to: {device.files.norm(path)}\n")


def _ints(values: list[str]) -> list[int] | None:
    try:
        return [int(float(v)) for v in values]
    except ValueError:
        return None


def input(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["-d"]:
        args = args[2:]
    if args and args[0] in INPUT_SOURCES:
        args = args[1:]
    usage = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]"
    if not args:
        return ShellResult.error(usage)
    command, rest = args[0], args[1:]
    if command == "tap" and len(rest) == 2 and (xy := _ints(rest)):
        device.tap(*xy)
    elif command in ("swipe", "draganddrop") and len(rest) in (4, 5) and (nums := _ints(rest)):
        device.swipe(*nums[:4], duration_ms=nums[4] if len(nums) == 5 else 300)
    elif command == "text" and rest:
        device.input_text(" ".join(rest).replace("%s", " "))
    elif command in ("keyevent", "press") and (rest or command == "press"):
        for code in [a for a in rest if a != "--longpress"] or ["KEYCODE_DPAD_CENTER"]:
            device.key(code)
    else:
        return ShellResult.error(f"Error: Invalid arguments for command: {command}\n{usage}")
    return ShellResult.ok()


def am(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if not args:
        return ShellResult.error("usage: am [subcommand] [options]")
    sub, rest = args[0], args[1:]
    if sub in ("start", "start-activity"):
        component = ""
        i = 0
        while i < len(rest):
            if rest[i] == "-n" and i + 1 < len(rest):
                component = rest[i + 1]
                i += 1
            elif rest[i] in ("-a", "-d", "-c", "-t", "--user", "-f", "-e", "--es", "--ei", "--ez"):
                i += 1 + (rest[i] in ("-e", "--es", "--ei", "--ez"))
            elif "/" in rest[i] and not rest[i].startswith("-") and not component:
                component = rest[i]
            i += 1
        if not component:
            return ShellResult.ok("Starting: Intent { }\n")
        package = component.split("/", 1)[0]
        if not device.start_app(package):
            return ShellResult(stdout=f"Starting: Intent {{ cmp={component} }}\n".encode(),
                               stderr=f"Error type 3\nError: Activity class {{{component}}} does not exist.\n".encode(),
                               exit_code=1)
        return ShellResult.ok(f"Starting: Intent {{ act=android.intent.action.MAIN cmp={component} }}\n")
    if sub in ("force-stop", "kill") and rest:
        device.stop_app(rest[-1])
        return ShellResult.ok()
    if sub == "broadcast":
        return ShellResult.ok("Broadcasting: Intent { }\nBroadcast completed: result=0\n")
    return ShellResult.error(f"Error: unknown command '{sub}'")


def monkey(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    package = args[args.index("-p") + 1] if "-p" in args[:-1] else ""
    if not package or not device.start_app(package):
        return ShellResult(stdout=b"  bash arg: -p\n", stderr=b"** No activities found to run, monkey aborted.\n",
                           exit_code=252)
    return ShellResult.ok("  bash arg: -p\nEvents injected: 1\n## Network stats: elapsed time=4ms\n")


def screencap(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    files = [a for a in args if not a.startswith("-")]
    if "-d" in args:
        files = files[1:]
    png = device.screenshot()
    if files:
        device.files.write(files[0], png)
        return ShellResult.ok()
    return ShellResult.ok(png)
