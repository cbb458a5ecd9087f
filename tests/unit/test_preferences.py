"""Preference judgments (trec_eval's ``-R prefs``): what the reader refuses, and the ``prefs_*``
families on cases worked by hand (the generated and trec_eval's own cases are in
tests/reference/test_trec_eval_cli.py and test_preferences_beside.py)."""

from __future__ import annotations

from pathlib import Path

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
