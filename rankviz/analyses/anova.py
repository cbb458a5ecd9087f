"""Two-way ANOVA without replication (system x topic), as Sakai's book runs it on a topics x systems
matrix: how much of the variance is the systems and how much the topics, F and p of each, the
residual variance, the partial omega-squared effect sizes, the margin of error of a system's mean,
and the topic set size that would bring that margin down to a target (Sakai's CI-based design).

Notation (the book's): m systems, n topics, S_A / S_B / S_E the between-system, between-topic and
residual sums of squares, phi_A = m - 1, phi_B = n - 1, phi_E = phi_A phi_B their degrees of
freedom, V = S / phi the mean squares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from rankviz.errors import OptionError


@dataclass(frozen=True)
class TwoWayAnova:
    """The ANOVA table of one measure on the runs' common topics, and what Sakai derives from it."""

    measure: str
    systems: tuple[str, ...]
    topics: int
    ss_system: float
    ss_topic: float
    ss_residual: float
    confidence_level: float

    @property
    def df_system(self) -> int:
        return len(self.systems) - 1

    @property
    def df_topic(self) -> int:
        return self.topics - 1

    @property
    def df_residual(self) -> int:
        return self.df_system * self.df_topic

    @property
    def ms_system(self) -> float:
        return self.ss_system / self.df_system

    @property
    def ms_topic(self) -> float:
        return self.ss_topic / self.df_topic

    @property
    def residual_variance(self) -> float:
        """V_E, the residual mean square: the variance a system's mean is judged against."""
        return self.ss_residual / self.df_residual

    @property
    def f_system(self) -> float:
        return self.ms_system / self.residual_variance

    @property
    def f_topic(self) -> float:
        return self.ms_topic / self.residual_variance

    @property
    def p_system(self) -> float:
        return float(stats.f.sf(self.f_system, self.df_system, self.df_residual))

    @property
    def p_topic(self) -> float:
        return float(stats.f.sf(self.f_topic, self.df_topic, self.df_residual))

    def omega2(self, ss: float, df: int) -> float:
        """Partial omega squared of an effect (Olejnik & Algina, as Sakai uses it): phi (V - V_E)
        / (S + (m n - phi) V_E)."""
        v_e = self.residual_variance
        return df * (ss / df - v_e) / (ss + (len(self.systems) * self.topics - df) * v_e)

    @property
    def omega2_system(self) -> float:
        return self.omega2(self.ss_system, self.df_system)

    @property
    def omega2_topic(self) -> float:
        return self.omega2(self.ss_topic, self.df_topic)

    def margin_of_error(self, topics: int | None = None) -> float:
        """Half the width of a system mean's confidence interval at the confidence level:
        t(phi_E) sqrt(V_E / n) (with ``topics``: had there been that many, the variance kept)."""
        n = self.topics if topics is None else topics
        df = self.df_system * (n - 1)
        quantile = stats.t.ppf(0.5 + self.confidence_level / 2, df)
        return float(quantile * np.sqrt(self.residual_variance / n))

    @property
    def moe(self) -> float:
        return self.margin_of_error()

    def topics_for(self, target: float) -> int:
        """The fewest topics whose margin of error is at most ``target`` (Sakai's topic set size
        design from a confidence interval's width), V_E taken as the variance to expect. The margin
        falls as topics are added (the t quantile with its degrees of freedom, and sqrt(V_E / n)),
        so a bisection finds it in a few dozen quantiles, not one per topic (tens of thousands for
        a target of half today's margin on thousands of topics)."""
        if target <= 0:
            raise OptionError(f"the target margin of error must be positive, not {target}")
        most = 10**7
        if self.margin_of_error(most) > target:
            raise OptionError(f"no topic set of up to 10^7 topics reaches a margin of {target}")
        if self.margin_of_error(2) <= target:
            return 2
        over, within = 2, most  # the margin over the target at ``over``, within it at ``within``
        while within - over > 1:
            middle = (over + within) // 2
            if self.margin_of_error(middle) > target:
                over = middle
            else:
                within = middle
        return within

    def describe(self) -> str:
        return (
            f"two-way ANOVA without replication (system x topic): {len(self.systems)} systems, "
            f"{self.topics} topics every one answers; partial omega squared; margin of error "
            f"t({self.df_residual}) sqrt(V_E / n) at {self.confidence_level:.0%}"
        )

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "systems": list(self.systems),
            "topics": self.topics,
            "ss_system": self.ss_system,
            "ss_topic": self.ss_topic,
            "ss_residual": self.ss_residual,
            "df_system": self.df_system,
            "df_topic": self.df_topic,
            "df_residual": self.df_residual,
            "f_system": self.f_system,
            "p_system": self.p_system,
            "f_topic": self.f_topic,
            "p_topic": self.p_topic,
            "residual_variance": self.residual_variance,
            "omega2_system": self.omega2_system,
            "omega2_topic": self.omega2_topic,
            "moe": self.moe,
            "confidence_level": self.confidence_level,
        }

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``anova``: the table (source, sum of squares, df, mean square, F, p, partial omega
        squared)."""
        table = pd.DataFrame(
            {
                "source": ["system", "topic", "residual"],
                "sum_sq": [self.ss_system, self.ss_topic, self.ss_residual],
                "df": [self.df_system, self.df_topic, self.df_residual],
                "mean_sq": [self.ms_system, self.ms_topic, self.residual_variance],
                "F": [self.f_system, self.f_topic, np.nan],
                "p_value": [self.p_system, self.p_topic, np.nan],
                "omega2": [self.omega2_system, self.omega2_topic, np.nan],
            }
        )
        return {"anova": table}


def two_way_anova(
    values: pd.DataFrame, *, measure: str = "", confidence_level: float = 0.95
) -> TwoWayAnova:
    """The ANOVA of a topics x systems matrix (the topics some system has no value for are left
    out: the design needs every cell)."""
    complete = values.dropna()
    topics, systems = complete.shape
    if systems < 2 or topics < 2:
        raise OptionError(
            f"a two-way ANOVA needs two or more systems and two or more topics every system "
            f"answers; here {systems} systems and {topics} topics"
        )
    x = complete.to_numpy(dtype=np.float64)
    if np.all(x == x[:, :1] + x[:1, :] - x[0, 0]):
        raise OptionError(
            "no residual variance: every system's lead over another is the same on every topic, "
            "so F is undefined"
        )
    overall = x.mean()
    system_means, topic_means = x.mean(axis=0), x.mean(axis=1)
    ss_system = topics * float(((system_means - overall) ** 2).sum())
    ss_topic = systems * float(((topic_means - overall) ** 2).sum())
    residual = x - system_means[None, :] - topic_means[:, None] + overall
    return TwoWayAnova(
        measure,
        tuple(map(str, complete.columns)),
        topics,
        ss_system,
        ss_topic,
        float((residual**2).sum()),
        confidence_level,
    )
