"""Preference judgments (trec_eval's ``-R prefs``): what the reader refuses, and the ``prefs_*``
families on cases worked by hand (the generated and trec_eval's own cases are in
tests/reference/test_trec_eval_cli.py and test_preferences_beside.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rankviz as rv
from rankviz.errors import FormatError, MeasureError
from rankviz.io.preference_judgments import read_preferences
from rankviz.ranking.ordering import rank


def _table(tmp_path: Path, prefs: str, run: str, *, ties: str = "trec_eval", subgroups=True):
    (tmp_path / "prefs").write_text(prefs)
    (tmp_path / "run").write_text(run)
    preferences = read_preferences(tmp_path / "prefs", subgroups=subgroups)
    return rank(rv.read_run(tmp_path / "run"), preferences.qrels(), ties=ties)


def _values(table) -> dict[str, float]:
    from rankviz.measures.preferences import OFFERED

    return {name: float(rv.parse(name)(table)[0]) for name in OFFERED}


def test_a_ranking_of_one_subgroup_counts_as_worked_by_hand(tmp_path: Path) -> None:
    """A > B > C (C not relevant); the run ranks B, then A, and misses C: A > B fails among the
    retrieved, A > C and B > C are fulfilled by implication."""
    table = _table(tmp_path, "q u s A 2\nq u s B 1\nq u s C 0\n", "q Q0 B 1 2 r\nq Q0 A 2 1 r\n")
    values = _values(table)
    assert values["prefs_num_prefs_poss"] == 3
    assert values["prefs_num_prefs_ful"] == 2 and values["prefs_num_prefs_ful_ret"] == 0
    for name in ("prefs_simp", "prefs_simp_imp", "prefs_pair", "prefs_pair_imp", "prefs_avgjg"):
        assert values[name] == pytest.approx(2 / 3), name
    assert values["prefs_simp_ret"] == values["prefs_pair_ret"] == values["prefs_avgjg_ret"] == 0
    # R = 2 relevant, N = 1 not: R - N = 1 more non-relevant document each relevant one beats,
    # (2 + 2 x 1) / (3 + 2 x 1); among the retrieved R = 2, N = 0: (0 + 2 x 2) / (1 + 2 x 2)
    assert values["prefs_avgjg_Rnonrel"] == pytest.approx(4 / 5)
    assert values["prefs_avgjg_Rnonrel_ret"] == pytest.approx(4 / 5)


def test_subgroups_imply_the_preferences_of_a_chain(tmp_path: Path) -> None:
    """A > B in one subgroup, B > C in another: A > C too, three preferences, all fulfilled."""
    prefs = "q u s1 A 2\nq u s1 B 1\nq u s2 B 2\nq u s2 C 1\n"
    values = _values(_table(tmp_path, prefs, "q Q0 A 1 3 r\nq Q0 B 2 2 r\nq Q0 C 3 1 r\n"))
    assert values["prefs_num_prefs_poss"] == values["prefs_num_prefs_ful_ret"] == 3
    assert values["prefs_simp"] == 1


def test_the_tie_policy_orders_the_ranking_they_read(tmp_path: Path) -> None:
    """A and B tied: trec_eval's order (docno descending) ranks B first, the run's rank column A."""
    run = "q Q0 A 1 1 r\nq Q0 B 2 1 r\n"
    assert _values(_table(tmp_path, "q u s A 1\nq u s B 0\n", run))["prefs_simp_ret"] == 0
    ranked = _table(tmp_path, "q u s A 1\nq u s B 0\n", run, ties="run")
    assert _values(ranked)["prefs_simp_ret"] == 1


def test_a_table_without_preferences_says_what_the_measure_needs(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q 0 A 1\n")
    (tmp_path / "run").write_text("q Q0 A 1 1 r\n")
    table = rank(rv.read_run(tmp_path / "run"), rv.read_qrels(tmp_path / "qrels"))
    with pytest.raises(MeasureError, match="prefs_simp needs preference judgments"):
        rv.parse("prefs_simp")(table)


@pytest.mark.parametrize(
    ("text", "subgroups", "says"),
    [
        ("q u s A 1\nq u A 1\n", True, ":2: a line is 'qid group subgroup docno level', not 4"),
        ("q u s A one\n", True, ":1: the level 'one' is not a number"),
        ("q u s A nan\n", True, ":1: the level 'nan' is not a number"),
        ("q u s A -1\n", True, ":1: a level below 0"),
        ("", False, ": no preferences"),
        ("q u s A 1\n#\nq u s A 2\n", True, ":3: document 'A' is listed again in the same group"),
        (
            "q u s1 A 0\nq u s1 B 1\nq u s2 A 1\nq u s2 C 0\n",
            True,
            ":3: document 'A' is at level 0",
        ),
        (
            "q u s1 A 2\nq u s1 B 1\nq u s2 B 2\nq u s2 A 1\n",
            True,
            ": group 'u' of query 'q' prefers 'A' to 'B' and 'B' to 'A'",
        ),
    ],
)
def test_what_trec_eval_would_misread_is_refused_in_one_line(
    tmp_path: Path, text: str, subgroups: bool, says: str
) -> None:
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(FormatError) as raised:
        read_preferences(path, subgroups=subgroups)
    shown = str(raised.value).replace(f"{path}, line ", ":").replace(str(path), "")
    assert says in shown and "\n" not in shown


def test_lines_split_where_trec_eval_splits_them(tmp_path: Path) -> None:
    """Fields between any of C's white space (a tab, a carriage return before the newline);
    comments start a line with #."""
    path = tmp_path / "prefs"
    path.write_bytes(b"# a comment\nq\tu s\x0bA 1\r\nq u s B\t\t0\n")
    query = read_preferences(path).queries["q"]
    assert query.docs == ("A", "B") and [g.name for g in query.groups] == ["u"]


def test_qrels_read_as_preferences_keep_a_grade_below_0_as_a_level_below_0(tmp_path) -> None:
    """As trec_eval's -R qrels_prefs reads them: -2 (spam) is below 0 (not relevant), both not
    relevant, and each is preferred to by the relevant document."""
    from rankviz.io.preference_judgments import read_preferences

    path = tmp_path / "qrels.txt"
    path.write_text("q u A 2\nq u B 0\nq u C -2\n")
    (group,) = read_preferences(path, subgroups=False).queries["q"].groups
    docs = read_preferences(path, subgroups=False).queries["q"].docs
    levels = dict(zip(docs, group.level.tolist(), strict=True))
    assert levels == {"A": 2.0, "B": 0.0, "C": -2.0}
    assert [[docs[i] for i in c] for c in group.classes] == [["A"], ["B"], ["C"]]


# --- bounded time and memory (#67) -----------------------------------------------------------


def _warshall(chains: list[list[np.ndarray]], size: int) -> np.ndarray:
    """The closure the plain way (every class above every later one, then Warshall's)."""
    above = np.zeros((size, size), dtype=bool)
    for chain in chains:
        for i, high in enumerate(chain):
            for low in chain[i + 1 :]:
                above[np.ix_(high, low)] = True
    for k in range(size):
        above |= above[:, k : k + 1] & above[k : k + 1, :]
    return above


def test_the_implied_preferences_are_the_closure_of_the_subgroups() -> None:
    """The linear walk over the subgroups' classes gives Warshall's closure, circles included
    (a document on a circle is above itself there)."""
    from rankviz.io.preference_judgments import implied

    rng = np.random.default_rng(5)
    for _ in range(300):
        size = int(rng.integers(1, 12))
        chains = []
        for _ in range(int(rng.integers(1, 4))):
            docs = rng.permutation(size)[: int(rng.integers(1, size + 1))]
            levels = rng.integers(0, 4, len(docs))
            chains.append(
                [np.sort(docs[levels == v]) for v in sorted(set(levels.tolist()), reverse=True)]
            )
        np.testing.assert_array_equal(implied(chains, size), _warshall(chains, size))


def test_the_ordered_pairs_are_counted_as_pair_by_pair() -> None:
    from rankviz.measures._preferences import ordered_pairs

    rng = np.random.default_rng(9)
    for _ in range(200):
        classes = rng.integers(0, int(rng.integers(1, 6)), int(rng.integers(0, 40)))
        higher = sum(
            classes[i] < classes[j] for i in range(len(classes)) for j in range(i + 1, len(classes))
        )
        lower = sum(
            classes[i] > classes[j] for i in range(len(classes)) for j in range(i + 1, len(classes))
        )
        assert ordered_pairs(classes) == (higher, lower)


def test_a_query_judging_more_documents_than_are_counted_is_refused_at_its_line(
    tmp_path: Path,
) -> None:
    """A chain of 1,000,000 subgroups ended in 'Unable to allocate 931 GiB': a query's documents
    past the most counted are refused at the line that goes past, before anything is built."""
    from rankviz.io.preference_judgments import MOST_JUDGED

    path = tmp_path / "chain.txt"
    path.write_text(
        "".join(f"q1 g s{i} d{i} 1\nq1 g s{i} d{i + 1} 0\n" for i in range(MOST_JUDGED + 5))
    )
    with pytest.raises(FormatError, match=f"line {2 * MOST_JUDGED}: query 'q1': its preferences"):
        read_preferences(path)


def test_a_line_longer_than_every_reader_takes_is_refused_in_a_preferences_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "no-line-ends.txt"
    path.write_bytes(b"q1 g s " + b"x" * (17 << 20))
    with pytest.raises(FormatError, match="line 1: the line is longer than 16 MiB"):
        read_preferences(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["ndeval", "{big}", "{run}"],
        ["trec-eval", "-R", "qrels_jg", "{big}", "{run}"],
        ["trec-eval", "-R", "prefs", "{big}", "{run}"],
        ["trec-eval", "-Z", "{big}", "{qrels}", "{run}"],
        ["evaluate", "{qrels}", "{run}", "--diversity", "{big}", "-m", "alpha-nDCG@20"],
        ["evaluate", "{qrels}", "{run}", "--preferences", "{big}", "-m", "prefs_simp"],
    ],
    ids=["ndeval qrels", "qrels_jg", "prefs", "z-scores", "diversity", "preferences"],
)
def test_every_file_a_command_reads_is_refused_at_a_line_too_long(tmp_path: Path, argv) -> None:
    """A 2 GiB file of no line ends (a sparse file: no disk used) as ndeval's qrels went past 4 GB
    in 7 s; as the run, it was refused in a second: every reader now reads a block at a time and
    refuses the line past 16 MiB."""
    from conftest import run_cli

    big = tmp_path / "big"
    with open(big, "wb") as handle:
        handle.truncate(2 << 30)
    fixtures = Path(__file__).parents[1] / "data" / "trec-eval-fixtures"
    places = {"{big}": str(big), "{run}": str(fixtures / "results.test")}
    places["{qrels}"] = str(fixtures / "qrels.test")
    done = run_cli(*(places.get(a, a) for a in argv))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert f"{big}, line 1: the line is longer than 16 MiB" in line
