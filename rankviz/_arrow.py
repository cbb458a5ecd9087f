"""NumPy <-> Arrow for primitive arrays, through their buffers.

pyarrow's own conversions (``pa.array(ndarray)``, ``Array.to_numpy``, ``pa.scalar``) import pandas on
first use: 0.15 s that ``python -m rankviz evaluate`` would otherwise pay for nothing.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_TYPES = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}


def to_numpy(values: pa.Array | pa.ChunkedArray, *, fill: int | float | None = None) -> np.ndarray:
    """A primitive Arrow array as NumPy (a view when it has one chunk); nulls become ``fill``."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    dtype = np.dtype(values.type.to_pandas_dtype())
    validity, data = values.buffers()[:2]
    out = np.frombuffer(data, dtype=dtype, count=len(values) + values.offset)[values.offset :] if data else np.zeros(0, dtype)
    if values.null_count:
        if fill is None:
            raise ValueError("the array has nulls and no fill value was given")
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        out = np.where(bits[values.offset : values.offset + len(values)].astype(bool), out, fill)
    return out


def from_numpy(values: np.ndarray) -> pa.Array:
    """A 1-d int32 / int64 / float64 NumPy array as an Arrow array without nulls (zero copy)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [None, pa.py_buffer(values)])


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
