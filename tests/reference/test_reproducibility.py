"""Did the reproduction reproduce (#42): KTU and RBO per topic, RMSE and nRMSE, ER, delta RI and the
paired and unpaired t tests equal repro_eval's (its RpdEvaluator on the same files) on generated
runs with ties, written in trec_eval's order as repro_eval reads them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from scipy import stats

import rankviz as rv
from rankviz.study import REPRODUCTION

MEASURES = {"AP": "AP", "P@10": "P@10", "nDCG@10": "nDCG@10"}


def _write(tmp_path: Path, seed: int) -> dict[str, Path]:
    """Qrels of 25 topics and four runs of 100 documents a topic: an original baseline and
    advanced run, and reproductions that keep most of each ranking (scores rounded: ties)."""
    rng = np.random.default_rng(seed)
    topics = [f"{100 + t}" for t in range(25)]
    docs = [f"d{i:03d}" for i in range(150)]
    qrels = [
        f"{t} 0 {d} {int(g)}\n"
        for t in topics
        for d, g in zip(docs[:60], rng.choice([0, 0, 0, 1, 2], 60), strict=True)
    ]
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    base = {t: rng.random(len(docs)) for t in topics}
    lift = {t: rng.random(len(docs)) * 0.3 * (np.arange(len(docs)) < 60) for t in topics}
    paths = {}
    for name, scores in {
        "orig_b": {t: base[t] for t in topics},
        "orig_a": {t: base[t] + lift[t] for t in topics},
        "rep_b": {t: base[t] + rng.normal(0, 0.05, len(docs)) for t in topics},
        "rep_a": {t: base[t] + lift[t] + rng.normal(0, 0.05, len(docs)) for t in topics},
    }.items():
        lines = []
        for t in topics:
            rounded = np.round(scores[t], 2)  # ties
            order = sorted(range(len(docs)), key=lambda i: (-rounded[i], docs[i]), reverse=False)
            # trec_eval's order: score descending, then docid descending within a tie
            order = sorted(order, key=lambda i: (-rounded[i], [-ord(c) for c in docs[i]]))
            lines += [
                f"{t} Q0 {docs[i]} {r + 1} {rounded[i]:.2f} {name}\n"
                for r, i in enumerate(order[:100])
            ]
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(lines))
    return paths


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 11])
def test_every_number_is_repro_evals(tmp_path: Path, seed: int) -> None:
    from repro_eval.Evaluator import RpdEvaluator

    paths = _write(tmp_path, seed)
    theirs = RpdEvaluator(
        qrels_orig_path=str(tmp_path / "qrels.txt"),
        run_b_orig_path=str(paths["orig_b"]),
        run_a_orig_path=str(paths["orig_a"]),
        run_b_rep_path=str(paths["rep_b"]),
        run_a_rep_path=str(paths["rep_a"]),
    )
    theirs.trim()
    theirs.evaluate()
    study = rv.Study.open(
        rv.StudyRequest(
            tmp_path / "qrels.txt", [str(p) for p in paths.values()], measures=list(MEASURES)
        )
    )
    ours = study.ask(REPRODUCTION, ["orig_b", "orig_a"], ["rep_b", "rep_a"])
    ktu = theirs.ktu(per_topic=True)
    rbo = theirs.rbo(per_topic=True)
    topics = ours.orderings.set_index(["role", "topic"])
    for role in ("baseline", "advanced"):
        for topic, value in ktu[role].items():
            assert topics.loc[(role, topic), "ktu"] == pytest.approx(value, abs=1e-13)
        for topic, value in rbo[role].items():
            assert topics.loc[(role, topic), "rbo"] == pytest.approx(value, abs=1e-12)
    effects = ours.effects.set_index("measure")
    rmse, nrmse = theirs.rmse(), theirs.nrmse()
    er, dri = theirs.er(), theirs.dri()
    pvalues = theirs.ttest()
    for ours_name, theirs_name in MEASURES.items():
        row = effects.loc[ours_name]
        for role in ("baseline", "advanced"):
            assert row[f"rmse_{role}"] == pytest.approx(rmse[role][theirs_name], rel=1e-9)
            assert row[f"nrmse_{role}"] == pytest.approx(nrmse[role][theirs_name], rel=1e-9)
            assert row[f"p_paired_{role}"] == pytest.approx(pvalues[role][theirs_name], rel=1e-9)
            paired = study.evaluation().matrix(ours_name)
            original, reproduced = {
                "baseline": ("orig_b", "rep_b"),
                "advanced": ("orig_a", "rep_a"),
            }[role]
            unpaired = stats.ttest_ind(paired[original], paired[reproduced]).pvalue
            assert row[f"p_unpaired_{role}"] == pytest.approx(unpaired, rel=1e-12)
        assert row["er"] == pytest.approx(er[theirs_name], rel=1e-9)
        assert row["delta_ri"] == pytest.approx(dri[theirs_name], rel=1e-9, abs=1e-15)


def test_the_command_gives_json(tmp_path: Path) -> None:
    paths = _write(tmp_path, 5)
    done = run_cli(
        "repro", str(tmp_path / "qrels.txt"), "-m", "AP",
        "--original", str(paths["orig_b"]), str(paths["orig_a"]),
        "--reproduced", str(paths["rep_b"]), str(paths["rep_a"]), "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload["orderings"]) == {"baseline", "advanced"}
    assert {"rmse_baseline", "er", "delta_ri", "p_unpaired_advanced"} <= set(payload["effects"][0])


def _copies(tmp_path: Path, paths: dict[str, Path]) -> dict[str, Path]:
    """Each run copied under another name (a perfect reproduction), and a constant run."""
    copies = {}
    for name, path in paths.items():
        copies[name] = tmp_path / f"copy_{name}.txt"
        copies[name].write_text(path.read_text().replace(f" {name}\n", f" copy_{name}\n"))
    lines = paths["orig_b"].read_text().splitlines()
    copies["constant"] = tmp_path / "constant.txt"
    copies["constant"].write_text(
        "".join(f"{line.split()[0]} Q0 {line.split()[2]} 1 1.0 constant\n" for line in lines)
    )
    return copies


@pytest.mark.slow
def test_an_effect_of_nothing_is_null_with_its_reason_never_a_crash(tmp_path: Path) -> None:
    """The advanced run the same as the baseline (no effect to reproduce: ER is x/0), a perfect
    reproduction (t tests of zero differences) and a constant run: exit 0, strict JSON, every
    undefined value null with why, and no numpy warning (run_cli makes warnings errors)."""
    paths = _write(tmp_path, 5)
    copies = _copies(tmp_path, paths)
    qrels = str(tmp_path / "qrels.txt")
    done = run_cli(
        "repro", qrels, "-m", "AP", "-m", "P@10",
        "--original", str(paths["orig_b"]), str(copies["orig_b"]),
        "--reproduced", str(paths["rep_b"]), str(paths["rep_a"]), "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr
    effects = json.loads(done.stdout)["effects"]
    assert [e["er"] for e in effects] == [None, None]
    assert all("er: the original runs have the same mean" in e["undefined"] for e in effects)
    done = run_cli(
        "repro", qrels, "-m", "AP",
        "--original", str(paths["orig_b"]), str(paths["orig_a"]),
        "--reproduced", str(copies["orig_b"]), str(copies["orig_a"]), "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr
    (effect,) = json.loads(done.stdout)["effects"]
    assert effect["er"] == 1.0 and effect["delta_ri"] == 0.0 and effect["rmse_baseline"] == 0.0
    assert effect["p_paired_baseline"] is None and effect["p_unpaired_baseline"] == 1.0
    assert "p_paired_baseline: the baseline's differences do not vary" in effect["undefined"]
    done = run_cli(
        "repro", qrels, "-m", "AP",
        "--original", str(paths["orig_b"]), "--reproduced", str(copies["constant"]),
    )  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (("--depth", "0"), "the depth compared is a whole number of documents, 1 or more: 0"),
        (("--depth", "-3"), "1 or more: -3"),
        (("--rbo-p", "0"), "RBO's persistence p is between 0 and 1, both excluded: 0"),
        (("--rbo-p", "1"), "both excluded: 1"),
        (("--rbo-p", "nan"), "both excluded: nan"),
    ],
)
def test_a_depth_or_persistence_that_defines_nothing_is_one_line(
    tmp_path: Path, option: tuple[str, str], says: str
) -> None:
    paths = _write(tmp_path, 6)
    done = run_cli(
        "repro", str(tmp_path / "qrels.txt"), "-m", "AP",
        "--original", str(paths["orig_b"]), "--reproduced", str(paths["rep_b"]), *option,
    )  # fmt: skip
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith("rankviz: error: ") and says in line, line


def test_json_says_why_a_value_is_null() -> None:
    from rankviz.settings.numbers import to_json

    payload = json.loads(to_json({"er": np.float64("inf"), "low": -np.inf, "p": np.nan, "n": 3}))
    assert payload == {"er": None, "er_not_finite": "+inf", "low": None,
                       "low_not_finite": "-inf", "p": None, "n": 3}  # fmt: skip


def test_the_usage_line_followed_as_written_works(tmp_path: Path) -> None:
    """``--help``'s usage, followed as written (the qrels first), runs; written last, the qrels
    were taken as one more reproduced run ("required: qrels")."""
    usage = run_cli("repro", "-h").stdout.split("\n\n")[0]
    assert usage.index("QRELS") < usage.index("--original") < usage.index("--reproduced")
    assert max(map(len, usage.splitlines())) <= 100
    paths = _write(tmp_path, 8)
    done = run_cli(
        "repro", str(tmp_path / "qrels.txt"), "--original", str(paths["orig_b"]),
        str(paths["orig_a"]), "--reproduced", str(paths["rep_b"]), str(paths["rep_a"]), "-m", "AP",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _verdict_of(original_b, original_a, reproduced_b, reproduced_a):
    """The verdict of four runs' per-topic AP values (orderings left empty)."""
    import pandas as pd

    from rankviz.analyses.reproducibility import reproduction

    values = pd.DataFrame(
        {"ob": original_b, "oa": original_a, "rb": reproduced_b, "ra": reproduced_a}
    )
    runs = {"baseline": ("ob", "rb"), "advanced": ("oa", "ra")}
    empty = {name: {} for name in values}
    return reproduction(empty, {"AP": values}, runs).verdict()


def test_the_verdict_reads_the_effect_ratio_and_the_paired_tests() -> None:
    """By hand, 8 topics. The same scores: ER 1, no difference: yes. The reproduced advanced run
    no better than its baseline: ER 0, no. Nine tenths of the improvement, the scores off topic by
    topic but not consistently: yes; a third of it: partly (outside the band). The reproduced
    baseline higher on every topic: the paired t test says it differs: partly."""
    base = [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.4]
    better = [b + 0.2 for b in base]
    assert _verdict_of(base, better, base, better)[0] == "yes"
    said, why = _verdict_of(base, better, base, base)
    assert said == "no" and "effect ratio 0.00: the improvement is gone" in why
    assert _verdict_of(base, better, better, base)[0] == "no"  # reversed: ER -1
    noise = [0.1, -0.14, 0.08, -0.12] * 2  # mean -0.02: ER 0.9
    most = [b + n for b, n in zip(better, noise, strict=True)]
    said, why = _verdict_of(base, better, base, most)
    assert said == "yes" and why.startswith("AP: yes, effect ratio 0.90, and neither")
    third = [b + 0.2 / 3 + n for b, n in zip(base, noise, strict=True)]
    said, why = _verdict_of(base, better, base, third)
    assert said == "partly" and "outside 0.5 to 2" in why
    shifted = [b + 0.05 for b in base]
    said, why = _verdict_of(base, better, shifted, [s + 0.2 for s in shifted])
    assert said == "partly" and "the baseline's (paired t p" in why
    assert _verdict_of(base, base, base, better)[0] == "n/a"  # no effect to reproduce


@pytest.mark.slow
def test_the_command_takes_the_roles_a_collection_declares_and_asks_elsewhere() -> None:
    """sample_data/cranfield-reproduction declares which runs reproduce which; Cranfield does
    not: the command names its runs or refuses in one line, never a verdict of runs taken as
    copies of each other. The table has no column of why a value is undefined where none is."""
    from conftest import SAMPLES

    declared = run_cli("repro", str(SAMPLES / "cranfield-reproduction"))
    named = run_cli(
        "repro", str(SAMPLES / "cranfield-reproduction"), "--original", "bm25", "bm25_rrf",
        "--reproduced", "reproduced-bm25", "reproduced-bm25_rrf",
    )  # fmt: skip
    assert declared.returncode == 0 and declared.stdout == named.stdout
    assert declared.stdout.startswith("reproduced: yes") and "undefined" not in declared.stdout
    refused = run_cli("repro", str(SAMPLES / "cranfield"))
    assert refused.returncode == 2 and refused.stdout == ""
    assert "declares no reproduction" in refused.stderr and len(refused.stderr.splitlines()) == 1
