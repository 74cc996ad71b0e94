"""Contributed DroidBot tarballs, read defensively: limits are checked while reading, never after.

`walk` decompresses through a guard and asks tarfile for one member at a time
(`TarFile.next()`, never `getmembers()`), so a hostile archive stops at the first
limit it crosses:

- a single header read (a PAX or GNU long-name header is one read of its whole
  size) larger than MAX_HEADER,
- more than MAX_MEMBERS members,
- more than MAX_UNPACKED decompressed bytes, or one file larger than MAX_FILE,
- a compression ratio above MAX_RATIO once past RATIO_GRACE bytes (a gzip bomb),
- an absolute path, a `..`, or a member that is not a regular file or folder.

`clean_archive` is the API's dry run and what is parked: in memory only, it keeps
the JSON documents the importer reads (utg.js, states/*.json, events/*.json,
droidbot_env.json), scrubs their texts (ingest/privacy.py) and drops everything
else (screenshots, view images), then packs them again. `unpack` writes a cleaned
archive into a folder for the importer (the worker).
"""
from __future__ import annotations

import gzip
import io
import json
import tarfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from appmem.errors import InputFormatError
from appmem.formats.privacy import scrub_text
from appmem.formats.ui import view_text

MAX_HEADER = 64 * 1024
MAX_MEMBERS = 20_000
MAX_UNPACKED = 256 * 1024 * 1024
MAX_FILE = 64 * 1024 * 1024
MAX_RATIO = 200
RATIO_GRACE = 4 * 1024 * 1024
CHUNK = 64 * 1024
TEXT_KEYS = frozenset({"text", "content_description", "content-desc", "hint", "tooltip_text"})
KEPT_SUFFIXES = (".json", ".js")


def _bad(problem: str) -> InputFormatError:
    return InputFormatError("tarball", problem)


class _Guard(io.RawIOBase):
    """The decompressed stream, refusing a read or a seek that would cross a limit."""

    def __init__(self, data: bytes):
        self.compressed = len(data)
        self.gz = gzip.GzipFile(fileobj=io.BytesIO(data))
        self.pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def _check(self, end: int) -> None:
        if end > MAX_UNPACKED + MAX_HEADER * 4:
            raise _bad(f"unpacks to more than {MAX_UNPACKED} bytes")
        if end > RATIO_GRACE and end > MAX_RATIO * self.compressed:
            raise _bad(f"compression ratio above {MAX_RATIO}: not a recording")

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > max(MAX_HEADER, CHUNK):
            raise _bad(f"a header or read of {size} bytes (more than {MAX_HEADER})")
        self._check(self.pos + size)
        try:
            out = self.gz.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise _bad(f"not a gzip-compressed tar: {exc}") from None
        self.pos += len(out)
        return out

    def seek(self, offset: int, whence: int = 0) -> int:
        target = offset if whence == 0 else self.pos + offset if whence == 1 else None
        if target is None:
            raise _bad("cannot seek from the end of a stream")
        if target < self.pos:
            raise _bad("a member points backwards")
        while self.pos < target:  # skipping a member still decompresses it: counted like a read
            if not self.read(min(CHUNK, target - self.pos)):
                break
        return self.pos


def walk(data: bytes) -> Iterator[tuple[str, bytes | None]]:
    """(path, content) of each regular file, (path, None) of each folder, checking limits as it goes."""
    try:
        tar = tarfile.open(fileobj=_Guard(data), mode="r:")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise _bad(f"not a gzip-compressed tar: {exc}") from None
    count, total = 0, 0
    with tar:
        while True:
            try:
                member = tar.next()
            except (tarfile.TarError, EOFError, OSError, UnicodeError) as exc:
                raise _bad(f"malformed member after {count}: {exc}") from None
            if member is None:
                return
            count += 1
            if count > MAX_MEMBERS:
                raise _bad(f"more than {MAX_MEMBERS} members")
            path = PurePosixPath(member.name)
            if path.is_absolute() or ".." in path.parts:
                raise _bad(f"unsafe path {member.name[:200]!r}")
            if member.isdir():
                yield member.name, None
                continue
            if not member.isfile():
                raise _bad(f"{member.name[:200]!r} is not a regular file or folder")
            if member.size > MAX_FILE:
                raise _bad(f"{member.name[:200]!r} is larger than {MAX_FILE} bytes")
            total += member.size
            if total > MAX_UNPACKED:
                raise _bad(f"unpacks to more than {MAX_UNPACKED} bytes")
            src = tar.extractfile(member)
            parts = []
            while chunk := src.read(CHUNK):
                parts.append(chunk)
            yield member.name, b"".join(parts)


def _scrub(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, key) for v in value]
    if isinstance(value, str) and key in TEXT_KEYS:
        return scrub_text(view_text(value))
    return value


def _clean_json(name: str, content: bytes) -> bytes:
    text = content.decode("utf-8", errors="strict")
    prefix, body = "", text
    if name.endswith(".js"):  # utg.js: "var utg = {...}"
        start = text.find("{")
        if start < 0:
            raise _bad(f"{name}: no JSON object after 'var utg ='")
        prefix, body = text[:start], text[start:]
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as exc:
        raise _bad(f"{name}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return (prefix + json.dumps(_scrub(doc), ensure_ascii=False)).encode("utf-8")


def clean_archive(data: bytes) -> bytes:
    """The tarball's JSON documents, scrubbed, packed again (tar.gz); InputFormatError for a hostile or
    malformed archive or one without utg.js or states. Nothing is written to disk."""
    kept: list[tuple[str, bytes]] = []
    try:
        for name, content in walk(data):
            if content is not None and name.endswith(KEPT_SUFFIXES):
                kept.append((name, _clean_json(name, content)))
    except (UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise _bad(f"unreadable document: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not any(PurePosixPath(name).name == "utg.js" for name, _ in kept):
        raise _bad("no utg.js: not a DroidBot output folder")
    if not any(PurePosixPath(name).parent.name == "states" for name, _ in kept):
        raise _bad("no states/*.json: a DroidBot output folder keeps each state's views there")
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, content in kept:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return out.getvalue()


def unpack(data: bytes, dest: Path) -> Path:
    """Write an archive's files under `dest` (with the same limits); returns the folder holding utg.js."""
    for name, content in walk(data):
        target = dest.joinpath(*PurePosixPath(name).parts)
        if content is None:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    found = sorted(dest.rglob("utg.js"), key=lambda p: len(p.parts))
    if not found:
        raise _bad("no utg.js: not a DroidBot output folder")
    return found[0].parent
