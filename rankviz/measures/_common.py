"""Parameters shared by several measure families (``rel`` is defined with every other option in
:mod:`rankviz.settings`)."""

from rankviz.options import Option
from rankviz.settings import REL

RELATIVE = Option(
    "relative",
    False,
    "divide by the most relevant documents the top K (or the set) could hold, min(K, R): "
    "trec_eval relative_P and set_relative_P",
    kind=bool,
    choices=(False, True),
)

__all__ = ["REL", "RELATIVE"]
