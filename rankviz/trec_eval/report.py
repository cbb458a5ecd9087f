"""trec_eval 10's numbers and text for ``rankviz trec-eval``: its measures named and printed as
trec_eval does (``P_10``, ``ndcg_cut_20``, its order of measures, ``%6.4f``, counts summed over
queries, ``-c``'s averages over every judged query, ``-Z``'s z-scores), computed by rankviz's
measures where they are the same numbers (``gm_map`` and ``gm_bpref`` too: the families GMAP and
GMBpref, whose logs it averages in trec_eval's order), ``iprec_at_recall`` and ``11pt_avg`` here,
and trec_eval's own measures step for step
(:mod:`rankviz.trec_eval.measures`), and the judgment-group measures of ``-R qrels_jg``
(:mod:`rankviz.measures.judgment_groups`). What rankviz does not compute (the preference
measures) is refused by name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rankviz.errors import OptionError
from rankviz.io.model import Qrels, Run
from rankviz.measures.log_ap import FLOOR
from rankviz.measures.spellings import RPREC_MULTIPLES
from rankviz.trec_eval import measures as trec_eval_measures
from rankviz.trec_eval.lists import C_NAN, query_lists
from rankviz.trec_eval.measures import UNJ_CUTOFFS
from rankviz.trec_eval.names import FAMILIES, levels_of, ported, requested
from rankviz.trec_eval.printing import COUNTS, Form, line, per_query_lines

#: the measures trec_eval averages geometrically over queries (no line per query), and the
#: catalogue's family of each (whose per-query values are the logs it averages)
GEOMETRIC = {"gm_map": "GMAP", "gm_bpref": "GMBpref"}
#: trec_eval's own measures the catalogue computes on every query the run answers (without a gain
#: table); a query the run misses, which -c scores on a ranking of one unjudged document, is
#: trec_eval's steps' (:mod:`rankviz.trec_eval.measures`)
BESIDE_MISSED = {
    "G": "G",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
    "rbp": "RBP(p=0.9,graded=True)",
}


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's flags: ``-q`` (each query), ``-c`` (every judged query), ``-l`` (relevant from
    grade), ``-M`` (depth), ``-J`` (judged documents only), ``-N`` (documents in the collection),
    ``-Z`` (z-scores), ``-n`` (no summary) and the ``-m`` measures asked."""

    measures: tuple[str, ...] = ("official",)
    per_query: bool = False
    complete: bool = False
    rel: int = 1
    depth: int | None = None
    judged_only: bool = False
    docs_in_collection: int = 0  # -N: utility's fourth cell needs it
    zscores: str | None = None  # -Z: each value as a z-score against this file's
    relevance: str = "qrels"  # -R: "qrels", or "qrels_jg" (judgment groups)
    summary: bool = True  # -n: no summary (the all lines, runid's too)


def trec_eval_of_files(qrels: str, run: str, options: TrecEvalOptions) -> str:
    """What trec_eval 10 prints for the qrels and run files (read as every rankviz command reads
    them: the same columns or the same one-line error)."""
    from rankviz.io.readers import read_qrels, read_run

    if options.relevance not in ("qrels", "qrels_jg"):
        raise OptionError(
            f"trec-eval: -R {options.relevance}: rankviz reads qrels and qrels_jg (trec_eval's "
            "preferences, prefs and qrels_prefs, are left out)"
        )
    if options.relevance == "qrels_jg":
        from rankviz.io.subtopics import read_grouped_qrels

        judged: Qrels | dict[str, Qrels] = read_grouped_qrels(qrels)
    else:
        judged = read_qrels(qrels)
    return trec_eval_text(judged, read_run(run), options, runid=runid_of(run))


def trec_eval_text(
    qrels: Qrels | dict[str, Qrels],
    run: Run,
    options: TrecEvalOptions,
    *,
    runid: str,
    exact: bool = False,
) -> str:
    """What trec_eval 10 prints for ``qrels`` and ``run`` under ``options`` (``runid``: the run
    file's, see :func:`runid_of`); ``exact``: numbers with 17 significant digits, as a build of
    trec_eval printing ``%.17g`` prints them (what the reference tests compare)."""
    grouped = isinstance(qrels, dict)
    asked = requested(options.measures, groups=grouped)
    columns = (
        _group_columns(asked, options, qrels, run)
        if isinstance(qrels, dict)
        else _columns(asked, options, qrels, run)
    )
    queries = _queries(columns)
    if options.zscores:
        _as_zscores(columns, options.zscores)
    form = Form("Z" if options.zscores else "", ".17g" if exact else "6.4f")
    lines = []
    if options.per_query:  # a geometric mean has no line per query (trec_eval prints none)
        shown = [
            (printed, column.base, [column.values[q] for q in queries])
            for printed, column in columns.items()
            if column.base not in GEOMETRIC
        ]
        lines = per_query_lines(shown, queries, form)
    if options.summary:
        lines += _summary(asked, options, columns, queries, qrels, runid, form)
    return "".join(lines)


@dataclass(frozen=True)
class Column:
    """One printed name's values per query evaluated, and the trec_eval measure it belongs to."""

    base: str
    values: dict[str, float]


def _columns(asked, args: TrecEvalOptions, qrels: Qrels, run: Run) -> dict[str, Column]:
    """Each printed name's column, for the queries trec_eval evaluates (those of the run it
    judges), in trec_eval's order of measures and parameters; gm_map's column holds the logs of
    AP (GMAP's per-query values)."""
    from rankviz.evaluation.evaluate import evaluate_tables
    from rankviz.measures import parse
    from rankviz.ranking.ordering import rank
    from rankviz.settings.eval_settings import EvalSettings

    defaults: dict[str, object] = {"rel": args.rel, "judged_only": args.judged_only}
    wanted: list[tuple[str, str, str]] = []  # (measure asked, printed name, rankviz's measure)
    for name, params in asked:
        if name == "set_F":  # one weight, printed as written (set_F.0.5 is set_F_0.5)
            beta = f"(beta={float(params[0].split(',')[0])})" if params else ""
            printed = f"set_F_{params[0]}" if params else "set_F"
            wanted.append((name, printed, str(parse(f"SetF{beta}", defaults=defaults))))
        elif name == "Rprec_mult":  # multiples of R, printed to two decimals
            for m in params or RPREC_MULTIPLES:
                measure = str(parse(f"Rprec(mult={m!r})", defaults=defaults))
                wanted.append((name, f"{name}_{m:3.2f}", measure))
        elif _beside_missed(name, params, args):
            family = BESIDE_MISSED.get(name, "Unjudged")
            for c in (params or UNJ_CUTOFFS) if name == "unj" else [None]:
                measure = str(parse(family + ("" if c is None else f"@{c}"), defaults=defaults))
                wanted.append((name, name if c is None else f"{name}_{c}", measure))
        elif (name in FAMILIES and not ported(name, params)) or name in GEOMETRIC:
            family = GEOMETRIC[name] if name in GEOMETRIC else FAMILIES[name][0]
            for p in params or [None]:
                measure = str(parse(family + ("" if p is None else f"@{p}"), defaults=defaults))
                wanted.append((name, name if p is None else f"{name}_{p}", measure))
    measures = list(dict.fromkeys(m for _, _, m in wanted)) or ["NumRet"]
    settings = EvalSettings(missing="skip", depth=args.depth)
    table = rank(run, qrels, ties="trec_eval", cut=settings.cut)  # one order for every measure
    evaluation = evaluate_tables(
        [(run.name, table)],
        [parse(m) for m in measures],
        settings,
        qrels_qids=qrels.query_ids,
    )
    by_measure: dict[str, dict[str, float]] = {}
    for measure in measures:  # the values themselves, without pandas (a drop-in starts fast)
        qids, per_query = evaluation.run_values(measure, evaluation.runs[0])
        by_measure[measure] = dict(zip(qids.tolist(), per_query.tolist(), strict=True))
    evaluated = list(next(iter(by_measure.values())))  # every measure's queries: those evaluated
    missed = sorted(set(qrels.query_ids) - set(evaluated))
    _stop_on_missed(missed, args)
    columns = {printed: Column(name, dict(by_measure[m])) for name, printed, m in wanted}

    def ordered():  # trec_eval's lists: its order, condensed under -J
        return table.condensed() if args.judged_only else table

    lists = None
    for name, params in asked:
        if ported(name, params) and not (_beside_missed(name, params, args) and not missed):
            lists = lists or query_lists(ordered(), qrels, args.rel, judged_only=args.judged_only)
            if _beside_missed(name, params, args):  # the missed queries' values alone
                found = trec_eval_measures.columns(
                    name, params, {q: lists[q] for q in missed}, docs=args.docs_in_collection
                )
                for printed, values in found.items():
                    columns[printed].values.update(values)
            else:
                found = trec_eval_measures.columns(
                    name, params, lists, docs=args.docs_in_collection
                )
                columns.update({printed: Column(name, v) for printed, v in found.items()})
        if name not in ("iprec_at_recall", "11pt_avg"):
            continue
        row = {q: i for i, q in enumerate(ordered().qids)}
        levels = params if name == "iprec_at_recall" else levels_of(params)
        grid = _interpolated(ordered(), levels, args)
        scope = list(row) if args.complete else evaluated
        if name == "iprec_at_recall":
            for index, level in enumerate(levels):
                values = {q: float(grid[row[q], index]) for q in scope}
                columns[f"{name}_{level:3.2f}"] = Column(name, values)
        else:  # trec_eval sums the levels from the highest down
            means = {q: _sum(grid[row[q], ::-1]) / len(levels) for q in scope}
            columns[f"{name}_{params[0]}" if params else name] = Column(name, means)
    if args.complete:  # trec_eval -c evaluates every judged query, a missed one on an empty ranking
        relevant = _relevant_per_query(qrels, args.rel)
        for column in columns.values():
            for q in qrels.query_ids:
                if q not in column.values:
                    column.values[q] = float(relevant[q]) if column.base == "num_rel" else 0.0
                    if column.base in GEOMETRIC:  # an AP of 0, floored as trec_eval floors it
                        column.values[q] = math.log(FLOOR)
    order = [name for name, _ in asked]
    return dict(sorted(columns.items(), key=lambda item: order.index(item[1].base)))


def _beside_missed(name: str, params: tuple, args: TrecEvalOptions) -> bool:
    """Whether the catalogue computes the measure on the queries the run answers: those of
    :data:`BESIDE_MISSED` without a gain table, and ``unj`` but on -J's condensed list (which
    trec_eval's unj reads, where Unjudged reads the run)."""
    if name == "unj":
        return not args.judged_only
    return name in BESIDE_MISSED and not params


def _as_zscores(columns: dict[str, Column], path: str) -> None:
    """trec_eval -Z: each query's value by its printed name, against the file's (relstring is no
    number)."""
    from rankviz.trec_eval.zscores import read_zscores, zscore

    references = read_zscores(path)
    for printed, column in columns.items():
        if column.base != "relstring":
            for q, value in column.values.items():
                column.values[q] = zscore(value, references.get(q, {}).get(printed))


def _group_columns(
    asked, args: TrecEvalOptions, groups: dict[str, Qrels], run: Run
) -> dict[str, Column]:
    """The judgment-group measures' columns (the family of
    :mod:`rankviz.measures.judgment_groups`), for the queries trec_eval evaluates."""
    from rankviz.measures.judgment_groups import DEFAULTS, GroupMeasure, group_values

    measures = {
        name: [GroupMeasure(name, p) for p in params or DEFAULTS[name]] or [GroupMeasure(name)]
        for name, params in asked
        if name in DEFAULTS
    }
    found, missed = group_values(
        groups,
        run,
        [m for named in measures.values() for m in named],
        rel=args.rel,
        depth=args.depth,
        judged_only=args.judged_only,
    )
    _stop_on_missed(missed, args)
    return {str(m): Column(name, found[str(m)]) for name, named in measures.items() for m in named}


def _stop_on_missed(missed: list[str], args: TrecEvalOptions) -> None:
    """Where trec_eval 10 stops: a judged query the run has no line for, unless -c."""
    if missed and not args.complete:
        raise OptionError(
            f"trec-eval: the run has no line for judged query {missed[0]!r}: trec_eval 10 stops "
            "there (its exit status 4); -c scores such a query on a ranking of one unjudged "
            "document, as trec_eval does"
        )


def _interpolated(table, levels, args: TrecEvalOptions) -> np.ndarray:
    """Interpolated precision as trec_eval 10 computes it, also where its list is empty (after -M
    and -J; a missed query's is one document out of the pool, none under -J): 0 / 0 at each level
    that needs no relevant document, a NaN it prints as ``-nan``."""
    from rankviz.measures.iprec import interpolated_precision

    grid = interpolated_precision(table, levels, rel=args.rel)
    empty = (np.diff(table.offsets) == 0) & (table.in_run | args.judged_only)
    relevant = np.bincount(
        table.ideal_query[table.ideal_grades >= args.rel], minlength=table.n_queries
    )
    needs_none = np.floor(np.outer(relevant, levels) + 0.5) == 0  # lround, as trec_eval
    grid[empty[:, None] & needs_none] = C_NAN
    return grid


def _relevant_per_query(qrels, rel: int) -> dict[str, int]:
    counts = np.bincount(qrels.qid_codes[qrels.grade >= rel], minlength=len(qrels.query_ids))
    return dict(zip(qrels.query_ids, counts.tolist(), strict=True))


def _queries(columns: dict[str, Column]) -> list[str]:
    from rankviz.ranking.ordering import sorted_qids

    return list(sorted_qids([q for column in columns.values() for q in column.values]))


def _summary(
    asked, args: TrecEvalOptions, columns: dict[str, Column], queries, qrels, runid: str, form
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
            lines.append(line("num_q", "all", n, counts=True, form=form))
        elif name in GEOMETRIC:
            total = 0.0
            for q in queries:  # the logs, in trec_eval's order
                total += columns[name].values[q]
            lines.append(
                line(name, "all", math.exp(total / n) if n else 0.0, counts=False, form=form)
            )
        for printed, column in columns.items():
            if column.base != name or name in GEOMETRIC or name == "relstring":
                continue
            total = 0.0
            for q in queries:
                total += column.values[q]
            if (
                name == "num_rel" and args.complete and not args.zscores
            ):  # -c: every judgment above 0, any -l
                total = float(np.count_nonzero(qrels.grade > 0))
            mean = total if name in COUNTS else total / n if n else 0.0
            lines.append(line(printed, "all", mean, counts=name in COUNTS, form=form))
    return lines


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


def _sum(values) -> float:
    """A sum in the order given (trec_eval's), not numpy's pairwise one."""
    total = 0.0
    for value in values:
        total += float(value)
    return total
