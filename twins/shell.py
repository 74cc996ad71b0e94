"""The shell of a twin device: a command line → stdout, stderr, exit code.

A small sh: `;`, `&&`, `||`, `&` (run in order), pipes into `grep`/`head`,
`> FILE`/`>> FILE` into the device files, `2>&1` and `2>/dev/null` accepted,
`$?` expanded. Commands: uiautomator dump, input (tap, swipe, text, keyevent),
am (start, force-stop, broadcast), monkey -p, dumpsys (window, activity,
display, package, power, battery), wm size/density, getprop, pm (list
packages, path, clear), screencap, echo, cat, ls, rm, mkdir, true, false,
grep, head. Anything else answers like Android's sh: exit 127 and
`/system/bin/sh: NAME: inaccessible or not found` on stderr.

This module owns the command line (parsing, connectors, pipes, redirects) and
the table of commands; the commands themselves are in twins/shell_ui.py,
twins/shell_system.py and twins/shell_files.py.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from appmem.twins import shell_files, shell_system, shell_ui
from appmem.twins.device import TwinDevice
from appmem.twins.shell_result import SH, Handler, ShellResult

_STDERR_REDIRECT = re.compile(r"(?<![\w'\"])2>(?:&1|\s*/dev/null)")
_CONNECTORS = (";", "&&", "||", "&")
_REDIRECTS = (">", ">>", "1>", "<")


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


COMMANDS: dict[str, Handler] = {
    "uiautomator": shell_ui.uiautomator,
    "input": shell_ui.input,
    "am": shell_ui.am,
    "monkey": shell_ui.monkey,
    "screencap": shell_ui.screencap,
    "dumpsys": shell_system.dumpsys,
    "wm": shell_system.wm,
    "getprop": shell_system.getprop,
    "pm": shell_system.pm,
    "echo": shell_files.echo,
    "cat": shell_files.cat,
    "ls": shell_files.ls,
    "rm": shell_files.rm,
    "mkdir": lambda device, args, stdin: ShellResult(),
    "true": lambda device, args, stdin: ShellResult(),
    "false": lambda device, args, stdin: ShellResult(exit_code=1),
    "grep": shell_files.grep,
    "head": shell_files.head,
}
