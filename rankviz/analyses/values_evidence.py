"""What per-query values alone say of the measures, where there are no rankings and no qrels (per-
query scores of any evaluator): how far the measures agree on the runs' order (Kendall's tau,
tau-AP), how many run pairs each separates (discriminative power, Sakai 2006) and how often two
halves of the queries swap a pair (swap rate, Voorhees & Buckley 2002). The task, the
recommendations and the tie, threshold and gmax stability of the metric-choice report need the
qrels and the rankings (:mod:`rankviz.analyses.metric_choice`), which takes its evidence from here
and adds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rankviz.analyses.measure_evidence import agreement, discriminative_power, swap_rates
from rankviz.settings.report_settings import MetricSettings

if TYPE_CHECKING:
    import pandas as pd

    from rankviz.evaluation.result import Evaluation


@dataclass(frozen=True, eq=False)
class ValuesEvidence:
    """The evidence on measures that their per-query values give (see the module)."""

    measures: tuple[str, ...]
    means: pd.DataFrame
    kendall: pd.DataFrame
    tau_ap: pd.DataFrame
    power: pd.DataFrame
    asl: pd.DataFrame
    stability: pd.DataFrame  # per measure: swap rate
    options: MetricSettings = field(default_factory=MetricSettings)

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """As the metric-choice report's: ``means``, ``kendall``, ``tau_ap``,
        ``discriminative_power``, ``stability`` (swap rate only) and ``asl``."""
        return {
            "means": self.means,
            "kendall": self.kendall,
            "tau_ap": self.tau_ap,
            "discriminative_power": self.power,
            "stability": self.stability,
            "asl": self.asl,
        }

    def to_dict(self) -> dict:
        frames = self.to_frames()
        asl = frames.pop("asl")
        return {
            "measures": list(self.measures),
            **{name: frame.to_dict(orient="index") for name, frame in frames.items()},
            "asl": asl.to_dict(orient="records"),
        }

    def describe(self) -> str:
        return (
            "From the per-query values alone: no task and no recommendations (they read the "
            "qrels), no tie, threshold or gmax stability (they read the rankings)"
        )


def values_evidence(
    evaluation: Evaluation,
    options: MetricSettings | None = None,
    *,
    rng: np.random.Generator | int | None = None,
) -> ValuesEvidence:
    """The evidence of ``evaluation``'s measures (its means under its aggregate; tests and swap
    rates on the queries)."""
    options = options or MetricSettings()
    matrices = {str(m): evaluation.matrix(m) for m in evaluation.measures}
    means = evaluation.means()
    tests_rng = np.random.default_rng(options.seed if rng is None else rng)
    (halves_rng,) = tests_rng.spawn(1)
    power, asl = discriminative_power(
        matrices,
        test=options.test,
        alpha=options.alpha,
        n_resamples=options.n_resamples,
        rng=tests_rng,
    )
    return ValuesEvidence(
        measures=tuple(matrices),
        means=means,
        kendall=agreement(means),
        tau_ap=agreement(means, method="tau_ap"),
        power=power,
        asl=asl,
        stability=swap_rates(matrices, trials=options.splits, rng=halves_rng).to_frame(),
        options=options,
    )
