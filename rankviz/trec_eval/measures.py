"""trec_eval 10's measures whose printed numbers the catalogue's families do not give, for
``rankviz trec-eval``: ``relstring`` (a text), ``utility`` and ``unj`` (trec_eval's values on a
missed query and on -J's condensed list), and those that read its gain table
(:mod:`rankviz.trec_eval.gains`).

Each is computed step for step as trec_eval's C source computes it (its ``m_*.c``), on each query's
list of relevance values in trec_eval's order (:func:`rankviz.trec_eval.lists.query_lists`), so
that the doubles, and what trec_eval prints of them, are its own. They run at Python's pace, a loop
per document.
"""

from __future__ import annotations

import math
import re

import numpy as np

from rankviz.errors import OptionError
from rankviz.trec_eval.gains import GAIN_TABLES, GAINED, rbp_resids
from rankviz.trec_eval.lists import NONPOOL, UNJUDGED, QueryList, atof, atol

UNJ_CUTOFFS = (5, 10, 20)
UTILITY = (1.0, -1.0, 0.0, 0.0)
#: the measures computed here, and Rprec_mult, whose multiples are read here (the catalogue's
#: Rprec(mult=m) computes it)
MEASURES = ("relstring", "Rprec_mult", "utility", *GAIN_TABLES, "unj")


def parse_params(name: str, text: str) -> tuple:
    """A measure's parameters as trec_eval reads them (``atof``, ``atol``; cutoffs sorted), ``()``
    for its defaults; the text as written is what trec_eval prints after the name."""
    if not text:
        return ()
    if name == "Rprec_mult":
        multiples = sorted(atof(part) for part in text.split(","))
        if len(set(multiples)) < len(multiples):
            raise OptionError(f"trec-eval: {name}.{text}: duplicate cutoffs")
        return tuple(multiples)
    if name == "unj":
        cutoffs = sorted(atol(part) for part in text.split(","))
        if cutoffs[0] <= 0 or len(set(cutoffs)) < len(cutoffs):
            raise OptionError(f"trec-eval: {name}.{text}: cutoffs must be positive and distinct")
        return tuple(cutoffs)
    if name in GAIN_TABLES:
        pairs = text.split(",")
        if not all(p.count("=") == 1 and not p.startswith("=") for p in pairs):
            raise OptionError(f"trec-eval: {name}.{text}: malformed pair parameters")
        for key, value in (p.split("=") for p in pairs):
            number = _finite(name, text, value)
            if key == "p" and name.startswith("rbp") and not 0 < number < 1:
                raise OptionError(
                    f"trec-eval: {name}.{text}: p={value} is RBP's persistence, between 0 and 1 "
                    "(both excluded)"
                )
        return (text,)
    if name in ("utility", "relstring"):
        if name == "utility" and len(text.split(",")) != 4:
            raise OptionError(f"trec-eval: {name}.{text}: utility takes four coefficients")
        return (text,)
    raise OptionError(f"trec-eval: {name} takes no parameters here, not {text!r}")


def _finite(name: str, text: str, value: str) -> float:
    """A parameter's number as trec_eval's ``atof`` reads it, refused where it is not finite
    (``nan``, ``inf``: trec_eval would print a number computed from it)."""
    number = atof(value)  # C's atof also reads nan and inf(inity), which it leaves out
    if not math.isfinite(number) or re.match(r"\s*[+-]?(nan|inf)", value, re.IGNORECASE):
        raise OptionError(f"trec-eval: {name}.{text}: {value!r} is not a finite number")
    return number


def columns(name: str, params: tuple, lists: dict[str, QueryList], *, docs: int):
    """The measure's printed names, each with its value per query (relstring: the string); on a
    missed query, cleared where trec_eval 10 clears it after computing it: a value printed as
    ``utility``, ``relstring`` or ``rbp_resid`` exactly (its test of the name misses them with
    parameters), and every ``unj``."""
    found = _columns(name, params, lists, docs=docs)
    for printed, values in found.items():
        if printed in ("utility", "relstring", "rbp_resid") or name == "unj":
            values.update({q: "" if name == "relstring" else 0.0 for q in lists if lists[q].missed})
    return found


def _columns(name: str, params: tuple, lists: dict[str, QueryList], *, docs: int):
    if name == "unj":
        cutoffs = params or UNJ_CUTOFFS
        values = {q: unjudged(ql.rels, cutoffs) for q, ql in lists.items()}
        return {f"{name}_{c}": _column(values, i) for i, c in enumerate(cutoffs)}
    printed = f"{name}_{params[0]}" if params else name
    if name == "relstring":
        length = int(atof(params[0].split(",")[0])) if params else 10
        return {printed: {q: relstring(ql.rels, length) for q, ql in lists.items()}}
    if name == "utility":
        weights = tuple(atof(p) for p in params[0].split(",")) if params else UTILITY
        return {printed: {q: utility(ql, weights, docs) for q, ql in lists.items()}}
    if name in GAIN_TABLES:
        pairs = [p.split("=") for p in params[0].split(",")] if params else []
        table = [(key, atof(value)) for key, value in pairs]
        if name == "rbp_resid":
            return {printed: rbp_resids(lists, table)}
        gained = GAINED[name]
        return {printed: {q: gained(ql, table) for q, ql in lists.items()}}
    raise OptionError(f"trec-eval: {name} is computed by the catalogue, not here")


def _column(values: dict[str, list[float]], index: int) -> dict[str, float]:
    return {q: v[index] for q, v in values.items()}


def utility(ql: QueryList, weights, docs: int) -> float:
    """m_utility.c: p1 a + p2 b + p3 c + p4 d over the retrieved/relevant contingency table (d
    needs the collection's size, ``-N``)."""
    ret, rel_ret = len(ql.rels), ql.num_rel_ret
    return (
        weights[0] * rel_ret
        + weights[1] * (ret - rel_ret)
        + weights[2] * (ql.num_rel - rel_ret)
        + weights[3] * (docs + rel_ret - ret - ql.num_rel)
    )


def unjudged(rels, cutoffs) -> list[float]:
    """m_unjudged.c: the share of the top K not judged (K past the list: the rest judged)."""
    top = np.asarray(rels[: max(cutoffs) + 1], dtype=np.int64)  # the walk stops past the last K
    return share_at_cutoffs(np.isin(top, (NONPOOL, UNJUDGED)).tolist(), cutoffs)


def share_at_cutoffs(counted: list[bool], cutoffs) -> list[float]:
    """trec_eval's walk of a list for a measure at cutoffs (its unj and P_avgjg): the counted
    documents in the top K over K, K past the list still over K."""
    values, index, so_far = [0.0] * len(cutoffs), 0, 0
    for i, hit in enumerate(counted):
        if i == cutoffs[index]:
            values[index] = so_far / i
            index += 1
            if index == len(cutoffs):
                return values
        so_far += hit
    for rest in range(index, len(cutoffs)):
        values[rest] = so_far / cutoffs[rest]
    return values


def relstring(rels, length: int) -> str:
    """m_relstring.c: the first documents' grades, ``-`` out of the pool, ``.`` unjudged in it."""
    marks = {NONPOOL: "-", UNJUDGED: "."}
    shown = [int(r) for r in rels[: max(length, 0)]]
    return "".join(">" if r > 9 else str(r) if r >= 0 else marks.get(r, "<") for r in shown)
