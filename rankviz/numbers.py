"""How numbers read to people, the same in the command line's tables and on the pages."""

from __future__ import annotations

P_FLOOR = 1e-4


def p_text(p: float) -> str:
    """A p-value as a reader wants it: 4 significant digits, ``< 1e-4`` below that (a resampling
    test's smallest p is 1 / (resamples + 1), a number nobody should read to four digits)."""
    if p != p:
        return "n/a"
    return "< 1e-4" if p < P_FLOOR else f"{p:.4g}"
