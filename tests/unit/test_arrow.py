"""The buffer-level NumPy <-> Arrow conversions that keep pandas out of the command line's path."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankviz._arrow import from_numpy, string_keys, take_sorted, to_numpy


@given(
    values=st.lists(st.integers(-(2**40), 2**40), max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=4),
    window=st.tuples(st.integers(0, 30), st.integers(0, 30)),
)
def test_to_numpy_reads_chunks_and_slices(values, cuts, window) -> None:
    bounds = sorted({0, len(values), *(c for c in cuts if c <= len(values))})
    chunked = pa.chunked_array(
        [pa.array(values[a:b], pa.int64()) for a, b in zip(bounds, bounds[1:])], pa.int64()
    )
    start = min(window[0], len(values))
    length = min(window[1], len(values) - start)
    assert to_numpy(chunked).tolist() == values
    assert (
        to_numpy(pa.array(values, pa.int64()).slice(start, length)).tolist()
        == values[start : start + length]
    )


def test_to_numpy_fills_nulls_only_when_asked() -> None:
    with_nulls = pa.array([1, None, 3, None, 5, 6, 7, 8, 9, None], pa.int32()).slice(1)
    assert to_numpy(with_nulls, fill=-1).tolist() == [-1, 3, -1, 5, 6, 7, 8, 9, -1]
    with pytest.raises(ValueError, match="nulls"):
        to_numpy(with_nulls)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_from_numpy_round_trips(dtype) -> None:
    values = np.arange(7, dtype=dtype)[::2]  # not contiguous: copied first
    assert to_numpy(from_numpy(values)).tolist() == values.tolist()
    assert from_numpy(values).type == pa.from_numpy_dtype(dtype)


@given(
    values=st.lists(st.text(max_size=3), max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=5),
    picks=st.sets(st.integers(0, 29)),
)
def test_take_sorted_equals_take(values, cuts, picks) -> None:
    bounds = sorted({0, len(values), *(c for c in cuts if c <= len(values))})
    chunked = pa.chunked_array(
        [pa.array(values[a:b], pa.string()) for a, b in zip(bounds, bounds[1:])], pa.string()
    )
    indices = np.array(sorted(i for i in picks if i < len(values)), dtype=np.int64)
    assert take_sorted(chunked, indices).to_pylist() == [values[i] for i in indices]
    assert take_sorted(pa.array(values, pa.string()), indices).to_pylist() == [
        values[i] for i in indices
    ]


@pytest.mark.slow
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(st.text(alphabet="ab_0\u00e9", max_size=30), min_size=1, max_size=40),
    chunk=st.sampled_from([1, 3, 7, 65536]),
    cut=st.integers(0, 5),
)
def test_string_keys_depend_on_the_string_only(monkeypatch, texts, chunk, cut) -> None:
    """Equal strings get equal keys wherever they sit (block, slice, chunk); different ones of up to
    24 bytes differ (longer ones may share a key: their callers compare the strings)."""
    from rankviz import _arrow

    monkeypatch.setattr(_arrow, "_CHUNK", chunk)
    values = pa.array(texts, pa.string())
    keys = string_keys(values).tolist()
    for a, key_a in zip(texts, keys):
        for b, key_b in zip(texts, keys):
            if a == b or max(len(a.encode()), len(b.encode())) <= 24:
                assert (key_a == key_b) == (a == b), (a, b)
    sliced = values.slice(min(cut, len(texts) - 1))
    assert string_keys(sliced).tolist() == keys[min(cut, len(texts) - 1) :]
    chunked = (
        pa.chunked_array([values.slice(0, cut), values.slice(cut)])
        if cut < len(texts)
        else pa.chunked_array([values])
    )
    assert string_keys(chunked).tolist() == keys
    assert string_keys(pa.array(texts, pa.large_string())).tolist() == keys
    # a block of strings of one width takes strided views instead of gathers: same keys
    assert [string_keys(pa.array([text]))[0] for text in texts] == keys
    width = max(len(t) for t in texts)
    padded = [t.ljust(width, "_") for t in texts]
    assert string_keys(pa.array(padded)).tolist() == [
        string_keys(pa.array([t, t + "!"]))[0] for t in padded
    ]
    assert string_keys(values, bits=32).tolist() == [(k ^ (k >> 32)) & 0xFFFFFFFF for k in keys]


_ONE_CORE_CHECK = """
import threading
import pyarrow as pa
from rankviz._arrow import one_core, side_by_side

def where():
    return threading.current_thread() is threading.main_thread()

def fails():
    raise KeyError("held")

with side_by_side() as pool:
    assert not pool.submit(where).result()  # a thread of its own
one_core()
assert pa.cpu_count() == 1
with side_by_side() as pool:
    assert pool.submit(where).result()  # run in turn, in the caller's thread
    failed = pool.submit(fails)
try:
    failed.result()
except KeyError as exc:
    assert "held" in str(exc)
else:
    raise AssertionError("the task's error was lost")
print("ok")
"""


def test_one_core_runs_the_side_passes_in_turn_and_arrow_on_one_thread() -> None:
    """The drop-ins' process: Arrow's pool of one thread, a side pass run in the caller's thread
    when submitted (its error raised by ``result()``, as a thread's would be); before, a thread of
    its own. In a process of its own: the setting holds for the whole process."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _ONE_CORE_CHECK], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
