"""The twin shell's file and text commands on the device files (twins/vfs.py) and a pipe's input:
`echo`, `cat`, `ls`, `rm`, `grep` and `head`."""
from __future__ import annotations

import re

from appmem.twins.device import TwinDevice
from appmem.twins.shell_result import ShellResult


def echo(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["-n"]:
        return ShellResult.ok(" ".join(args[1:]))
    return ShellResult.ok(" ".join(args) + "\n")


def cat(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
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


def ls(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
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


def rm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    out = ShellResult()
    for path in (a for a in args if not a.startswith("-")):
        if not device.files.remove(path) and "f" not in flags:
            out.stderr += f"rm: {path}: No such file or directory\n".encode()
            out.exit_code = 1
    return out


def grep(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return ShellResult.error("usage: grep [-E] PATTERN", 2)
    try:
        pattern = re.compile(words[0].encode())
    except re.error as exc:
        return ShellResult.error(f"grep: bad regex: {exc}", 2)
    lines = [line for line in stdin.splitlines(keepends=True) if pattern.search(line)]
    return ShellResult(stdout=b"".join(lines), exit_code=0 if lines else 1)


def head(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    count = 10
    if args[:1] == ["-n"] and len(args) > 1 and args[1].isdigit():
        count = int(args[1])
    elif args and args[0].startswith("-") and args[0][1:].isdigit():
        count = int(args[0][1:])
    return ShellResult.ok(b"".join(stdin.splitlines(keepends=True)[:count]))
