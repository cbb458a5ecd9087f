"""Did the reproduction reproduce (Breuer et al., SIGIR 2020, as repro_eval measures it): an
original baseline and advanced run against their reproductions, at three levels. The document
orderings: Kendall's tau union (KTU) and rank-biased overlap (RBO) per topic; the effectiveness:
the root mean square error of the per-topic scores (and normalised by its largest possible value);
the overall effect: the effect ratio (ER) and the delta of relative improvement (delta RI); and
the t tests of each reproduced run's scores against its original, paired (a reproduction, the same
topics) and unpaired (a replication, other topics)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from rankviz.errors import OptionError
from rankviz.settings.numbers import decided_signs

#: repro_eval's defaults: the first 1000 documents; RBO's persistence and depth
DEPTH = 1000
RBO_P = 0.95
ROLES = ("baseline", "advanced")
#: A verdict per measure (Breuer et al. read ER = 1 as the effect reproduced, 0 < ER < 1 as a
#: weaker one, ER <= 0 as none): "yes" where the effect ratio lies in this band (the reproduced
#: improvement at least half and at most twice the original's) and neither reproduced run's
#: per-topic scores differ from its original's (paired t test at ALPHA); "partly" where the
#: improvement is there (ER > 0) but not so; "no" where it is gone or reversed (ER <= 0).
ER_BAND = (0.5, 2.0)
ALPHA = 0.05


def kendall_tau_union(original: Sequence[str], reproduced: Sequence[str]) -> float:
    """Kendall's tau (b) between the two orderings of the union of their documents: each list's
    documents as their places in the union sorted by docid, compared rank by rank (repro_eval's
    KTU); the lists cut to the shorter one's length, rounded to 14 digits as repro_eval does."""
    n = min(len(original), len(reproduced))
    if n < 2:
        return float("nan")
    union = {d: i for i, d in enumerate(sorted(set(original[:n]) | set(reproduced[:n])))}
    tau = stats.kendalltau([union[d] for d in original[:n]], [union[d] for d in reproduced[:n]])
    return float(round(tau.statistic, 14))


def rank_biased_overlap(
    original: Sequence[str], reproduced: Sequence[str], *, p: float = RBO_P, depth: int = DEPTH
) -> float:
    """RBO at ``depth`` normalised by its weights (Clarke et al.'s form, which repro_eval uses):
    the weighted mean over ranks i of the share of the top i the two lists share."""
    seen_original: set[str] = set()
    seen_reproduced: set[str] = set()
    shared = 0  # the size of the two tops' intersection, kept as each grows (linear in depth)
    score = normaliser = 0.0
    weight = 1.0
    for i in range(depth):
        if i < len(reproduced) and (doc := reproduced[i]) not in seen_reproduced:
            seen_reproduced.add(doc)
            shared += doc in seen_original
        if i < len(original) and (doc := original[i]) not in seen_original:
            seen_original.add(doc)
            shared += doc in seen_reproduced
        score += weight * shared / (i + 1)
        normaliser += weight
        weight *= p
    return score / normaliser


@dataclass(frozen=True)
class Reproduction:
    """The four runs' comparison (see the module): ``orderings`` per topic and role (ktu, rbo),
    ``effects`` per measure."""

    orderings: pd.DataFrame  # topic, role, ktu, rbo
    effects: pd.DataFrame  # measure, rmse/nrmse/p per role, er, delta_ri
    runs: Mapping[str, tuple[str, str]]  # role -> (original, reproduced)
    depth: int
    rbo_p: float

    def means(self) -> pd.DataFrame:
        """Per role, KTU and RBO averaged over the topics."""
        return self.orderings.groupby("role", sort=False)[["ktu", "rbo"]].mean()

    def verdict(self) -> tuple[str, str]:
        """Whether the reproduction reproduced, over every measure with an effect to reproduce
        (``yes`` where each says yes, ``no`` where each says no, else ``partly``), and why, one
        clause a measure; ("", "") without an advanced run (no effect to reproduce)."""
        if "reproduced" not in self.effects:
            return "", ""
        said = self.effects["reproduced"].tolist()
        decided = [s for s in said if s != "n/a"]
        overall = "partly" if len(set(decided)) > 1 else decided[0] if decided else "n/a"
        why = "; ".join(
            f"{m}: {s}, {w}"
            for m, s, w in zip(self.effects["measure"], said, self.effects["why"], strict=True)
        )
        return overall, why

    def describe(self) -> str:
        pairs = "; ".join(f"{role}: {o} -> {r}" for role, (o, r) in self.runs.items())
        return (
            f"reproduction of {pairs}: KTU and RBO (p = {self.rbo_p:g}) on the first "
            f"{self.depth} documents, RMSE of the per-topic scores, ER and delta RI, t tests "
            "(paired: reproducibility; unpaired: replicability), as repro_eval computes them"
        )

    def to_frames(self) -> dict[str, pd.DataFrame]:
        return {
            "orderings": self.means().reset_index(),
            "per_topic": self.orderings,
            "effects": self.effects,
        }

    def to_dict(self) -> dict:
        reproduced, why = self.verdict()
        return {
            "reproduced": reproduced or None,
            "why": why or None,
            "runs": {role: list(pair) for role, pair in self.runs.items()},
            "orderings": self.means().to_dict(orient="index"),
            "per_topic": self.orderings.to_dict(orient="records"),
            "effects": self.effects.to_dict(orient="records"),
        }


def reproduction(
    orderings: Mapping[str, Mapping[str, Sequence[str]]],
    scores: Mapping[str, pd.DataFrame],
    runs: Mapping[str, tuple[str, str]],
    *,
    depth: int = DEPTH,
    rbo_p: float = RBO_P,
) -> Reproduction:
    """``orderings``: run -> topic -> docids in order; ``scores``: measure -> topics x runs;
    ``runs``: role (baseline, advanced) -> (original, reproduced) run names."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise OptionError(f"the depth compared is a whole number of documents, 1 or more: {depth}")
    if not 0 < rbo_p < 1:  # NaN fails too
        raise OptionError(f"RBO's persistence p is between 0 and 1, both excluded: {rbo_p}")
    rows = []
    for role, (original, reproduced) in runs.items():
        for topic, reproduced_docs in orderings[reproduced].items():
            original_docs = list(orderings[original].get(topic, ()))[:depth]
            docs = list(reproduced_docs)[:depth]
            rows.append(
                {
                    "topic": topic,
                    "role": role,
                    "ktu": kendall_tau_union(original_docs, docs),
                    "rbo": rank_biased_overlap(original_docs, docs, p=rbo_p, depth=depth),
                }
            )
    effects = [_effects(measure, values, runs) for measure, values in scores.items()]
    return Reproduction(
        pd.DataFrame(rows, columns=["topic", "role", "ktu", "rbo"]),
        pd.DataFrame(effects),
        dict(runs),
        depth,
        rbo_p,
    )


def _effects(measure: str, values: pd.DataFrame, runs: Mapping[str, tuple[str, str]]) -> dict:
    """One measure's effects; a value that is not defined on these runs is NaN, and ``undefined``
    says which and why (an effect ratio of runs with one mean, a t test of identical scores)."""
    found: dict[str, object] = {"measure": measure}
    undefined = []
    for role, (original, reproduced) in runs.items():
        o, r = values[original].to_numpy(), values[reproduced].to_numpy()
        rmse = float(np.sqrt(np.sum(np.square(o - r)) / len(o)))
        largest = float(np.sqrt(np.sum(np.square(np.maximum(o, 1 - o))) / len(o)))
        found[f"rmse_{role}"] = rmse
        found[f"nrmse_{role}"] = rmse / largest if largest else float("nan")
        paired, unpaired = _pvalue(stats.ttest_rel, o, r), _pvalue(stats.ttest_ind, o, r)
        found[f"p_paired_{role}"], found[f"p_unpaired_{role}"] = paired, unpaired
        if np.isnan(paired):
            undefined.append(f"p_paired_{role}: the {role}'s differences do not vary")
        if np.isnan(unpaired):
            undefined.append(f"p_unpaired_{role}: neither {role} run's scores vary")
    if len(runs) == 2:
        (b_orig, b_rep), (a_orig, a_rep) = runs["baseline"], runs["advanced"]
        differences = values[a_orig] - values[b_orig]
        improvement_orig = differences.mean()
        improvement_rep = (values[a_rep] - values[b_rep]).mean()
        # no effect, or one that only the last bits of a sum would give
        nothing = decided_signs(improvement_orig, differences.abs().mean()) == 0
        found["er"] = np.nan if nothing else float(improvement_rep / improvement_orig)
        if nothing:
            undefined.append("er: the original runs have the same mean (no effect to reproduce)")
        means = values.mean()
        if means[b_orig] and means[b_rep]:
            ri_orig = (means[a_orig] - means[b_orig]) / means[b_orig]
            ri_rep = (means[a_rep] - means[b_rep]) / means[b_rep]
            found["delta_ri"] = float(ri_orig - ri_rep)
        else:
            found["delta_ri"] = np.nan
            undefined.append("delta_ri: a baseline's mean is 0 (no relative improvement)")
        found["reproduced"], found["why"] = _verdict(found)
    found["undefined"] = "; ".join(undefined)
    return found


def _verdict(found: dict) -> tuple[str, str]:
    """Whether one measure's effect was reproduced (:data:`ER_BAND`, :data:`ALPHA`), and why."""
    er = found["er"]
    if np.isnan(er):
        return "n/a", "the original runs have the same mean: no effect to reproduce"
    if er <= 0:
        return (
            "no",
            f"effect ratio {er:.2f}: the improvement is {'gone' if er == 0 else 'reversed'}",
        )
    differ = [
        f"the {role}'s (paired t p = {found[f'p_paired_{role}']:.2g})"
        for role in ROLES
        if found[f"p_paired_{role}"] < ALPHA  # NaN (identical scores) does not differ
    ]
    low, high = ER_BAND
    if low <= er <= high and not differ:
        return "yes", (
            f"effect ratio {er:.2f}, and neither run's per-topic scores differ from the "
            f"original's at alpha = {ALPHA:g}"
        )
    reasons = [] if low <= er <= high else [f"effect ratio {er:.2f}, outside {low:g} to {high:g}"]
    if differ:
        reasons.append(f"per-topic scores differ from the original's: {', '.join(differ)}")
    return "partly", "; ".join(reasons)


def _pvalue(test, a: np.ndarray, b: np.ndarray) -> float:
    """A t test's p-value, NaN (without numpy's warnings) where the test's variance is zero."""
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(test(a, b).pvalue)
