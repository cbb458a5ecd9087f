"""trec_eval's ``-Z``: each query's values as z-scores against a file of each (query, measure)'s
mean and standard deviation over some reference runs (``qid measure mean stddev`` per line), as its
``get_zscores.c`` reads it and ``convert_zscores.c`` applies it."""

from __future__ import annotations

from rankviz.errors import FormatError
from rankviz.io.sources import read_bounded
from rankviz.trec_eval.names import atof

#: what trec_eval gives a value without a mean and deviation (or off a deviation of 0)
MISSING = -1000000.0


def read_zscores(path: str) -> dict[str, dict[str, tuple[float, float]]]:
    """Each query's measures' (mean, stddev); one line naming the file and line when one is not
    four fields."""
    found: dict[str, dict[str, tuple[float, float]]] = {}
    text = read_bounded(path, path).decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if len(fields) != 4:
            raise FormatError(
                path,
                number,
                line,
                f"a z-scores line is 'qid measure mean stddev', not {len(fields)} fields",
            )
        qid, measure, mean, deviation = fields
        found.setdefault(qid, {})[measure] = (atof(mean), atof(deviation))
    return found


def zscore(value: float, reference: tuple[float, float] | None) -> float:
    """(value - mean) / stddev; a deviation of 0: 0 at the mean, else :data:`MISSING`."""
    if reference is None:
        return MISSING
    mean, deviation = reference
    if deviation:
        return (value - mean) / deviation
    return 0.0 if value == mean else MISSING
