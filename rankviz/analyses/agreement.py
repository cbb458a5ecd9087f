"""Two sources of judgments side by side: how far they agree, and what changes for the runs.

On the (query, document) pairs both judge: exact agreement, Cohen's kappa unweighted and linearly
weighted (as ``sklearn.metrics.cohen_kappa_score`` over the grades from the lowest to the highest
either gives), the confusion of grades, and leniency (B's grades against A's); binarised at the
relevance threshold, kappa and B's precision and recall against A; kappa per query. Then coverage:
the pairs only one judges, and the share of A's holes in the runs' top K that B fills. With runs,
each measure's means under A, under B and under A with its holes filled by B, and how alike A and B
order the runs (Kendall's tau-b, tau-AP of Yilmaz et al. 2008, Spearman), the runs whose rank
moves, and each pair of runs whose significance verdict flips.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from rankviz.analyses.judge_agreement import codes, judged_pairs, kappa, kappa_words, kappas
from rankviz.analyses.measure_evidence import tau_ap
from rankviz.settings.eval_settings import REL

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.io.model import Qrels

#: A tau from here up: the ordering "barely moves" (Voorhees 2000's equivalence threshold).
TAU_EQUIVALENT = 0.9
TOP_RUNS = 3  # the top runs whose agreement is reported
QUERIES_LISTED = 10


@dataclass(frozen=True)
class Ranking:
    """How A and B order the runs by one measure."""

    measure: str
    means_a: dict[str, float]
    means_b: dict[str, float]
    means_filled: dict[str, float]  # A with its holes filled by B
    kendall_tau: float
    tau_ap: float
    spearman: float
    top_agreement: float  # the share of A's top runs that are B's top runs
    moved: tuple[str, ...]  # runs whose rank differs
    # pairs of runs whose verdict differs: baseline, run, verdict_a, verdict_b
    flips: tuple[dict, ...] = ()
    # run -> B's value minus A's on the queries both judge: mean, 95% interval, queries
    differences: dict[str, tuple[float, float, float, int]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "kendall_tau": self.kendall_tau,
            "tau_ap": self.tau_ap,
            "spearman": self.spearman,
            "means_a": self.means_a,
            "means_b": self.means_b,
            "means_filled": self.means_filled,
            "top_agreement": self.top_agreement,
            "moved": list(self.moved),
            "flips": list(self.flips),
            "differences": {run: list(d) for run, d in self.differences.items()},
        }


def ranking(
    measure: str,
    means_a: Mapping[str, float],
    means_b: Mapping[str, float],
    means_filled: Mapping[str, float],
    flips: Sequence[dict] = (),
    differences: Mapping[str, tuple[float, float, float, int]] | None = None,
) -> Ranking:
    """The agreement of two orderings of the same runs (by their means under A and under B)."""
    runs = list(means_a)
    x, y = np.array([means_a[r] for r in runs]), np.array([means_b[r] for r in runs])
    rank_a, rank_b = stats.rankdata(-x, method="min"), stats.rankdata(-y, method="min")
    top = min(TOP_RUNS, len(runs))
    best_a, best_b = (
        set(np.array(runs)[np.argsort(-x, kind="stable")[:top]]),
        set(np.array(runs)[np.argsort(-y, kind="stable")[:top]]),
    )
    # a constant ordering has no correlation
    varied = len(runs) > 1 and np.ptp(x) > 0 and np.ptp(y) > 0
    tau = float(stats.kendalltau(x, y).statistic) if varied else float("nan")
    rho = float(stats.spearmanr(x, y).statistic) if varied else float("nan")
    moved = tuple(r for r, p, q in zip(runs, rank_a, rank_b, strict=True) if p != q)
    return Ranking(
        measure,
        dict(means_a),
        dict(means_b),
        dict(means_filled),
        tau,
        tau_ap(x, y),
        rho,
        len(best_a & best_b) / top if top else float("nan"),
        moved,
        tuple(flips),
        dict(differences or {}),
    )


@dataclass(frozen=True)
class AgreementReport:
    """Two sources of judgments compared (:func:`agreement`); ``to_dict`` is ``rankviz agreement
    --format json``."""

    name_a: str
    name_b: str
    kind_a: str
    kind_b: str
    rel: int
    pairs: pd.DataFrame  # qid, docid, grade_a, grade_b: every pair either judges
    labels: tuple[int, ...]
    # run -> (A's unjudged top-K pairs, B judges of them)
    holes: dict[str, tuple[int, int]] = field(default_factory=dict)
    k: int = 10
    rankings: tuple[Ranking, ...] = ()

    # --- the pairs both judge -----------------------------------------------------------------

    @property
    def both(self) -> pd.DataFrame:
        return self.pairs.dropna(subset=["grade_a", "grade_b"]).astype(
            {"grade_a": int, "grade_b": int}
        )

    def confusion(self) -> dict[int, dict[int, int]]:
        """``{grade_a: {grade_b: count}}`` over the labels (zeros included)."""
        both = self.both
        counts = both.groupby(["grade_a", "grade_b"]).size()
        return {a: {b: int(counts.get((a, b), 0)) for b in self.labels} for a in self.labels}

    def summary(self) -> dict:
        """The agreement numbers on the pairs both judge, binarised too, and the coverage."""
        both = self.both
        a, b = both["grade_a"].to_numpy(), both["grade_b"].to_numpy()
        rel_a, rel_b = a >= self.rel, b >= self.rel
        n = len(both)
        return {
            "pairs": n,
            "agreement": float((a == b).mean()) if n else float("nan"),
            "kappa": kappa(a, b, labels=self.labels),
            "kappa_linear": kappa(a, b, labels=self.labels, weights="linear"),
            # B - A: above 0, B is more lenient
            "mean_difference": float((b - a).mean()) if n else float("nan"),
            "kappa_binary": kappa(rel_a, rel_b, labels=[False, True]),
            "precision_b": float((rel_a & rel_b).sum() / rel_b.sum())
            if rel_b.any()
            else float("nan"),
            "recall_b": float((rel_a & rel_b).sum() / rel_a.sum()) if rel_a.any() else float("nan"),
            "b_relevant_of_a_nonrelevant": float(rel_b[~rel_a].mean())
            if (~rel_a).any()
            else float("nan"),
            "b_nonrelevant_of_a_relevant": float((~rel_b[rel_a]).mean())
            if rel_a.any()
            else float("nan"),
            "only_a": int((self.pairs["grade_a"].notna() & self.pairs["grade_b"].isna()).sum()),
            "only_b": int((self.pairs["grade_b"].notna() & self.pairs["grade_a"].isna()).sum()),
        }

    def per_query(self) -> pd.DataFrame:
        """Per query with pairs both judge: pairs, agreement, kappa; those that disagree most
        first. Every query's confusion matrix at once (one count over query x grade x grade)."""
        import pandas as pd

        both, size = self.both, len(self.labels)
        query, qids = pd.factorize(both["qid"], sort=False)
        a, b = both["grade_a"].to_numpy(), both["grade_b"].to_numpy()
        cells = (query * size + codes(a, self.labels)) * size + codes(b, self.labels)
        observed = np.bincount(cells, minlength=len(qids) * size * size).reshape(-1, size, size)
        pairs = observed.sum(axis=(1, 2))
        same = np.bincount(query, weights=(a == b), minlength=len(qids))
        difference = np.bincount(query, weights=(b - a).astype(float), minlength=len(qids))
        frame = pd.DataFrame(
            {
                "qid": np.asarray(qids, dtype=object),
                "pairs": pairs,
                "agreement": same / pairs,
                "kappa": kappas(observed),
                "mean_difference": difference / pairs,
            }
        )
        return frame.sort_values(
            ["agreement", "kappa", "qid"], na_position="last", kind="stable"
        ).reset_index(drop=True)

    def leniency(self) -> pd.DataFrame:
        """Per grade of A, the share of each grade B gives (rows sum to 1)."""
        import pandas as pd

        table = pd.DataFrame(self.confusion()).T.rename_axis(index="grade_a", columns="grade_b")
        return table.div(table.sum(axis=1).replace(0, np.nan), axis=0)

    def scale(self, column: str) -> tuple[int, int]:
        """The lowest and highest grade one source gives (``grade_a`` or ``grade_b``), over every
        pair it judges."""
        grades = self.pairs[column].dropna()
        return (int(grades.min()), int(grades.max())) if len(grades) else (0, 0)

    # --- in words -----------------------------------------------------------------------------

    def verdicts(self) -> list[str]:
        """The plain-language reading of the numbers."""
        s = self.summary()
        a, b = self.name_a, self.name_b
        if not s["pairs"]:
            return [f"{a} and {b} judge no pair in common: nothing to compare but their coverage"]
        lines = [
            f"{a} and {b} agree on {s['agreement']:.0%} of the {s['pairs']:,} pairs both "
            f"judge; kappa {s['kappa']:.2f} "
            f"({kappa_words(s['kappa'])}), linear-weighted {s['kappa_linear']:.2f}"
        ]
        scale_a, scale_b = self.scale("grade_a"), self.scale("grade_b")
        if scale_a != scale_b:
            lines.append(
                f"the scales differ ({a} grades {scale_a[0]} to {scale_a[1]}, {b} {scale_b[0]} to "
                f"{scale_b[1]}): "
                "agreement and kappa compare the grades as numbers, so read the binarised kappa "
                f"(relevant from grade {self.rel}) or map one scale onto the other first"
            )
        up, down = s["b_relevant_of_a_nonrelevant"], s["b_nonrelevant_of_a_relevant"]
        if np.isfinite(up) and np.isfinite(down) and up != down:
            if up > down:
                lines.append(
                    f"{b} is more lenient: {up:.0%} of {a}'s non-relevant pairs get grade "
                    f"{self.rel} or more"
                )
            else:
                lines.append(
                    f"{b} is stricter: {down:.0%} of {a}'s relevant pairs get a grade "
                    f"below {self.rel}"
                )
        for r in self.rankings:
            runs = len(r.means_a)
            if not np.isfinite(r.kendall_tau):
                continue
            if r.kendall_tau >= TAU_EQUIVALENT:
                lines.append(
                    f"the ordering of the {runs} runs by {r.measure} barely moves: tau "
                    f"{r.kendall_tau:.2f}"
                )
            else:
                lines.append(
                    f"the ordering of the {runs} runs by {r.measure} changes: tau "
                    f"{r.kendall_tau:.2f}, tau-AP {r.tau_ap:.2f}; {len(r.moved)} runs move"
                )
            apart = {
                run: d for run, d in r.differences.items() if d[1] > 0 or d[2] < 0
            }  # the interval leaves out 0
            if apart:
                run, (mean, low, high, n) = max(apart.items(), key=lambda kv: abs(kv[1][0]))
                side = "above" if mean > 0 else "below"
                lines.append(
                    f"{b} scores {run} {abs(mean):.2f} {side} {a} on {r.measure} ({low:+.2f} to "
                    f"{high:+.2f}, {n} queries both judge); {len(apart)} of {runs} runs differ"
                )
            if r.flips:
                pairs = (
                    "1 pair of runs changes its"
                    if len(r.flips) == 1
                    else (f"{len(r.flips)} pairs of runs change their")
                )
                lines.append(f"{pairs} significance verdict on {r.measure}")
        if any(kind.startswith("llm") for kind in (self.kind_a, self.kind_b)):
            judge = b if self.kind_b.startswith("llm") else a
            lines.append(
                f"{judge} is an LLM judge: runs built on the same or a similar model may "
                "be favoured by it (circularity); check which runs use LLMs before trusting their "
                "gains under it"
            )
        return lines

    # --- renderings ---------------------------------------------------------------------------

    def to_dict(self) -> dict:
        s = self.summary()
        return {
            "a": {"name": self.name_a, "kind": self.kind_a},
            "b": {"name": self.name_b, "kind": self.kind_b},
            "rel": self.rel,
            **s,
            "confusion": {
                str(a): {str(b): n for b, n in row.items()} for a, row in self.confusion().items()
            },
            "holes": {
                run: {"unjudged_by_a": n, "judged_by_b": m} for run, (n, m) in self.holes.items()
            },
            "k": self.k,
            "queries": self.per_query().head(QUERIES_LISTED).to_dict(orient="records"),
            "rankings": [r.to_dict() for r in self.rankings],
            "verdicts": self.verdicts(),
        }

    def to_frames(self) -> dict[str, pd.DataFrame]:
        import pandas as pd

        summary = pd.DataFrame([self.summary()])
        confusion = pd.DataFrame(self.confusion()).T.rename_axis(index="grade_a", columns="grade_b")
        rankings = pd.DataFrame(
            [
                {k: v for k, v in r.to_dict().items() if not isinstance(v, (dict, list))}
                | {"moved": ", ".join(r.moved), "flips": len(r.flips)}
                for r in self.rankings
            ]
        )
        means = pd.DataFrame(
            [
                {
                    "measure": r.measure,
                    "run": run,
                    "mean_a": r.means_a[run],
                    "mean_b": r.means_b[run],
                    "mean_filled": r.means_filled[run],
                    **dict(
                        zip(
                            ("b_minus_a", "b_minus_a_low", "b_minus_a_high", "queries_both"),
                            r.differences.get(run, (float("nan"),) * 3 + (0,)),
                            strict=True,
                        )
                    ),
                }
                for r in self.rankings
                for run in r.means_a
            ]
        )
        holes = pd.DataFrame(
            [
                {
                    "run": run,
                    "unjudged_by_a": n,
                    "judged_by_b": m,
                    "share": m / n if n else float("nan"),
                }
                for run, (n, m) in self.holes.items()
            ]
        )
        flips = pd.DataFrame([{"measure": r.measure, **f} for r in self.rankings for f in r.flips])
        return {
            "summary": summary,
            "confusion": confusion,
            "leniency": self.leniency(),
            "queries": self.per_query(),
            "rankings": rankings,
            "means": means,
            "holes": holes,
            "flips": flips,
        }


def agreement(
    a: Qrels,
    b: Qrels,
    *,
    names: tuple[str, str] = ("A", "B"),
    kinds: tuple[str, str] = ("", ""),
    rel: int = 1,
    holes: Mapping[str, tuple[int, int]] | None = None,
    k: int = 10,
    rankings: Sequence[Ranking] = (),
) -> AgreementReport:
    """``a`` and ``b`` compared; the runs' part (``holes``, ``rankings``) comes from the study that
    has the runs.
    ``rel`` binarises the grades as everywhere else (from 1, as trec_eval -l: grade 0 is not
    relevant)."""
    rel = REL.check(rel)
    pairs = judged_pairs(a, b)
    grades = np.concatenate([a.grade, b.grade]).astype(int)
    labels = tuple(range(int(grades.min()), int(grades.max()) + 1)) if len(grades) else (0,)
    return AgreementReport(
        names[0],
        names[1],
        kinds[0],
        kinds[1],
        rel,
        pairs,
        labels,
        dict(holes or {}),
        k,
        tuple(rankings),
    )
