"""trec_eval 10's numbers and text for ``rankviz trec-eval``: its measures named and printed as
trec_eval does (``P_10``, ``ndcg_cut_20``, its order of measures, ``%6.4f``, counts summed over
queries, ``-c``'s averages over every judged query), computed by rankviz's measures, and
trec_eval's ``gm_map``, ``gm_bpref``, ``iprec_at_recall`` and ``11pt_avg`` from its definitions.
What rankviz does not compute yet is refused by name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankviz.errors import OptionError
from rankviz.io.model import Qrels, Run

#: trec_eval's measures in the order it prints them (its ``te_trec_measures``)
ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P "
    "relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg "
    "ndcg_rel Rndcg ndcg_cut map_cut relative_P success set_P set_relative_P set_recall set_map "
    "set_F num_nonrel_judged_ret"
).split()
NICKNAMES = {
    "official": "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P".split(),
}
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
#: what rankviz computes: the family of each trec_eval measure, and its default parameters
FAMILIES = {
    "num_ret": ("NumRet", ()),
    "num_rel": ("NumRel", ()),
    "num_rel_ret": ("NumRelRet", ()),
    "map": ("AP", ()),
    "Rprec": ("Rprec", ()),
    "bpref": ("Bpref", ()),
    "recip_rank": ("RR", ()),
    "P": ("P", CUTOFFS),
    "recall": ("R", CUTOFFS),
    "ndcg": ("nDCG", ()),
    "ndcg_cut": ("nDCG", CUTOFFS),
    "map_cut": ("AP", CUTOFFS),
    "success": ("Hits", (1, 5, 10)),
    "set_P": ("SetP", ()),
    "set_relative_P": ("SetP(relative=True)", ()),
    "set_recall": ("SetR", ()),
    "set_map": ("SetAP", ()),
    "set_F": ("SetF", ()),
    "relative_P": ("P(relative=True)", CUTOFFS),
    "num_nonrel_judged_ret": ("NumNonRelJudgedRet", ()),
}
#: computed here from trec_eval's definitions (not yet measures of the catalogue)
OWN = ("runid", "num_q", "gm_map", "gm_bpref", "iprec_at_recall", "11pt_avg")
#: the measures trec_eval averages geometrically over queries (no line per query), and the family
#: each averages
GEOMETRIC = {"gm_map": "AP", "gm_bpref": "Bpref"}
COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
MIN_GEO_MEAN = 0.00001  # trec_eval's floor of an AP in gm_map


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's flags: ``-q`` (each query), ``-c`` (every judged query), ``-l`` (relevant from
    grade), ``-M`` (depth), ``-J`` (judged documents only) and the ``-m`` measures asked."""

    measures: tuple[str, ...] = ("official",)
    per_query: bool = False
    complete: bool = False
    rel: int = 1
    depth: int | None = None
    judged_only: bool = False


def trec_eval_of_files(qrels: str, run: str, options: TrecEvalOptions) -> str:
    """What trec_eval 10 prints for the qrels and run files (read as every rankviz command reads
    them: the same columns or the same one-line error)."""
    from rankviz.io.readers import read_qrels, read_run

    return trec_eval_text(read_qrels(qrels), read_run(run), options, runid=runid_of(run))


def trec_eval_text(qrels: Qrels, run: Run, options: TrecEvalOptions, *, runid: str) -> str:
    """What trec_eval 10 prints for ``qrels`` and ``run`` under ``options`` (``runid``: the run
    file's, see :func:`runid_of`)."""
    asked = requested(options.measures)
    columns = _columns(asked, options, qrels, run)
    queries = _queries(columns)
    lines = []
    if options.per_query:  # a geometric mean has no line per query (trec_eval prints none)
        lines = [
            _line(printed, q, column.values[q], counts=column.base in COUNTS)
            for q in queries
            for printed, column in columns.items()
            if column.base not in GEOMETRIC
        ]
    return "".join(lines + _summary(asked, options, columns, queries, qrels, runid))


@dataclass(frozen=True)
class Column:
    """One printed name's values per query evaluated, and the trec_eval measure it belongs to."""

    base: str
    values: dict[str, float]


def _columns(asked, args: TrecEvalOptions, qrels: Qrels, run: Run) -> dict[str, Column]:
    """Each printed name's column, for the queries trec_eval evaluates (those of the run it
    judges), in trec_eval's order of measures and parameters; gm_map's column holds AP."""
    from rankviz.evaluate import evaluate
    from rankviz.measures import parse
    from rankviz.ordering import rank
    from rankviz.settings import RunCut

    defaults: dict[str, object] = {"rel": args.rel, "judged_only": args.judged_only}
    wanted: list[tuple[str, str, str]] = []  # (measure asked, printed name, rankviz's measure)
    for name, params in asked:
        if name == "set_F":  # one weight, printed as written (set_F.0.5 is set_F_0.5)
            beta = f"(beta={float(params[0].split(',')[0])})" if params else ""
            printed = f"set_F_{params[0]}" if params else "set_F"
            wanted.append((name, printed, str(parse(f"SetF{beta}", defaults=defaults))))
        elif name in FAMILIES or name in GEOMETRIC:
            family = GEOMETRIC[name] if name in GEOMETRIC else FAMILIES[name][0]
            for p in params or [None]:
                measure = str(parse(family + ("" if p is None else f"@{p}"), defaults=defaults))
                wanted.append((name, name if p is None else f"{name}_{p}", measure))
    measures = list(dict.fromkeys(m for _, _, m in wanted)) or ["NumRet"]
    frame = evaluate(qrels, run, measures, missing="skip", depth=args.depth)
    frame = frame.to_frame(per_query=True)
    frame = frame[frame.qid != "all"]
    by_measure: dict[str, dict[str, float]] = {}
    for measure, qid, value in zip(frame.measure, frame.qid, frame.value, strict=True):
        by_measure.setdefault(measure, {})[qid] = value
    evaluated = list(dict.fromkeys(frame.qid))
    missed = sorted(set(qrels.query_ids) - set(evaluated))
    if missed and not args.complete:
        raise OptionError(
            f"trec-eval: the run has no line for judged query {missed[0]!r}: trec_eval 10 stops "
            "there (its exit status 4); -c scores such a query on an empty ranking"
        )
    columns = {printed: Column(name, by_measure[m]) for name, printed, m in wanted}
    table = None
    for name, params in asked:
        if name not in ("iprec_at_recall", "11pt_avg"):
            continue
        from rankviz.measures.iprec import interpolated_precision

        if table is None:
            table = rank(run, qrels, ties="trec_eval", cut=RunCut(depth=args.depth))
            table = table.condensed() if args.judged_only else table
        row = {q: i for i, q in enumerate(table.qids)}
        levels = params if name == "iprec_at_recall" else _levels(params)
        grid = interpolated_precision(table, levels, rel=args.rel)
        if name == "iprec_at_recall":
            for index, level in enumerate(levels):
                values = {q: float(grid[row[q], index]) for q in evaluated}
                columns[f"{name}_{level:3.2f}"] = Column(name, values)
        else:  # trec_eval sums the levels from the highest down
            means = {q: _sum(grid[row[q], ::-1]) / len(levels) for q in evaluated}
            columns[f"{name}_{params[0]}" if params else name] = Column(name, means)
    if args.complete:  # trec_eval -c evaluates every judged query, a missed one on an empty ranking
        relevant = _relevant_per_query(qrels, args.rel)
        for column in columns.values():
            for q in qrels.query_ids:
                if q not in column.values:
                    column.values[q] = float(relevant[q]) if column.base == "num_rel" else 0.0
    order = [name for name, _ in asked]
    return dict(sorted(columns.items(), key=lambda item: order.index(item[1].base)))


def _relevant_per_query(qrels, rel: int) -> dict[str, int]:
    counts = np.bincount(qrels.qid_codes[qrels.grade >= rel], minlength=len(qrels.query_ids))
    return dict(zip(qrels.query_ids, counts.tolist(), strict=True))


def _queries(columns: dict[str, Column]) -> list[str]:
    from rankviz.ordering import sorted_qids

    return list(sorted_qids([q for column in columns.values() for q in column.values]))


def requested(given: Sequence[str]) -> list[tuple[str, tuple]]:
    """The measures asked for, in trec_eval's order, each with its parameters (a later -m of the
    same measure sets them again, as trec_eval)."""
    asked: dict[str, tuple] = {}
    for text in given:
        for name in NICKNAMES.get(text, [text]):
            base, _, params = name.partition(".")
            if base not in ORDER:
                raise OptionError(f"trec-eval: {base!r} is not a trec_eval measure")
            if base not in FAMILIES and base not in OWN:
                raise OptionError(
                    f"trec-eval: rankviz does not compute trec_eval's {base} yet (it computes "
                    + ", ".join(m for m in ORDER if m in FAMILIES or m in OWN)
                    + ")"
                )
            asked[base] = _params(base, params)
    return sorted(asked.items(), key=lambda item: ORDER.index(item[0]))


def _params(name: str, text: str) -> tuple:
    """A measure's parameters as trec_eval reads them: cutoffs as whole numbers (``atol``: 23.4 is
    23), recall levels as numbers, sorted; none given: trec_eval's defaults."""
    if name == "iprec_at_recall":
        return _levels((text,)) if text else RECALL_LEVELS
    if name == "11pt_avg":  # recall levels, printed as written
        if text:
            _levels((text,))
        return (text,) if text else ()
    if name == "set_F":  # trec_eval reads the first number and prints the text as given
        if text and not re.fullmatch(r"[0-9]*\.?[0-9]+(,.*)?", text):
            raise OptionError(f"trec-eval: set_F.{text}: {text!r} is not a weight")
        return (text,) if text else ()
    default = FAMILIES[name][1] if name in FAMILIES else ()
    if not text:
        return default
    if not default:
        raise OptionError(f"trec-eval: {name} takes no parameters here, not {text!r}")
    cutoffs = []
    for part in text.split(","):
        digits = part.strip().split(".")[0]
        if not digits.isdigit() or int(digits) < 1:
            raise OptionError(f"trec-eval: {name}.{text}: {part!r} is not a cutoff")
        cutoffs.append(int(digits))
    return tuple(sorted(cutoffs))


def _summary(
    asked, args: TrecEvalOptions, columns: dict[str, Column], queries, qrels, runid: str
) -> list[str]:
    """trec_eval's ``all`` lines: means over the queries evaluated (``-c``: over every judged
    query, a missed one counting 0), the counts summed, gm_map's geometric mean. Sums run query by
    query in trec_eval's order, so the doubles are trec_eval's own."""
    n = len(queries)  # with -c, every judged query (:func:`_columns`)
    lines = []
    for name, _ in asked:
        if name == "runid":
            lines.append(f"{'runid':<22}\tall\t{runid}\n")
        elif name == "num_q":
            lines.append(_line("num_q", "all", n, counts=True))
        elif name in GEOMETRIC:
            total = 0.0
            for q in queries:  # a query -c adds counts as a value of 0: the floor
                total += math.log(max(columns[name].values[q], MIN_GEO_MEAN))
            lines.append(_line(name, "all", math.exp(total / n) if n else 0.0, counts=False))
        for printed, column in columns.items():
            if column.base != name or name in GEOMETRIC:
                continue
            total = 0.0
            for q in queries:
                total += column.values[q]
            if name == "num_rel" and args.complete:  # trec_eval -c: every judgment above 0, any -l
                total = float(np.count_nonzero(qrels.grade > 0))
            mean = total if name in COUNTS else total / n if n else 0.0
            lines.append(_line(printed, "all", mean, counts=name in COUNTS))
    return lines


def _line(printed: str, qid: str, value: float, *, counts: bool) -> str:
    """One line as trec_eval prints it: the name in 22 columns, counts as whole numbers, the rest
    ``%6.4f``."""
    text = f"{int(value)}" if counts else f"{value:6.4f}"
    return f"{printed:<22}\t{qid}\t{text}\n"


def runid_of(path: str) -> str:
    """trec_eval's runid: the last field of the run file's last line (read from the end of the
    file; a gzip file decompressed)."""
    with open(path, "rb") as handle:
        if handle.read(2) == b"\x1f\x8b":
            import gzip

            handle.seek(0)
            tail = gzip.decompress(handle.read())[-65536:]
        else:
            handle.seek(0, 2)
            handle.seek(max(handle.tell() - 65536, 0))
            tail = handle.read()
    lines = [line for line in tail.splitlines() if line.strip()]
    return lines[-1].split()[-1].decode() if lines else ""


def _levels(params: tuple) -> tuple[float, ...]:
    """Recall levels: trec_eval's eleven, or the ones written (``11pt_avg..25,.5``), sorted."""
    if not params:
        return RECALL_LEVELS
    try:
        return tuple(sorted(float(p) for p in params[0].split(",")))
    except ValueError:
        raise OptionError(f"trec-eval: {params[0]!r} are not recall levels") from None


def _sum(values) -> float:
    """A sum in the order given (trec_eval's), not numpy's pairwise one."""
    total = 0.0
    for value in values:
        total += float(value)
    return total
