"""Reproducibility: did the reproduction reproduce. Two runs of the collection taken as the
original baseline and advanced run, two as their reproductions: the orderings' KTU and RBO, the
effects' RMSE, effect ratio and delta RI, and the t tests, per measure of the frame."""

import streamlit as st

from rankviz.app.frame.page_frame import open_page
from rankviz.app.widgets.option_widgets import url_selectbox
from rankviz.app.widgets.text import md
from rankviz.study import ALPHA, ER_BAND, REPRODUCTION

ctx = open_page("repro")
st.header("Reproducibility")
names = ctx.selected
if len(names) < 4:
    st.info(
        "Choose four runs in the sidebar: an original baseline and advanced run and their "
        "reproductions."
    )
    st.stop()
left, right = st.columns(2)
roles = [
    ("orig_b", "Original baseline", left),
    ("orig_a", "Original advanced", left),
    ("rep_b", "Reproduced baseline", right),
    ("rep_a", "Reproduced advanced", right),
]
# which runs reproduce which is the collection's to say ([reproduction] in its collection.toml);
# elsewhere the person says it, and no verdict is given until then
declared = ctx.collection.config.reproduction
roles_said = [*declared.original, *declared.reproduced] if declared else []
defaults = dict(zip([key for key, _, _ in roles], roles_said, strict=False))
chosen = {}
for key, label, column in roles:
    chosen[key] = url_selectbox(
        ctx,
        column,
        label,
        ["", *names],
        key,
        "repro",
        format_func=lambda name: name or "choose a run",
        default=defaults.get(key, ""),
    )
ctx.url.write(**{key: value or None for key, value in chosen.items()})
if not all(chosen.values()):
    if declared:
        st.info(
            md(
                f"This collection declares {', '.join(declared.original)} reproduced by "
                f"{', '.join(declared.reproduced)}: select them in the sidebar, or choose four "
                "runs above."
            )
        )
    else:
        st.info(
            "Which runs reproduce which? This collection declares no reproduction ([reproduction] "
            "in its collection.toml): choose the original baseline and advanced run and their "
            "reproductions above. No verdict until then."
        )
    st.stop()
if len(set(chosen.values())) < 4:
    st.warning("Choose four different runs.")
    st.stop()
original, reproduced = [chosen["orig_b"], chosen["orig_a"]], [chosen["rep_b"], chosen["rep_a"]]
result = ctx.among([*original, *reproduced]).ask(REPRODUCTION, original, reproduced)
frames = result.to_frames()
verdict, why = result.verdict()
shown = {"yes": st.success, "partly": st.warning, "no": st.error}.get(verdict, st.info)
shown(f"**Reproduced: {verdict}**. {md(why)}.")
st.caption(
    f"Yes: an effect ratio from {ER_BAND[0]:g} to {ER_BAND[1]:g} (the reproduced improvement at "
    "least half, at most twice the original's) and neither reproduced run's per-topic scores "
    f"different from its original's (paired t test, alpha = {ALPHA:g}); partly: an improvement "
    "short of that; no: none, or a reversed one."
)
st.subheader("The orderings")
#: The tables' headers in words (the frames keep the API's names, which exports use).
HEADERS = {
    "role": "run",
    "ktu": "Kendall's tau union",
    "rbo": "rank-biased overlap",
    "rmse_baseline": "RMSE, baseline",
    "nrmse_baseline": "normalised RMSE, baseline",
    "p_paired_baseline": "paired t p, baseline",
    "p_unpaired_baseline": "unpaired t p, baseline",
    "rmse_advanced": "RMSE, advanced",
    "nrmse_advanced": "normalised RMSE, advanced",
    "p_paired_advanced": "paired t p, advanced",
    "p_unpaired_advanced": "unpaired t p, advanced",
    "er": "effect ratio",
    "delta_ri": "Δ relative improvement",
    "undefined": "why undefined",
}
st.dataframe(
    frames["orderings"].style.format({"ktu": "{:.3f}", "rbo": "{:.3f}"}),
    hide_index=True,
    column_config=HEADERS,
)
st.caption(
    "Kendall's tau union (1: the same order of the documents both rankings hold) and rank-biased "
    f"overlap (p = {result.rbo_p:g}) of each reproduced run's rankings with its original's, "
    "averaged over the topics."
)
st.subheader("The effects")
effects = frames["effects"]
if not effects["undefined"].fillna("").astype(str).str.strip().any():
    effects = effects.drop(columns=["undefined"])  # a column only where a value is undefined
st.dataframe(effects, hide_index=True, width="stretch", column_config=HEADERS)
st.caption(
    md(result.describe())
    + ". RMSE near 0 and ER near 1 mean the per-topic scores and the improvement were reproduced; "
    "a small p says the reproduced scores differ from the original's."
)
