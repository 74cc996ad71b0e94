"""The shell of a twin device: a command line → stdout, stderr, exit code.

A small sh: `;`, `&&`, `||`, `&` (run in order), pipes into `grep`/`head`,
`> FILE`/`>> FILE` into the device files, `2>&1` and `2>/dev/null` accepted,
`$?` expanded. Commands: uiautomator dump, input (tap, swipe, text, keyevent),
am (start, force-stop, broadcast), monkey -p, dumpsys (window, activity,
display, package, power, battery), wm size/density, getprop, pm (list
packages, path, clear), screencap, echo, cat, ls, rm, mkdir, true, false,
grep, head. Anything else answers like Android's sh: exit 127 and
`/system/bin/sh: NAME: inaccessible or not found` on stderr.
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from formats.ui import stable_id
from twins.app import LAUNCHER_PACKAGE
from twins.device import TwinDevice

SH = "/system/bin/sh"
DEFAULT_DUMP = "/sdcard/window_dump.xml"
_STDERR_REDIRECT = re.compile(r"(?<![\w'\"])2>(?:&1|\s*/dev/null)")
_CONNECTORS = (";", "&&", "||", "&")
_REDIRECTS = (">", ">>", "1>", "<")
INPUT_SOURCES = {"touchscreen", "touchpad", "mouse", "keyboard", "dpad", "gamepad", "stylus", "trackball",
                 "joystick", "touchnavigation", "rotaryencoder", "keypad"}


@dataclass
class ShellResult:
    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int = 0
    interleaved: bytes | None = None  # stdout and stderr in the order written, when they alternate

    @property
    def output(self) -> bytes:
        """What a terminal (shell protocol v1) shows: both streams, in order."""
        return self.stdout + self.stderr if self.interleaved is None else self.interleaved

    @classmethod
    def ok(cls, text: str | bytes = "") -> "ShellResult":
        return cls(stdout=text.encode("utf-8") if isinstance(text, str) else text)

    @classmethod
    def error(cls, message: str, code: int = 1) -> "ShellResult":
        return cls(stderr=(message.rstrip("\n") + "\n").encode("utf-8"), exit_code=code)


@dataclass
class _Command:
    argv: list[str]
    redirect: str = ""  # "" or a path; "/dev/null" discards
    append: bool = False


def execute(device: TwinDevice, cmdline: str) -> ShellResult:
    """Run a command line on a device, atomically with respect to other shells on it."""
    try:
        sequence = _parse(cmdline)
    except ValueError as exc:
        return ShellResult.error(f"{SH}: syntax error: {exc}", 2)
    out = ShellResult(interleaved=b"")
    last = 0
    with device.lock:
        for connector, pipeline in sequence:
            if (connector == "&&" and last != 0) or (connector == "||" and last == 0):
                continue
            result = _run_pipeline(device, pipeline, last)
            out.stdout += result.stdout
            out.stderr += result.stderr
            out.interleaved = (out.interleaved or b"") + result.output
            last = result.exit_code
    out.exit_code = last
    return out


def _parse(cmdline: str) -> list[tuple[str, list[_Command]]]:
    lexer = shlex.shlex(_STDERR_REDIRECT.sub(" ", cmdline), posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    sequence: list[tuple[str, list[_Command]]] = []
    connector = ";"
    pipeline: list[_Command] = [_Command([])]
    tokens = list(lexer)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _CONNECTORS or tok == "|":
            if not pipeline[-1].argv:
                raise ValueError(f"unexpected {tok!r}")
            if tok == "|":
                pipeline.append(_Command([]))
            else:
                sequence.append((connector, pipeline))
                connector, pipeline = tok, [_Command([])]
        elif tok in _REDIRECTS:
            if i + 1 >= len(tokens):
                raise ValueError(f"no file after {tok!r}")
            if tok != "<":
                pipeline[-1].redirect, pipeline[-1].append = tokens[i + 1], tok == ">>"
            i += 1
        else:
            pipeline[-1].argv.append(tok)
        i += 1
    if pipeline[-1].argv:
        sequence.append((connector, pipeline))
    elif len(pipeline) > 1 or connector in ("&&", "||"):
        raise ValueError("unexpected end of command")
    return sequence


def _run_pipeline(device: TwinDevice, pipeline: list[_Command], last: int) -> ShellResult:
    stdin = b""
    stderr = b""
    result = ShellResult()
    for cmd in pipeline:
        result = _run_command(device, [a.replace("$?", str(last)) for a in cmd.argv], stdin)
        if cmd.redirect:
            if cmd.redirect != "/dev/null":
                previous = (device.files.read(cmd.redirect) or b"") if cmd.append else b""
                device.files.write(cmd.redirect, previous + result.stdout)
            result.stdout = b""
        stdin = result.stdout
        stderr += result.stderr
    return ShellResult(stdin, stderr, result.exit_code)


def _run_command(device: TwinDevice, argv: list[str], stdin: bytes) -> ShellResult:
    handler = COMMANDS.get(argv[0])
    if handler is None:
        return ShellResult.error(f"{SH}: {argv[0]}: inaccessible or not found", 127)
    return handler(device, argv[1:], stdin)


Handler = Callable[[TwinDevice, list[str], bytes], ShellResult]


# ---- UI commands ---------------------------------------------------------
def _uiautomator(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
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


def _input(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
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


def _am(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
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


def _monkey(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    package = args[args.index("-p") + 1] if "-p" in args[:-1] else ""
    if not package or not device.start_app(package):
        return ShellResult(stdout=b"  bash arg: -p\n", stderr=b"** No activities found to run, monkey aborted.\n",
                           exit_code=252)
    return ShellResult.ok("  bash arg: -p\nEvents injected: 1\n## Network stats: elapsed time=4ms\n")


def _screencap(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    files = [a for a in args if not a.startswith("-")]
    if "-d" in args:
        files = files[1:]
    png = device.screenshot()
    if files:
        device.files.write(files[0], png)
        return ShellResult.ok()
    return ShellResult.ok(png)


# ---- system information --------------------------------------------------
def _dumpsys(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    fg = device.foreground
    service = args[0] if args else ""
    token = stable_id(device.serial, fg.state_id)[:8]
    component = f"{fg.package}/{fg.activity}"
    if service == "window":
        return ShellResult.ok(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  Window #0 Window{{{token} u0 {component}}}:\n"
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{token} 1234:u0a10100}}\n"
            f"    mFrame=[0,0][{device.width},{device.height}]\n\n"
            f"  mCurrentFocus=Window{{{token} u0 {component}}}\n"
            f"  mFocusedApp=AppWindowToken{{{token} token=Token{{{token} "
            f"ActivityRecord{{{token} u0 {component} t1}}}}}}\n")
    if service == "activity":
        return ShellResult.ok(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            f"  mResumedActivity: ActivityRecord{{{token} u0 {component} t1}}\n"
            f"  ResumedActivity: ActivityRecord{{{token} u0 {component} t1}}\n"
            f"TASK 1\n  ACTIVITY {component} {token} pid=1234\n")
    if service == "display":
        w, h = device.width, device.height
        viewport = (f"DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', "
                    f"physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), "
                    f"physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}")
        return ShellResult.ok(f"DISPLAY MANAGER (dumpsys display)\n  mViewports=[{viewport}]\n"
                              f"  mDefaultViewport={viewport}\n")
    if service == "package" and len(args) > 1:
        app = device.apps.get(args[1])
        if app is None:
            return ShellResult.ok(f"Unable to find package: {args[1]}\n")
        return ShellResult.ok(
            f"Packages:\n  Package [{app.package}] ({token}):\n    userId=10100\n"
            f"    pkg=Package{{{token} {app.package}}}\n    codePath=/data/app/{app.package}-1\n"
            f"    versionCode={app.version_code} minSdk=21 targetSdk={device.sdk}\n    versionName={app.version}\n"
            f"    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n"
            f"    firstInstallTime=2024-01-01 00:00:00\n    lastUpdateTime=2024-01-01 00:00:00\n")
    if service == "power":
        return ShellResult.ok("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n"
                              "  mHoldingDisplaySuspendBlocker=true\n")
    if service == "battery":
        return ShellResult.ok("Current Battery Service state:\n  AC powered: true\n  USB powered: false\n"
                              "  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n"
                              "  voltage: 4200\n  temperature: 250\n  technology: Li-ion\n")
    return ShellResult.ok(f"Can't find service: {service}\n")


def _wm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["size"]:
        return ShellResult.ok(f"Physical size: {device.width}x{device.height}\n")
    if args[:1] == ["density"]:
        return ShellResult.ok(f"Physical density: {device.density}\n")
    return ShellResult.error("usage: wm [size|density]")


def _props(device: TwinDevice) -> dict[str, str]:
    return {
        "ro.build.version.sdk": str(device.sdk),
        "ro.sf.lcd_density": str(device.density),
        "ro.build.version.release": {29: "10", 30: "11", 31: "12", 33: "13", 34: "14"}.get(device.sdk, "10"),
        "ro.product.model": "appmem twin",
        "ro.product.name": "appmem_twin",
        "ro.product.device": "twin",
        "ro.product.manufacturer": "appmem",
        "ro.product.brand": "appmem",
        "ro.product.cpu.abi": "arm64-v8a",
        "ro.serialno": device.serial,
        "ro.build.type": "user",
        "ro.debuggable": "0",
        "sys.boot_completed": "1",
    }


def _getprop(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    props = _props(device)
    if args:
        return ShellResult.ok(props.get(args[0], args[1] if len(args) > 1 else "") + "\n")
    return ShellResult.ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))


def _pm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    sub = args[:2] if args[:1] == ["list"] else args[:1]
    if sub == ["list", "packages"]:
        flags = [a for a in args[2:] if a.startswith("-")]
        words = [a for a in args[2:] if not a.startswith("-")]
        packages = sorted(device.apps) + ([] if "-3" in flags else [LAUNCHER_PACKAGE])
        return ShellResult.ok("".join(f"package:{p}\n" for p in sorted(packages)
                                      if not words or words[0] in p))
    if sub == ["path"] and len(args) > 1:
        if args[1] not in device.apps:
            return ShellResult(exit_code=1)
        return ShellResult.ok(f"package:/data/app/{args[1]}-1/base.apk\n")
    if sub == ["clear"] and len(args) > 1:
        device.stop_app(args[1])
        return ShellResult.ok("Success\n")
    return ShellResult.error("usage: pm [list packages|path|clear] ...")


# ---- files and plain shell ------------------------------------------------
def _echo(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["-n"]:
        return ShellResult.ok(" ".join(args[1:]))
    return ShellResult.ok(" ".join(args) + "\n")


def _cat(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if not args:
        return ShellResult.ok(stdin)
    out = ShellResult()
    for path in args:
        data = device.files.read(path)
        if data is None:
            out.stderr += f"cat: {path}: No such file or directory\n".encode()
            out.exit_code = 1
        else:
            out.stdout += data
    return out


def _ls(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    paths = [a for a in args if not a.startswith("-")] or ["/data/local/tmp"]
    out = ShellResult()
    for path in paths:
        entries = device.files.listdir(path)
        if entries is not None:
            out.stdout += "".join(f"{name}\n" for name in entries).encode()
        elif device.files.stat(path) is not None:
            out.stdout += f"{path}\n".encode()
        else:
            out.stderr += f"ls: {path}: No such file or directory\n".encode()
            out.exit_code = 1
    return out


def _rm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    out = ShellResult()
    for path in (a for a in args if not a.startswith("-")):
        if not device.files.remove(path) and "f" not in flags:
            out.stderr += f"rm: {path}: No such file or directory\n".encode()
            out.exit_code = 1
    return out


def _grep(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return ShellResult.error("usage: grep [-E] PATTERN", 2)
    try:
        pattern = re.compile(words[0].encode())
    except re.error as exc:
        return ShellResult.error(f"grep: bad regex: {exc}", 2)
    lines = [line for line in stdin.splitlines(keepends=True) if pattern.search(line)]
    return ShellResult(stdout=b"".join(lines), exit_code=0 if lines else 1)


def _head(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    count = 10
    if args[:1] == ["-n"] and len(args) > 1 and args[1].isdigit():
        count = int(args[1])
    elif args and args[0].startswith("-") and args[0][1:].isdigit():
        count = int(args[0][1:])
    return ShellResult.ok(b"".join(stdin.splitlines(keepends=True)[:count]))


COMMANDS: dict[str, Handler] = {
    "uiautomator": _uiautomator,
    "input": _input,
    "am": _am,
    "monkey": _monkey,
    "screencap": _screencap,
    "dumpsys": _dumpsys,
    "wm": _wm,
    "getprop": _getprop,
    "pm": _pm,
    "echo": _echo,
    "cat": _cat,
    "ls": _ls,
    "rm": _rm,
    "mkdir": lambda device, args, stdin: ShellResult(),
    "true": lambda device, args, stdin: ShellResult(),
    "false": lambda device, args, stdin: ShellResult(exit_code=1),
    "grep": _grep,
    "head": _head,
}
