"""NumPy <-> Arrow for primitive arrays, through their buffers.

pyarrow's own conversions (``pa.array(ndarray)``, ``Array.to_numpy``, ``pa.scalar``) import pandas
on first use: 0.15 s that ``python -m rankviz evaluate`` would otherwise pay for nothing.
"""

from __future__ import annotations

import functools
import os
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import numpy as np
import pyarrow as pa

_TYPES = {
    np.dtype(np.int32): pa.int32(),
    np.dtype(np.int64): pa.int64(),
    np.dtype(np.float64): pa.float64(),
}


def to_numpy(values: pa.Array | pa.ChunkedArray, *, fill: int | float | None = None) -> np.ndarray:
    """A primitive Arrow array as NumPy (a view when it has one chunk); nulls become ``fill``.

    Chunks are copied into one NumPy array, not concatenated by Arrow: NumPy asks the kernel for
    huge pages, which a fresh process faults in several times faster (0.01 s instead of 0.06 s for
    7M floats here)."""
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            values = values.chunk(0)
        else:
            out = np.empty(len(values), dtype=np.dtype(values.type.to_pandas_dtype()))
            done = 0
            for chunk in values.chunks:
                out[done : done + len(chunk)] = to_numpy(chunk, fill=fill)
                done += len(chunk)
            return out
    dtype = np.dtype(values.type.to_pandas_dtype())
    validity, data = values.buffers()[:2]
    out = (
        np.frombuffer(data, dtype=dtype, count=len(values) + values.offset)[values.offset :]
        if data
        else np.zeros(0, dtype)
    )
    if values.null_count:
        if fill is None:
            raise ValueError("the array has nulls and no fill value was given")
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        out = np.where(bits[values.offset : values.offset + len(values)].astype(bool), out, fill)
    return out


def booleans(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow array as NumPy, from its bits (a null is False)."""
    if isinstance(values, pa.ChunkedArray):
        return (
            np.concatenate([booleans(c) for c in values.chunks])
            if values.num_chunks
            else np.zeros(0, bool)
        )
    validity, data = values.buffers()[:2]
    start, stop = values.offset, values.offset + len(values)
    if data is None:
        return np.zeros(len(values), bool)
    bits = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")[start:stop].astype(bool)
    if values.null_count:
        bits &= np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[
            start:stop
        ].astype(bool)
    return bits


def from_numpy(values: np.ndarray) -> pa.Array:
    """A 1-d int32 / int64 / float64 NumPy array as an Arrow array without nulls (zero copy)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [None, pa.py_buffer(values)])


def strings(values) -> pa.Array:
    """Python strings as an Arrow string array, built from its buffers: ``pa.array`` would import
    pandas (0.2 s) to look for pandas types, which the command line's path does without."""
    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def take(values: pa.Array | pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """``values.take(indices)`` in any order, chunk by chunk (see :func:`take_sorted`)."""
    indices = np.asarray(indices, dtype=np.int64)
    if isinstance(values, pa.Array):
        return values.take(from_numpy(indices))
    if len(indices) < 2 or bool(np.all(indices[1:] >= indices[:-1])):
        return take_sorted(values, indices)
    order = np.argsort(indices, kind="stable")
    picked = take_sorted(values, indices[order])
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return picked.take(from_numpy(back))


def take_sorted(values: pa.Array | pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """``values.take(indices)`` for ascending indices, chunk by chunk: Arrow's take on a chunked
    array first concatenates every chunk, a copy of the whole column to pick a few rows."""
    if isinstance(values, pa.Array):
        return values.take(from_numpy(indices))
    lengths = [len(chunk) for chunk in values.chunks]
    chunk_starts = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    bounds = np.searchsorted(indices, chunk_starts)
    parts = [
        chunk.take(from_numpy(indices[lo:hi] - start))
        for chunk, start, lo, hi in zip(values.chunks, chunk_starts, bounds[:-1], bounds[1:])
        if hi > lo
    ]
    return pa.concat_arrays(parts) if parts else pa.array([], values.type)


_K1, _K2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place."""
    h ^= h >> np.uint64(30)
    h *= _K2
    h ^= h >> np.uint64(27)
    h *= _K1
    h ^= h >> np.uint64(31)
    return h


def hashed(values: np.ndarray, salt: int) -> np.ndarray:
    """A pseudo-random 64-bit number per uint64 value, fixed by the value and the salt
    (splitmix64)."""
    return _mix(values ^ _mix(np.array([salt % 2**64], dtype=np.uint64)))


def paired_keys(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One 64-bit key per pair of uint64 keys (order matters)."""
    return _mix(first * _K1 + second)


# strings per block: every temporary stays in the cache, none faults in fresh pages
_CHUNK = 1 << 16


def string_keys(values: pa.Array | pa.ChunkedArray, *, bits: int = 64) -> np.ndarray:
    """A key per string (uint64, or uint32 folded from it with ``bits=32``): equal strings always
    get equal keys; with 64 bits, different strings of up to 24 bytes never share one, longer ones
    share one only when they agree in length, in their first 8 and in their last 16 bytes (where ids
    differ:
    ``msmarco_passage_07_120334``, ``clueweb09-en0000-00-00000``), so a caller that must be exact
    compares the strings of equal keys.

    Reads those bytes as three 8-byte words straight from the Arrow buffers: no Python object per
    string. Hashing 7M docids into a dictionary costs seconds; this costs three passes over the
    offsets.
    """
    keys = np.empty(len(values), dtype=np.uint64 if bits == 64 else np.uint32)
    done = 0
    for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
        _chunk_keys(chunk, keys[done : done + len(chunk)])
        done += len(chunk)
    return keys


def _chunk_keys(values: pa.Array, out: np.ndarray) -> None:
    wide = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
    offsets = np.frombuffer(values.buffers()[1], np.int64 if wide else np.int32)[
        values.offset : values.offset + len(values) + 1
    ]
    data = values.buffers()[2]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    # 8-byte reads at any byte offset; no read of a string of 8+ bytes passes the buffer's end
    words = np.ndarray(shape=(max(len(data) - 7, 0),), dtype=np.uint64, buffer=data, strides=(1,))
    for start in range(0, len(values), _CHUNK):
        bounds = offsets[start : start + _CHUNK + 1].astype(np.int64)
        keys = _block_keys(bounds[:-1], np.diff(bounds), data, words)
        if out.dtype == np.uint32:
            keys ^= keys >> np.uint64(32)
        out[start : start + _CHUNK] = keys  # uint32: the low half


def _block_keys(
    starts: np.ndarray, lengths: np.ndarray, data: np.ndarray, words: np.ndarray
) -> np.ndarray:
    """Keys of one block; a string's key depends on its bytes only, never on its neighbours."""
    width = int(lengths[0]) if len(lengths) else 0
    if len(lengths) and bool((lengths == width).all()):
        return _fixed_keys(int(starts[0]), len(lengths), width, data)
    long = lengths >= 8
    if long.all():
        return _word_keys(starts, lengths, words)
    keys = np.empty(len(lengths), dtype=np.uint64)
    keys[long] = _word_keys(starts[long], lengths[long], words)
    short = np.flatnonzero(~long)
    s, n = starts[short], lengths[short]
    h = n.astype(np.uint64)
    # up to 7 bytes, gathered one by one: nothing past a string read
    for i in range(int(n.max(initial=0))):
        inside = n > i
        byte = (
            data[np.where(inside, s + i, 0)].astype(np.uint64)
            if len(data)
            else np.zeros(len(n), np.uint64)
        )
        h = np.where(inside, h * _K1 + byte, h)
    keys[short] = _mix(h)
    return keys


def _word_keys(starts: np.ndarray, lengths: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Keys of strings of 8 bytes or more: their length, first 8 and last 16 bytes."""
    keys = lengths.astype(np.uint64)
    ends = starts + lengths
    for position in (starts, np.maximum(ends - 16, starts), ends - 8):
        keys *= _K1
        keys += words[position]
    return _mix(keys)


def _fixed_keys(first: int, n: int, width: int, data: np.ndarray) -> np.ndarray:
    """The keys of :func:`_block_keys` for ``n`` strings of one ``width`` laid end to end from byte
    ``first`` (``D0001234``, ``clueweb09-en0000-00-00000``): strided views instead of gathers."""
    if width >= 8:
        keys = np.full(n, width, dtype=np.uint64)
        for position in (0, max(width - 16, 0), width - 8):
            keys *= _K1
            keys += np.ndarray(
                shape=(n,), dtype=np.uint64, buffer=data, offset=first + position, strides=(width,)
            )
        return _mix(keys)
    h = np.full(n, width, dtype=np.uint64)
    if width:
        matrix = np.ndarray(
            shape=(n, width), dtype=np.uint8, buffer=data, offset=first, strides=(width, 1)
        )
        for i in range(width):
            h = h * _K1 + matrix[:, i]
    return _mix(h)


#: How long the app's server keeps the pages Arrow freed before handing them back to the kernel
#: (jemalloc's decay): the next run read reuses the last one's pages instead of faulting in fresh
#: ones the kernel zeroes. The Overview of 20 MS MARCO-sized runs from an empty store, 2026-12-05:
#: 44.6 CPU-s with Arrow's own decay (1.57x ``rankviz evaluate`` of the same runs, peak 1.4 GB),
#: 24.4-26.2 with 30 s (0.92-1.00x, peak 1.8 GB):
#: ``python bench/bench_app_scale.py --decay-ms arrow`` against the default.
SERVER_DECAY_MS = 30_000


def leading_words(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray] | None:
    """(each string's bytes as a big-endian uint64, zero-padded past its end; its length in bytes),
    read from the Arrow buffers: for strings of up to 8 bytes, the key that sorts as ``strcmp``
    (what :mod:`rankviz.io.id_keys` makes of ASCII ids), with no Python object per string. None
    where a string holds a NUL byte, which a zero-padded key cannot tell from its end, and for
    values that are not strings."""
    kinds = (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary)
    if not any(kind(values.type) for kind in (*kinds, pa.types.is_large_binary)):
        return None
    keys = np.empty(len(values), dtype=np.uint64)
    lengths = np.empty(len(values), dtype=np.int64)
    done = 0
    for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
        wide = pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type)
        offsets = np.frombuffer(chunk.buffers()[1], np.int64 if wide else np.int32)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ].astype(np.int64)
        # this chunk's bytes only (a slice of a larger array shares its buffer), 8 zeros after
        first, last = int(offsets[0]), int(offsets[-1])
        padded = np.zeros(last - first + 8, dtype=np.uint8)
        if last > first:
            padded[: last - first] = np.frombuffer(chunk.buffers()[2], np.uint8)[first:last]
        if bool((padded[: last - first] == 0).any()):
            return None
        # 8 bytes from each string's start, little-endian: its first byte lowest
        words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
        length = np.diff(offsets)
        word = words[offsets[:-1] - first]
        short = length < 8
        word[short] &= (np.uint64(1) << (8 * length[short]).astype(np.uint64)) - np.uint64(1)
        keys[done : done + len(chunk)] = word.byteswap()
        lengths[done : done + len(chunk)] = length
        done += len(chunk)
    return keys, lengths


@functools.cache  # once per process
def prefer_jemalloc(*, decay_ms: int | None = None) -> None:
    """Arrow's allocations from jemalloc (else the system allocator) instead of its default,
    mimalloc, unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses; ``decay_ms``: how long freed pages are
    kept (:data:`SERVER_DECAY_MS`). On the 2-core VMs measured, reading a 7M-line run with mimalloc
    spent 2-4 s in the kernel faulting in fresh pages (3.2 s in all); with jemalloc 0.7 s (1.4 s in
    all). Called by the command line and the app, the processes rankviz owns; a library import
    leaves the caller's allocator alone."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        if decay_ms is not None:  # before the pool's first arena: it holds for arenas made later
            pa.jemalloc_set_decay_ms(decay_ms)
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:  # a build without jemalloc (some platforms' wheels)
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)


#: set by :func:`one_core`: this process runs on one core
_ONE_CORE = threading.Event()


def one_core() -> None:
    """This process on one core, as trec_eval and ndeval run: Arrow's pool of one thread, and the
    passes :func:`side_by_side` would run two at a time run in turn. A pipeline runs one drop-in
    per run, side by side; inside one, handing work between threads costs CPU it never wins back
    (``rankviz trec-eval -q -m all_trec`` of 1M tied lines, Arrow on one thread: 1.42 CPU-s with
    the side passes on threads, 1.34 in turn, as trec_eval 10's; means of six runs, a /tmp
    script). Called by the drop-ins' command line; a library import and the other commands keep
    every core."""
    _ONE_CORE.set()
    pa.set_cpu_count(1)


class _InTurn(Executor):
    """An executor that runs each task when it is submitted (on one core, nothing runs beside)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # as a thread's future holds it, raised by result()
            done.set_exception(exc)
        return done


def side_by_side() -> Executor:
    """An executor for a pass over millions of rows beside the caller's (Arrow and NumPy release the
    GIL): one thread, or none after :func:`one_core`."""
    return _InTurn() if _ONE_CORE.is_set() else ThreadPoolExecutor(max_workers=1)
