"""The memory settings of the processes rankviz owns (the command line, the server ``rankviz app``
starts): a large array freed is reused by the next one instead of handed back to the kernel, in
small pages.

glibc hands back every block over 32 MB when it is freed, so each of the dozens of arrays of a
7M-line run pass (56 MB each) arrives as fresh pages the kernel faults in and zeroes; and numpy
asks for huge pages for every array over 4 MB, which the kernel of the 2-core VMs measured compacts
and zeroes at a high price. ``rankviz ties`` of two MS MARCO-sized runs took 29-31 CPU-s (14 s of
them in the kernel) with both defaults, 18-19 with freed blocks kept, and 12-13 (1.9 s in the
kernel) with small pages too; the peak memory stayed within 3%. A library import leaves the
caller's settings alone.
"""

from __future__ import annotations

import ctypes
import os
import platform

#: blocks up to this size (bytes) come from the heap, not from pages of their own
MMAP_THRESHOLD = 2**30
#: up to this much free memory (bytes) is kept at the heap's top
TRIM_THRESHOLD = 2**28

#: what glibc reads at a process's start (``rankviz app``'s server): :data:`MMAP_THRESHOLD`,
#: :data:`TRIM_THRESHOLD`, and threads share one heap (Streamlit runs each page in a thread of its
#: own, whose heap could not hold such blocks)
TUNABLES = (
    f"glibc.malloc.mmap_threshold={MMAP_THRESHOLD}:glibc.malloc.trim_threshold={TRIM_THRESHOLD}:"
    "glibc.malloc.arena_max=1"
)

# mallopt's parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8


def reuse_freed_memory() -> None:
    """This process's arrays in small pages (unless ``NUMPY_MADVISE_HUGEPAGE``, numpy's switch,
    chose), and the settings of :data:`TUNABLES` from now on (call it before threads start;
    nothing where the C library is not glibc or ``GLIBC_TUNABLES`` chose already)."""
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        _small_pages_for_arrays()
    if platform.libc_ver()[0] != "glibc" or "GLIBC_TUNABLES" in os.environ:
        return
    mallopt = ctypes.CDLL(None).mallopt
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    mallopt(_M_ARENA_MAX, 1)


def _small_pages_for_arrays() -> None:
    """numpy's switch of its huge-page advice (``numpy._core`` from numpy 2, ``numpy.core``
    before); nothing where a numpy has none."""
    import importlib

    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            switch = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if switch is not None:
            switch(False)
            return


def owned_process_settings() -> dict[str, str]:
    """What a process rankviz starts for its own work (the app's server, a local Dask cluster's
    workers) needs in its environment before it starts: :data:`TUNABLES` and small pages for
    numpy's arrays, each unless this process's environment chose."""
    chosen = {"GLIBC_TUNABLES": TUNABLES, "NUMPY_MADVISE_HUGEPAGE": "0"}
    return {name: value for name, value in chosen.items() if name not in os.environ}


def server_environment() -> dict[str, str]:
    """This process's environment for the server it starts, with :func:`owned_process_settings`."""
    return {**os.environ, **owned_process_settings()}
