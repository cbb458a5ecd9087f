"""What pages say, as a reader reads it (#66): the Overview's tests of every pair name no
baseline; the Unjudged page says in one line which runs are thinly judged; the diversity sample
says on screen that its subtopics are inferred."""

from __future__ import annotations

from apptest import conventions, shown, start
from conftest import run_cli


def test_the_overviews_tests_of_every_pair_name_no_baseline() -> None:
    at = start("overview", runs="bm25-raw,bm25,rrf")
    assert not at.exception
    (caption,) = [shown(c) for c in at.caption if "every pair of runs tested" in shown(c)]
    assert "against" not in caption and "every pair of runs," in caption


def test_the_unjudged_page_says_the_thinly_judged_runs_in_one_line() -> None:
    at = start("unjudged")
    assert not at.exception and not at.error
    thin = [shown(w) for w in at.warning if "is judged" in shown(w)]
    assert len(thin) == 1, thin
    for run in ("bm25-raw", "bm25", "dense", "qld", "rrf", "tfidf"):
        assert f"{run} " in thin[0]
    assert len(at.warning) <= 3  # the runs' shares, the pairs that may swap, the verdicts


def test_the_diversity_sample_says_on_screen_that_its_subtopics_are_inferred() -> None:
    at = start("overview", collection="cranfield-diversity")
    assert not at.exception and not at.error
    said = conventions(at)
    assert "subtopic judgments (ndeval's diversity measures): subtopics.txt" in said
    assert "inferred by clustering" in said and "not judged" in said


def test_judgments_add_to_a_folder_that_is_not_there_says_so(tmp_path) -> None:
    missing = tmp_path / "NO_SUCH_DIR"
    done = run_cli("judgments", "add", str(missing), "1", "184", "2", "--by", "Ann")
    assert done.returncode == 2 and done.stderr.strip() == (
        f"rankviz: error: {missing}: no such folder (DB is a collection folder, or a .sqlite file)"
    )
    done = run_cli("judgments", "add", str(missing / "m.sqlite"), "1", "184", "2", "--by", "Ann")
    assert f"{missing}: no such folder (for the record m.sqlite)" in done.stderr
    assert not missing.exists()
