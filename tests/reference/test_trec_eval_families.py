"""trec_eval's own measures as families of the catalogue (infAP, IPrec@r, binG, Utility, 11pt_avg
as IPrecAvg, G, ndcg_rel, Rndcg): per
query equal to trec_eval 10 built with ``%.17g`` (tests/data/trec-eval-generated: ties, grades
-2..4, a missed query, -J, -M, -l), and under every other tie order G, ndcg_rel, Rndcg and 11pt_avg
equal to ``rankviz trec-eval``'s loops over each document (byte for byte with trec_eval on its
test suite) run on that order; infAP and binG, which ``rankviz trec-eval`` prints from the
catalogue, equal on each tie order to themselves on a run written in that order. (IPrec's kernel
is the one ``rankviz trec-eval`` prints: the first test is its reference.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, run_cli

import rankviz as rv
from rankviz.measures import expand
from rankviz.trec_eval.trec_eval_text import TrecEvalOptions, trec_eval_text

GENERATED = ROOT / "tests" / "data" / "trec-eval-generated"
NEW = ("infAP", "binG", "utility", "iprec_at_recall")
#: trec_eval's command line of each generated case, as evaluate's options and measure defaults
CASES = {
    "defaults": ({}, {}, "utility"),
    "graded-l2": ({"rel": 2}, {"rel": 2}, "utility"),
    "judged-depth": (
        {"depth": 7},
        {"judged_only": True},
        "Utility(rel_ret=1,nonrel_ret=-0.5,rel_nonret=-2,nonrel_nonret=0.25,docs=1000)",
    ),
}


def _printed(case: str) -> list[tuple[str, str, str]]:
    """trec_eval's per-query lines of the new measures: (name, qid, value)."""
    lines = (GENERATED / f"{case}.out").read_text().splitlines()
    rows = [tuple(part.strip() for part in line.split("\t")) for line in lines]
    return [r for r in rows if r[0].startswith(NEW) and r[1] != "all"]  # type: ignore[misc]


@pytest.mark.parametrize("case", list(CASES))
def test_the_families_are_trec_evals_values_to_17_digits(case: str) -> None:
    options, defaults, utility = CASES[case]
    names = ["infAP", "binG", utility, "iprec_at_recall"]
    measures = [m for name in names for m in expand(name, defaults=defaults)]
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    frame = rv.evaluate(qrels, run, measures, missing="zero", **options).to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    missed = {"q9"}  # judged, not in the run: -c scores it on trec_eval's one-document ranking
    compared = 0
    for name, qid, value in _printed(case):
        ours = utility if name.startswith("utility_") else name
        measure = str(rv.parse(ours, defaults=defaults))
        if value == "-nan":  # an empty condensed list: trec_eval's 0/0, rankviz's 0
            assert name.startswith("iprec_at_recall") and got[measure, qid] == 0.0
            continue
        if name.startswith("utility_") and qid in missed:
            # trec_eval clears a missed query's value only when printed as "utility" exactly;
            # with coefficients it keeps the bogus ranking's: rankviz scores it 0 as -c says
            assert got[measure, qid] == 0.0 != float(value)
            continue
        assert got[measure, qid] == float(value), (name, qid)
        compared += 1
    assert compared >= 150


def _ordered_as(table) -> rv.Run:
    """The table's order written as a run with distinct descending scores (trec_eval keeps it)."""
    qids = table.qids[table.row_query]
    docids = np.asarray(table.docids(np.arange(table.n_rows)), dtype=object)
    frame = pd.DataFrame(
        {"qid": qids, "docid": docids, "score": -np.arange(table.n_rows, dtype=np.float64)}
    )
    return rv.run_from_frame(frame, name="ordered")


def _port_values(qrels, run, *, rel: int) -> dict[tuple[str, str], float]:
    options = TrecEvalOptions(measures=("infAP", "binG"), per_query=True, complete=True, rel=rel)
    text = trec_eval_text(qrels, run, options, runid="ordered", exact=True)
    values = {}
    for line in text.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        if qid != "all" and name != "runid":
            values[str(rv.parse(name, defaults={"rel": rel})), qid] = float(value)
    return values


#: trec_eval's names of the gain-table measures and of 11pt_avg, and the catalogue's
GAINED = {"11pt_avg": "IPrecAvg", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg"}


@pytest.mark.parametrize("case", list(CASES))
def test_11pt_avg_and_the_gain_measures_are_trec_evals_values_to_17_digits(case: str) -> None:
    """trec_eval's default gain table (a grade is its gain); -l2 changes only 11pt_avg and
    Rndcg's queries without a relevant document, which is the only one the case prints; -J -M7
    the condensed, cut list. A ``-nan`` (an empty condensed list) is 0 here, as for IPrec."""
    options, defaults, _ = CASES[case]
    measures = {name: rv.parse(ours, defaults=defaults) for name, ours in GAINED.items()}
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    evaluated = rv.evaluate(qrels, run, list(measures.values()), missing="zero", **options)
    got = {(r.measure, r.qid): r.value for r in evaluated.to_frame(per_query=True).itertuples()}
    lines = (GENERATED / f"{case}.out").read_text().splitlines()
    rows = [[part.strip() for part in line.split("\t")] for line in lines]
    printed = [r for r in rows if r[0] in GAINED and r[1] != "all"]
    assert len(printed) >= 12
    for name, qid, value in printed:
        ours = got[str(measures[name]), qid]
        assert ours == (0.0 if value == "-nan" else float(value)), (name, qid)


@pytest.mark.parametrize("case", ["defaults", "graded-l2"])
def test_dcg_unj_and_rbp_are_trec_evals_values_to_17_digits(case: str) -> None:
    """DCG, Unjudged@K and trec_eval's spelling ``rbp`` (graded, p 0.9: the catalogue's RBP is
    binary at p 0.8) per query as trec_eval prints them."""
    options, defaults, _ = CASES[case]
    names = {
        "dcg": "DCG",
        "unj_5": "Unjudged@5",
        "unj_10": "Unjudged@10",
        "unj_20": "Unjudged@20",
        "rbp": "RBP(rel=1,p=0.9,graded=True)",
    }
    assert str(rv.parse("rbp")) == names["rbp"]
    measures = [rv.parse(n) for n in names.values()]
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    frame = rv.evaluate(qrels, run, measures, missing="zero", **options).to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    rows = [
        [part.strip() for part in line.split("\t")]
        for line in (GENERATED / f"{case}.out").read_text().splitlines()
    ]
    printed = [r for r in rows if r[0] in names and r[1] != "all"]
    assert len(printed) == (5 if case == "defaults" else 4) * 12
    for name, qid, value in printed:
        assert got[names[name], qid] == float(value), (name, qid)


def _printed_tables(case: str) -> list[list[str]]:
    """trec_eval's per-query lines of the measures it printed with a gain table
    (``ndcg_1=3,2=9``)."""
    lines = (GENERATED / f"{case}.out").read_text().splitlines()
    rows = [[part.strip() for part in line.split("\t")] for line in lines]
    return [r for r in rows if "=" in r[0] and r[1] != "all"]


@pytest.mark.parametrize(
    "case", ["graded-l2", "dcg-table", "gain-tables", "rbp-table", "judged-depth"]
)
def test_gain_tables_are_trec_evals_values_to_17_digits(case: str) -> None:
    """trec_eval's spelling of a measure with a gain table (``ndcg.1=3,2=9``, ``G.0=0.5,3=1``,
    ``rbp.p=0.5,2=0.7`` (scaled into [0, 1]), gains below 0 among them) is the family with
    ``gains=`` and its values per query; judged-depth: under -J -M7."""
    options, defaults, _ = CASES.get(case, ({}, {}, ""))
    printed = [r for r in _printed_tables(case) if not r[0].startswith("rbp_resid")]
    measures = {name: rv.parse(name, defaults=defaults) for name, _, _ in printed}
    assert all(m.value_of("gains") is not None for m in measures.values())
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    frame = rv.evaluate(qrels, run, list(measures.values()), missing="zero", **options).to_frame(
        per_query=True
    )
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    assert len(printed) == 12 * len(measures)
    for name, qid, value in printed:
        assert got[str(measures[name]), qid] == float(value), (name, qid)


def test_a_gain_under_one_is_in_the_ideal_ranking_by_its_value() -> None:
    """trec_eval sorts a gain table's levels comparing gains truncated to whole numbers, so a gain
    in (0, 1) can sort below grade 0's and leave the ideal ranking; rankviz sorts by the gain. nDCG
    does not change when every gain doubles, and doubled, trec_eval's comparison is exact: its
    values for the doubled table are rankviz's for the table."""
    printed = _printed_tables("gain-table-doubled")
    measure = rv.parse("nDCG(gains={1:2,2:-1,3:0.5,4:6})")
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    frame = rv.evaluate(qrels, run, [measure], missing="zero").to_frame(per_query=True)
    got = dict(zip(frame.qid, frame.value, strict=True))
    assert len(printed) == 12
    for _, qid, value in printed:
        assert got[qid] == float(value), qid


@pytest.mark.parametrize("case", list(CASES))
def test_exp_of_the_mean_log_is_trec_evals_gm_map_and_gm_bpref(case: str) -> None:
    """trec_eval prints gm_map and gm_bpref on its summary line only: exp of the mean over the
    queries (-c: a missed one's log(1e-5) among them) of logAP and logBpref, to 1e-12 relative
    (the logs are summed in another order)."""
    options, defaults, _ = CASES[case]
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    measures = [rv.parse(n, defaults=defaults) for n in ("logAP", "logBpref")]
    evaluation = rv.evaluate(qrels, run, measures, missing="zero", **options)
    rows = [line.split("\t") for line in (GENERATED / f"{case}.out").read_text().splitlines()]
    summary = {r[0].strip(): r[2] for r in rows if r[1].strip() == "all"}
    for name, measure in zip(("gm_map", "gm_bpref"), measures, strict=True):
        ours = np.exp(evaluation.mean(measure, "run"))
        assert ours == pytest.approx(float(summary[name]), rel=1e-12, abs=0)
        assert evaluation.mean(measure, "run") < 0  # a log of means below 1


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "run"])
def test_under_every_order_the_gain_measures_are_the_ports_on_that_order(ties: str) -> None:
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    ordered = _ordered_as(rv.rank(run, qrels, ties=ties))
    options = TrecEvalOptions(
        measures=("G", "ndcg_rel", "Rndcg", "11pt_avg"), per_query=True, complete=True
    )
    text = trec_eval_text(qrels, ordered, options, runid="ordered", exact=True)
    measures = [rv.parse(name) for name in GAINED.values()]
    frame = rv.evaluate(qrels, run, measures, ties=ties).to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    compared = 0
    for line in text.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        if qid != "all" and name in GAINED:
            assert got[GAINED[name], qid] == float(value), (name, qid)
            compared += 1
    assert compared == 4 * len(qrels.query_ids)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "run"])
@pytest.mark.parametrize("rel", [1, 2])
def test_under_every_order_the_families_are_trec_evals_on_that_order(ties: str, rel: int) -> None:
    """infAP and binG under a tie policy == the drop-in's values (the same families, trec_eval's
    order) on the run written in that policy's order."""
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    table = rv.rank(run, qrels, ties=ties)
    expected = _port_values(qrels, _ordered_as(table), rel=rel)
    measures = [rv.parse(name, defaults={"rel": rel}) for name in ("infAP", "binG")]
    frame = rv.evaluate(qrels, run, measures, ties=ties, rel=rel).to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    assert {k for k in got if k[1] != "all"} >= set(expected)
    for key, value in expected.items():
        assert got[key] == value, key


def test_expected_ties_refuse_a_family_without_a_closed_form_in_one_line() -> None:
    done = run_cli(
        "evaluate",
        str(GENERATED / "qrels.txt"),
        str(GENERATED / "run.txt"),
        "-m",
        "AP",
        "-m",
        "IPrec@0.5",
        "-m",
        "infAP",
        "--ties",
        "expected",
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "rankviz: error: ties=expected: no closed form over the orders of tied documents for "
        "IPrec@0.5, infAP; ties=random draws orders"
    ]
    drawn = run_cli(
        "evaluate",
        str(GENERATED / "qrels.txt"),
        str(GENERATED / "run.txt"),
        "-m",
        "infAP",
        "--ties",
        "random",
        "--format",
        "tsv",
    )
    assert drawn.returncode == 0 and "infAP" in drawn.stdout


def test_all_trec_is_the_catalogues_measures_of_what_trec_eval_prints() -> None:
    """``-m all_trec`` (and ``official``) in evaluate: each of trec_eval's numbers but the four
    left out (runid and num_q, the text relstring), in the order trec_eval prints them,
    equal to its values (the means to 1e-15 relative: summed in another order); gm_map and
    gm_bpref, its geometric means, on the summary line as trec_eval prints them."""
    case = "defaults"  # the cases with gain tables print those in place of G, ndcg, ...
    options, defaults, _ = CASES[case]
    left_out = ("runid", "num_q", "relstring")
    rows = [
        [part.strip() for part in line.split("\t")]
        for line in (GENERATED / f"{case}.out").read_text().splitlines()
    ]
    # the cases' other measures: dcg and ideal_dcg, and those with a gain table (``ndcg_1=3``)
    others = ("dcg", "ideal_dcg")
    names = list(dict.fromkeys(r[0] for r in rows if r[1] == "all"))  # the summary's order
    all_trec = [n for n in names if n not in (*left_out, *others) and "=" not in n]
    measures = expand("all_trec", defaults=defaults)
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    frame = rv.evaluate(qrels, run, measures, missing="zero", **options).to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    assert len(measures) == len(all_trec)
    theirs = {(r[0], r[1]): r[2] for r in rows}
    for measure, name in zip(measures, all_trec, strict=True):
        geometric = name in ("gm_map", "gm_bpref")  # a summary line only; per query, the logs
        for qid in ["all"] if geometric else [*qrels.query_ids, "all"]:
            value = theirs[name, qid]
            if value == "-nan":  # an empty condensed list: trec_eval's 0/0, rankviz's 0
                assert got[str(measure), qid] == 0.0
                continue
            if name == "utility" and qid in ("q9", "all"):
                continue  # a missed query: see the first test of this file
            ours = got[str(measure), qid]
            if qid == "all" and name.startswith("num_"):  # trec_eval sums the counts
                ours *= len(qrels.query_ids)
            assert ours == pytest.approx(float(value), rel=1e-15), (name, qid)
    assert [str(m) for m in expand("official")] == [str(m) for m in measures[:28]]


SHORT = ROOT / "tests" / "data" / "trec-eval-short"


def _short_cases():
    for line in (SHORT / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, qrels, run, flags = line.split("\t")
            yield pytest.param(name, qrels, run, flags.split(), id=name)


@pytest.mark.parametrize(("name", "qrels", "run", "flags"), list(_short_cases()))
def test_gain_measures_of_rankings_shorter_than_the_relevant_documents_are_trec_evals(
    name: str, qrels: str, run: str, flags: list[str]
) -> None:
    """ndcg_rel, Rndcg and G per query and in the mean, ``evaluate`` (``--depth`` for ``-M``) ==
    trec_eval 10 printing ``%.17g`` (tests/data/trec-eval-short): a query with more documents with
    a gain than the run retrieves, alone and beside another query."""
    depth = next((int(f[2:]) for f in flags if f.startswith("-M")), None)
    arguments = ["--depth", str(depth)] if depth else []
    done = run_cli(
        "evaluate", str(SHORT / qrels), str(SHORT / run), "-m", "ndcg_rel", "-m", "Rndcg",
        "-m", "G", "--per-query", "--format", "tsv", *arguments,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = {
        (measure, qid): float(value)
        for _, measure, qid, value in (line.split("\t") for line in done.stdout.splitlines()[1:])
    }
    expected = [line.split("\t") for line in (SHORT / f"{name}.out").read_text().splitlines()]
    assert len(expected) == len(got)
    for printed, qid, value in expected:
        assert got[printed.strip(), qid] == float(value), (printed, qid)


def test_trec_evals_spellings_with_parameters_are_the_catalogues_measures() -> None:
    """``evaluate -m utility.2,-1,0,0 -m set_F.0.5 -m Rprec_mult.0.5,2 -m set_relative_P`` (refused
    as unreadable before): every query's value == trec_eval 10's (%.17g, the generated case
    ``spellings``), the missed query q9 aside (trec_eval keeps a bogus utility there, see above)."""
    done = run_cli(
        "evaluate", str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"),
        "-m", "utility.2,-1,0,0", "-m", "set_F.0.5", "-m", "Rprec_mult.0.5,2",
        "-m", "set_relative_P", "--per-query", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = {
        (measure, qid): float(value)
        for _, measure, qid, value in (line.split("\t") for line in done.stdout.splitlines()[1:])
    }
    ours = {
        "utility_2,-1,0,0": "Utility(rel_ret=2)",
        "set_F_0.5": "SetF(beta=0.5)",
        "Rprec_mult_0.50": "Rprec(mult=0.5)",
        "Rprec_mult_2.00": "Rprec(mult=2)",
        "set_relative_P": "SetP(relative=True)",
    }
    compared = 0
    for line in (GENERATED / "spellings.out").read_text().splitlines():
        printed, qid, value = (part.strip() for part in line.split("\t"))
        if qid in ("all", "q9"):
            continue
        assert got[str(rv.parse(ours[printed])), qid] == float(value), (printed, qid)
        compared += 1
    assert compared == 5 * 11


def test_trec_evals_sets_say_what_they_leave_out() -> None:
    """``-m all_trec`` left relstring out unsaid: one line on stderr says what each set leaves out
    and why; a list without a set says nothing of it."""
    qrels, run = str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt")
    done = run_cli("evaluate", qrels, run, "-m", "all_trec", "-m", "official", "--format", "tsv")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "trec_eval's set without" in line]
    assert len(said) == 2
    assert all(word in said[0] for word in ("relstring", "runid and num_q"))
    assert "runid and num_q" in said[1] and "relstring" not in said[1]
    assert not any("gm_map" in line for line in said)  # now a family: GMAP
    plain = run_cli("evaluate", qrels, run, "-m", "AP", "--format", "tsv")
    assert "trec_eval's set" not in plain.stderr


def _eleven_point_values(case: str) -> dict[str, str]:
    rows = (GENERATED / f"{case}.out").read_text().splitlines()
    return {qid.strip(): value.strip() for _, qid, value in (r.split("\t") for r in rows)}


def _compared(got: dict[str, float], case: str) -> int:
    """Every query's value == trec_eval's, its -nan (a query judged only below 0, or missed, under
    -J: an empty list) aside, which rankviz scores 0 as everywhere."""
    compared = 0
    for qid, value in _eleven_point_values(case).items():
        if qid == "all" or value == "-nan":
            continue
        assert got[qid] == float(value), qid
        compared += 1
    return compared


def test_11pt_avg_at_the_levels_given_is_trec_evals() -> None:
    """``evaluate -m 11pt_avg..25,.5,.75`` (refused as unreadable before) is IPrecAvg at those
    levels, every query's value == trec_eval 10's (%.17g, the generated case ``levels``)."""
    spelled = "11pt_avg..25,.5,.75"
    done = run_cli(
        "evaluate", str(GENERATED / "qrels.txt"), str(GENERATED / "run.txt"),
        "-m", spelled, "--per-query", "--format", "tsv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()[1:]]
    assert {measure for _, measure, _, _ in rows} == {"IPrecAvg(levels={0.25,0.5,0.75})"}
    assert _compared({qid: float(value) for _, _, qid, value in rows}, "levels") == 12


def test_11pt_avg_at_levels_under_rel_and_judged_only_is_trec_evals() -> None:
    """``11pt_avg.0.05,0.3,1`` under -l2 -J (trec_eval's case ``levels-l2-J``) through the API."""
    measure = rv.parse("11pt_avg.0.05,0.3,1", defaults={"rel": 2, "judged_only": True})
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    evaluation = rv.evaluate(qrels, run, [measure], missing="zero", rel=2)
    got = evaluation.per_query(measure, "run").to_dict()
    assert _compared(got, "levels-l2-J") == 10


@pytest.mark.parametrize("case", ["defaults", "judged-depth"])
def test_rbp_resid_is_trec_evals_to_17_digits(case: str) -> None:
    """trec_eval's rbp_resid (0 where nothing retrieved is unjudged) is the family ``rbp_resid``:
    per query as trec_eval 10 prints it (%.17g), p=0.9 and, under -J -M7, p=0.6; a missed query
    (q9, -c) is 0 in trec_eval, which clears it, and here, which has no ranking for it."""
    options, defaults, _ = CASES[case]
    measure = rv.parse("rbp_resid" if case == "defaults" else "rbp_resid.p=0.6", defaults=defaults)
    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    evaluation = rv.evaluate(qrels, run, [measure], missing="zero", **options)
    got = evaluation.per_query(measure, "run").to_dict()
    printed = "rbp_resid" if case == "defaults" else "rbp_resid_p=0.6"
    rows = [line.split("\t") for line in (GENERATED / f"{case}.out").read_text().splitlines()]
    theirs = {r[1].strip(): float(r[2]) for r in rows if r[0].strip() == printed}
    assert len(theirs) == 13 and any(v > 0 for v in theirs.values()) == (case == "defaults")
    for qid, value in theirs.items():
        if qid != "all":
            assert got[qid] == value, qid


def test_rndcg_under_a_depth_shorter_than_a_querys_relevant_documents_is_trec_evals() -> None:
    """trec_eval's test run cut at 100 (-M100), where query 301 has 474 relevant documents: more
    than the cut table's rows, whose keys once ran into the next query's (Rndcg 0, trec_eval
    0.0670). Every query's Rndcg, ndcg_rel and G == trec_eval -M100's (printed %6.4f)."""
    fixtures, conformance = ROOT / "tests" / "data" / "trec-eval-fixtures", ROOT / "tests" / "data"
    qrels = rv.read_qrels(fixtures / "qrels.test")
    run = rv.read_run(conformance / "conformance" / "te_test" / "run_trunc.txt", name="run")
    evaluation = rv.evaluate(qrels, run, ["Rndcg", "ndcg_rel", "G"], depth=100)
    printed = (ROOT / "tests" / "data" / "trec-eval-cli" / "quicktest-aqcM.out").read_text()
    compared = 0
    for line in printed.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        if name in ("Rndcg", "ndcg_rel", "G") and qid != "all":
            assert evaluation.per_query(name, "run")[qid] == pytest.approx(float(value), abs=5e-5)
            compared += 1
    assert compared == 3 * len(qrels.query_ids)


@pytest.mark.parametrize("name", ["relstring", "relstring.12", "runid", "num_q"])
def test_what_trec_eval_prints_beside_its_measures_is_refused_with_where_it_is(name: str) -> None:
    with pytest.raises(rv.MeasureError, match="rankviz trec-eval prints it"):
        rv.parse(name)
