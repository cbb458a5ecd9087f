"""``rankviz trec-eval`` prints what trec_eval 10 prints, byte for byte (tests/data/trec-eval-cli,
with its source), and refuses in one line what it does not compute."""

from __future__ import annotations

import pytest
from conftest import ROOT, heavy_imports, run_cli

KEPT = ROOT / "tests" / "data" / "trec-eval-cli"
PLACES = {"{F}": "tests/data/trec-eval-fixtures", "{C}": "tests/data/conformance"}


def _cases():
    for line in (KEPT / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, arguments = line.split("\t")
            for mark, folder in PLACES.items():
                arguments = arguments.replace(mark, str(ROOT / folder))
            # the Makefile's quicktest lines of a file with comments diff against the output of
            # the same file without them
            same = {"quicktest-2": "quicktest-1", "quicktest-prefs-comments": "quicktest-prefs"}
            expected = KEPT / f"{same.get(name, name)}.out"
            yield pytest.param(arguments.split(), expected, id=name)


@pytest.mark.parametrize(("arguments", "expected"), list(_cases()))
def test_the_output_is_trec_evals_byte_for_byte(arguments, expected) -> None:
    done = run_cli("trec-eval", *arguments)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected.read_text()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["-m", "prefs_simp"], "prefs_simp reads preferences (-R prefs or qrels_prefs), not qrels"),
        (["-m", "map_avgjg"], "map_avgjg reads -R qrels_jg's judgment groups"),
        (["-R", "prefs"], "line 1: a line is 'qid group subgroup docno level', not 4 fields"),
        (["-R", "prefs_qrels"], "-R prefs_qrels: trec_eval 10 reads qrels, qrels_jg, prefs"),
        (["-R", "qrels_prefs", "-m", "map"], "map reads qrels (-R qrels), not preferences"),
        (["-m", "all_prefs"], "prefs_num_prefs_poss reads preferences"),
        (["-m", "alltrec"], "is not a trec_eval measure"),
        (["-m", "utility.1,2"], "utility takes four coefficients"),
        (["-m", "ndcg.1"], "malformed pair parameters"),
        (["-m", "unj.0,5"], "cutoffs must be positive and distinct"),
        (["-m", "Rprec_mult.1,1.0"], "duplicate cutoffs"),
        (["-Z", str(ROOT / "tests" / "data" / "trec-eval-fixtures" / "results.test")], "line 1:"),
        (["-m", "P.x"], "'x' is not a cutoff"),
        (["-m", "map.5"], "map takes no parameters"),
        (["-m", "iprec_at_recall..1,x"], "are not recall levels"),
        (["-m", "11pt_avg.y"], "are not recall levels"),
        (["-m", "set_F.z"], "is not a weight"),
        (["-m", "rbp.p=1.5"], "p=1.5 is RBP's persistence, between 0 and 1"),
        (["-m", "rbp_resid.p=0,2=3"], "p=0 is RBP's persistence, between 0 and 1"),
        (["-m", "ndcg.1=nan"], "ndcg.1=nan: 'nan' is not a finite number"),
        (["-m", "G.2=-inf"], "'-inf' is not a finite number"),
        (["-m", "Rndcg.1=3,2=Infinity"], "'Infinity' is not a finite number"),
    ],
)
def test_what_it_does_not_compute_is_refused_by_name(arguments, said) -> None:
    fixtures = ROOT / PLACES["{F}"]
    done = run_cli(
        "trec-eval", *arguments, str(fixtures / "qrels.test"), str(fixtures / "results.test")
    )
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_judged_query_the_run_misses_stops_it_as_it_stops_trec_eval() -> None:
    """trec_eval 10 stops (exit 4) on a judged query without results unless -c."""
    done = run_cli(
        "trec-eval",
        str(ROOT / PLACES["{F}"] / "qrels.test"),
        str(ROOT / PLACES["{C}"] / "te_test" / "run_trunc.txt"),
    )
    assert done.returncode == 2 and "judged query '302'" in done.stderr


#: exact.tsv's cases: (qrels, run, -l, -J), as SOURCE.md lists the commands
EXACT = {
    "fixtures": ("trec-eval-fixtures/qrels.test", "trec-eval-fixtures/results.test", 1, False),
    "fixtures-F05": ("trec-eval-fixtures/qrels.test", "trec-eval-fixtures/results.test", 1, False),
    "rel-level-l2": (
        "conformance/te_rel_level/qrels.txt",
        "conformance/te_rel_level/run_STANDARD.txt",
        2,
        False,
    ),
    "graded-good": ("conformance/graded/qrels.txt", "conformance/graded/run_good.txt", 1, False),
    "graded-noisy-J": ("conformance/graded/qrels.txt", "conformance/graded/run_noisy.txt", 1, True),
    "ties": ("conformance/ties/qrels.txt", "conformance/ties/run_float32.txt", 1, False),
}
FAMILY_OF = {
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "set_P": "SetP",
    "set_relative_P": "SetP(relative=True)",
    "set_recall": "SetR",
    "set_map": "SetAP",
    "set_F": "SetF",
    "set_F_0.5": "SetF(beta=0.5)",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    **{
        f"relative_P_{k}": f"P(relative=True)@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    },
}


@pytest.mark.parametrize("case", sorted(EXACT))
def test_every_value_is_trec_evals_to_the_last_digits(case) -> None:
    """trec_eval 10 printing 17 significant digits (tests/data/trec-eval-cli/exact.tsv): the count
    and set families per query and in the mean, and iprec_at_recall per query."""
    import csv

    import rankviz as rv
    from rankviz.measures.iprec import interpolated_precision
    from rankviz.ranking.ordering import rank

    qrels_path, run_path, rel, judged_only = EXACT[case]
    with (KEPT / "exact.tsv").open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if r["case"] == case]
    assert rows
    data = ROOT / "tests" / "data"
    qrels, run = rv.read_qrels(data / qrels_path), rv.read_run(data / run_path, name="run")
    defaults = {"rel": rel, "judged_only": judged_only}
    measures = {te: str(rv.parse(ours, defaults=defaults)) for te, ours in FAMILY_OF.items()}
    asked = sorted({measures[r["measure"]] for r in rows if r["measure"] in measures})
    frame = rv.evaluate(qrels, run, asked, missing="skip").to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    table = rank(run, qrels, ties="trec_eval")
    table = table.condensed() if judged_only else table
    levels = [i / 10 for i in range(11)]
    grid = interpolated_precision(table, levels, rel=rel)
    at = {q: i for i, q in enumerate(table.qids)}
    checked = 0
    for row in rows:
        name, qid, value = row["measure"], row["qid"], float(row["value"])
        if name.startswith("iprec_at_recall_") and qid != "all":
            level = levels.index(float(name.rsplit("_", 1)[1]))
            assert grid[at[qid], level] == pytest.approx(value, abs=1e-12), (name, qid)
        elif name in measures and not (qid == "all" and name.startswith("num_")):
            assert got[measures[name], qid] == pytest.approx(value, abs=1e-12), (name, qid)
        else:
            continue
        checked += 1
    assert checked >= len(rows) - 20


GENERATED = ROOT / "tests" / "data" / "trec-eval-generated"


def _generated():
    for line in (GENERATED / "cases.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, arguments = line.split("\t")
            yield pytest.param(arguments.split(), GENERATED / f"{name}.out", id=name)


@pytest.mark.parametrize(("arguments", "expected"), list(_generated()))
def test_every_measure_is_trec_evals_to_17_digits_on_inputs_made_to_reach_its_corners(
    arguments, expected
) -> None:
    """Every value of ``-m all_trec`` and of trec_eval's own measures with parameters, per query and
    in the summary, as trec_eval 10 printing ``%.17g`` prints it, text for text (ties, grades -2..4,
    unpooled documents, a missed judged query under -c, empty lists under -J, cutoffs past the
    lists; tests/data/trec-eval-generated)."""
    import rankviz as rv
    from rankviz.cli import build_parser
    from rankviz.cli.trec_eval import options_of
    from rankviz.io.preference_judgments import read_preferences
    from rankviz.io.subtopics import read_grouped_qrels
    from rankviz.trec_eval.trec_eval_text import trec_eval_text

    form = arguments[arguments.index("-R") + 1] if "-R" in arguments else "qrels"
    qrels_path = GENERATED / f"{'qrels' if form == 'qrels' else form}.txt"
    run_path = GENERATED / "run.txt"
    args = build_parser().parse_args(["trec-eval", *arguments, str(qrels_path), str(run_path)])
    judged = {
        "qrels": rv.read_qrels,
        "qrels_jg": read_grouped_qrels,
        "prefs": read_preferences,
        "qrels_prefs": lambda path: read_preferences(path, subgroups=False),
    }[form](qrels_path)
    text = trec_eval_text(judged, rv.read_run(run_path), options_of(args), runid="gen", exact=True)
    assert text == expected.read_text()


def test_rprec_at_a_multiple_of_r_is_trec_evals_rprec_mult_to_17_digits() -> None:
    """The family Rprec(mult=m) per query against trec_eval 10's Rprec_mult (%.17g), on the
    generated corners: ties, unpooled documents, rankings shorter than the multiple."""
    import rankviz as rv

    qrels = rv.read_qrels(GENERATED / "qrels.txt")
    run = rv.read_run(GENERATED / "run.txt", name="run")
    kept = [
        line.split("\t")
        for line in (GENERATED / "defaults.out").read_text().splitlines()
        if line.startswith("Rprec_mult_") and "\tall\t" not in line
    ]
    multiples = sorted({float(name.split("_")[-1]) for name, _, _ in kept})
    measures = [f"Rprec(mult={m})" for m in multiples]
    frame = rv.evaluate(qrels, run, measures, missing="zero").to_frame(per_query=True)
    got = {(r.measure, r.qid): r.value for r in frame.itertuples()}
    for name, qid, value in kept:
        measure = str(rv.parse(f"Rprec(mult={float(name.split('_')[-1])})"))
        assert got[measure, qid.strip()] == float(value), (name, qid)
    assert len(kept) == 10 * 12  # ten multiples, every judged query (-c)


def test_a_nan_prints_with_the_sign_trec_eval_prints() -> None:
    """trec_eval 10 on x86-64 prints 0 / 0 as ``-nan`` (the CPU's NaN has its sign bit set);
    ``rankviz trec-eval`` printed ``nan`` (tests/data/trec-eval-short/negative-gain*)."""
    short = ROOT / "tests" / "data" / "trec-eval-short"
    done = run_cli(
        "trec-eval", "-q", "-m", "Rndcg.2=-1", "-m", "ndcg_rel.2=-1", "-m", "G.2=-1",
        str(short / "negative-gain.qrels"), str(short / "negative-gain.run"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == (short / "negative-gain-printed.out").read_text()
    assert done.stdout.count("  -nan\n") == 2


def test_several_runs_print_one_after_another_as_trec_eval_prints_each() -> None:
    """``rankviz trec-eval QRELS RUN RUN``: each run's output as trec_eval prints it alone (the kept
    outputs of two cases), in the order given: a pipeline over many runs pays the start once."""
    fixtures, conformance = ROOT / PLACES["{F}"], ROOT / PLACES["{C}"]
    done = run_cli(
        "trec-eval", "-q", "-c", "-m", "official", "-m", "recall", "-m", "ndcg", "-m", "ndcg_cut",
        "-m", "map_cut", "-m", "success", str(fixtures / "qrels.test"),
        str(conformance / "te_test" / "run_trunc.txt"), str(fixtures / "results.test"),
        str(conformance / "te_test" / "run_trunc.txt"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    alone = run_cli("trec-eval", "-q", str(fixtures / "qrels.test"), str(fixtures / "results.test"))
    every = (KEPT / "every-qc.out").read_text()
    assert done.stdout.startswith(every) and done.stdout.endswith(every)
    assert len(done.stdout) > 2 * len(every) and alone.stdout != every


@pytest.mark.slow
def test_the_drop_in_imports_what_it_uses_and_prints_the_same() -> None:
    """A pipeline calls ``rankviz trec-eval`` once per run: its start is numpy's and pyarrow's,
    not the study's (pandas, scipy and the study are never imported; bench/bench_trec_eval.py
    times it), and it prints what the whole command line prints."""
    qrels = str(ROOT / "sample_data" / "cranfield" / "qrels.txt")
    run = str(ROOT / "sample_data" / "cranfield" / "runs" / "bm25.run.gz")
    assert heavy_imports("trec-eval", "-q", "-m", "all_trec", qrels, run) == (0, [])
    whole = run_cli("trec-eval", "-q", "-m", "all_trec", qrels, run)
    from rankviz.cli import build_parser
    from rankviz.cli.commands import COMMANDS

    args = build_parser().parse_args(["trec-eval", "-q", "-m", "all_trec", qrels, run])
    assert whole.returncode == 0 and whole.stdout == COMMANDS["trec-eval"](args)
