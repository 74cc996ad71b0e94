"""The per-device virtual filesystem of a twin: what `uiautomator dump`,
`screencap FILE` and `sync:` SEND write, and what `sync:` STAT/LIST/RECV, `cat`
and `ls` read. Flat: files by absolute path; a folder exists when it is a
standard Android folder or holds a file.
"""
from __future__ import annotations

import posixpath
import stat
import time
from dataclasses import dataclass

BASE_DIRS = ("/", "/data", "/data/local", "/data/local/tmp", "/sdcard", "/storage", "/storage/emulated",
             "/storage/emulated/0", "/system", "/system/bin")
DIR_MODE = stat.S_IFDIR | 0o771
DIR_MTIME = 1_700_000_000  # folders are as old as the (imaginary) system image


@dataclass(frozen=True)
class FileStat:
    mode: int
    size: int
    mtime: int


@dataclass
class _File:
    data: bytes
    mode: int
    mtime: int


class VirtualFS:
    """Files of one device. Not thread-safe on its own: the device lock guards it."""

    def __init__(self) -> None:
        self._files: dict[str, _File] = {}

    @staticmethod
    def norm(path: str) -> str:
        return posixpath.normpath("/" + path.lstrip("/")) if path else "/"

    def write(self, path: str, data: bytes, mode: int = 0o644, mtime: int | None = None) -> None:
        self._files[self.norm(path)] = _File(data, stat.S_IFREG | (mode & 0o7777),
                                             int(time.time()) if mtime is None else mtime)

    def read(self, path: str) -> bytes | None:
        f = self._files.get(self.norm(path))
        return None if f is None else f.data

    def remove(self, path: str) -> bool:
        """Remove a file, or every file under a folder; False when nothing was there."""
        path = self.norm(path)
        doomed = [p for p in self._files if p == path or p.startswith(path.rstrip("/") + "/")]
        for p in doomed:
            del self._files[p]
        return bool(doomed)

    def is_dir(self, path: str) -> bool:
        path = self.norm(path)
        prefix = path.rstrip("/") + "/"
        return path in BASE_DIRS or any(p.startswith(prefix) for p in self._files)

    def stat(self, path: str) -> FileStat | None:
        path = self.norm(path)
        f = self._files.get(path)
        if f is not None:
            return FileStat(f.mode, len(f.data), f.mtime)
        if self.is_dir(path):
            return FileStat(DIR_MODE, 4096, DIR_MTIME)
        return None

    def listdir(self, path: str) -> dict[str, FileStat] | None:
        """Entries of a folder by name, None when it is not a folder."""
        path = self.norm(path)
        if not self.is_dir(path):
            return None
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/", 1)[0] for p in list(self._files) + list(BASE_DIRS)
                 if p.startswith(prefix) and p != prefix}
        return {name: st for name in sorted(names) if (st := self.stat(prefix + name)) is not None}
