"""When a file's stamp may stand for its content: git's rule for racy entries.

A file's stamp (modification and change time, size, inode) changes with any rewrite, and no tool
can set the change time back, so a cache may key what it read from a file on the stamp and never
read the file to find it. But a time is kept at its file system's resolution: one second on ext3,
ext4 with 128-byte inodes, HFS+, many NFS and SMB mounts, two on FAT and exFAT (and a tick of the
kernel's coarse clock everywhere). A file rewritten within that time of being read, in place or
deleted and written again (the inode reused, the length the same), keeps its stamp: a stamp taken
then names no content. So a stamp is trusted only once the file's times are older than
:data:`RESOLUTION_NS` at the moment it was taken (:func:`settled_stamp`); until then a cache reads
the file again, or keys it on its bytes (:func:`identity`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

#: mtime (ns), size, inode, ctime (ns)
Stamp = tuple[int, int, int, int]

#: the coarsest time a file system keeps: FAT's two seconds
RESOLUTION_NS = 2_000_000_000


def _stat(path: str | os.PathLike) -> os.stat_result:
    return os.stat(path)


def _now() -> int:
    return time.time_ns()


def stamp(path: str | os.PathLike) -> Stamp:
    """The file's stamp as it is now, trusted or not (see :func:`settled_stamp`)."""
    info = _stat(path)
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns


def settled_stamp(path: str | os.PathLike) -> Stamp | None:
    """The file's stamp, or None while it is racy: its modification or change time is not older
    than the file system's resolution when the stamp is taken, so a rewrite now could leave it as
    it is (a time in the future, a clock set back or another machine's, is racy too)."""
    now = _now()
    info = _stat(path)
    if now - max(info.st_mtime_ns, info.st_ctime_ns) < RESOLUTION_NS:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns


def identity(path: str | os.PathLike) -> str:
    """What names the file's content without reading it where that is safe: its settled stamp;
    while it is racy, the SHA-256 of its bytes (a folder: its stamp, its listing being what a
    caller reads of it)."""
    found = settled_stamp(path)
    if found is not None:
        return "stamp:" + ":".join(map(str, found))
    if not stat.S_ISREG(_stat(path).st_mode):
        return "stamp:" + ":".join(map(str, stamp(path)))
    digest = hashlib.sha256()
    with open(Path(path), "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return "content:" + digest.hexdigest()
