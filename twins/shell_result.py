"""What a twin shell command answers (`ShellResult`), and the shape of a command's handler.

Apart from twins/shell.py (the command line) so that the command modules (twins/shell_ui.py,
twins/shell_system.py, twins/shell_files.py) need not import the shell that dispatches to them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from appmem.twins.device import TwinDevice

SH = "/system/bin/sh"


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


Handler = Callable[[TwinDevice, list[str], bytes], ShellResult]
