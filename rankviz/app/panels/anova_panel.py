"""The Significance page's two-way ANOVA (system x topic) of the selected runs on one measure: how
much of the variance is the systems and how much the topics, with the margin of error of a run's
mean and the topics a target margin would need (:mod:`rankviz.analyses.anova`)."""

from __future__ import annotations

import streamlit as st

from rankviz.app.frame.context import Context
from rankviz.app.widgets.text import md
from rankviz.errors import RankvizError
from rankviz.settings.numbers import p_text
from rankviz.study import ANOVA, Measure

#: The table's headers in words (the frame keeps the API's names, which exports use).
HEADERS = {
    "source": "source of variance",
    "sum_sq": "sum of squares",
    "df": "degrees of freedom",
    "mean_sq": "mean square",
    "p_value": "p",
    "omega2": "partial ω²",
}


def anova_panel(ctx: Context, measure: Measure, confidence_level: float) -> None:
    st.subheader("Two-way ANOVA (system x topic)")
    try:
        result = ctx.ask(ANOVA, measure, confidence_level=confidence_level)
    except RankvizError as exc:  # fewer than two topics every run answers, or no residual
        st.caption(md(exc))
        return
    table = result.to_frames()["anova"].set_index("source")
    st.dataframe(
        table.style.format(
            {
                "sum_sq": "{:.4f}",
                "mean_sq": "{:.4f}",
                "F": "{:.3f}",
                "p_value": p_text,
                "omega2": "{:.3f}",
            },
            na_rep="",
        ),
        width="stretch",
        column_config=HEADERS,
    )
    target = st.number_input(
        "Target margin of error",
        min_value=0.001,
        max_value=1.0,
        value=round(result.moe / 2, 3) or 0.001,
        step=0.005,
        format="%.3f",
        key=ctx.url.key("target_moe", "significance", str(measure)),
    )
    st.caption(
        md(result.describe())
        + f". Residual variance {result.residual_variance:.4g}; a run's mean is within "
        f"±{result.moe:.4f} at {result.confidence_level:.0%} ({result.topics} topics); "
        f"{result.topics_for(target):,} topics would bring that to ±{target:.3f} (Sakai's topic "
        "set size design, the residual variance kept). Partial ω² (omega squared): the share of "
        "the variance each factor explains."
    )
