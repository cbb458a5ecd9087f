"""Parameters shared by several measure families (``rel`` is defined with every other option in
:mod:`rankviz.settings.eval_settings`)."""

import numpy as np

from rankviz.settings.eval_settings import REL
from rankviz.settings.options import Option

RELATIVE = Option(
    "relative",
    False,
    "divide by the most relevant documents the top K (or the set) could hold, min(K, R): "
    "trec_eval relative_P and set_relative_P",
    kind=bool,
    choices=(False, True),
)


def gain_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """The gain of each grade (``gain`` as :data:`rankviz.settings.eval_settings.GAIN` names it:
    linear ``g`` or exponential ``2^g - 1``); a negative grade gains 0."""
    positive = np.maximum(grades, 0).astype(np.float64)
    return positive if gain == "linear" else np.exp2(positive) - 1.0


__all__ = ["REL", "RELATIVE", "gain_of"]
