"""trec_eval 10's numbers and text for ``rankviz trec-eval``: its measures named and printed as
trec_eval does (``P_10``, ``ndcg_cut_20``, its order of measures, ``%6.4f``, counts summed over
queries, ``-c``'s averages over every judged query, ``-Z``'s z-scores), each the value of the
catalogue's family behind the name (:func:`rankviz.trec_eval.names.catalogued`) on trec_eval's list
of each query, the judgment-group measures of ``-R qrels_jg``
(:mod:`rankviz.measures.judgment_groups`) and the preference measures of ``-R prefs`` and ``-R
qrels_prefs`` (:mod:`rankviz.measures.preferences`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankviz._arrow import from_numpy, strings
from rankviz.errors import OptionError
from rankviz.io.id_keys import sorted_unique_ids
from rankviz.io.model import Qrels, Run
from rankviz.io.preference_judgments import Preferences
from rankviz.trec_eval.names import READ_AS, atof, catalogued, requested
from rankviz.trec_eval.printing import C_NAN, COUNTS, Form, line, per_query_lines

#: the measures trec_eval averages geometrically over queries (no line per query), and the
#: catalogue's family of each (whose per-query values are the logs it averages)
GEOMETRIC = {"gm_map": "GMAP", "gm_bpref": "GMBpref"}


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
    relevance: str = "qrels"  # -R: qrels, qrels_jg (judgment groups), prefs or qrels_prefs
    summary: bool = True  # -n: no summary (the all lines, runid's too)


def trec_eval_of_files(
    qrels: str, run: str, options: TrecEvalOptions, *, said: Callable[[str], None] | None = None
) -> str:
    """What trec_eval 10 prints for the qrels and run files (read as every rankviz command reads
    them: the same columns or the same one-line error); ``said`` is told, in one line each, where
    trec_eval's own number is undefined and what is printed instead."""
    from rankviz.io.readers import read_qrels, read_run

    if options.relevance not in READ_AS:
        raise OptionError(
            f"trec-eval: -R {options.relevance}: trec_eval 10 reads {', '.join(READ_AS)}"
        )
    judged: Qrels | dict[str, Qrels] | Preferences
    if options.relevance == "qrels_jg":
        from rankviz.io.subtopics import read_grouped_qrels

        judged = read_grouped_qrels(qrels)
    elif READ_AS[options.relevance] == "prefs":
        from rankviz.io.preference_judgments import read_preferences

        judged = read_preferences(qrels, subgroups=options.relevance == "prefs")
    else:
        judged = read_qrels(qrels)
    return trec_eval_text(judged, read_run(run), options, runid=runid_of(run), said=said)


def trec_eval_text(
    qrels: Qrels | dict[str, Qrels] | Preferences,
    run: Run,
    options: TrecEvalOptions,
    *,
    runid: str,
    exact: bool = False,
    said: Callable[[str], None] | None = None,
) -> str:
    """What trec_eval 10 prints for ``qrels`` and ``run`` under ``options`` (``runid``: the run
    file's, see :func:`runid_of`); ``exact``: numbers with 17 significant digits, as a build of
    trec_eval printing ``%.17g`` prints them (what the reference tests compare); ``said``: told
    where trec_eval's own number is undefined (:func:`_preference_columns`)."""
    if isinstance(qrels, dict):
        asked = requested(options.measures, judgments="groups")
        columns = _group_columns(asked, options, qrels, run)
    elif isinstance(qrels, Preferences):
        asked = requested(options.measures, judgments="prefs")
        columns = _preference_columns(asked, options, qrels, run, said=said)
    else:
        asked = requested(options.measures)
        columns = _columns(asked, options, qrels, run)
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
    values: dict[str, Any]  # numbers; relstring's, texts


#: the document trec_eval 10 ranks, under -c, for a judged query the run has no line for
BOGUS_DOCNO = "ceci_nest_pas_un_docno"


def _columns(asked, args: TrecEvalOptions, qrels: Qrels, run: Run) -> dict[str, Column]:
    """Each printed name's column, for the queries trec_eval evaluates (every judged one), in
    trec_eval's order of measures and parameters, each the catalogue's values on trec_eval's list
    of the query: its order, cut by -M, condensed by -J, and under -c a missed query ranking one
    document out of the pool, as trec_eval ranks it; a 0 / 0 the catalogue scores 0 is NaN, as
    trec_eval prints it. gm_map's column holds the logs of AP (GMAP's per-query values)."""
    from rankviz.evaluation.evaluate import evaluate_tables
    from rankviz.measures import parse
    from rankviz.ranking.ordering import rank
    from rankviz.settings.eval_settings import EvalSettings

    missed = sorted(set(qrels.query_ids) - set(run.query_ids))
    _stop_on_missed(missed, args)
    defaults: dict[str, object] = {"rel": args.rel, "judged_only": args.judged_only}
    wanted = [
        (name, printed, parse(measure, defaults=defaults))
        for name, params in asked
        for printed, measure in catalogued(name, params, docs=args.docs_in_collection)
    ]
    measures = list(dict.fromkeys(m for _, _, m in wanted)) or [parse("NumRet")]
    settings = EvalSettings(missing="skip", depth=args.depth)
    # one list per query for every measure: trec_eval's order, cut, and under -J condensed
    table = rank(_with_missed(run, missed), qrels, ties="trec_eval", cut=settings.cut)
    table = table.condensed() if args.judged_only else table
    evaluation = evaluate_tables(
        [(run.name, table)], measures, settings, qrels_qids=qrels.query_ids
    )
    row = {q: i for i, q in enumerate(table.qids.tolist())}
    by_measure: dict[object, dict[str, float]] = {}
    for measure in measures:  # the values themselves, without pandas (a drop-in starts fast)
        qids, per_query = evaluation.run_values(str(measure), evaluation.runs[0])
        if measure.family.undefined is not None:
            rows = np.array([row[q] for q in qids.tolist()], dtype=np.int64)
            per_query[measure.undefined(table)[rows]] = C_NAN
        by_measure[measure] = dict(zip(qids.tolist(), per_query.tolist(), strict=True))
    columns = {printed: Column(name, dict(by_measure[m])) for name, printed, m in wanted}
    for name, params in asked:
        if name == "relstring":
            length = int(atof(params[0].split(",")[0])) if params else 10
            printed = f"{name}_{params[0]}" if params else name
            columns[printed] = Column(name, relstrings(table, qrels, length))
    for printed, column in columns.items():  # what trec_eval 10 clears of a missed query
        cleared = printed in ("num_ret", "utility", "relstring", "rbp_resid")
        if cleared or column.base == "unj":
            column.values.update({q: "" if printed == "relstring" else 0.0 for q in missed})
    order = [name for name, _ in asked]
    return dict(sorted(columns.items(), key=lambda item: order.index(item[1].base)))


def _with_missed(run: Run, missed: list[str]) -> Run:
    """The run and, for each judged query it misses, trec_eval's one document out of the pool
    (-c), scored 1."""
    if not missed:
        return run
    import pyarrow as pa

    chunks = run.docids.chunks if isinstance(run.docids, pa.ChunkedArray) else [run.docids]
    added = np.arange(len(run.query_ids), len(run.query_ids) + len(missed))
    return Run(
        run.name,
        run.source,
        np.concatenate([run.query_ids, np.array(missed, dtype=object)]),
        np.concatenate([run.qid_codes, added.astype(run.qid_codes.dtype)]),
        pa.chunked_array([*chunks, strings([BOGUS_DOCNO] * len(missed)).cast(chunks[0].type)]),
        np.concatenate([run.score, np.ones(len(missed))]),
        np.concatenate([np.asarray(run.rank, dtype=np.float64), np.zeros(len(missed))]),
    )


def relstrings(table, qrels: Qrels, length: int) -> dict[str, str]:
    """trec_eval's relstring of each query: its first documents' grades, ``>`` above 9, ``-`` out
    of the pool, ``.`` in it unjudged (listed below 0 by the qrels)."""
    marks = np.array([str(g) for g in range(10)] + [">", "-", "."])
    mark = np.where(table.judged, np.minimum(table.grade, 10), 11)
    below = np.flatnonzero(qrels.grade < 0)
    if len(below):
        docids = qrels.docids.take(from_numpy(below)).to_pylist()
        pooled = set(zip(qrels.query_ids[qrels.qid_codes[below]].tolist(), docids, strict=True))
        holes = np.flatnonzero(~table.judged)
        queries = table.qids[table.row_query[holes]].tolist()
        listed = [pair in pooled for pair in zip(queries, table.docids(holes), strict=True)]
        mark[holes[np.asarray(listed, dtype=bool)]] = 12
    starts = table.offsets[:-1]
    ends = np.minimum(table.offsets[1:], starts + max(length, 0))
    return {
        str(qid): "".join(marks[mark[start:end]].tolist())
        for qid, start, end in zip(table.qids, starts, ends, strict=True)
    }


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
    from rankviz.measures import make
    from rankviz.measures.judgment_groups import DEFAULTS, group_values

    options = {"rel": args.rel, "judged_only": args.judged_only}
    printed = {}  # trec_eval's name of each measure (the family's at -l1 without -J)
    for name, params in asked:
        if name in DEFAULTS:
            for p in params or DEFAULTS[name] or [None]:
                at = {} if p is None else {"mult": p} if name != "P_avgjg" else {}
                cutoff = int(p) if name == "P_avgjg" and p is not None else None
                printed[str(make(name, cutoff, **at))] = (name, make(name, cutoff, **at, **options))
    found, missed = group_values(groups, run, [m for _, m in printed.values()], depth=args.depth)
    _stop_on_missed(missed, args)
    return {shown: Column(name, found[str(m)]) for shown, (name, m) in printed.items()}


def _preference_columns(
    asked,
    args: TrecEvalOptions,
    preferences: Preferences,
    run: Run,
    *,
    said: Callable[[str], None] | None = None,
) -> dict[str, Column]:
    """The preference measures' columns (the families of :mod:`rankviz.measures.preferences`) on
    trec_eval's list of each query the preferences judge: its preference measures break ties by
    docno ascending (``form_prefs_counts.c``), not descending as the others do. Where trec_eval's
    number is undefined (``prefs_avgjg_Rnonrel`` reading past a group's lowest level, which
    ``-R qrels_prefs`` grades below 0 can make it do), ``said`` is told which queries, why, and
    what is printed."""
    from rankviz.measures import parse
    from rankviz.measures.preferences import undefined_in_trec_eval
    from rankviz.ranking.ordering import rank

    qrels = preferences.qrels()
    missed = sorted(set(qrels.query_ids) - set(run.query_ids))
    _stop_on_missed(missed, args)
    ordered = _ranked_by_docno_ascending(_with_missed(run, missed), depth=args.depth)
    table = rank(ordered, qrels, ties="run")
    qids = table.qids.tolist()
    names = [name for name, _ in asked if name not in ("runid", "num_q")]
    for name in names:
        undefined = undefined_in_trec_eval(name, table)
        if undefined and said is not None:
            said(
                f"{name}: trec_eval 10's value of {len(undefined)} queries (e.g. "
                f"{undefined[0]!r}) is undefined: its recount takes a group's non-relevant "
                "documents from its lowest level alone and reads past that level's end, which "
                "levels below 0 (-R qrels_prefs' negative grades) let hold fewer than needed; "
                "printed: the recount over that level's own documents"
            )
    return {
        name: Column(name, dict(zip(qids, parse(name)(table).tolist(), strict=True)))
        for name in names
    }


def _ranked_by_docno_ascending(run: Run, *, depth: int | None) -> Run:
    """The run with its rank column set to each query's order by score descending, then docno
    ascending (bytes), so a table ranked by the rank column (``ties="run"``) holds that order;
    ``depth``: each query's first documents in that order kept (-M)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = pa.table(
        {
            "query": run.qid_codes,
            "score": run.score,
            "docid": pc.cast(run.docids, pa.binary()),
        }
    )
    order = pc.sort_indices(
        columns,
        sort_keys=[("query", "ascending"), ("score", "descending"), ("docid", "ascending")],
    ).to_numpy()
    ranks = np.empty(len(order), dtype=np.float64)
    ranks[order] = np.arange(len(order))
    ordered = Run(run.name, run.source, run.query_ids, run.qid_codes, run.docids, run.score, ranks)
    if depth is None:
        return ordered
    codes = run.qid_codes[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    within = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    kept = np.sort(order[within < depth])
    return Run(
        run.name,
        run.source,
        run.query_ids,
        run.qid_codes[kept],
        run.docids.take(pa.array(kept)),
        run.score[kept],
        ranks[kept],
    )


def _stop_on_missed(missed: list[str], args: TrecEvalOptions) -> None:
    """Where trec_eval 10 stops: a judged query the run has no line for, unless -c."""
    if missed and not args.complete:
        raise OptionError(
            f"trec-eval: the run has no line for judged query {missed[0]!r}: trec_eval 10 stops "
            "there (its exit status 4); -c scores such a query on a ranking of one unjudged "
            "document, as trec_eval does"
        )


def _queries(columns: dict[str, Column]) -> list[str]:
    return sorted_unique_ids([q for column in columns.values() for q in column.values]).tolist()


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
        if handle.read(2) == b"\x1f\x8b":  # decompressed a block at a time, its end kept
            import gzip

            tail = b""
            with gzip.open(path, "rb") as stream:
                while block := stream.read(1 << 20):
                    tail = (tail + block)[-65536:]
        else:
            handle.seek(0, 2)
            handle.seek(max(handle.tell() - 65536, 0))
            tail = handle.read()
    lines = [line for line in tail.splitlines() if line.strip()]
    return lines[-1].split()[-1].decode() if lines else ""
