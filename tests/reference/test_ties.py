"""Tie policies: ``expected`` against brute-force enumeration, ``random`` against ``expected``,
bounds."""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path

import generated
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz as rv
from rankviz.ranking.ordering import graded_within_ties, rank, shuffle_ties
from rankviz.settings.eval_settings import RunCut
from rankviz.settings.tie_policy import POLICIES


def _measures(cutoff: int) -> list[rv.Measure]:
    names = ["RR", "AP", "nDCG", "ERR", "nDCG(gain=exp)", "RR(rel=2)", "AP(rel=2)", "ERR(gmax=5)"]
    names += [
        "Rprec",
        "Rprec(rel=2)",
        "Bpref",
        "Bpref(rel=2)",
        "RBP",
        "RBP(p=0.5,residual=True)",
        "AP(judged_only=True)",
        "NCG",
        "NCG(gain=exp,judged_only=True)",
        "Rprec(mult=0.5)",
        "Rprec(rel=2,mult=2.2)",
        "nDCG(gains={1:3,2:9,3:20,4:40})",
    ]
    names += [
        f"{m}@{cutoff}"
        for m in (
            "RR",
            "Hits",
            "P",
            "R",
            "AP",
            "nDCG",
            "ERR",
            "nDCG(gain=exp)",
            "Hits(rel=2)",
            "P(rel=2)",
            "NCG",
            "DCG",
            "DCG(gain=exp)",
            "Unjudged",
            "RBP(graded=True,p=0.9)",
            "nDCG(gains={0:0.5,1:2,2:3,3:7,4:9})",
            "DCG(gains={1:3,2:9,3:20,4:40})",
            "NCG(gains={1:1.5,4:6})",
            "RBP(graded=True,gains={1:2,2:3,3:6,4:8})",
        )
    ]
    names += [
        f"{m}@{cutoff}"
        for m in (
            "Judged",
            "RBP(rel=2)",
            "RBP(residual=True)",
            "nDCG(judged_only=True)",
            "RR(judged_only=True)",
            "NumRet",
            "NumRelRet",
            "NumRelRet(rel=2)",
            "NumRet(judged_only=True)",
        )
    ]
    names += ["NumRet", "NumRel", "NumRel(rel=2)", "NumRelRet", "SetP", "SetP(relative=True)"]
    names += ["SetR", "SetF", "SetF(beta=0.5)", "SetAP(rel=2)", "NumNonRelJudgedRet"]
    names += [f"P(relative=True)@{cutoff}", f"P(relative=True,rel=2)@{cutoff}"]
    return [rv.parse(n) for n in names]


def _load(folder: Path, qrels_lines: list[str], run_lines: list[str]) -> tuple[rv.Qrels, rv.Run]:
    (folder / "qrels.txt").write_text("".join(qrels_lines))
    (folder / "run.txt").write_text("".join(run_lines))
    return rv.read_qrels(folder / "qrels.txt"), rv.read_run(folder / "run.txt")


def _brute_force_mean(
    groups: list[list[tuple[str, int | None]]], unretrieved: list[int], measures
) -> dict[str, float]:
    """Each measure's mean over every order of every group, one query per order, evaluated
    tie-free."""
    return {
        name: float(values.mean())
        for name, values in _brute_force_values(groups, unretrieved, measures).items()
    }


def _brute_force_values(
    groups: list[list[tuple[str, int | None]]], unretrieved: list[int], measures
) -> dict[str, np.ndarray]:
    """Each measure's value under every order of every group, one query per order, evaluated
    tie-free."""
    orders = list(itertools.product(*(itertools.permutations(group) for group in groups)))
    judged = [(d, g) for group in groups for d, g in group if g is not None]
    judged += [(f"unretrieved{i}", g) for i, g in enumerate(unretrieved)] + [
        ("unretrieved_nonrelevant", 0)
    ]
    qrels_lines, run_lines = [], []
    for k, order in enumerate(orders):
        docs = [d for group in order for d, _ in group]
        run_lines += [f"p{k} Q0 {d} {i + 1} {len(docs) - i} t\n" for i, d in enumerate(docs)]
        qrels_lines += [f"p{k} 0 {d} {g}\n" for d, g in judged]
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = _load(Path(tmp), qrels_lines, run_lines)
        table = rank(run, qrels)
    return {str(m): m(table) for m in measures}


def _tied_table(groups, unretrieved, ties: str = "expected"):
    """The same query as one ranking whose groups share a score."""
    judged = [(d, g) for group in groups for d, g in group if g is not None]
    judged += [(f"unretrieved{i}", g) for i, g in enumerate(unretrieved)] + [
        ("unretrieved_nonrelevant", 0)
    ]
    run_lines = [
        f"q Q0 {d} 1 {len(groups) - gi} t\n" for gi, group in enumerate(groups) for d, _ in group
    ]
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = _load(Path(tmp), [f"q 0 {d} {g}\n" for d, g in judged], run_lines)
    return rank(run, qrels, ties=ties)


GRADES = st.one_of(st.none(), st.integers(-1, 4))


@st.composite
def tied_queries(draw, max_orders: int = 2000):
    """One query: groups of equal scores (up to 8 documents each), grades -1..4 or unjudged, a
    cutoff."""
    groups, orders, n = [], 1, 0
    for _ in range(draw(st.integers(1, 4))):
        size = draw(st.integers(1, 8))
        if orders * math.factorial(size) > max_orders:
            size = 1
        orders *= math.factorial(size)
        groups.append([(f"d{n + i}", draw(GRADES)) for i in range(size)])
        n += size
    unretrieved = draw(st.lists(st.integers(0, 4), max_size=2))
    cutoff = draw(st.integers(1, n + 1))
    return groups, unretrieved, cutoff


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tied_queries())
def test_expected_equals_the_mean_over_all_orders(case) -> None:
    groups, unretrieved, cutoff = case
    measures = _measures(cutoff)
    brute = _brute_force_mean(groups, unretrieved, measures)
    table = _tied_table(groups, unretrieved)
    for measure in measures:
        assert measure(table)[0] == pytest.approx(brute[str(measure)], abs=1e-12), str(measure)


@pytest.mark.slow
def test_expected_on_a_group_of_eight_cut_by_the_cutoff() -> None:
    groups = [
        [("a", 1), ("b", None)],
        [(f"g{i}", g) for i, g in enumerate([0, 3, 1, None, 0, 2, 4, 0])],
        [("z", 2)],
    ]
    measures = _measures(5)
    brute = _brute_force_mean(groups, [1], measures)
    table = _tied_table(groups, [1])
    for measure in measures:
        assert measure(table)[0] == pytest.approx(brute[str(measure)], abs=1e-12), str(measure)


def test_expected_hand_computed() -> None:
    # three tied documents, one relevant: RR = (1 + 1/2 + 1/3) / 3, Hits@1 = 1/3, P@2 = (2/3) / 2
    table = _tied_table([[("a", 0), ("b", 1), ("c", 0)]], [])
    assert rv.parse("RR")(table)[0] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, abs=1e-15)
    assert rv.parse("Hits@1")(table)[0] == pytest.approx(1 / 3, abs=1e-15)
    assert rv.parse("P@2")(table)[0] == pytest.approx(1 / 3, abs=1e-15)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(tied_queries())
def test_pessimistic_and_optimistic_are_the_worst_and_best_of_every_order(case) -> None:
    """For every family, Judged@K and RBP's residual included: the two orders give the worst and the
    best value over every order of every tie group ("best" is lower for the residual)."""
    groups, unretrieved, cutoff = case
    measures = _measures(cutoff)
    every = _brute_force_values(groups, unretrieved, measures)
    tables = {t: _tied_table(groups, unretrieved, ties=t) for t in ("pessimistic", "optimistic")}
    for measure in measures:
        values = every[str(measure)]
        worst, best = (
            (values.min(), values.max())
            if measure.higher_is_better
            else (values.max(), values.min())
        )
        assert measure(tables["pessimistic"])[0] == pytest.approx(worst, abs=1e-12), str(measure)
        assert measure(tables["optimistic"])[0] == pytest.approx(best, abs=1e-12), str(measure)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tied_queries(max_orders=10**9))
def test_expected_lies_between_pessimistic_and_optimistic(case) -> None:
    groups, unretrieved, cutoff = case
    tables = {
        t: _tied_table(groups, unretrieved, ties=t)
        for t in ("pessimistic", "expected", "optimistic", "trec_eval")
    }
    for measure in _measures(cutoff):
        low, high = sorted(measure(tables[t])[0] for t in ("pessimistic", "optimistic"))
        mid = measure(tables["expected"])[0]
        assert low - 1e-12 <= mid <= high + 1e-12, str(measure)
        assert low - 1e-12 <= measure(tables["trec_eval"])[0] <= high + 1e-12, str(measure)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(GRADES, min_size=1, max_size=12), st.integers(1, 13))
def test_without_ties_every_policy_gives_the_trec_eval_value(grades, cutoff) -> None:
    groups = [[(f"d{i}", g)] for i, g in enumerate(grades)]
    tables = {t.name: _tied_table(groups, [1], ties=t) for t in rv.TIE_POLICIES}
    for measure in _measures(cutoff):
        reference = measure(tables["trec_eval"])[0]
        for policy, table in tables.items():
            # to its last bits: the closed forms multiply by the discount's reciprocal, and DCG
            # (unlike the measures in [0, 1]) can reach tens, so the bound is relative as well
            assert measure(table)[0] == pytest.approx(reference, rel=1e-15, abs=1e-15), (
                str(measure),
                policy,
            )


@pytest.mark.slow
def test_random_converges_to_expected_and_is_reproducible() -> None:
    groups = [
        [("a", 1), ("b", 0)],
        [(f"g{i}", g) for i, g in enumerate([0, 3, 1, None, 0, 2, 4, 0, 1, 0])],
    ]
    table = _tied_table(groups, [2], ties="trec_eval")
    expected_table = _tied_table(groups, [2])
    measures = _measures(4)
    trials = 4000
    drawn = rv.EvalSettings(ties="random", trials=trials)
    results = rv.evaluate_tables({"q": table}, measures, drawn, rng=7)
    again = rv.evaluate_tables({"q": table}, measures, drawn, rng=7)
    for measure in measures:
        values = results.trials[str(measure)][:, 0, 0]
        np.testing.assert_array_equal(values, again.trials[str(measure)][:, 0, 0])
        exact = measure(expected_table)[0]
        assert abs(values.mean() - exact) <= 5 * values.std() / math.sqrt(trials) + 1e-12, str(
            measure
        )


def test_shuffle_moves_documents_only_inside_their_group() -> None:
    groups = [[("a", 1), ("b", 0), ("c", 2)], [("d", 0)], [("e", 1), ("f", None)]]
    table = _tied_table(groups, [], ties="trec_eval")
    seen = set()
    for seed in range(200):
        shuffled = shuffle_ties(table, seed)
        assert shuffled.ties == POLICIES["random"] and str(shuffled.ties) == "random"
        docids = list(shuffled.docids())
        assert (
            set(docids[:3]) == {"a", "b", "c"}
            and docids[3] == "d"
            and set(docids[4:]) == {"e", "f"}
        )
        np.testing.assert_array_equal(shuffled.score, table.score)
        seen.add(tuple(docids))
    assert len(seen) == 12  # 3! x 2! orders, all reached


def test_random_blocks_report_spread(tmp_path: Path) -> None:
    qrels, run = _load(
        tmp_path,
        ["q 0 a 1\n", "q 0 c 1\n", "r 0 x 1\n"],
        ["q Q0 a 1 1 t\n", "q Q0 b 2 1 t\n", "q Q0 c 3 0 t\n", "r Q0 x 1 5 t\n", "r Q0 y 2 4 t\n"],
    )
    evaluation = rv.evaluate(qrels, [run], ["RR"], ties="random", trials=200, rng=3)
    assert evaluation.trials["RR"].shape == (200, 2, 1)
    qids, _ = evaluation.run_values("RR", "run")
    std = evaluation.query_std("RR", "run")
    assert std[list(qids).index("r")] == 0.0  # no ties: every trial agrees
    assert std[list(qids).index("q")] > 0.0
    assert 0.0 < evaluation.mean_std("RR", "run") < 0.5
    frame = rv.evaluate(qrels, [run], ["RR"], ties="random", trials=50, rng=3).to_frame(
        per_query=True
    )
    assert list(frame.columns) == ["run", "measure", "qid", "value", "std"]
    assert frame.equals(
        rv.evaluate(qrels, [run], ["RR"], ties="random", trials=50, rng=3).to_frame(per_query=True)
    )


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(tied_queries(max_orders=10**9), min_size=2, max_size=4), st.integers(1, 12))
def test_expected_keeps_queries_apart(cases, cutoff) -> None:
    """Several tied queries in one run: each query's expected value is the one it has alone."""
    qrels_lines, run_lines = [], []
    for k, (groups, unretrieved, _) in enumerate(cases):
        judged = [(d, g) for group in groups for d, g in group if g is not None]
        judged += [(f"unretrieved{i}", g) for i, g in enumerate(unretrieved)] + [
            ("unretrieved_nonrelevant", 0)
        ]
        qrels_lines += [f"q{k} 0 {d} {g}\n" for d, g in judged]
        run_lines += [
            f"q{k} Q0 {d} 1 {len(groups) - gi} t\n"
            for gi, group in enumerate(groups)
            for d, _ in group
        ]
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = _load(Path(tmp), qrels_lines, run_lines)
    together = rank(run, qrels, ties="expected")
    for measure in _measures(cutoff):
        values = dict(zip(together.qids, measure(together)))
        for k, (groups, unretrieved, _) in enumerate(cases):
            alone = measure(_tied_table(groups, unretrieved))[0]
            assert values[f"q{k}"] == pytest.approx(alone, abs=1e-12), (str(measure), k)


def test_the_ties_report_bounds_judged_and_the_residual_too() -> None:
    from rankviz.analyses.ties import tie_report

    qrels = rv.qrels_from_dict({"q": {"a": 1, "b": 0, "e": 2}, "r": {"x": 1}})
    run = rv.run_from_dict(
        {
            "q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0, "e": 0.5},
            "r": {"x": 2.0, "y": 2.0, "z": 2.0},
        }
    )
    measures = [rv.parse(m) for m in ("Judged@2", "RBP(p=0.5,residual=True)@3", "nDCG@2")]
    report = tie_report(qrels, [run], measures)
    for measure in measures:
        means = report.sections[str(measure)].means.loc["run"]
        assert means["width"] > 0, str(measure)
        low, high = sorted((means["pessimistic"], means["optimistic"]))
        assert low <= means["trec_eval"] <= high and low <= means["expected"] <= high, str(measure)
        better = means["optimistic"] > means["pessimistic"]
        assert better == measure.higher_is_better, str(measure)


def _trec_eval_filled(groups, depth: int | None, grade: int):
    """The groups with the unjudged documents of trec_eval's top ``depth`` judged ``grade``
    (trec_eval orders a tie group by docid bytes descending); a negative grade is "in the pool,
    unjudged", filled too."""
    filled, position = [], 0
    for group in groups:
        order = sorted(group, key=lambda doc: doc[0].encode(), reverse=True)
        rank_of = {doc: position + i for i, (doc, _) in enumerate(order)}
        inside = [depth is None or rank_of[d] < depth for d, _ in group]
        filled.append(
            [
                (d, grade if (g is None or g < 0) and within else g)
                for (d, g), within in zip(group, inside)
            ]
        )
        position += len(group)
    return filled


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(tied_queries(), st.integers(1, 4))
def test_unjudged_relevant_fills_one_set_of_documents_under_every_policy(case, grade) -> None:
    """--unjudged relevant:G judges the unjudged documents of trec_eval's top K, whatever the tie
    policy; then expected is the mean, pessimistic the worst and optimistic the best of every
    order."""
    groups, unretrieved, cutoff = case
    measures = _measures(cutoff)
    tables = {
        t: _tied_table(groups, unretrieved, ties=t)
        for t in ("pessimistic", "optimistic", "expected", "trec_eval", "run")
    }
    for depth in {m.cutoff for m in measures}:
        chosen = [m for m in measures if m.cutoff == depth]
        every = _brute_force_values(_trec_eval_filled(groups, depth, grade), unretrieved, chosen)
        for measure in chosen:
            values = every[str(measure)]
            worst, best = (
                (values.min(), values.max())
                if measure.higher_is_better
                else (values.max(), values.min())
            )
            got = {t: measure(table.filled(grade, depth))[0] for t, table in tables.items()}
            assert got["pessimistic"] == pytest.approx(worst, abs=1e-12), str(measure)
            assert got["optimistic"] == pytest.approx(best, abs=1e-12), str(measure)
            assert got["expected"] == pytest.approx(values.mean(), abs=1e-12), str(measure)
            for policy in ("trec_eval", "run"):
                assert values.min() - 1e-12 <= got[policy] <= values.max() + 1e-12, (
                    policy,
                    str(measure),
                )


def test_random_orders_fill_the_same_documents_as_expected() -> None:
    """P@1 on one tied group of three, one judged relevant: filling trec_eval's top 1 fills the same
    document in every drawn order, so the mean of the orders tends to the expected value."""
    qrels = rv.qrels_from_dict({"q": {"b": 1, "z": 0}})
    run = rv.run_from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    expected = (
        rv.evaluate(qrels, run, "P@1", ties="expected", unjudged="relevant").means().iloc[0, 0]
    )
    drawn = (
        rv.evaluate(qrels, run, "P@1", ties="random", trials=3000, seed=1, unjudged="relevant")
        .means()
        .iloc[0, 0]
    )
    # trec_eval's top 1 is c (docid descending): c and b relevant of three
    assert expected == pytest.approx(2 / 3)
    assert drawn == pytest.approx(expected, abs=0.03)


@pytest.mark.slow
def test_a_querys_expected_values_do_not_depend_on_the_queries_beside_it() -> None:
    """The stream engine evaluates blocks of queries: a query's numbers must be bit-identical
    whether it is evaluated alone or beside queries with larger tie groups."""
    generator = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(40):
        size = int(generator.integers(3, 40))
        scores = generator.integers(0, max(2, size // int(generator.integers(1, 8))), size).astype(
            float
        )
        run[f"q{q}"] = {f"d{i}": s for i, s in enumerate(scores)}
        qrels[f"q{q}"] = {
            f"d{i}": int(g)
            for i, g in enumerate(generator.integers(-1, 5, size))
            if generator.random() < 0.7
        }
    for ties in ("expected", "trec_eval", "pessimistic"):
        table = rank(rv.run_from_dict(run), rv.qrels_from_dict(qrels), ties=ties)
        for measure in _measures(10):
            together = measure(table)
            alone = np.array([measure(table.of_queries([q]))[0] for q in table.qids])
            assert np.array_equal(together, alone), (ties, str(measure))


def test_expected_on_a_group_too_large_to_enumerate_equals_the_sum_over_its_positions() -> None:
    """A run's chance level is one group of up to 1,000 documents per query, summed in closed form
    (harmonic and discount prefix sums, not position by position): checked against exact rational
    sums over every position."""
    from fractions import Fraction

    before = [("a", 1), ("b", 0), ("c", None)]
    grades = [2 if i % 37 == 0 else 1 if i % 11 == 0 else 0 for i in range(300)]
    group = [(f"g{i:03d}", g) for i, g in enumerate(grades)]
    table = _tied_table([*[[d] for d in before], group], [1, 2])
    s, n, r = len(before), len(group), sum(g >= 1 for g in grades)
    relevant_total = 1 + r + 2
    # AP: position x of the group is relevant with probability r/n; given that, the relevant
    # documents up to it number 1 (a, before it) + 1 + (x - 1)(r - 1)/(n - 1) in expectation
    ap = Fraction(1, 1) / 1  # a at rank 1
    for x in range(1, n + 1):
        ap += Fraction(r, n) * (1 + 1 + Fraction((x - 1) * (r - 1), n - 1)) / (s + x)
    assert rv.parse("AP")(table)[0] == pytest.approx(float(ap / relevant_total), rel=1e-13)
    assert rv.parse("AP@200")(table)[0] == pytest.approx(
        float(
            (
                1
                + sum(
                    Fraction(r, n) * (2 + Fraction((x - 1) * (r - 1), n - 1)) / (s + x)
                    for x in range(1, 198)
                )
            )
            / relevant_total
        ),
        rel=1e-13,
    )
    # nDCG: each position of the group holds the group's mean gain
    mean_gain = Fraction(sum(grades), n)
    dcg = 1 / math.log2(2) + math.fsum(
        float(mean_gain) / math.log2(s + x + 1) for x in range(1, n + 1)
    )
    ideal = sorted([1, 0, *grades, 1, 2], reverse=True)
    idcg = math.fsum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    assert rv.parse("nDCG")(table)[0] == pytest.approx(dcg / idcg, rel=1e-13)
    assert rv.parse("P@100")(table)[0] == pytest.approx(
        float((1 + 97 * Fraction(r, n)) / 100), rel=1e-13
    )


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    case=generated.collections(),
    depth=st.one_of(st.none(), st.integers(1, 6)),
    rule=st.sampled_from(["optimistic", "pessimistic"]),
)
def test_grades_reorder_trec_evals_ties_into_the_policys_own_table(case, depth, rule) -> None:
    """What the study does for optimistic and pessimistic (the tied rows of trec_eval's table sorted
    by grade) builds the very table a run ordered under the policy from its file has, array for
    array, with and without a depth cut."""
    qrels_dict, run_dict = case
    cut = RunCut(depth=depth)
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = generated.write_files(Path(tmp), qrels_dict, run_dict)
        qrels, run = rv.read_qrels(qrels_path), rv.read_run(run_path)
        own = rank(run, qrels, ties=rule, cut=cut)
        derived = graded_within_ties(rank(run, qrels, cut=cut), POLICIES[rule])
        options = {"ties": rule} | ({"depth": depth} if depth else {})
        through_study = rv.Study.open(
            rv.StudyRequest(qrels_path, [run_path], options=options)
        ).table("run")
    assert derived.ties == own.ties
    for name in ("row_query", "pos", "grade", "judged", "score", "run_rows", "tie_group"):
        np.testing.assert_array_equal(getattr(derived, name), getattr(own, name), err_msg=name)
    np.testing.assert_array_equal(through_study.run_rows, own.run_rows)


@settings(max_examples=50, deadline=None)
@given(
    spans=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 70)), min_size=1, max_size=300),
    cutoff=st.one_of(st.none(), st.integers(1, 80)),
)
def test_groups_alike_sum_their_discount_as_each_alone(spans, cutoff) -> None:
    """A chance level's million queries are groups alike (one start, one span): their sum is
    taken once and shared. Every group's sum is the one it has when summed alone, to the bit,
    wide groups (past the span summed position by position) and narrow ones."""
    from rankviz.measures._groups import TieGroups, discount_sums

    start = np.array([s for s, _ in spans], dtype=np.int64)
    size = np.array([n for _, n in spans], dtype=np.int64)
    groups = TieGroups(query=np.arange(len(spans)), start=start, size=size)

    def discount(rank):
        return 1.0 / np.log2(rank + 1.0)

    together = discount_sums(groups, np.arange(len(spans)), cutoff, discount)
    for at in range(len(spans)):
        alone = discount_sums(groups, np.array([at]), cutoff, discount)
        assert together[at] == alone[0]


@settings(max_examples=50, deadline=None)
@given(
    groups=st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 6), st.integers(0, 6), st.integers(0, 6)),
        min_size=1,
        max_size=300,
    )
)
def test_groups_alike_share_their_first_positive_chance_as_each_alone(groups) -> None:
    """RR's and Hits' chance level: a million queries of ten documents, one relevant, are groups
    alike, taken once. Every group's value in a batch is, to the bit, its value alone (from 43
    groups of these few kinds, they are taken alike)."""
    from rankviz.measures._groups import _first_positive

    start = np.array([g[0] for g in groups], dtype=np.int64)
    size = np.array([g[1] for g in groups], dtype=np.float64)
    zeros = np.minimum([g[2] for g in groups], size)
    steps = np.minimum([g[3] for g in groups], size).astype(np.int64)

    def discount(rank):
        return 1.0 / rank

    together = _first_positive(size, zeros, steps, start, discount)
    for at in range(len(groups)):
        alone = _first_positive(
            size[at : at + 1], zeros[at : at + 1], steps[at : at + 1], start[at : at + 1], discount
        )
        assert together[at] == alone[0]
