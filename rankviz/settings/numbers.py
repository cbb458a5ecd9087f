"""How numbers read to people, the same in the command line's tables and on the pages, and as JSON
(:func:`to_json`: every report's, on the command line and in the app's downloads)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np

P_FLOOR = 1e-4

#: the seed of every draw unless another is given: the same command prints the same numbers on
#: every run (fresh entropy only when asked: a settings' seed of None, a Generator passed in)
DEFAULT_SEED = 0


def seed_text(seed: int | None) -> str:
    """How a footer says what a draw was seeded with: the seed (the same numbers on every run;
    ``--seed N`` gives others), or fresh entropy (asked for: other numbers each run)."""
    return "fresh entropy: other numbers each run" if seed is None else f"seed {seed}"


def seeded(rng: np.random.Generator | int | None) -> np.random.Generator:
    """``rng`` as a Generator: a Generator as it is, a seed seeded, None the default seed
    (:data:`DEFAULT_SEED`: a call that names none draws the same numbers every time; pass
    ``np.random.default_rng()`` for fresh entropy)."""
    return np.random.default_rng(DEFAULT_SEED if rng is None else rng)


#: Two sums of the same numbers in another order (another BLAS kernel, another CPU) differ in their
#: last bits: a decision (a sign, an order, a tie) takes values closer than this, relative to the
#: size of what was summed, as equal. Far above rounding (1e-16 a term), far below any digit a
#: measure reports.
ROUNDING = 1e-9


def decided_signs(totals, sizes) -> np.ndarray:
    """The signs of ``totals`` (sums or means), 0 where a total is within :data:`ROUNDING` of zero
    relative to ``sizes`` (the same sums of the terms' absolute values): a sign that the last bits
    of a sum would decide is no sign."""
    totals = np.asarray(totals, dtype=np.float64)
    return np.where(
        np.abs(totals) <= ROUNDING * np.asarray(sizes, dtype=np.float64), 0.0, np.sign(totals)
    )


def p_text(p: float) -> str:
    """A p-value as a reader wants it: 4 significant digits, ``< 1e-4`` below that (a resampling
    test's smallest p is 1 / (resamples + 1), a number nobody should read to four digits)."""
    if p != p:
        return "n/a"
    return "< 1e-4" if p < P_FLOOR else f"{p:.4g}"


def clean(value: object) -> object:
    """NumPy scalars as Python values and NaN as None, recursively (strict JSON has neither NaN nor
    infinity). An infinite value in a mapping is None too, with ``KEY_not_finite`` beside it
    saying which (``+inf``, ``-inf``): a division by zero is shown, never a crash or a number."""
    if isinstance(value, Mapping):
        cleaned: dict[str, object] = {}
        for key, item in value.items():
            cleaned[str(key)] = clean(item)
            if isinstance(item, (float, np.floating)) and math.isinf(item):
                cleaned[f"{key}_not_finite"] = "+inf" if item > 0 else "-inf"
        return cleaned
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if value is None or type(value).__name__ == "NAType":
        return None
    return value


def to_json(payload: object) -> str:
    return json.dumps(clean(payload), ensure_ascii=False, allow_nan=False) + "\n"
