"""Fused runs (#42) equal ranx's fusion of the same rankings: RRF (k 60 and 5), CombSUM and CombMNZ
under min-max and z-score normalisation, BordaFuse; on generated runs whose documents only some runs
retrieve, with ties for the score-based methods (the rank-based ones read the order of tied
documents, which ranx sorts its own way and rankviz as trec_eval). The command writes a run every
command reads back to the same scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import run_cli

import rankviz as rv
from rankviz.analyses.fusion import Recipe, fuse, ranked

CASES = [
    (Recipe("rrf", 60), "rrf", None, {"k": 60}),
    (Recipe("rrf", 5), "rrf", None, {"k": 5}),
    (Recipe("combsum", norm="minmax"), "sum", "min-max", {}),
    (Recipe("combsum", norm="zscore"), "sum", "zmuv", {}),
    (Recipe("combmnz", norm="minmax"), "mnz", "min-max", {}),
    (Recipe("combmnz", norm="zscore"), "mnz", "zmuv", {}),
    (Recipe("borda"), "bordafuse", None, {}),
]


def _runs(seed: int, *, ties: bool = True) -> list[rv.Run]:
    """Three runs of 8 queries: each retrieves 30 of 50 documents (a different 30), scores
    rounded (ties) or not."""
    rng = np.random.default_rng(seed)
    runs = []
    for name in ("a", "b", "c"):
        rows = [
            (f"q{q}", f"d{d:02d}", round(float(rng.normal()), 1 if ties else 15))
            for q in range(8)
            for d in rng.choice(50, 30, replace=False)
        ]
        runs.append(
            rv.run_from_frame(pd.DataFrame(rows, columns=["qid", "docid", "score"]), name=name)
        )
    return runs


def _ranx(runs: list[rv.Run]):
    """ranx Runs whose documents are in rankviz's order (ranx's RRF and Borda read the order)."""
    from ranx import Run

    out = []
    for run in runs:
        frame = ranked(run)
        nested = {
            q: dict(zip(g["docid"], g["score"].astype(float), strict=True))
            for q, g in frame.groupby("qid", sort=True)
        }
        out.append(Run(nested, name=run.name))
    return out


@pytest.mark.slow  # ranx compiles its numba kernels first (half a minute)
@pytest.mark.parametrize(("recipe", "method", "norm", "params"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_fused_score_is_ranxs(recipe, method, norm, params, seed) -> None:
    from ranx import fuse as ranx_fuse

    runs = _runs(seed, ties=recipe.method not in ("rrf", "borda"))
    ours = fuse(runs, recipe).set_index(["qid", "docid"])["score"]
    theirs = ranx_fuse(_ranx(runs), norm=norm, method=method, params=params).to_dict()
    pairs = [(q, d, s) for q, docs in theirs.items() for d, s in docs.items()]
    assert len(pairs) == len(ours)
    for q, d, s in pairs:
        assert ours[(q, d)] == pytest.approx(s, rel=1e-12, abs=1e-12), (q, d)


def test_the_command_writes_a_run_read_back_as_its_scores(tmp_path) -> None:
    paths = []
    for run in _runs(3):
        frame = ranked(run)
        path = tmp_path / f"{run.name}.run"
        path.write_text(
            "".join(
                f"{r.qid} Q0 {r.docid} {r.rank} {r.score} {run.name}\n" for r in frame.itertuples()
            )
        )
        paths.append(path)
    out = tmp_path / "fused.run"
    done = run_cli(
        "fuse", *map(str, paths), "--method", "combmnz", "--norm", "zscore", "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "combmnz-zscore(a+b+c)" in done.stdout
    back = ranked(rv.read_run(out))
    want = fuse([rv.read_run(p) for p in paths], Recipe("combmnz", norm="zscore"))
    assert back["docid"].tolist() == want["docid"].tolist()
    assert np.array_equal(back["score"].to_numpy(), want["score"].to_numpy())
    refused = run_cli("fuse", *map(str, paths), "-o", str(paths[0]))
    assert refused.returncode == 2 and "never modified" in refused.stderr
