"""The C allocator's settings in the processes rankviz owns (the command line, the server
``rankviz app`` starts): a large array freed is reused by the next one instead of handed back to the
kernel.

glibc hands back every block over 32 MB when it is freed, so each of the dozens of arrays of a
7M-line run pass (56 MB each) arrives as fresh pages the kernel faults in and zeroes: on the 2-core
VMs measured, ``rankviz evaluate`` of an MS MARCO-sized run spent 1.1-2.7 s in the kernel for 2.6 s
of its own work, and 0.5-0.7 s with freed blocks kept (the same peak memory within 5%). A library
import leaves the caller's allocator alone.
"""

from __future__ import annotations

import ctypes
import os
import platform

#: what glibc reads at a process's start (``rankviz app``'s server): blocks up to 1 GiB come from
#: the heap, up to 256 MiB of free memory is kept at its top, and threads share one heap (Streamlit
#: runs each page in a thread of its own, whose heap could not hold such blocks)
TUNABLES = (
    "glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=268435456:"
    "glibc.malloc.arena_max=1"
)

# mallopt's parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8


def reuse_freed_memory() -> None:
    """The settings of :data:`TUNABLES` for this process, from now on (call it before threads
    start); nothing where the C library is not glibc or ``GLIBC_TUNABLES`` chose already."""
    if platform.libc_ver()[0] != "glibc" or "GLIBC_TUNABLES" in os.environ:
        return
    mallopt = ctypes.CDLL(None).mallopt
    mallopt(_M_MMAP_THRESHOLD, 2**30)
    mallopt(_M_TRIM_THRESHOLD, 2**28)
    mallopt(_M_ARENA_MAX, 1)


def server_environment() -> dict[str, str]:
    """This process's environment with :data:`TUNABLES` for a process it starts (unless chosen)."""
    environment = dict(os.environ)
    environment.setdefault("GLIBC_TUNABLES", TUNABLES)
    return environment
