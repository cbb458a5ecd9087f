"""Measures: one module per family (spec + vectorised kernel); see :mod:`rankviz.measures.spec`."""

from rankviz.measures import ap, err, hits, ndcg, precision, recall, rr  # noqa: F401  (register families)
from rankviz.measures.spec import FAMILIES, Family, Measure, Param, make, parse

__all__ = ["FAMILIES", "Family", "Measure", "Param", "make", "parse"]
